"""Whole askcli acp sessions with the real agents at a terminal: the pty, what askcli answered and
its replay, the tool results the model got."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]

from tests.support.processes import askcli_path
from tests.support.real_agents import (
    ADAPTER_CURRENT,
)

TIMEOUT = 60  # the real agents take seconds to start; a turn is well under one


class Terminal:
    """`askcli acp ARGS` in a pty, as a person has it; what it showed is kept for the
    failure messages."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.child = pexpect.spawn(
            str(askcli_path()),
            ["acp", *args],
            cwd=str(cwd),
            env=env,
            timeout=TIMEOUT,
            encoding="utf-8",
            dimensions=(50, 300),  # no line folds, whatever the tmp paths
        )
        self.shown = io.StringIO()
        self.child.logfile_read = self.shown

    @property
    def screen(self) -> str:
        """What the terminal showed, with the turns' times as `T`."""
        text = self.shown.getvalue().replace("\r\n", "\n")
        return re.sub(r"^(-- turn [^\n]*, )\d+\.\d s$", r"\1T s", text, flags=re.M)

    def expect(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            raise AssertionError(f"{text!r} not shown; the session:\n{self.screen}") from None

    def prompt(self) -> None:
        """The `> ` prompt, at the start of a line (`-> echo a > b` holds a `> ` too)."""
        self.expect("\n> ")

    def type(self, line: str) -> None:
        self.child.sendline(line)

    def ctrl_c(self) -> None:
        self.child.sendintr()

    def ctrl_d(self) -> int:
        """Ctrl-D at `> `: the exit status once askcli is gone."""
        self.child.sendeof()
        self.expect(pexpect.EOF)
        self.child.close()
        if self.child.exitstatus is not None:
            return int(self.child.exitstatus)
        return 128 + int(self.child.signalstatus)

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def sent_answers(record: Path) -> list[Any]:
    """What askcli answered the agent's requests with, in a recorded session."""
    from askcli import fixtures

    fixture = fixtures.load(record)
    return [e["result"] for e in fixture["acp"]["sent"] if "id" in e and "result" in e]


def replays_the_same(record: Path) -> None:
    from askcli import fixtures

    fixture = fixtures.load(record)
    assert fixture["status"] == 0
    expected, actual = fixtures.replay(fixture)
    assert actual == expected, fixtures.diff(expected, actual, record.name)
    proc = subprocess.run(
        [str(askcli_path()), "replay", str(record)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == f"ok      {record}\n", proc.stdout


def last_tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a request's last message (what this request answers)."""
    messages = request["request"].get("messages") or [{}]
    content = messages[-1].get("content")
    blocks = content if isinstance(content, list) else []
    return [b for b in blocks if b.get("type") == "tool_result"]


def mode_default(adapter: Path) -> list[str]:
    """askcli's options that start the adapter's session in its ``default`` mode (ask before
    every change): 0.101.0 starts in ``auto``, where Claude decides."""
    return ["--config", "mode=default"] if adapter == ADAPTER_CURRENT else []


ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "multiSelect": False,
            "options": [
                {"label": "Postgres", "description": "server"},
                {"label": "SQLite", "description": "file"},
            ],
        }
    ]
}
