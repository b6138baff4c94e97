"""Claude Code's permission contract (2.1.332): the request's own words, and its requests
to be careful, honoured in ``askcli ask``, ``askcli claude`` and ``askcli hook``.

The requests are recorded from the real 2.1.332 (tests/real_agents/test_permission_care_live.py
drives it for the fields it sends offline) or built from the shapes in its source: ``default_to_no``
(the ask must not be approvable by a single stray keystroke: Enter declines, approving takes
the word ``yes``) and ``suppress_always_allow_rule`` (no "don't ask again" is offered).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.hook.command import answer, parse_hook
from askcli.runners.recordings import play
from askcli.tools.permission import NO_LASTING_RULE, STRAY
from askcli.wire.results import REJECT_MESSAGE, REJECT_WITH_WORDS_PREFIX

from tests.support.claude import CONNECTOR_REQUEST, INIT_OK, RESULT, hosted, responses
from tests.support.hook import hook_input, typed
from tests.support.terminals import Terminal

RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}],
    "behavior": "allow",
    "destination": "localSettings",
}
NO_ANSWER = "No answer from the user (the input ended)."
# Claude Code 2.1.332, recorded: Bash removing a path outside the working directories
BLOCKED = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "rm -rf /tmp/probe/zz"},
    "description": "rm -rf /tmp/probe/zz",
    "permission_suggestions": [RULE],
    "blocked_path": "/tmp/probe/zz",
    "tool_use_id": "t4",
}
# Claude Code 2.1.332, recorded: a PreToolUse hook answered "ask" with a coloured reason
HOOK_ASK = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "echo hi"},
    "description": "echo hi",
    "decision_reason": "\x1b[31mred\x1b[0m reason",
    "decision_reason_type": "hook",
    "decision_reason_hook_event": "PreToolUse",
    "decision_reason_hook_source": "settings",
    "tool_use_id": "t1",
}
# built from 2.1.332's source: a safety check that must not be approved by a stray key
CAREFUL = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "rm -rf build"},
    "description": "rm -rf build",
    "permission_suggestions": [RULE],
    "decision_reason": "Claude wants to delete the build folder",
    "decision_reason_type": "safetyCheck",
    "tool_use_id": "t2",
    "default_to_no": True,
}


def document(request: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "control_request", "request_id": "r1", "request": {**request, **more}}


def decide(request: dict[str, Any], answers: list[str], **more: Any) -> tuple[dict, str]:
    """``askcli ask`` on the control request: the decision sent back, and the screen."""
    outcome = play(calls=[document(request, **more)], answers=answers)
    (line,) = outcome.stdout
    return json.loads(line)["response"]["response"], outcome.stderr


# ---- the request's own words


def test_the_title_reason_and_blocked_path_are_shown_escaped() -> None:
    request = {
        **BLOCKED,
        "title": "Remove \x1b]0;pwned\x07 the folder",
        "display_name": "Shell\u202e",
        "description": "Deletes a folder\nfor good",
        "decision_reason": HOOK_ASK["decision_reason"],
        "decision_reason_type": "hook",
    }
    _, screen = decide(request, ["n"])
    assert "\x1b" not in screen and "\x07" not in screen and "\u202e" not in screen
    lines = screen.splitlines()
    start = lines.index("Tool use: Bash")
    assert lines[start + 1 : start + 7] == [
        "Title: Remove \\x1b]0;pwned\\x07 the folder",
        "Display name: Shell\\u202e",
        "Description: Deletes a folder\\nfor good",
        "Reason (hook): \\x1b[31mred\\x1b[0m reason",
        "Blocked path: /tmp/probe/zz",
        "  command: rm -rf /tmp/probe/zz",
    ]


def test_claude_codes_recorded_requests_show_their_reason_once() -> None:
    """2.1.332's description repeats the command: it is not shown twice; its display
    name is the tool's: not shown either."""
    _, screen = decide(HOOK_ASK, ["n"])
    start = screen.index("Tool use: Bash")
    assert screen[start : screen.index("  1. Yes")] == (
        "Tool use: Bash\nReason (hook): \\x1b[31mred\\x1b[0m reason\n  command: echo hi\n"
    )
    _, screen = decide(BLOCKED, ["n"])
    assert "Blocked path: /tmp/probe/zz\n  command: rm -rf /tmp/probe/zz\n" in screen


def test_a_description_the_input_already_shows_is_not_repeated() -> None:
    """A Write's description is its file name, part of the path the input shows (as the
    recorded claude-code-session fixture has it); words of its own are shown."""
    write = {
        "subtype": "can_use_tool",
        "tool_name": "Write",
        "input": {"file_path": "/tmp/askcli-demo/server.js", "content": "x"},
        "tool_use_id": "t1",
    }
    _, screen = decide({**write, "description": "server.js"}, ["n"])
    assert "Description" not in screen
    _, screen = decide({**write, "description": "Writes the server"}, ["n"])
    assert "Description: Writes the server\n  file_path:" in screen


def test_a_reason_cannot_pass_for_a_line_of_the_input() -> None:
    _, screen = decide(HOOK_ASK, ["n"], decision_reason="ok\n  command: ls")
    assert "Reason (hook): ok\\n  command: ls\n  command: echo hi\n" in screen
    assert screen.count("\n  command: ") == 1


# ---- default_to_no: a stray key never approves


def test_default_to_no_says_approving_takes_the_word_yes() -> None:
    decision, screen = decide(CAREFUL, ["yes"])
    assert decision == {"behavior": "allow", "updatedInput": CAREFUL["input"]}
    assert "Allow? Type yes or always, Enter to deny: " in screen
    assert "  yes     Yes\n  always  Yes, and don't ask again for Bash(rm -rf build)" in screen
    assert "  Enter   No\n  3       No, and tell the agent what to do instead\n" in screen
    assert "1. Yes" not in screen and "2. Yes" not in screen


def test_default_to_no_enter_declines() -> None:
    decision, _ = decide(CAREFUL, [""])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}


@pytest.mark.parametrize("key", ["1", "y", "Y", "2", "a", "A", "7"])
def test_default_to_no_a_single_key_does_not_approve(key: str) -> None:
    decision, screen = decide(CAREFUL, [key])
    assert decision == {"behavior": "deny", "message": NO_ANSWER}
    assert STRAY in screen


def test_default_to_no_asks_again_after_a_key_then_takes_yes_or_enter() -> None:
    decision, screen = decide(CAREFUL, ["y", "1", "yes"])
    assert decision["behavior"] == "allow" and "updatedPermissions" not in decision
    assert screen.count(STRAY) == 2
    decision, _ = decide(CAREFUL, ["y", ""])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}


def test_default_to_no_always_takes_the_word_and_sends_the_rule() -> None:
    decision, _ = decide(CAREFUL, ["always"])
    assert decision == {
        "behavior": "allow",
        "updatedInput": CAREFUL["input"],
        "updatedPermissions": [RULE],
    }


@pytest.mark.parametrize("typed", ["n", "no", "3", "3."])
def test_default_to_no_still_denies_with_n_and_with_words(typed: str) -> None:
    decision, _ = decide(CAREFUL, [typed])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    words = "n: keep the cache" if typed.startswith("n") else "keep the cache"
    decision, _ = decide(CAREFUL, [words] if typed.startswith("n") else [typed, words])
    assert decision == {
        "behavior": "deny",
        "message": REJECT_WITH_WORDS_PREFIX + "keep the cache",
    }


@pytest.mark.parametrize("typed", ["yes, but keep the cache", "ok", "sure", "Yes.", "allow"])
def test_default_to_no_other_words_are_asked_again(typed: str) -> None:
    """Words are no answer either: they go to the agent only after 3 or as n: TEXT."""
    decision, screen = decide(CAREFUL, [typed, ""])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "! type yes or always, or Enter to deny\n" in screen
    assert STRAY not in screen


def test_default_to_no_help_names_the_words() -> None:
    _, screen = decide(CAREFUL, ["?", "n"])
    assert re.search(r"\n  yes +allow: ", screen)
    assert re.search(r"\n  Enter, n +deny: ", screen)
    assert "1, y" not in screen


# ---- suppress_always_allow_rule: no lasting rule


@pytest.mark.parametrize("typed", ["2", "a", "always"])
def test_no_lasting_rule_is_offered_nor_taken(typed: str) -> None:
    request = {**BLOCKED, "suppress_always_allow_rule": True}
    decision, screen = decide(request, [typed, "1"])
    assert decision == {"behavior": "allow", "updatedInput": BLOCKED["input"]}
    assert "2. Yes" not in screen and "don't ask again" not in screen
    assert "Allow? 1 or 3 (y/n): " in screen
    assert NO_LASTING_RULE in screen


def test_both_requests_together() -> None:
    request = {**CAREFUL, "suppress_always_allow_rule": True}
    decision, screen = decide(request, ["always", "1", "yes"])
    assert decision == {"behavior": "allow", "updatedInput": CAREFUL["input"]}
    assert "always" not in screen.split("Allow?")[0]  # no always row
    assert "Allow? Type yes to allow, Enter to deny: " in screen
    assert NO_LASTING_RULE in screen and screen.count(STRAY) == 2


def test_flags_that_are_not_true_change_nothing() -> None:
    request = {**BLOCKED, "default_to_no": "yes", "suppress_always_allow_rule": 1}
    decision, _ = decide(request, ["2"])
    assert decision["updatedPermissions"] == [RULE]


# ---- askcli claude


def claude(request: dict[str, Any], answers: list[str]) -> tuple[list[Any], str]:
    lines = [INIT_OK, {"type": "control_request", "request_id": "r1", "request": request}, RESULT]
    status, _, err, sent = hosted(lines, answers)
    assert status == 0, err
    return responses(sent), err


def test_claude_without_a_lasting_rule_does_not_offer_the_identical_input() -> None:
    """A claude.ai-named MCP server's tool, as 2.1.332 asks it (recorded)."""
    request = CONNECTOR_REQUEST
    # requires_user_interaction: no key alone approves (tests/unit/tools/test_permission_person.py)
    (decision,), err = claude(request, ["always", "n"])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "this exact input" not in err and "always  Yes" not in err
    assert "Display name: Ping\n" in err
    assert NO_LASTING_RULE in err


def test_claude_default_to_no_enter_declines_and_y_does_not_approve() -> None:
    (decision,), err = claude(CAREFUL, ["y", ""])
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert STRAY in err
    assert "Reason (safetyCheck): Claude wants to delete the build folder\n" in err


def test_claude_allow_does_not_answer_a_default_to_no_request() -> None:
    """--allow Bash approves Bash without asking, except where Claude Code says a person must."""
    lines = [
        INIT_OK,
        {
            "type": "control_request",
            "request_id": "r1",
            "request": {**HOOK_ASK, "tool_use_id": "t1"},
        },
        {
            "type": "control_request",
            "request_id": "r2",
            "request": {**CAREFUL, "tool_use_id": "t2"},
        },
        RESULT,
    ]
    status, _, err, sent = hosted(lines, [""], allow=["Bash"])
    assert status == 0, err
    allowed, denied = responses(sent)
    assert allowed["behavior"] == "allow"
    assert denied == {"behavior": "deny", "message": REJECT_MESSAGE}  # Enter declined it
    assert err.count("allowed: --allow") == 1


@pytest.mark.parametrize("flag", ["default_to_no", "suppress_always_allow_rule"])
def test_claude_s_same_as_before_does_not_answer_a_careful_request(flag: str) -> None:
    """askcli's own "don't ask again for this exact input" is a lasting rule too."""
    plain = {**HOOK_ASK, "tool_use_id": "t1"}
    careful = {**HOOK_ASK, "tool_use_id": "t2", flag: True}
    lines = [
        INIT_OK,
        {"type": "control_request", "request_id": "r1", "request": plain},
        {"type": "control_request", "request_id": "r2", "request": careful},
        RESULT,
    ]
    status, _, err, sent = hosted(lines, ["2", "n"])
    assert status == 0, err
    allowed, denied = responses(sent)
    assert allowed["behavior"] == "allow"
    assert denied == {"behavior": "deny", "message": REJECT_MESSAGE}
    assert "same as before" not in err and err.count("Tool use: Bash") == 2


# ---- askcli hook (PermissionRequest)


def test_hook_input_carrying_the_requests_is_honoured() -> None:
    """2.1.332's PermissionRequest input carries none of these fields; one that does
    is asked as askcli claude asks it."""
    raw = hook_input(
        event="PermissionRequest",
        tool="Bash",
        decision_reason="\x1b[1mcareful\x1b[0m",
        blocked_path="/etc/passwd",
        default_to_no=True,
        suppress_always_allow_rule=True,
    )
    hook = parse_hook(json.dumps(raw).encode())
    ask, screen = typed("2\n1\ny\n\n")
    outcome = answer(hook, ask, lambda _: None)
    assert outcome.output == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": REJECT_MESSAGE},
        }
    }
    shown = screen.getvalue()
    assert "Reason: \\x1b[1mcareful\\x1b[0m\nBlocked path: /etc/passwd\n" in shown
    assert "\x1b" not in shown and "don't ask again" not in shown
    assert shown.count(STRAY) == 3 and NO_LASTING_RULE in shown
    ask, _ = typed("yes\n")
    allowed = answer(hook, ask, lambda _: None).output
    assert allowed is not None
    assert allowed["hookSpecificOutput"]["decision"] == {"behavior": "allow"}


# ---- at a terminal


@pytest.mark.pty
def test_at_a_terminal_enter_declines(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(document(CAREFUL)))
    term = Terminal(["ask", str(path)], tmp_path)
    term.expect("Allow? Type yes or always, Enter to deny: ")
    term.type("y")
    term.expect(STRAY)
    term.expect("Allow? Type yes")
    term.type("")
    status, reply = term.finish()
    assert status != 0
    assert reply["response"]["response"] == {"behavior": "deny", "message": REJECT_MESSAGE}
