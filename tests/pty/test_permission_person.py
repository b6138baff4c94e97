"""At a terminal, with the installed askcli: a request Claude Code 2.1.332 marks
``requires_user_interaction`` takes the word ``yes`` (``y`` and Enter never approve), and one
carrying ``matched_ask_rule`` names the person's rule; answers piped in never approve either
(issue 31, item 5)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from askcli.tools.permission import SCRIPTED, STRAY
from askcli.wire.results import REJECT_MESSAGE

from tests.support.claude import ASK_RULE_REQUEST as ASK_RULE
from tests.support.claude import CONNECTOR_REQUEST as CONNECTOR
from tests.support.processes import askcli_path
from tests.support.terminals import Terminal

pytestmark = pytest.mark.pty


def written(tmp_path: Path, request: dict[str, Any]) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"type": "control_request", "request_id": "r1", "request": request}))
    return path


def test_y_and_enter_never_approve_and_yes_does(tmp_path: Path) -> None:
    term = Terminal(["ask", str(written(tmp_path, CONNECTOR))], tmp_path)
    term.expect("Tool use: mcp__claude_ai_probe__ping (MCP server claude_ai_probe, source user)")
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("y")
    term.expect(STRAY)
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("1")
    term.expect(STRAY)
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("yes")
    status, reply = term.finish()
    assert status == 0
    assert reply["response"]["response"] == {"behavior": "allow", "updatedInput": {"text": "a"}}


def test_enter_denies(tmp_path: Path) -> None:
    term = Terminal(["ask", str(written(tmp_path, CONNECTOR))], tmp_path)
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("")
    status, reply = term.finish()
    assert status != 0
    assert reply["response"]["response"] == {"behavior": "deny", "message": REJECT_MESSAGE}


def test_the_ask_rule_is_named_and_a_person_may_approve(tmp_path: Path) -> None:
    term = Terminal(["ask", str(written(tmp_path, ASK_RULE))], tmp_path)
    term.expect("Your ask rule: Bash(rm:*), from userSettings")
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("y")
    status, reply = term.finish()
    assert status == 0 and reply["response"]["response"]["behavior"] == "allow"


@pytest.mark.parametrize("request_", [CONNECTOR, ASK_RULE], ids=["person-only", "ask-rule"])
@pytest.mark.parametrize("how", ["pipe", "answers-file"])
def test_answers_not_typed_at_a_terminal_never_approve(
    tmp_path: Path, request_: dict[str, Any], how: str
) -> None:
    path = written(tmp_path, request_)
    answers = tmp_path / "answers.txt"
    answers.write_text("yes\n")
    args = [str(askcli_path()), "ask", str(path)]
    if how == "answers-file":
        args += ["--answers", str(answers)]
    proc = subprocess.run(
        args, input="yes\n" if how == "pipe" else "", capture_output=True, text=True, timeout=10
    )
    assert proc.returncode == 3, proc.stderr
    assert SCRIPTED in proc.stderr
    decision = json.loads(proc.stdout)["response"]["response"]
    assert decision["behavior"] == "deny"
    assert "a person must approve it at a terminal" in decision["message"]
