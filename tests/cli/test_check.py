"""askcli check: validate without asking; --strict adds Claude Code's soft rules."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from askcli.lines import TextLineReader
from askcli.runners.check import check, check_all
from askcli.schema.inputs import parse_ask as parse_input
from askcli.schema.inputs import soft_rule_warnings
from askcli.status import ExitStatus

from tests.support.calls import call, option, question
from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path


def run_check(text: str, strict: bool = False) -> tuple[ExitStatus, list[str]]:
    lines: list[str] = []
    status = check(TextLineReader(io.StringIO(text)), lines.append, strict=strict)
    return status, lines


def test_valid_calls_of_every_envelope() -> None:
    text = "".join(
        json.dumps(doc) + "\n"
        for doc in [
            call(id="toolu_1"),
            {"questions": [question()]},
            json.loads((EXAMPLES / "login.json").read_text()),
        ]
    )
    status, lines = run_check(text)
    assert status is ExitStatus.ANSWERED
    assert lines[0] == "ok      toolu_1 AskUserQuestion"
    assert lines[2] == "ok      toolu_01LoginAuth AskUserQuestion"
    assert lines[-1] == "3 valid, 0 invalid"


def test_invalid_calls_and_unreadable_documents_are_reported() -> None:
    text = (
        json.dumps(call(question(labels=("A",)), id="toolu_bad"))
        + "\n{oops}\n"
        + json.dumps({"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": "ls"})
        + "\n"
        + json.dumps(call(id="toolu_ok"))
        + "\n"
    )
    status, lines = run_check(text)
    assert status is ExitStatus.INVALID
    assert lines == [
        "invalid toolu_bad AskUserQuestion: questions[0].options: "
        "Array must contain at least 2 element(s)",
        "invalid document 2: the input is not valid JSON: "
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        "invalid toolu_x Bash: Expected object, received string",
        "ok      toolu_ok AskUserQuestion",
        "1 valid, 3 invalid",
    ]


def test_nothing_to_check_is_an_error() -> None:
    assert run_check("") == (ExitStatus.INVALID, ["no calls found"])


def test_strict_reports_each_soft_rule() -> None:
    bad = {
        "questions": [
            {
                "question": "Pick a database",
                "header": "A very long header",
                "options": [
                    option("one two three four five six"),
                    option("Other (please specify)"),
                    option("Fast (Recommended)"),
                ],
            },
            {
                "question": "Which extras?",
                "header": "Extras",
                "multiSelect": True,
                "options": [option("a", preview="code"), option("b")],
            },
        ]
    }
    assert soft_rule_warnings(parse_input(bad)) == [
        "questions[0].header 'A very long header' is longer than 12 characters",
        "questions[0].question does not end with a question mark",
        "questions[0].options[0].label 'one two three four five six' has more than 5 words",
        "questions[0].options[1].label 'Other (please specify)' is an Other option; "
        "askcli adds Other itself",
        "questions[0].options[2] is marked (Recommended) but is not the first option",
        "questions[1].options[0] has a preview on a multiSelect question",
    ]
    status, lines = run_check(json.dumps(call(*bad["questions"], id="toolu_s")) + "\n", strict=True)
    assert status is ExitStatus.ANSWERED  # warnings do not make a call invalid
    assert lines[0] == "ok      toolu_s AskUserQuestion"
    assert lines[1].startswith("warning toolu_s AskUserQuestion: questions[0].header")
    assert lines[-1] == "1 valid, 0 invalid, 6 warning(s)"


@pytest.mark.parametrize(
    "text",
    ["Which one?", "哪一个？", "Which one? "],
)
def test_question_marks_that_count(text: str) -> None:
    assert soft_rule_warnings(parse_input({"questions": [question(text)]})) == []


def test_model_text_in_reports_is_escaped() -> None:
    doc = {"questions": [question(header="\x1b]52;c;AAAA\x07 long header")]}
    _, lines = run_check(json.dumps(doc) + "\n", strict=True)
    assert not any("\x1b" in line for line in lines)


def test_check_from_the_cli(tmp_path: Path) -> None:
    good = subprocess.run(
        [str(askcli_path()), "check", str(EXAMPLES / "library.json")],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert (good.returncode, good.stdout) == (
        0,
        "ok      toolu_01ABC123 AskUserQuestion\n1 valid, 0 invalid\n",
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"questions": []}')
    invalid = subprocess.run(
        [str(askcli_path()), "check", "--strict", str(bad)],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert invalid.returncode == 2
    assert "questions: Array must contain at least 1 element(s)" in invalid.stdout


def test_several_sources_are_each_checked_then_summed() -> None:
    good = json.dumps(call(id="toolu_1")) + "\n"
    bad = json.dumps(call(question(question="Same?"), question(question="Same?"), id="toolu_2"))
    sources = [
        ("a.json", TextLineReader(io.StringIO(good))),
        ("b.json", TextLineReader(io.StringIO(bad + "\n" + good))),
        ("empty.json", TextLineReader(io.StringIO(""))),
    ]
    lines: list[str] = []
    assert check_all(sources, lines.append) is ExitStatus.INVALID
    assert lines[0] == "ok      a.json: toolu_1 AskUserQuestion"
    assert lines[1].startswith("invalid b.json: toolu_2 AskUserQuestion: ")
    assert lines[2:] == [
        "ok      b.json: toolu_1 AskUserQuestion",
        "invalid empty.json: no calls found",
        "2 valid, 1 invalid in 3 files",
    ]


def test_several_valid_sources_pass_and_one_source_reads_as_before() -> None:
    good = json.dumps(call(id="toolu_1")) + "\n"
    lines: list[str] = []
    two = [(n, TextLineReader(io.StringIO(good))) for n in ("a", "b")]
    assert check_all(two, lines.append, strict=True) is ExitStatus.ANSWERED
    assert lines[-1] == "2 valid, 0 invalid, 0 warning(s) in 2 files"
    lines.clear()
    assert check_all([("a", TextLineReader(io.StringIO(good)))], lines.append) == 0
    assert lines == ["ok      toolu_1 AskUserQuestion", "1 valid, 0 invalid"]


def test_check_of_several_files_from_the_cli(tmp_path: Path) -> None:
    bad = tmp_path / "bad\nname.json"
    bad.write_text('{"questions": []}')
    proc = subprocess.run(
        [str(askcli_path()), "check", str(EXAMPLES / "library.json"), str(bad)],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert lines[0] == f"ok      {EXAMPLES / 'library.json'}: toolu_01ABC123 AskUserQuestion"
    assert lines[1].startswith(f"invalid {tmp_path}/bad\\nname.json: ")  # one line, escaped
    assert lines[-1] == "1 valid, 1 invalid in 2 files"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["-", "-"], "askcli: stdin (-) can be read only once\n"),
        (["/nonexistent/calls.json"], "cannot read calls from /nonexistent/calls.json"),
    ],
)
def test_check_refuses_sources_it_cannot_read(args: list[str], error: str) -> None:
    proc = subprocess.run(
        [str(askcli_path()), "check", str(EXAMPLES / "library.json"), *args],
        capture_output=True,
        text=True,
        timeout=10,
        stdin=subprocess.DEVNULL,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert error in proc.stderr
