"""The run's settings: one immutable RunOptions carried by the Conversation (the I/O), changed
only as a new value in a new view of the same conversation."""

from __future__ import annotations

import io
import json

import pytest

from askcli.errors import Withdrawn
from askcli.lines import TextLineReader
from askcli.runners.session import run
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.wire.wording.base import CLAUDE_CODE_2_1_88
from askcli.wire.wording.current import CLAUDE_CODE


def reader(text: str) -> TextLineReader:
    return TextLineReader(io.StringIO(text), interactive=False)


def test_the_options_cannot_be_changed_from_outside() -> None:
    conv = Conversation(reader(""), io.StringIO(), Style(), RunOptions(timeout=3))
    with pytest.raises(AttributeError):
        conv.options.timeout = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        conv.timeout = 5  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        conv.options = RunOptions()  # type: ignore[misc]
    assert RunOptions().wording is CLAUDE_CODE_2_1_88 and RunOptions().capabilities == frozenset()


def test_a_view_with_other_options_shares_the_screen() -> None:
    screen = io.StringIO()
    conv = Conversation(reader("1\n"), screen, Style(), RunOptions(timeout=3))
    untimed = conv.with_options(conv.options._replace(timeout=None))
    assert untimed.options.timeout is None and conv.options.timeout == 3
    untimed.say("typed")
    assert conv.open_line and screen.getvalue() == "typed"
    assert untimed.read_answer("> ") == "1"  # the same reader
    screen.close()  # the terminal went away: every view stops writing
    conv.say("x")
    untimed.say("y")


def test_capabilities_learnt_in_a_run_reach_the_calls_after_and_leave_the_options_alone() -> None:
    question = {
        "question": "Which?",
        "header": "W",
        "options": [{"label": "A", "description": ""}, {"label": "B", "description": ""}],
        "multiSelect": False,
    }
    ask = {"questions": [question, {**question, "question": "Which other?"}]}
    init = {
        "type": "system",
        "subtype": "init",
        "capabilities": ["ask_user_question_unanswered_v1"],
    }
    control = {
        "type": "control_request",
        "request_id": "req_1",
        "request": {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "input": ask},
    }
    source = reader(json.dumps(init) + "\n" + json.dumps(control) + "\n")
    options = RunOptions(wording=CLAUDE_CODE)
    conv = Conversation(reader("1\ns\n\n"), io.StringIO(), Style(), options)
    out = io.StringIO()
    run(source, conv, out)
    assert conv.options.capabilities == frozenset()  # the caller's options are its own
    response = json.loads(out.getvalue().splitlines()[-1])["response"]["response"]
    assert response["updatedInput"]["annotations"] == {"Which other?": {"unanswered": "skipped"}}


def test_a_control_request_is_withdrawn_only_in_the_view_that_answers_it() -> None:
    cancel = json.dumps({"type": "control_cancel_request", "request_id": "req_1"})
    options = RunOptions(calls_follow=True)
    conv = Conversation(reader(cancel + "\n"), io.StringIO(), Style(), options)
    with pytest.raises(Withdrawn):
        conv.answering("req_1").read_answer("> ")
    conv = Conversation(reader(cancel + "\n"), io.StringIO(), Style(), options)
    assert conv.read_answer("> ") is None  # not answering it: the line is the next call
    assert conv.answering("req_2").read_answer("> ") is None
    assert conv.reader.readline() == cancel


def test_askcli_claude_offers_always_without_changing_the_conversation_it_was_given() -> None:
    from askcli.hosts.claude import ScriptedClaude, host

    from tests.support.claude import INIT_OK, RESULT, can_use_tool

    asked = can_use_tool("req_1", "Bash", {"command": "ls"})
    conv = Conversation(reader("1\n"), io.StringIO(), Style())
    link = ScriptedClaude([INIT_OK, asked, RESULT])
    host(link, conv, io.StringIO(), prompt="go")
    assert conv.options.permission_always is False
    assert "2. Yes, and don't ask again for this exact command" in conv.out.getvalue()  # type: ignore[attr-defined]
