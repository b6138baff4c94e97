"""`make try-claude` and `make try-acp` (examples/offline.py): the README's offline tries work,
with the real agents, answered at a terminal; Ctrl-C at any moment ends them quietly (no
traceback, one line: askcli's status, 130) and leaves no process behind."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.support.paths import ROOT
from tests.support.processes import processes_under
from tests.support.real_agents import GEMINI, REAL, needs_gemini

needs_claude = pytest.mark.skipif(
    not REAL.exists(), reason="Claude Code is not installed (make test installs it with npm)"
)
ENV = {"PATH": "/usr/bin:/bin", "TERM": "dumb", "ASKCLI_NOTIFY": "none"}


def _try(which: str, steps: list[tuple[str, str]]) -> str:
    log = io.StringIO()
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "examples" / "offline.py"), which],
        cwd=str(ROOT),
        encoding="utf-8",
        dimensions=(40, 80),
        timeout=60,  # the agents start slowly on a busy machine
        env=ENV,
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
    assert shown.rstrip().endswith("(askcli exited with status 0)")


@needs_gemini
def test_try_acp_asks_before_the_write() -> None:
    assert GEMINI.exists()
    shown = _try("acp", [("y = 2, n = 3: ", "y")])
    assert "+Dates are formatted with the library chosen in the terminal." in shown
    assert "Agent: Done: see NOTES.md." in shown
    assert "(NOTES.md was written: 'Dates are formatted" in shown
    assert shown.rstrip().endswith("(askcli exited with status 0)")


# -- Ctrl-C in make try-claude / make try-acp ---------------------------------------------------


class Try:
    """``make try-WHICH`` in a pty, its temporary folder in ``tmp_path`` (TMPDIR), with this
    interpreter's askcli."""

    def __init__(self, which: str, tmp_path: Path) -> None:
        bin_dir = Path(sys.executable).parent
        make = ["make", "-s", f"try-{which}", f"BIN={bin_dir}", f"VENV={bin_dir.parent}"]
        dry = subprocess.run([*make, "-n"], cwd=ROOT, capture_output=True, text=True, env=ENV)
        if dry.returncode != 0 or "install" in dry.stdout:
            pytest.skip(f"make try-{which} would install first (make install, make test do)")
        self.tmp = tmp_path
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            make[0],
            make[1:],
            cwd=str(ROOT),
            encoding="utf-8",
            dimensions=(40, 80),
            timeout=60,
            env={**ENV, "TMPDIR": str(tmp_path)},
        )
        self.child.logfile_read = self.log

    def expect(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {text!r}; the terminal showed:\n{self.log.getvalue()}")

    def when_running(self, part: str) -> None:
        """Wait until a process of the try whose command line holds ``part`` runs (askcli's
        own, which names its agent, does not count)."""
        deadline = time.monotonic() + 60
        found = lambda line: part in line and "bin/askcli" not in line  # noqa: E731
        while not any(found(line) for line in processes_under(self.tmp)):
            if time.monotonic() > deadline or not self.child.isalive():
                pytest.fail(f"no {part} started; the terminal showed:\n{self.log.getvalue()}")
            time.sleep(0.01)

    def ended_by_ctrl_c(self) -> str:
        """Ctrl-C; the try ends quietly: what it showed after, askcli's status said in one
        line, make ended by the Ctrl-C itself (130) and no process of the try left."""
        self.child.sendintr()
        try:
            self.child.expect(pexpect.EOF, timeout=30)
        except pexpect.TIMEOUT:
            pytest.fail(f"the try did not end; the terminal showed:\n{self.log.getvalue()}")
        self.child.close()
        shown = self.log.getvalue()
        assert "Traceback" not in shown and "KeyboardInterrupt" not in shown, shown
        assert "make:" not in shown, shown
        assert self.child.signalstatus == signal.SIGINT, shown
        deadline = time.monotonic() + 5
        while processes_under(self.tmp):
            assert time.monotonic() < deadline, f"left behind: {processes_under(self.tmp)}"
            time.sleep(0.1)
        return shown


@pytest.fixture(autouse=True)
def _no_try_left(tmp_path: Path) -> Iterator[None]:
    yield
    for line in processes_under(tmp_path):  # a failed test: nothing of it runs on
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split()[0]), signal.SIGKILL)


@needs_claude
@pytest.mark.parametrize("where", ["the question", "the permission"])
def test_ctrl_c_at_a_prompt_of_try_claude_ends_it_quietly(where: str, tmp_path: Path) -> None:
    run = Try("claude", tmp_path)
    run.expect("Choose 1-4 [1]: ")
    if where == "the permission":
        run.child.sendline("2")
        run.expect("Allow? 1-3 (y/n): ")
    shown = run.ended_by_ctrl_c()
    assert shown.rstrip().endswith("(askcli exited with status 130)"), shown


@needs_claude
def test_ctrl_c_while_claude_code_starts_ends_the_try_quietly(tmp_path: Path) -> None:
    run = Try("claude", tmp_path)
    run.when_running("claude-code")
    shown = run.ended_by_ctrl_c()
    assert shown.rstrip().endswith("(askcli exited with status 130)"), shown


@needs_claude
def test_ctrl_c_while_the_stand_in_starts_ends_the_try_quietly(tmp_path: Path) -> None:
    run = Try("claude", tmp_path)
    run.when_running("mock_anthropic.py")
    shown = run.ended_by_ctrl_c()
    # before askcli starts, or just after, when askcli takes it
    last = shown.rstrip().splitlines()[-1].removeprefix("^C")
    assert last in ("(interrupted before askcli started)", "(askcli exited with status 130)")


@needs_gemini
@pytest.mark.parametrize("where", ["the permission", "Gemini CLI starting"])
def test_ctrl_c_in_try_acp_ends_it_quietly(where: str, tmp_path: Path) -> None:
    run = Try("acp", tmp_path)
    if where == "the permission":
        run.expect("y = 2, n = 3: ")
    else:
        run.when_running("gemini-cli")
    shown = run.ended_by_ctrl_c()
    assert shown.rstrip().endswith("(askcli exited with status 130)"), shown


def _npm_packages(target: str) -> set[str]:
    """The npm packages ``make TARGET`` installs when nothing is installed yet (a dry run of
    every step, as if all were out of date)."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    dry = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(re.findall(r"install --prefix \S+ .*?((?:@[\w-]+/)?[\w-]+@[\w.-]+)", dry.stdout))


def test_try_acp_installs_only_the_agent_it_uses() -> None:
    assert {name.rpartition("@")[0] for name in _npm_packages("try-acp")} == {"@google/gemini-cli"}


def test_make_test_still_installs_every_acp_agent() -> None:
    names = {name.rpartition("@")[0] for name in _npm_packages("acp-agents")}
    assert names == {
        "@google/gemini-cli",
        "@agentclientprotocol/claude-agent-acp",
        "@agentclientprotocol/codex-acp",
        "opencode-ai",
    }
    test = subprocess.run(
        ["make", "-n", "-B", "test"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "claude-agent-acp@" in test.stdout and "opencode-ai@" in test.stdout
