"""The real Gemini CLI's shapes of an ask_user call (issue 31, item 7), offline on canned model
replies: its BeforeTool hook input given to ``askcli ask`` (as the hook's command) is refused,
and Gemini CLI goes on to its own dialog; the call as its session transcript records it,
``{"id", "name", "args", ...}``, is answered with the bare FunctionResponse carrying that id."""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path, run_askcli
from tests.support.real_agents import gemini, gemini_reply, needs_gemini

ARGS = json.loads((EXAMPLES / "gemini-call.json").read_text())["args"]
DIALOG = "Answer Questions"  # the title of Gemini CLI's ask_user dialog


def _transcript_calls(home: Path) -> list[dict[str, Any]]:
    """The tool calls Gemini CLI's session transcripts record (one JSON object a line)."""
    found = []
    for path in sorted((home / ".gemini" / "tmp").rglob("session-*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # empty, or being written
                continue
            found += record.get("toolCalls", []) if isinstance(record, dict) else []
    return found


def _run_interactive(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Gemini CLI at a terminal (ask_user exists only there) whose model calls ask_user once,
    with ``askcli ask`` as the BeforeTool hook (its input saved on the way): the hook input,
    the transcript's record of the call, and what the terminal showed."""
    replies = [gemini_reply({"functionCall": {"name": "ask_user", "args": ARGS}})]
    replies.append(gemini_reply({"text": "Understood."}))
    work, env, command = gemini(tmp_path, replies)
    home = Path(env["HOME"])
    saved = tmp_path / "hook-input.json"
    hook = f"tee {shlex.quote(str(saved))} | {shlex.quote(str(askcli_path()))} ask"
    settings_path = home / ".gemini" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["security"]["folderTrust"] = {"enabled": False}
    settings["hooks"] = {
        "BeforeTool": [
            {
                "matcher": "ask_user",
                "hooks": [{"type": "command", "command": hook, "name": "askcli"}],
            }
        ]
    }
    settings_path.write_text(json.dumps(settings))
    argv = [a for a in command[1:] if a != "--acp"] + ["-i", "ask me"]
    child = pexpect.spawn(
        command[0],
        argv,
        cwd=str(work),
        env={**env, "TERM": "xterm", "PATH": os.environ["PATH"]},
        encoding="utf-8",
        timeout=5,
        dimensions=(50, 240),
    )
    shown: list[str] = []
    try:
        deadline = time.monotonic() + 60
        calls: list[dict[str, Any]] = []
        dismissed = False
        while time.monotonic() < deadline and not calls:
            try:
                shown.append(child.read_nonblocking(65536, timeout=0.5))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                break
            if not dismissed and DIALOG in "".join(shown):
                child.send("\x1b")  # Esc: Gemini CLI's own dialog dismissed
                dismissed = True
            calls = [c for c in _transcript_calls(home) if c.get("result")]
    finally:
        child.sendcontrol("c")
        child.sendcontrol("c")
        child.close(force=True)
    assert calls, "Gemini CLI recorded no ask_user call; it showed:\n" + "".join(shown)
    return json.loads(saved.read_text()), calls[0], "".join(shown)


@needs_gemini
def test_real_gemini_cli_shapes_of_an_ask_user_call(tmp_path: Path) -> None:
    hook_input, record, shown = _run_interactive(tmp_path)

    # the hook input, as Gemini CLI sends it: no way to answer in what a hook prints
    assert hook_input["hook_event_name"] == "BeforeTool"
    assert hook_input["tool_name"] == "ask_user"
    assert hook_input["tool_input"] == ARGS
    # askcli ask, as the hook, refused it (exit status 2), but Gemini CLI reads the result
    # line on stdout as the hook's JSON output, which blocks nothing: it warned that the hook
    # failed and asked at its own dialog (dismissed here)
    assert "Hook(s) [askcli] failed for event BeforeTool" in shown
    assert DIALOG in shown
    (part,) = record["result"]
    assert part["functionResponse"]["id"] == record["id"]

    # the transcript's record, as it is, answered with the bare FunctionResponse
    assert record["name"] == "ask_user" and record["args"] == ARGS
    assert record["id"].startswith("ask_user__")
    proc = run_askcli("ask", input=json.dumps(record) + "\n2\nacme-api\n\n", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "  - acme-api: Matches the repository\n" in proc.stderr
    assert json.loads(proc.stdout) == {
        "id": record["id"],
        "name": "ask_user",
        "response": {"output": '{"answers":{"0":"SQLite","1":"acme-api"}}'},
    }
    # which is what Gemini CLI's own functionResponse part carries, without the part
    assert set(part["functionResponse"]) == set(json.loads(proc.stdout))
