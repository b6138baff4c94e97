"""``askcli claude``: a ``control_cancel_request`` withdraws the question being answered;
askcli stops asking, says so in one line, sends nothing for it, and goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_claude import FAKE
from .test_pty import Terminal


@pytest.mark.parametrize(
    ("tool", "asked", "what"),
    [
        ("AskUserQuestion", "Choose 1-3: ", "the question"),
        ("Bash", "touch pwned", "its request to use Bash"),
    ],
)
def test_a_withdrawn_request_stops_the_prompt(
    tmp_path: Path, tool: str, asked: str, what: str
) -> None:
    log = tmp_path / "received.jsonl"
    term = Terminal(
        ["claude", "--claude-bin", str(FAKE), "go"],
        tmp_path,
        FAKE_CLAUDE_MODE="withdraw",
        FAKE_CLAUDE_TOOL=tool,
        FAKE_CLAUDE_WITHDRAW="0.5",
        FAKE_CLAUDE_LOG=str(log),
    )
    term.expect(asked)
    term.expect(f"askcli: Claude Code withdrew {what} (control_cancel_request); nothing was sent")
    term.expect("-- turn done")
    term.expect_end()
    term.child.close()
    assert term.child.exitstatus == 0, term.log.getvalue()
    assert term.out.read_text() == "echo: withdrawn: go\n"
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m["type"] for m in received] == ["control_request", "user"]  # no response
