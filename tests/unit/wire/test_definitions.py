"""askcli schema: the tool definition generated from the pydantic models."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from askcli.errors import InvalidCall
from askcli.schema.extended_questions import is_extended
from askcli.schema.inputs import parse_ask as parse_input
from askcli.wire.definitions import (
    DESCRIPTION,
    DIALECT_FORMATS,
    FORMATS,
    input_schema,
    tool_definition,
)

from tests.support.calls import question
from tests.support.paths import EXAMPLES, ROOT
from tests.support.processes import askcli_path

CORPUS = sorted((ROOT / "tests" / "corpus").glob("aq-*.json"))


def all_example_inputs() -> list[Any]:
    """The AskUserQuestion inputs of the corpus and of the bundled examples."""
    inputs = [json.loads(p.read_text())["tool_use"]["input"] for p in CORPUS]
    for path in sorted(EXAMPLES.glob("*.json")):
        doc = json.loads(path.read_text())
        blocks = doc.get("content") if isinstance(doc.get("content"), list) else [doc]
        for block in blocks:
            if block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                inputs.append(block["input"])
            elif "questions" in block:
                inputs.append(block)
    return inputs


def example_inputs() -> list[Any]:
    """Those of the seed's schema."""
    return [data for data in all_example_inputs() if not is_extended(data)]


def test_the_examples_are_found() -> None:
    assert len(example_inputs()) == len(CORPUS) + 4
    assert len(all_example_inputs()) == len(CORPUS) + 5  # one of Claude Code's extended kinds


@pytest.mark.parametrize("data", [d for d in all_example_inputs() if is_extended(d)])
def test_an_extended_example_validates_against_claude_code_s_extended_schema(data: Any) -> None:
    from askcli.wire.claude_code_tool import definition

    schema = definition(extended=True)["input_schema"]
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def test_the_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(input_schema())


@pytest.mark.parametrize("data", example_inputs())
def test_every_bundled_and_real_call_validates_against_the_schema(data: Any) -> None:
    jsonschema.validate(data, input_schema(), cls=jsonschema.Draft202012Validator)


def _bad_inputs() -> list[Any]:
    q = question()
    no_options = {**q, "options": q["options"][:1]}
    null_preview = {**q, "options": [{**q["options"][0], "preview": None}, q["options"][1]]}
    return [
        {},
        {"questions": []},
        {"questions": [q] * 5},
        {"questions": [q], "caller": "x"},
        {"questions": [no_options]},
        {"questions": [{**q, "multiSelect": "true"}]},
        {"questions": [null_preview]},
        {"questions": [q], "answers": {"Which one?": 1}},
        {"questions": [q], "metadata": None},
    ]


@pytest.mark.parametrize("data", _bad_inputs())
def test_the_schema_and_the_models_refuse_the_same_inputs(data: Any) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, input_schema(), cls=jsonschema.Draft202012Validator)
    with pytest.raises(InvalidCall):
        parse_input(data)


def test_the_schema_is_self_contained_and_keeps_the_seeds_descriptions() -> None:
    text = json.dumps(input_schema())
    assert "$ref" not in text and '"title"' not in text and '"null"' not in text
    question_schema = input_schema()["properties"]["questions"]["items"]
    assert question_schema["properties"]["header"]["description"].startswith(
        "Very short label displayed as a chip/tag (max 12 chars)."
    )
    assert question_schema["required"] == ["question", "header", "options"]
    assert input_schema()["additionalProperties"] is False


def test_formats() -> None:
    anthropic = tool_definition("anthropic")
    assert list(anthropic) == ["name", "description", "input_schema"]
    assert anthropic["name"] == "AskUserQuestion" and anthropic["description"] == DESCRIPTION
    openai = tool_definition("openai")
    assert openai["type"] == "function"
    assert openai["function"]["parameters"] == anthropic["input_schema"]
    assert tool_definition("json-schema")["$schema"].startswith("https://json-schema.org/")
    with pytest.raises(ValueError, match="unknown format"):
        tool_definition("xml")


@pytest.mark.process
@pytest.mark.parametrize("fmt", ["anthropic", "openai", "json-schema"])
def test_schema_command(fmt: str) -> None:
    proc = subprocess.run(
        [str(askcli_path()), "schema", "--format", fmt], capture_output=True, text=True, timeout=10
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == tool_definition(fmt)


@pytest.mark.process
def test_schema_command_default_and_bad_format(tmp_path: Path) -> None:
    default = subprocess.run(
        [str(askcli_path()), "schema"], capture_output=True, text=True, timeout=10
    )
    assert json.loads(default.stdout)["name"] == "AskUserQuestion"
    bad = subprocess.run(
        [str(askcli_path()), "schema", "--format", "xml"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert bad.returncode == 2


def test_the_cli_offers_every_format() -> None:
    from askcli.cli.asking import schema

    choices = next(p for p in schema.params if p.name == "fmt").type.choices  # type: ignore[attr-defined]
    assert tuple(choices) == FORMATS + DIALECT_FORMATS


@pytest.mark.process
@pytest.mark.parametrize("fmt", FORMATS + DIALECT_FORMATS)
def test_schema_prints_what_it_printed_before_its_schemas_became_data_files(fmt: str) -> None:
    """tests/data/schema-FORMAT.json: ``askcli schema --format FORMAT``'s stdout, kept."""
    proc = subprocess.run(
        [str(askcli_path()), "schema", "--format", fmt], capture_output=True, timeout=10
    )
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout == (ROOT / "tests" / "data" / f"schema-{fmt}.json").read_bytes()


@pytest.mark.parametrize("fmt", ["claude-code", "claude-code-extended", "elicitation"])
def test_a_definition_read_from_package_data_is_the_callers_own(fmt: str) -> None:
    first = tool_definition(fmt)
    first.clear()
    assert tool_definition(fmt) != {}


def test_the_elicitation_schema_lists_the_string_formats_askcli_checks() -> None:
    from askcli.schema.value_rules import FORMATS as STRING_FORMATS

    defs = tool_definition("elicitation")["$defs"]
    assert defs["StringSchema"]["properties"]["format"]["enum"] == list(STRING_FORMATS)
