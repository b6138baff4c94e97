"""The installed askcli and other processes: running it, waiting on it, the streams and
signals of its exit, what a test leaves running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest


def run_askcli(
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 20,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """The installed askcli with text pipes, colour off; it must never print a traceback."""
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80", **(env or {})},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def askcli_path() -> Path:
    """The installed ``askcli`` script next to the running interpreter."""
    path = Path(sys.executable).with_name("askcli")
    if not path.exists():
        raise RuntimeError(f"askcli is not installed next to {sys.executable}; run make test")
    return path


def poll(check: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Wait until ``check()`` holds; the test fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


UNWRITABLE = ("gone-terminal", "closed-pipe", "full")


def unwritable(kind: str) -> int:
    """A descriptor whose writes fail as ``kind`` says: ``gone-terminal`` a terminal whose
    other end is closed (EIO), ``closed-pipe`` a pipe nobody reads (EPIPE), ``full``
    ``/dev/full`` (ENOSPC). The caller closes it."""
    if kind == "gone-terminal":
        master, slave = os.openpty()
        os.close(master)
        return slave
    if kind == "closed-pipe":
        read, write = os.pipe()
        os.close(read)
        return write
    assert kind == "full", kind
    return os.open("/dev/full", os.O_WRONLY)


def exit_env(tmp_path: Path, **env: str) -> dict[str, str]:
    """The environment of an askcli whose exit is tested: its own state, no colour, and its
    standard streams buffered as Python buffers them by default (without the
    PYTHONUNBUFFERED of the environment the tests may run in, which would hide a write
    left in a buffer that fails at exit)."""
    full = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    full.update(
        NO_COLOR="1",
        TERM="dumb",
        ASKCLI_NOTIFY="none",
        XDG_STATE_HOME=str(tmp_path / "state"),
        ASKCLI_INBOX=str(tmp_path / "inbox.db"),
    )
    full.update(env)
    return full


def handles(pid: int, sig: signal.Signals) -> bool:
    """Process ``pid`` has a handler of its own for ``sig`` (``SigCgt`` in /proc): askcli's
    are in (Python's own for SIGINT is there from the start)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (sig - 1) & 1)


def processes_under(folder: Path) -> list[str]:
    """The processes (but this one) whose command line names ``folder`` or that run in it:
    ``pid command``, to be shown when a test finds any left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if str(folder) in command or cwd.startswith(str(folder)):
            found.append(f"{entry.name} {command.strip()}")
    return found
