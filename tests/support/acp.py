"""askcli acp against the scripted agent of tests/peers/acp_agent.py: its script, its log, a run
through pipes and a session in a pty."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.support.paths import PEERS
from tests.support.processes import askcli_path

AGENT = PEERS / "acp_agent.py"


OPTIONS = [
    {"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
]


SHORT = {
    "request": "session/request_permission",
    "params": {"toolCall": {"toolCallId": "t1", "title": "echo hi"}, "options": OPTIONS},
}


def chunk(text: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


class Run:
    def __init__(self, rc: int, out: str, err: str, log: list[dict[str, Any]]) -> None:
        self.rc, self.out, self.err, self.log = rc, out, err, log

    def replies(self) -> list[Any]:
        return [e["reply"]["result"] for e in self.log if "reply" in e]

    def kinds(self) -> list[str]:
        return [next(iter(e)) for e in self.log]


def setup(tmp_path: Path, turns: list[list[dict[str, Any]]], **more: Any) -> tuple[list[str], Path]:
    """The scripted agent's command line playing ``turns`` (``more``: the script's other
    keys), and its log."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns, **more}))
    log = tmp_path / "log.jsonl"
    return [sys.executable, str(AGENT), str(script), str(log)], log


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def run(
    tmp_path: Path,
    turns: list[list[dict[str, Any]]],
    answers: str,
    *args: str,
    script: dict[str, Any] | None = None,
) -> Run:
    agent, log = setup(tmp_path, turns, **(script or {}))
    proc = subprocess.run(
        [str(askcli_path()), "acp", *args, "--", *agent],
        input=answers,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr, read_log(log))


def spawn(
    tmp_path: Path, turns: list[list[dict[str, Any]]], *args: str
) -> tuple[Any, io.StringIO, Path]:
    agent, log = setup(tmp_path, turns)
    child = pexpect.spawn(
        str(askcli_path()),
        ["acp", *args, "--", *agent],
        cwd=str(tmp_path),
        timeout=5,
        encoding="utf-8",
        dimensions=(40, 120),
    )
    shown = io.StringIO()
    child.logfile_read = shown
    return child, shown, log


def expect(child: Any, shown: io.StringIO, text: str) -> None:
    try:
        child.expect_exact(text, timeout=5)
    except (pexpect.TIMEOUT, pexpect.EOF):
        raise AssertionError(f"{text!r} not shown; the session:\n{shown.getvalue()}") from None


def ended(child: Any, shown: io.StringIO) -> int:
    expect(child, shown, pexpect.EOF)
    child.close()
    return int(child.exitstatus if child.exitstatus is not None else 128 + child.signalstatus)


def wait_log(log: Path, kind: str) -> list[dict[str, Any]]:
    for _ in range(100):
        entries = read_log(log)
        if any(kind in e for e in entries):
            return entries
        time.sleep(0.05)
    raise AssertionError(f"no {kind} in the agent's log: {read_log(log)}")


def inbox_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")}
