"""Fuzzing: calls built from the models' shape, mutated real calls, random answer lines.

Every case must end with its result line(s) on stdout, an exit status of SPEC 6, no
exception and no hang. The seed is fixed (``derandomize``); ``make fuzz`` runs ten times
as many cases (``HYPOTHESIS_PROFILE=fuzz``).
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import unicodedata
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from askcli.errors import InvalidCall, Refused, UnreadableDocument
from askcli.lines import BytesLineReader, TextLineReader
from askcli.questions.answers import Default, Pick, normalize, parse_question_line
from askcli.runners.recordings import play
from askcli.runners.session import run
from askcli.schema.inputs import fast_ask, fast_todos, parse_ask
from askcli.schema.models import validate_ask, validate_todos
from askcli.schema.shapes import AskInput
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.wire.envelopes import EnvelopeKind, detect

from tests.support.paths import ROOT

settings.register_profile(
    "default",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("fuzz", parent=settings.get_profile("default"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

pytestmark = pytest.mark.slow
SCALE = 10 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1  # make fuzz: 10x
# 2,500 + 2,000 + 1,000 + 500 cases of calls and answers in make test, and 2,500 checking
# that the fast check of askcli.schema.inputs and the pydantic models agree

STATUSES = {0, 1, 2, 3}
CASE_SECONDS = 10  # a bound, not a speed target: a hang would never end
CORPUS = [json.loads(p.read_text()) for p in sorted((ROOT / "tests" / "corpus").glob("*.json"))]
CALLS = [record["tool_use"] for record in CORPUS]

# text with everything a model could send: controls, escapes, bidi, wide and odd characters
texts = st.lists(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(["\x1b[2J", "\x1b]52;c;AA\x07", "\x9b", "\u202e", "\x00", "\r", "?"]),
    max_size=20,
).map("".join)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, sometimes any JSON value: the models' near misses."""
    return st.one_of(strategy, strategy, strategy, json_values)


options = st.fixed_dictionaries(
    {"label": maybe(texts), "description": maybe(texts)},
    optional={"preview": maybe(texts), "extra": json_values},
)
questions = st.fixed_dictionaries(
    {
        "question": maybe(texts),
        "header": maybe(texts),
        "options": maybe(st.lists(options, min_size=0, max_size=5)),
    },
    optional={"multiSelect": maybe(st.booleans())},
)
inputs = st.fixed_dictionaries(
    {"questions": maybe(st.lists(questions, min_size=0, max_size=5))},
    optional={
        "answers": maybe(st.dictionaries(texts, texts, max_size=2)),
        "annotations": json_values,
        "metadata": json_values,
        "caller": json_values,
    },
)
todo_inputs = st.fixed_dictionaries(
    {
        "todos": maybe(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "content": maybe(texts),
                        "status": st.sampled_from(["pending", "in_progress", "completed", "done"]),
                        "activeForm": maybe(texts),
                    }
                ),
                max_size=4,
            )
        )
    }
)


def envelope(kind: str, name: str, value: Any) -> dict[str, Any]:
    """``value`` as the input of one call, in the envelope ``kind``."""
    block = {"type": "tool_use", "id": "toolu_fuzz", "name": name, "input": value}
    if kind == "tool_use":
        return block
    if kind == "message":
        return {"role": "assistant", "content": [{"type": "text", "text": "ctx"}, block]}
    if kind == "stream-json":
        return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}
    if kind == "control":
        request = {"subtype": "can_use_tool", "tool_name": name, "input": value}
        return {"type": "control_request", "request_id": "r", "request": request}
    arguments = json.dumps(value)
    if kind == "openai":
        function = {"name": name, "arguments": arguments}
        return {"id": "call_fuzz", "type": "function", "function": function}
    return {"type": "function_call", "call_id": "c", "name": name, "arguments": arguments}


calls = st.one_of(
    st.tuples(
        st.sampled_from(["tool_use", "message", "stream-json", "control", "openai", "responses"]),
        st.sampled_from(["AskUserQuestion", "AskUserQuestion", "TodoWrite", "Bash"]),
        st.one_of(inputs, todo_inputs, json_values),
    ).map(lambda t: envelope(*t)),
    inputs,
    todo_inputs,
)
answer_lines = st.lists(
    st.one_of(
        texts,
        st.sampled_from(["1", "2", "3", "1,2", "2-3", "", "y", "q", "b", "s", "p 1", "?"]),
        st.from_regex(r"\A[0-9０-９ ,，、\-]{0,12}\Z"),
    ),
    max_size=6,
)


def expected_lines(document: Any) -> int:
    """Result lines a document gets: one, except lines passed over and a message that
    turned out to hold no call."""
    if not isinstance(document, dict):
        return 1
    try:
        env = detect(document)
    except UnreadableDocument:
        return 1
    if env.kind is EnvelopeKind.PASSED_OVER:
        return 0
    return 1


def check_run(stdout: list[str], status: int, document: Any, started: float) -> None:
    assert time.monotonic() - started < CASE_SECONDS
    assert status in STATUSES
    assert len(stdout) == expected_lines(document)
    for line in stdout:
        json.loads(line)


@settings(max_examples=2500 * SCALE)
@given(calls, answer_lines)
def test_calls_shaped_like_the_models(document: Any, answers: list[str]) -> None:
    started = time.monotonic()
    outcome = play(calls=[document], answers=answers)
    check_run(outcome.stdout, outcome.status, document, started)


def _mutate(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    """One random change somewhere in ``value``: drop, rename or retype a key, a huge string,
    deep nesting, a NUL, a number as a string."""
    if isinstance(value, dict) and value and (depth > 3 or data.draw(st.booleans())):
        key = data.draw(st.sampled_from(sorted(value)))
        how = data.draw(st.sampled_from(["drop", "rename", "retype", "deeper"]))
        out = dict(value)
        if how == "drop":
            del out[key]
        elif how == "rename":
            out[key + data.draw(st.sampled_from(["_", "X", "s"]))] = out.pop(key)
        elif how == "retype":
            choices = [None, 1, "1", True, [], {}, "x" * 150_000, "nul\x00", [[[[[[1]]]]]] * 2]
            out[key] = choices[data.draw(st.integers(0, len(choices) - 1))]
        else:
            out[key] = _mutate(out[key], data, depth + 1)
        return out
    if isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        return [*value[:i], _mutate(value[i], data, depth + 1), *value[i + 1 :]]
    if isinstance(value, str):
        return data.draw(st.sampled_from([value + "\x00", str(len(value)), "", value * 3]))
    if isinstance(value, bool | int):
        return str(value)
    return value


def _text_mutation(text: bytes, data: st.DataObject) -> bytes:
    how = data.draw(st.sampled_from(["none", "dup-key", "bad-utf8", "cut", "nest", "nul"]))
    if how == "dup-key":
        return b'{"questions": 1, ' + text[1:]
    if how == "bad-utf8":
        at = data.draw(st.integers(0, len(text)))
        return text[:at] + b"\xff\xfe\xc3" + text[at:]
    if how == "cut":
        return text[: data.draw(st.integers(1, max(1, len(text) - 1)))] + b"\n"
    if how == "nest":
        return b'{"a": ' + b"[" * 500 + b"]" * 500 + b", " + text[1:]
    if how == "nul":
        return text.replace(b'"', b'"\x00', 1)
    return text


def run_bytes(source: bytes, answers: str) -> tuple[list[str], int]:
    out, err = io.StringIO(), io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(answers)), err, Style())
    status = run(BytesLineReader(io.BytesIO(source)), conv, out)
    assert "Traceback" not in err.getvalue()
    return out.getvalue().splitlines(), int(status)


@settings(max_examples=2000 * SCALE)
@given(st.sampled_from(CALLS), st.data())
def test_mutated_real_calls(real: dict[str, Any], data: st.DataObject) -> None:
    document = _mutate(real, data)
    text = json.dumps(document).encode()
    mutated = _text_mutation(text, data)
    started = time.monotonic()
    stdout, status = run_bytes(mutated + b"\n", "1\n2\n\n")
    assert time.monotonic() - started < CASE_SECONDS
    assert status in STATUSES
    expected = expected_lines(document) if mutated == text else 1
    if mutated.startswith(b'{"questions": 1') or expected == 0:
        expected = len(stdout)  # a duplicate key may turn the document into another one
    assert len(stdout) == expected


_GROUP = re.compile(r"([0-9]+)(?:-([0-9]+))?")


def _typed_numbers(line: str) -> list[int]:
    """An independent reading of the numbers and ranges in a line, in typed order."""
    numbers: list[int] = []
    for match in _GROUP.finditer(normalize(line)):
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        for n in range(low, min(high, low + 10) + 1):
            if n not in numbers:
                numbers.append(n)
    return numbers


@settings(max_examples=1000 * SCALE)
@given(
    st.one_of(texts, st.from_regex(r"\A[0-9０-９ ,，、\-]{0,16}\Z")),
    st.integers(3, 5),
    st.booleans(),
)
def test_the_grammar_selects_only_what_was_typed(line: str, count: int, multi: bool) -> None:
    try:
        command = parse_question_line(line, count=count, multi=multi)
    except Refused as refused:
        assert str(refused) and "\n" not in str(refused)
        return
    if isinstance(command, Pick):
        assert all(1 <= n <= count for n in command.numbers)
        assert list(command.numbers) == _typed_numbers(line)
        assert multi or len(command.numbers) == 1
    if isinstance(command, Default):
        assert not unicodedata.normalize("NFKC", line).strip()


@settings(max_examples=500 * SCALE)
@given(st.lists(st.one_of(texts, st.text(min_size=1000, max_size=70_000)), min_size=1, max_size=3))
def test_random_answer_lines_never_crash_and_always_get_a_reason(lines: list[str]) -> None:
    doc = {
        "questions": [
            {
                "question": "Which one?",
                "header": "One",
                "options": [
                    {"label": "A", "description": ""},
                    {"label": "B", "description": ""},
                ],
            }
        ]
    }
    outcome = play(calls=[doc], answers=[line.replace("\n", " ") for line in lines])
    assert outcome.status in STATUSES
    assert len(outcome.stdout) == 1
    if outcome.status == 3 and not outcome.stderr.count("Other, type your answer"):
        shown = outcome.stderr
        assert (
            "! " in shown
            or "  N        choose option N" in shown
            or "Notes " in shown
            or ("--- preview" in shown or "has no preview" in shown or "Chat" in shown)
        ), shown


def test_corpus_is_loaded() -> None:
    assert len(CALLS) == 56 and all(isinstance(c, dict) for c in CALLS)
    assert Path(ROOT / "tests" / "corpus").is_dir()


def _model_agrees(data: Any, fast: Any, validate: Any) -> None:
    try:
        validate(data)
        valid = True
    except InvalidCall:
        valid = False
    assert (fast is not None) == valid, data


@settings(max_examples=1500 * SCALE)
@given(st.one_of(inputs, json_values, st.sampled_from(CALLS).map(lambda c: c["input"])), st.data())
def test_the_fast_check_accepts_exactly_what_the_models_accept(data: Any, draw: Any) -> None:
    if draw.draw(st.booleans()):
        data = _mutate(data, draw)
    fast = fast_ask(data)
    _model_agrees(data, fast, validate_ask)
    if fast is not None:
        assert fast == parse_ask_slow(data)


@settings(max_examples=1000 * SCALE)
@given(st.one_of(todo_inputs, json_values), st.data())
def test_the_fast_todo_check_accepts_exactly_what_the_models_accept(data: Any, draw: Any) -> None:
    if draw.draw(st.booleans()):
        data = _mutate(data, draw)
    _model_agrees(data, fast_todos(data), validate_todos)


def parse_ask_slow(data: Any) -> AskInput:
    """What parse_ask gives when the fast check is skipped."""
    with mock.patch("askcli.schema.inputs.fast_ask", return_value=None):
        return parse_ask(data)
