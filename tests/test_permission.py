"""The fallback permission prompt for any other tool: allow, deny, deny with words."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from askcli.conversation import Conversation
from askcli.documents import Document
from askcli.envelopes import Output
from askcli.fixtures import play
from askcli.permission import PROMPT, input_lines
from askcli.rendering import Style
from askcli.results import REJECT_MESSAGE, REJECT_WITH_WORDS_PREFIX, Status
from askcli.session import answer_document

from .test_repl import Scripted

BASH = {
    "type": "tool_use",
    "id": "toolu_bash",
    "name": "Bash",
    "input": {"command": "npm test", "description": "Run the tests"},
}


def ask(answers: list[str], output: Output = Output.RESULT) -> tuple[list[Any], str, int]:
    outcome = play(calls=[BASH], answers=answers, output=output)
    return [json.loads(line) for line in outcome.stdout], outcome.stderr, outcome.status


def test_the_prompt_shows_the_tool_and_its_input() -> None:
    _, stderr, _ = ask(["y"])
    assert stderr == (
        "\nTool use: Bash\n  command: npm test\n  description: Run the tests\n" + PROMPT + "y\n"
    )


def test_allow_gives_the_permission_to_run_it() -> None:
    (reply,), _, status = ask(["y"])
    assert status == 0
    assert reply == {
        "type": "permission",
        "tool_use_id": "toolu_bash",
        "behavior": "allow",
        "updatedInput": BASH["input"],
    }
    (decision,), _, _ = ask(["yes"], Output.SDK)
    assert decision == {"behavior": "allow", "updatedInput": BASH["input"]}


def test_no_gives_the_rejection() -> None:
    (reply,), _, status = ask(["n"])
    assert status == 1
    assert reply == {
        "type": "tool_result",
        "tool_use_id": "toolu_bash",
        "content": REJECT_MESSAGE,
        "is_error": True,
    }
    (decision,), _, _ = ask(["no"], Output.SDK)
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}


def test_words_give_the_rejection_with_the_words() -> None:
    (reply,), _, status = ask(["run only the unit tests"])
    assert status == 1
    assert reply["content"] == REJECT_WITH_WORDS_PREFIX + "run only the unit tests"
    (data,), _, _ = ask(["run only the unit tests"], Output.ANSWERS)
    assert data["allowed"] is False and data["feedback"] == "run only the unit tests"


def test_empty_and_help_lines_ask_again() -> None:
    (reply,), stderr, _ = ask(["", "?", "y"])
    assert reply["behavior"] == "allow"
    assert "! type y to allow, n to deny, or what to do instead" in stderr
    assert "askcli never runs it" in stderr


@pytest.mark.parametrize(
    ("then", "status", "content"),
    [
        ("end", Status.NO_ANSWER, "No answer from the user (the input ended)."),
        ("timeout", Status.NO_ANSWER, "No answer from the user (no reply within 3 seconds)."),
        ("interrupt", Status.INTERRUPTED, REJECT_MESSAGE),
    ],
)
def test_end_timeout_and_ctrl_c(then: str, status: Status, content: str) -> None:
    conv = Conversation(Scripted([], then), io.StringIO(), Style(), timeout=3)
    reply = answer_document(Document(BASH), conv)
    assert reply.status is status
    assert reply.results[0].content == content
    assert reply.results[0].is_error


def test_input_is_shortened_and_escaped() -> None:
    lines = input_lines(
        {
            "command": "x" * 1000,
            "script": "\n".join(f"line {n}" for n in range(40)),
            "evil\x1b[2J": "\x1b]52;c;AAAA\x07",
            "nested": {"a": [1, 2]},
        },
        Style(width=80),
    )
    text = "\n".join(lines)
    assert "… (600 more characters)" in text
    assert "… (24 more lines)" in text
    assert "\x1b" not in text
    assert "  evil\\x1b[2J: \\x1b]52;c;AAAA\\x07" in lines
    assert "      {" in lines and '        "a": [' in lines


def test_code_keeps_its_indentation() -> None:
    lines = input_lines({"new_string": "def f():\n    return 1\n"}, Style())
    assert lines == ["  new_string:", "      def f():", "          return 1"]


def test_a_tool_input_that_is_not_an_object_is_invalid() -> None:
    doc = {**BASH, "input": ["ls"]}
    outcome = play(calls=[doc])
    reply = json.loads(outcome.stdout[0])
    assert outcome.status == 2
    assert "Expected object, received array" in reply["content"]
