"""askcli mcp's permission tool as the real Claude Code's ``--permission-prompt-tool``
(``mcp__askcli__permission_prompt``), against the stand-in API: the scripted model runs
Bash, the person decides in the inbox, and Claude Code runs the command or hands the model
the person's words. With ``askcli hook`` configured for PermissionRequest as well (2.1.332
runs it beside the prompt tool), the person is asked once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.store import QueueState
from askcli.wire import results

from tests.support.claude import Api, Headless, answer_in_inbox, needs_claude, settings, turns, use
from tests.support.inbox import queued
from tests.support.processes import askcli_path
from tests.support.real_agents import CURRENT

pytestmark = needs_claude

TOOL = "mcp__askcli__permission_prompt"
BASH = {"command": 'python3 -c "print(6*7)"', "description": "compute"}
RUN = turns(use("toolu_p1", "Bash", BASH))


def mcp_config(inbox: Path, err: Path) -> dict[str, Any]:
    """askcli mcp as the MCP server "askcli", its log in ``err``."""
    command = f"exec {askcli_path()} mcp 2>>{err}"
    server = {"command": "sh", "args": ["-c", command], "env": {"ASKCLI_INBOX": str(inbox)}}
    return {"mcpServers": {"askcli": server}}


JOINED = "is waited for"  # said by whichever of the two came second


def joined(tmp_path: Path, within: float = 60) -> None:
    """Wait until askcli hook found the permission tool's question, or the other way
    round (their logs say so)."""
    logs = [tmp_path / "hook.err", tmp_path / "mcp.err"]
    end = time.monotonic() + within
    while time.monotonic() < end:
        if any(log.exists() and JOINED in log.read_text() for log in logs):
            return
        time.sleep(0.05)
    said = [log.read_text() for log in logs if log.exists()]
    pytest.fail(f"neither askcli hook nor the permission tool joined the other: {said}")


def run(api: Api, tmp_path: Path, lines: str, status: int = 0, hook: bool = False) -> str:
    """Claude Code runs the scripted turns with the permission tool (and ``hook``: askcli
    hook too); the person answers the one question with ``lines``; what they saw."""
    inbox = tmp_path / "inbox.db"
    api.env["ASKCLI_INBOX"] = str(inbox)  # the hook's and the person's
    config = mcp_config(inbox, tmp_path / "mcp.err")
    hooks = settings(tmp_path) if hook else None
    claude = Headless(api, tmp_path / "work", hooks, prompt_tool=TOOL, mcp_config=config)
    try:
        if hook and api.claude_bin == CURRENT:  # 2.1.332 runs the hook beside the tool
            joined(tmp_path)
        screen = answer_in_inbox(api, inbox, lines, status)
        claude.until_result("fail")  # never Claude Code's own stdio prompt
    finally:
        claude.close()
    return screen


@pytest.mark.parametrize("api", [RUN], indirect=True)
def test_the_person_allows_and_the_command_runs(api: Api, tmp_path: Path) -> None:
    screen = run(api, tmp_path, "1\n")
    assert "Tool use: Bash" in screen and 'command: python3 -c "print(6*7)"' in screen
    block = api.tool_results()["toolu_p1"]
    assert block["content"] == "42" and not block.get("is_error")
    (asked,) = queued(tmp_path / "inbox.db")
    assert asked.state is QueueState.ANSWERED
    assert asked.call["request"]["tool_use_id"] == "toolu_p1"  # as Claude Code sent it


@pytest.mark.parametrize("api", [RUN], indirect=True)
def test_the_person_denies_with_words_the_model_reads(api: Api, tmp_path: Path) -> None:
    run(api, tmp_path, "3\nrun « the tests » first\n", status=1)
    block = api.tool_results()["toolu_p1"]
    assert block["content"] == results.REJECT_WITH_WORDS_PREFIX + "run « the tests » first"
    assert block["is_error"] is True


@pytest.mark.parametrize("api", [RUN], indirect=True)
def test_with_askcli_hook_too_the_person_is_asked_once(api: Api, tmp_path: Path) -> None:
    run(api, tmp_path, "1\n", hook=True)
    assert api.tool_results()["toolu_p1"]["content"] == "42"
    asked = queued(tmp_path / "inbox.db")
    assert [q.state for q in asked] == [QueueState.ANSWERED], asked  # one question, answered
