"""Shapes seen in real traffic, through the installed askcli at a terminal (issue 31, item 7):
Gemini CLI's bare ``{"name": "ask_user", "args": {...}}`` with a text question carrying
options, and hook inputs (Claude Code's, Gemini CLI's) given to ``askcli ask``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli
from tests.support.terminals import Terminal

pytestmark = pytest.mark.pty


def test_a_bare_gemini_call_is_answered_with_its_function_response(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "gemini-call.json")], tmp_path)
    term.expect("[Database] Which database should the project use?")
    term.expect("Choose 1-3: ")
    term.type("2")
    term.expect("[Name] What should the project be called?")
    term.expect("The agent suggested (type one of these, or your own answer):")
    term.expect("- acme-api: Matches the repository")
    term.expect("- acme: Short")
    term.expect("Answer: ")
    term.type("acme-api")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert reply == {
        "id": "ask_user__ask_user_1780793400000_0",
        "name": "ask_user",
        "response": {"output": '{"answers":{"0":"SQLite","1":"acme-api"}}'},
    }


def test_a_bare_gemini_call_declined_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "gemini-call.json")], tmp_path)
    term.expect("Choose 1-3: ")
    term.child.sendintr()
    status, reply = term.finish()
    assert status == 130
    assert reply == {
        "id": "ask_user__ask_user_1780793400000_0",
        "name": "ask_user",
        "response": {"error": "[Operation Cancelled] Reason: User denied execution."},
    }


HINT = (
    'askcli: this is a Claude Code hook input ("PreToolUse" for "AskUserQuestion"), '
    "not a tool call: use askcli hook as the hook's command"
)


def test_a_claude_code_hook_input_says_to_use_askcli_hook(tmp_path: Path) -> None:
    # wide enough for the line not to be folded at the terminal
    term = Terminal(["ask", str(EXAMPLES / "claude-hook-input.json")], tmp_path, 200)
    term.expect(HINT)
    status, reply = term.finish()
    assert status == 2
    assert "Which date library?" not in term.log.getvalue()  # nothing asked
    assert reply == {
        "type": "tool_result",
        "tool_use_id": None,
        "content": f"<tool_use_error>InputValidationError: {HINT[len('askcli: ') :]}"
        "</tool_use_error>",
        "is_error": True,
    }


def test_a_claude_code_hook_input_piped_as_a_hook_would(tmp_path: Path) -> None:
    """As Claude Code runs a hook command: the input on stdin, no terminal."""
    hook_input = (EXAMPLES / "claude-hook-input.json").read_text()
    proc = run_askcli("ask", input=hook_input, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == HINT + "\n"
    (line,) = proc.stdout.splitlines()
    assert json.loads(line)["tool_use_id"] is None


def test_a_gemini_cli_hook_input_says_to_give_the_call_itself(tmp_path: Path) -> None:
    call = json.loads((EXAMPLES / "gemini-call.json").read_text())
    hook_input = {
        "session_id": "8e4f0c1a-0000-4000-8000-000000000000",
        "transcript_path": str(tmp_path / "session.json"),
        "cwd": str(tmp_path),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-07T00:50:00.000Z",
        "tool_name": "ask_user",
        "tool_input": call["args"],
    }
    proc = run_askcli("ask", input=json.dumps(hook_input) + "\n", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        'askcli: this is a Gemini CLI hook input ("BeforeTool" for "ask_user"), not a tool call'
    )
    assert proc.stderr.count("\n") == 1
    assert json.loads(proc.stdout)["tool_use_id"] is None
