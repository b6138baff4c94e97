"""askcli hook as the real Codex's PermissionRequest hook (Codex CLI 0.171.0, driven through
``codex app-server`` on stdio, offline on the scripted stand-in Responses API): Codex's hook
input is asked in the inbox, and Codex takes askcli's output as its own decision (its
PermissionRequest output allows no updatedInput, updatedPermissions, interrupt or unknown
key: what askcli gives it here has none)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.store import QueueState, open_store
from askcli.setup import configs as setup

from tests.support.codex import CODEX
from tests.support.codex_app_server import AppServer
from tests.support.inbox import answer_queued
from tests.support.processes import askcli_path
from tests.support.real_agents import codex_env, stand_in

pytestmark = [
    pytest.mark.skipif(
        not CODEX.exists(), reason="Codex CLI is not installed (make test installs it with npm)"
    ),
    pytest.mark.real_agent,
]

ESCALATED = {
    "cmd": "echo one > first.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Write the first file",
}


def hooked(tmp_path: Path, port: int, *, as_setup_writes: bool) -> dict[str, str]:
    """Codex's environment with ``askcli hook`` as its PermissionRequest hook: the hooks.json
    ``askcli setup codex-hook`` writes, or inline in config.toml with the hook's input and
    output kept beside it."""
    env = codex_env(tmp_path, port)
    env["ASKCLI_INBOX"] = str(tmp_path / "inbox")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    if as_setup_writes:
        planned = setup.plan("codex-hook", str(askcli_path()), tmp_path / "setup-home")
        assert planned.after is not None
        (Path(env["CODEX_HOME"]) / "hooks.json").write_text(planned.after)
        return env
    command = f"tee {tmp_path}/hook-in.json | {askcli_path()} hook | tee {tmp_path}/hook-out.json"
    config = Path(env["CODEX_HOME"]) / "config.toml"
    config.write_text(
        config.read_text()
        + "[[hooks.PermissionRequest]]\n"
        + 'matcher = "*"\n'
        + "[[hooks.PermissionRequest.hooks]]\n"
        + 'type = "command"\n'
        + f"command = {json.dumps(command)}\n"
        + "timeout = 600\n"
    )
    return env


def answered_in_inbox(inbox: Path, lines: str) -> str:
    """The person answers the question the hook queued; what they saw."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        waiting = (
            open_store(inbox).questions(states=(QueueState.WAITING,)) if inbox.exists() else []
        )
        if waiting:
            screen = io.StringIO()
            assert answer_queued(open_store(inbox), lines, waiting[0].id, screen)
            return screen.getvalue()
        time.sleep(0.05)
    raise AssertionError("the hook queued no question")


def run(
    tmp_path: Path, lines: str, *, as_setup_writes: bool = False
) -> tuple[str, list[str], list[dict[str, Any]], Path]:
    """Codex asks to run a command outside its sandbox; the person answers ``lines`` in the
    inbox. What they saw, the function_call_output texts, the app-server's requests to its
    client, and the work folder."""
    turns = [[{"call": "exec_command", "arguments": ESCALATED}], [{"text": "Done."}]]
    work = tmp_path / "work"
    work.mkdir()
    with stand_in(tmp_path, turns, "responses_scripted.py") as (port, log):
        env = hooked(tmp_path, port, as_setup_writes=as_setup_writes)
        server = AppServer(env, work, tmp_path / "codex.err")
        try:
            server.initialize()
            (hook,) = server.trust_hooks(work)
            assert hook["eventName"] == "permissionRequest", hook
            server.start_turn(work, "write the first file")
            screen = answered_in_inbox(tmp_path / "inbox", lines)
            server.notification("turn/completed")
        finally:
            server.close()
        said = [
            str(item["output"])
            for line in log.read_text().splitlines()
            for item in json.loads(line)["request"].get("input", [])
            if item.get("type") == "function_call_output"
        ]
    asked = [m for m in server.seen if "method" in m and "id" in m]
    return screen, said, asked, work


def test_codex_runs_the_hook_setup_wrote_allowed_in_the_inbox(tmp_path: Path) -> None:
    screen, said, asked, work = run(tmp_path, "y\n", as_setup_writes=True)
    assert "Tool use: Bash\n  command: echo one > first.txt\n" in screen, screen
    assert "  description: Write the first file\n" in screen, screen
    assert asked == []  # the hook decided: Codex asked its client nothing
    assert (work / "first.txt").read_text() == "one\n"
    assert len(said) == 1 and "Process exited with code 0" in said[0], said


def test_codex_permission_request_denied_in_the_inbox(tmp_path: Path) -> None:
    _, said, asked, work = run(tmp_path, "n\n")
    hook_input = json.loads((tmp_path / "hook-in.json").read_text())
    assert hook_input["hook_event_name"] == "PermissionRequest"
    assert hook_input["tool_name"] == "Bash"
    assert hook_input["tool_input"] == {
        "command": "echo one > first.txt",
        "description": "Write the first file",
    }
    out = json.loads((tmp_path / "hook-out.json").read_text())
    decision = out["hookSpecificOutput"]["decision"]
    assert set(decision) == {"behavior", "message"}, decision
    assert decision["behavior"] == "deny"
    assert asked == []
    assert not (work / "first.txt").exists()
    (text,) = said
    rejected = f'Rejected(\\"{decision["message"]}\\")'
    assert text == f'exec_command failed: CreateProcess {{ message: "{rejected}" }}', said
