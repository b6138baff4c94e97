"""Claude Code 2.1.332's marks of a request a person must decide (issue 31, item 5), in
``askcli ask``, ``askcli claude`` and ``askcli hook``.

``requires_user_interaction``: no one-key approval (asked as ``default_to_no`` is: ``y`` and
``1`` are refused, Enter denies, approving takes the word ``yes``) and no approval from answers
not typed at a terminal. ``matched_ask_rule`` (the person's own ``permissions.ask`` rule asked
for this prompt): no approval from answers not typed at a terminal, nor from ``--allow`` or a
remembered answer. A scripted approving line is refused in one line and the call gets no answer;
a scripted denial still denies. ``mcp_server`` is named with the tool. Shapes from 2.1.332's
schema (``matched_ask_rule: {source, tool_name, rule_content?}``, ``mcp_server: {name,
source}``); the ``claude_ai_`` server's request is recorded from the real 2.1.332
(tests/real_agents/test_permission_care_live.py).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from askcli.hosts.hook.command import answer, parse_hook
from askcli.lines import TextLineReader
from askcli.runners.recordings import play
from askcli.runners.session import answer_document
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.tools.permission import SCRIPTED, STRAY
from askcli.wire.documents import Document
from askcli.wire.results import REJECT_MESSAGE

from tests.support.claude import CONNECTOR_REQUEST as CONNECTOR
from tests.support.claude import INIT_OK, RESULT, hosted, responses
from tests.support.hook import hook_input, typed

NO_ANSWER = "No answer from the user (a person must approve it at a terminal)."
# built from 2.1.332's schema: the person's ask rule forced the prompt of a safety check
ASK_RULE = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "rm -rf build"},
    "decision_reason": "rm removes files",
    "decision_reason_type": "safetyCheck",
    "blocked_path": "/w/build",
    "matched_ask_rule": {
        "source": "userSettings",
        "tool_name": "Bash",
        "rule_content": "rm\x1b[2J:*",
    },
    "tool_use_id": "t2",
}


def document(request: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "control_request", "request_id": "r1", "request": {**request, **more}}


def scripted(request: dict[str, Any], answers: list[str]) -> tuple[dict, int, str]:
    """``askcli ask`` on the control request, answers from a script: the decision, the
    exit status and the screen."""
    outcome = play(calls=[document(request)], answers=answers)
    (line,) = outcome.stdout
    return json.loads(line)["response"]["response"], outcome.status, outcome.stderr


def at_a_terminal(request: dict[str, Any], lines: str) -> tuple[dict, str]:
    """The control request answered by lines typed at a terminal: the decision, the screen."""
    screen = io.StringIO()
    reader = TextLineReader(io.StringIO(lines), interactive=True)
    conv = Conversation(reader, screen, Style())
    reply = answer_document(Document(document(request)), conv)
    assert reply.envelope is not None
    return reply.envelope["response"]["response"], screen.getvalue()


# ---- requires_user_interaction


@pytest.mark.parametrize("answers", [["yes"], ["1"], ["y"], ["y", "yes"]])
def test_a_script_does_not_approve_a_person_only_request(answers: list[str]) -> None:
    decision, status, screen = scripted(CONNECTOR, answers)
    assert decision["behavior"] == "deny"
    assert status == 3
    if answers[-1] == "yes":
        assert SCRIPTED in screen and decision["message"] == NO_ANSWER
    assert "allowed" not in decision.get("message", "")


def test_a_script_may_still_deny_a_person_only_request() -> None:
    decision, status, _ = scripted(CONNECTOR, ["n"])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE} and status == 1


@pytest.mark.parametrize("key", ["1", "y", ""])
def test_at_a_terminal_no_single_key_approves_a_person_only_request(key: str) -> None:
    decision, screen = at_a_terminal(CONNECTOR, f"{key}\n\n")
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "Allow? Type yes to allow, Enter to deny: " in screen
    assert (STRAY in screen) == (key != "")


def test_at_a_terminal_the_word_yes_approves_a_person_only_request() -> None:
    decision, screen = at_a_terminal(CONNECTOR, "y\nyes\n")
    assert decision == {"behavior": "allow", "updatedInput": {"text": "a"}}
    assert STRAY in screen and SCRIPTED not in screen


def test_the_mcp_server_is_named_with_the_tool() -> None:
    _, _, screen = scripted(CONNECTOR, ["n"])
    expected = "Tool use: mcp__claude_ai_probe__ping (MCP server claude_ai_probe, source user)\n"
    assert expected in screen


@pytest.mark.parametrize(
    ("server", "named"),
    [
        ("plain\x1b]0;x\x07", "(MCP server plain\\x1b]0;x\\x07)"),
        ({"name": "n\u202e", "source": "pl\nugin"}, "(MCP server n\\u202e, source pl\\nugin)"),
        ({"source": "user"}, None),
        (7, None),
    ],
)
def test_the_mcp_server_is_shown_escaped(server: Any, named: str | None) -> None:
    request = {**CONNECTOR, "mcp_server": server}
    _, _, screen = scripted(request, ["n"])
    (title,) = [line for line in screen.splitlines() if line.startswith("Tool use:")]
    assert "\x1b" not in screen and "\u202e" not in screen
    assert title == "Tool use: mcp__claude_ai_probe__ping" + ("" if named is None else f" {named}")


# ---- matched_ask_rule


def test_a_script_does_not_approve_what_the_persons_ask_rule_asks() -> None:
    decision, status, screen = scripted(ASK_RULE, ["y"])
    assert decision == {"behavior": "deny", "message": NO_ANSWER} and status == 3
    assert SCRIPTED in screen


def test_the_ask_rule_reason_and_blocked_path_are_shown_escaped() -> None:
    _, _, screen = scripted(ASK_RULE, ["n"])
    lines = screen.splitlines()
    start = lines.index("Tool use: Bash")
    assert lines[start + 1 : start + 4] == [
        "Your ask rule: Bash(rm\\x1b[2J:*), from userSettings",
        "Reason (safetyCheck): rm removes files",
        "Blocked path: /w/build",
    ]
    assert "\x1b" not in screen


def test_at_a_terminal_one_key_approves_what_the_ask_rule_asks() -> None:
    decision, screen = at_a_terminal(ASK_RULE, "y\n")
    assert decision == {"behavior": "allow", "updatedInput": {"command": "rm -rf build"}}
    assert SCRIPTED not in screen


def test_a_rule_that_is_not_an_object_changes_nothing() -> None:
    decision, status, _ = scripted({**ASK_RULE, "matched_ask_rule": "Bash"}, ["y"])
    assert decision["behavior"] == "allow" and status == 0


# ---- askcli claude


@pytest.mark.parametrize("request_", [ASK_RULE, CONNECTOR], ids=["ask-rule", "person-only"])
def test_claude_allow_does_not_answer_what_a_person_must(request_: dict[str, Any]) -> None:
    name = request_["tool_name"]
    lines = [INIT_OK, {"type": "control_request", "request_id": "r1", "request": request_}, RESULT]
    status, _, err, sent = hosted(lines, ["n"], allow=[name])
    assert status == 0, err
    (decision,) = responses(sent)
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "allowed: --allow" not in err


def test_claude_same_as_before_does_not_answer_what_the_ask_rule_asks() -> None:
    plain = {**ASK_RULE, "tool_use_id": "t1"}
    del plain["matched_ask_rule"]
    lines = [
        INIT_OK,
        {"type": "control_request", "request_id": "r1", "request": plain},
        {"type": "control_request", "request_id": "r2", "request": ASK_RULE},
        RESULT,
    ]
    status, _, err, sent = hosted(lines, ["2", "n"])
    assert status == 0, err
    allowed, denied = responses(sent)
    assert allowed["behavior"] == "allow"
    assert denied == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "same as before" not in err


def test_claude_a_scripted_yes_is_no_answer_for_a_person_only_request() -> None:
    lines = [INIT_OK, {"type": "control_request", "request_id": "r1", "request": CONNECTOR}, RESULT]
    status, _, err, sent = hosted(lines, ["yes"])
    assert status == 3, err
    (decision,) = responses(sent)
    assert decision["behavior"] == "deny"
    assert SCRIPTED in err


# ---- askcli hook (PermissionRequest)


def test_hook_names_the_mcp_server_of_2_1_332s_input() -> None:
    """2.1.332's PermissionRequest input carries mcp_server ({name, source})."""
    raw = hook_input(
        event="PermissionRequest",
        tool="mcp__probe__ping",
        mcp_server={"name": "probe", "source": "project"},
    )
    ask, screen = typed("n\n")
    answer(parse_hook(json.dumps(raw).encode()), ask, lambda _: None)
    assert "Tool use: mcp__probe__ping (MCP server probe, source project)\n" in screen.getvalue()


@pytest.mark.parametrize(
    "field",
    [
        {"requires_user_interaction": True},
        {"matched_ask_rule": {"source": "localSettings", "tool_name": "Bash"}},
    ],
)
def test_hook_scripted_answers_do_not_approve_what_a_person_must(field: dict[str, Any]) -> None:
    raw = hook_input(event="PermissionRequest", tool="Bash", **field)
    ask, screen = typed("yes\n")
    outcome = answer(parse_hook(json.dumps(raw).encode()), ask, lambda _: None)
    assert outcome.output is not None
    decision = outcome.output["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny"
    assert SCRIPTED in screen.getvalue()
