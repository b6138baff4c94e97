"""The Python API: askcli.ask with streams, no CLI, no terminal."""

from __future__ import annotations

import io
import json
import re

import askcli
from askcli import ExitStatus
from askcli.terminal.rendering import Style

from tests.support.calls import call, example, question


def test_ask_a_tool_use_block_with_string_streams() -> None:
    out = io.StringIO()
    reply = askcli.ask(example("library.json"), input=io.StringIO("3\n"), output=out)
    assert reply.status is ExitStatus.ANSWERED
    assert reply.envelope is not None
    assert reply.envelope["tool_use_id"] == "toolu_01ABC123"
    assert '"Temporal"' in reply.envelope["content"]
    assert "Choose 1-4 [1]: 3" in out.getvalue()
    (result,) = reply.results
    assert result.data is not None
    assert result.data["answers"] == {
        "Which library should we use for date formatting?": "Temporal"
    }


def test_ask_accepts_json_text_and_bare_input() -> None:
    text = json.dumps({"questions": [question()]})
    reply = askcli.ask(text, input=io.StringIO("1\n"), output=io.StringIO())
    assert reply.status is ExitStatus.ANSWERED
    assert reply.envelope is not None and reply.envelope["tool_use_id"].startswith("toolu_")


def test_ask_reports_invalid_calls_and_missing_answers() -> None:
    bad = askcli.ask(call(question(labels=("A",))), input=io.StringIO(""), output=io.StringIO())
    assert bad.status is ExitStatus.INVALID
    none = askcli.ask(call(), input=io.StringIO(""), output=io.StringIO())
    assert none.status is ExitStatus.NO_ANSWER


def test_ask_a_message_and_style_options() -> None:
    out = io.StringIO()
    reply = askcli.ask(
        example("login.json"),
        input=io.StringIO("1\n2\n\n"),
        output=out,
        style=Style(width=40, colour=True),
    )
    assert reply.status is ExitStatus.ANSWERED
    assert reply.envelope is not None and reply.envelope["role"] == "user"
    assert "\x1b[1;36m[Auth method]\x1b[0m" in out.getvalue()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    prompts = ("Choose", "Submit?")
    assert all(len(line) <= 40 for line in plain.splitlines() if not line.startswith(prompts))


def test_the_minimal_agent_loop_from_the_readme() -> None:
    """Every tool_use of an assistant turn gets a tool_result the harness can send back."""
    assistant_turn = example("login.json")
    answers = io.StringIO("2\n1,3\ny\n")
    reply = askcli.ask(assistant_turn, input=answers, output=io.StringIO())
    assert reply.envelope is not None
    tool_uses = [b["id"] for b in assistant_turn["content"] if b["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in reply.envelope["content"]] == tool_uses


def test_answers_gives_a_multi_select_answer_as_its_labels() -> None:
    extras = question("Which extras?", "Extras", ("Docs, guides", "Lint"), multi=True)
    reply = askcli.ask(call(extras), input=io.StringIO("2,1\n\n"), output=io.StringIO())
    (result,) = reply.results
    assert result.answers()["answers"] == {"Which extras?": ["Lint", "Docs, guides"]}
    assert result.updated_input is not None  # the agent's shape: joined, as Claude Code's
    assert result.updated_input["answers"] == {"Which extras?": "Lint, Docs, guides"}
