"""Limits: a call too large, too deep or with too long a text is refused, in bounded memory."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from askcli.lines import MAX_ANSWER_BYTES, TextLineReader
from askcli.runners.recordings import play
from askcli.schema.inputs import parse_ask as parse_input
from askcli.schema.issues import MAX_TEXT
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.tools.repl import ask_questions
from askcli.wire.documents import MAX_DEPTH, MAX_DOCUMENT_BYTES

from tests.support.calls import call, question
from tests.support.processes import askcli_path


def test_the_limits_are_what_the_readme_says() -> None:
    assert (MAX_DOCUMENT_BYTES, MAX_DEPTH, MAX_TEXT, MAX_ANSWER_BYTES) == (
        1024 * 1024,
        64,
        100_000,
        65536,
    )


def test_a_call_over_one_mib_is_refused_and_the_stream_goes_on() -> None:
    big = call(question())
    big["padding"] = "x" * (MAX_DOCUMENT_BYTES + 10)
    outcome = play(calls=[big, call(id="toolu_next")], answers=["1"])
    first, second = (json.loads(line) for line in outcome.stdout)
    assert first["tool_use_id"] is None
    assert "the call is larger than 1048576 bytes, the limit" in first["content"]
    assert second["tool_use_id"] == "toolu_next" and "is_error" not in second
    assert outcome.status == 2


def test_a_pretty_printed_call_over_the_limit_is_found_to_its_end() -> None:
    big = call(question())
    big["input"]["questions"][0]["options"][0]["description"] = "y" * (MAX_DOCUMENT_BYTES + 1)
    text = json.dumps(big, indent=2)  # several lines, one of them over the limit
    outcome = play(calls=[text, call(id="toolu_next")], answers=["2"])
    assert len(outcome.stdout) == 2
    assert json.loads(outcome.stdout[1])["tool_use_id"] == "toolu_next"


def test_deep_nesting_is_refused_before_parsing() -> None:
    deep = '{"questions": ' + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}"
    outcome = play(calls=[deep])
    reply = json.loads(outcome.stdout[0])
    assert "nests deeper than 64 levels, the limit" in reply["content"]
    assert outcome.status == 2


def test_a_text_field_over_the_limit_is_refused_before_anything_is_shown() -> None:
    long = call(question(text="Q" * (MAX_TEXT + 1) + "?"))
    outcome = play(calls=[long], answers=["1"])
    reply = json.loads(outcome.stdout[0])
    assert reply["is_error"] is True
    assert '"code": "too_big"' in reply["content"]
    assert "String must contain at most 100000 character(s)" in reply["content"]
    assert "Choose" not in outcome.stderr and "QQQQ" not in outcome.stderr


def test_a_long_text_inside_openai_arguments_is_refused_too() -> None:
    args = json.dumps({"questions": [question(text="Q" * (MAX_TEXT + 1))]})
    function = {"name": "AskUserQuestion", "arguments": args}
    doc = {"id": "c1", "type": "function", "function": function}
    outcome = play(calls=[doc])
    assert "String must contain at most" in json.loads(outcome.stdout[0])["content"]


def test_an_answer_line_over_the_limit_is_refused_and_asked_again() -> None:
    out = io.StringIO()
    answers = "1" * (MAX_ANSWER_BYTES + 5) + "\n2\n"
    conv = Conversation(TextLineReader(io.StringIO(answers)), out, Style())
    conclusion = ask_questions(parse_input(call()["input"]), conv)
    assert conclusion.state.answers == {"Which one?": "B"}
    assert "(a line of 65541 characters)" in out.getvalue()
    assert "! that line is too long (65541 characters; the limit is 65536)" in out.getvalue()


@pytest.mark.process
@pytest.mark.parametrize("where", ["call", "answer"])
def test_a_huge_input_is_read_in_bounded_memory(tmp_path: Path, where: str) -> None:
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as out:  # a line of 128 MiB: a call, or an answer line
        if where == "call":
            out.write(b'{"questions": "')
        else:
            out.write(json.dumps(call(id="toolu_before")).encode() + b"\n")
        for _ in range(128):
            out.write(b"z" * (1024 * 1024))
        out.write(b'"}\n' if where == "call" else b"\n1\n")
        out.write(json.dumps(call(id="toolu_after")).encode() + b"\n1\n")
    # a small process runs askcli and reports its peak memory, so that nothing of the test's
    # own (which a forked child shares until it execs) is counted
    probe = (
        "import resource, subprocess, sys\n"
        "with open(sys.argv[2], 'rb') as source:\n"
        "    out = subprocess.run([sys.argv[1], 'ask'], stdin=source, capture_output=True).stdout\n"
        "sys.stdout.write(out.decode())\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(askcli_path()), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    *lines, peak = proc.stdout.splitlines()
    replies = [json.loads(line) for line in lines]
    first = None if where == "call" else "toolu_before"
    assert [r["tool_use_id"] for r in replies] == [first, "toolu_after"]
    assert int(peak) < 100 * 1024, f"askcli used {peak} KiB for a 128 MiB line"
