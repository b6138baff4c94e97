"""Claude Code 2.1.332's permission contract, with the real Claude Code (offline, the
stand-in API plays the model) hosted by ``askcli claude``.

What 2.1.332 sends offline: ``decision_reason`` with ANSI escapes (a PreToolUse hook that
answers "ask" with a coloured reason), ``blocked_path`` (a shell command removing a path
outside the working directories) and ``suppress_always_allow_rule`` (any tool of an MCP
server whose name starts ``claude_ai_``, configured in the user's settings, with
``requires_user_interaction`` and ``mcp_server``). It sends
``default_to_no`` only for asks that need claude.ai, a connector or the auto-mode
classifier, none of which runs offline: tests/unit/tools/test_permission_care.py covers it with
requests built from 2.1.332's source.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.tools.permission import NO_LASTING_RULE, SCRIPTED, STRAY

from tests.support.claude import (
    FOREIGN,
    Api,
    current_claude_code,  # noqa: F401 (autouse: Claude Code 2.1.332 or a skip)
    text,
    use,
)
from tests.support.paths import PEERS
from tests.support.real_agents import CURRENT

RED_REASON = "\x1b[31mred\x1b[0m reason"


@pytest.fixture
def current(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Api]:
    """The stand-in API for Claude Code 2.1.332, the work directory trusted."""
    server = Api(tmp_path, request.param, claude_bin=CURRENT)
    for name in FOREIGN:
        server.env.pop(name, None)
    (tmp_path / "work").mkdir()
    work = (tmp_path / "work").resolve()
    trust = {"hasTrustDialogAccepted": True}
    config = {"hasCompletedOnboarding": True, "projects": {str(work): trust}}
    (Path(server.env["HOME"]) / ".claude.json").write_text(json.dumps(config))
    yield server
    server.stop()


def unwrapped(screen: str) -> str:
    return screen.replace("\n  ↪ ", "")


ASKED = [
    {"content": [use("toolu_01Hook", "Bash", {"command": "echo hi"})], "stop_reason": "tool_use"},
    {
        "content": [use("toolu_02Rm", "Bash", {"command": "rm -rf /nonexistent-askcli/zz"})],
        "stop_reason": "tool_use",
    },
    {"content": [text("Done.")], "stop_reason": "end_turn"},
]


@pytest.mark.parametrize("current", [ASKED], indirect=True)
def test_the_reason_and_the_blocked_path_are_shown_escaped(current: Api, tmp_path: Path) -> None:
    hook = tmp_path / "ask_hook.py"
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": RED_REASON,
        }
    }
    hook.write_text(  # asks about echo only
        "import json, sys\n"
        'if json.load(sys.stdin)["tool_input"]["command"] == "echo hi":\n'
        f"    print({json.dumps(json.dumps(output))})\n"
    )
    command = f"{sys.executable} {hook}"
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }
    (tmp_path / "home" / ".claude").mkdir()
    (tmp_path / "home" / ".claude" / "settings.json").write_text(json.dumps(settings))
    proc = current.run(tmp_path / "work", "go", input="n\nn\n")
    screen = unwrapped(proc.stderr)
    assert "\x1b" not in proc.stderr
    assert "Reason (hook): \\x1b[31mred\\x1b[0m reason\n  command: echo hi\n" in screen, screen
    assert "Blocked path: /nonexistent-askcli/zz\n  command: rm -rf /nonexistent-askcli/zz\n" in (
        screen
    )
    results = current.tool_results()
    assert results["toolu_01Hook"].get("is_error") is True
    assert results["toolu_02Rm"].get("is_error") is True


PINGED = [
    {
        "content": [use("toolu_01Ping", "mcp__claude_ai_probe__ping", {"text": "a"})],
        "stop_reason": "tool_use",
    },
    {"content": [text("Pinged.")], "stop_reason": "end_turn"},
]


@pytest.mark.parametrize("current", [PINGED], indirect=True)
def test_no_lasting_rule_where_claude_code_asks_for_none(current: Api, tmp_path: Path) -> None:
    server = {"type": "stdio", "command": sys.executable, "args": [str(PEERS / "mini_mcp.py")]}
    home = tmp_path / "home"
    config = json.loads((home / ".claude.json").read_text())
    config["mcpServers"] = {"claude_ai_probe": server}
    (home / ".claude.json").write_text(json.dumps(config))
    current.env["MCP_CONNECTION_NONBLOCKING"] = "0"
    # it carries requires_user_interaction too: no key alone approves, and answers piped
    # in never do (issue 31, item 5)
    proc = current.run(tmp_path / "work", "go", input="2\nalways\n1\nyes\n")
    screen = unwrapped(proc.stderr)
    named = "mcp__claude_ai_probe__ping (MCP server claude_ai_probe, source user)"
    assert f"Tool use: {named}\nDisplay name: Ping\n  text: a\n" in screen
    assert "always  Yes" not in screen and "don't ask again" not in screen
    assert screen.count(NO_LASTING_RULE) == 2 and STRAY in screen
    assert SCRIPTED in screen and proc.returncode == 3, proc.stderr
    assert "pong" not in json.dumps(current.tool_results().get("toolu_01Ping"))
