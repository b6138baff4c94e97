"""`make try-claude` and `make try-acp` (examples/offline.py): the README's offline tries work,
with the real agents, answered at a terminal."""

from __future__ import annotations

import io
import sys

import pexpect
import pytest

from .helpers import ROOT
from .real_agents import GEMINI, needs_gemini
from .test_claude import REAL

needs_claude = pytest.mark.skipif(
    not REAL.exists(), reason="Claude Code is not installed (make test installs it with npm)"
)


def _try(which: str, steps: list[tuple[str, str]]) -> str:
    log = io.StringIO()
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "examples" / "offline.py"), which],
        cwd=str(ROOT),
        encoding="utf-8",
        dimensions=(40, 80),
        timeout=60,  # the agents start slowly on a busy machine
        env={"PATH": "/usr/bin:/bin", "TERM": "dumb", "ASKCLI_NOTIFY": "none"},
    )
    child.logfile_read = log
    try:
        for prompt, answer in steps:
            child.expect_exact(prompt)
            child.sendline(answer)
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
    assert child.exitstatus == 0, log.getvalue()
    return log.getvalue()


@needs_claude
def test_try_claude_asks_then_writes_the_note() -> None:
    shown = _try("claude", [("Choose 1-4 [1]: ", "2"), ("Allow? 1-3 (y/n): ", "y")])
    assert "[Library] Which library should we use for date formatting?" in shown
    assert "Claude: Done: see NOTES.md." in shown
    assert "(NOTES.md was written: 'Dates are formatted" in shown


@needs_gemini
def test_try_acp_asks_before_the_write() -> None:
    assert GEMINI.exists()
    shown = _try("acp", [("y = 2, n = 3: ", "y")])
    assert "+Dates are formatted with the library chosen in the terminal." in shown
    assert "Agent: Done: see NOTES.md." in shown
    assert "(NOTES.md was written: 'Dates are formatted" in shown
