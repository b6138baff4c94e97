"""Claude Code as a child process: started, read in bounded pieces, and ended with every
process it started."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...errors import UsageError
from ...lines import CHUNK, each_line
from ..child import MAX_LINE, SHOWN, die_with_parent
from .stream_json import Skipped, parse_line

FLAGS = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-prompt-tool",
    "stdio",
]
INSTALL_HINT = (
    "Claude Code was not found: install it with `npm install -g @anthropic-ai/claude-code`, "
    "or pass --claude-bin PATH"
)
ENDING_GRACE = 2.0  # seconds Claude Code has to end by itself once its input is closed
TERM_GRACE = 3.0  # seconds its process group has between SIGTERM and SIGKILL


def find_claude(claude_bin: str | None) -> str:
    """The Claude Code executable; UsageError saying how to install it when missing."""
    path = claude_bin or shutil.which("claude")
    if path is None or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(INSTALL_HINT if claude_bin is None else f"{claude_bin}: {INSTALL_HINT}")
    return path


def _processes() -> dict[int, tuple[int, int, bool]]:
    """pid -> (parent pid, process group, is a zombie), from /proc (Linux); {} elsewhere."""
    table: dict[int, tuple[int, int, bool]] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                table[int(name)] = (int(fields[1]), int(fields[2]), fields[0] in (b"Z", b"X"))
            except (OSError, IndexError, ValueError):
                continue
    return table


def _left(pgid: int) -> list[int]:
    """The live processes to end: askcli's descendants (Claude Code, what it started, and
    what was orphaned to askcli, its subreaper) and Claude Code's process group."""
    table = _processes()
    if not table:  # no /proc: the process group alone
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [-pgid]
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    found |= {pid for pid, (_, group, _) in table.items() if group == pgid}
    return sorted(pid for pid in found if not table[pid][2])


def _running(pid: int) -> bool:
    """``pid`` (``-pgid``: a process group) still runs: exists and is not a zombie."""
    try:
        if pid < 0:
            os.killpg(-pid, 0)
            return True
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _subreaper() -> None:
    """Make askcli the parent of what Claude Code's processes orphan (Linux), so that a
    background command that outlives Claude Code can still be found and ended."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


class ChildClaude:
    """Claude Code as a child process leading its own process group: Ctrl-C at the
    terminal reaches askcli, which decides what to do (interrupt the turn, or end); the
    whole group (Claude Code and every process it started there) is ended on every path
    out. If askcli is killed, Claude Code gets SIGTERM (Linux), its children do not.

    Its stdout is read in pieces: a line over :data:`MAX_LINE` is skipped without being
    held. Its stderr is read in a thread and each line handed to ``on_stderr``.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        on_stderr: Callable[[str, int], None] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if sys.platform.startswith("linux"):
            _subreaper()
        self.proc = subprocess.Popen(
            list(command),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.buf = bytearray()
        self.scanned = 0
        self.ready: collections.deque[dict[str, Any] | str | Skipped] = collections.deque()
        self.on_stderr = on_stderr
        self.pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self.pump.start()

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        each_line(self.proc.stderr, self.on_stderr or (lambda _text, _more: None), SHOWN * 4)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass  # Claude Code is gone: receive() will say so

    def _read(self) -> bytes:
        """The next bytes; b"" at the end, or once Claude Code has ended and left nothing
        unread (a process it started may hold the pipe open)."""
        try:
            while not select.select([self.fd], [], [], 0.5)[0]:
                if self.proc.poll() is not None and not select.select([self.fd], [], [], 0)[0]:
                    return b""
                self._reap_orphans()
            return os.read(self.fd, CHUNK)
        except (OSError, ValueError):
            return b""

    def take_ready(self) -> bool:
        """Take what Claude Code has written so far, without waiting, as complete lines
        into :attr:`ready` (read while the person answers); False at its end, or when a
        line is too long to take this way (:meth:`receive` deals with it)."""
        try:
            data = os.read(self.fd, CHUNK)
        except OSError:
            return False
        if not data:
            return False
        self.buf += data
        self.scanned = 0
        while (newline := self.buf.find(b"\n")) >= 0:
            self.ready.append(parse_line(bytes(self.buf[:newline])))
            del self.buf[: newline + 1]
        return len(self.buf) <= MAX_LINE

    def receive(self) -> dict[str, Any] | str | Skipped | None:
        if self.ready:
            return self.ready.popleft()
        while True:
            newline = self.buf.find(b"\n", self.scanned)
            if newline >= 0:
                line = bytes(self.buf[:newline])
                del self.buf[: newline + 1]
                self.scanned = 0
                return parse_line(line)
            if len(self.buf) > MAX_LINE:
                return self._skip_long()
            self.scanned = len(self.buf)
            data = self._read()
            if not data:
                if not self.buf:
                    return None
                line, self.buf, self.scanned = bytes(self.buf), bytearray(), 0
                return parse_line(line)
            self.buf += data

    def _skip_long(self) -> Skipped:
        size = len(self.buf)
        self.buf, self.scanned = bytearray(), 0
        while True:
            data = self._read()
            newline = data.find(b"\n")
            if newline >= 0:
                size += newline
                self.buf += data[newline + 1 :]
            else:
                size += len(data)
            if newline >= 0 or not data:
                return Skipped(f"a line of {size} bytes, over the limit of {MAX_LINE}")

    def close(self, *, at_once: bool = False) -> int | None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):  # its input closed, it ends
            code = self.proc.wait(timeout=0.2 if at_once else ENDING_GRACE)
        self._end_group()
        self.pump.join(timeout=1.0)
        with contextlib.suppress(OSError):
            self.proc.stdout.close()  # type: ignore[union-attr]
        return code

    def _reap_orphans(self) -> None:
        """Collect the exit status of orphans askcli adopted (not Claude Code's own)."""
        with contextlib.suppress(ChildProcessError, OSError):
            while True:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if found is None or found.si_pid == self.proc.pid:
                    return
                os.waitpid(found.si_pid, 0)

    def _end_group(self) -> None:
        """SIGTERM to Claude Code's process group and every process it started (its
        commands run in groups of their own), SIGKILL to what is left after a grace
        period."""
        pgid = self.proc.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            self.proc.poll()
            self._reap_orphans()
            left = _left(pgid)
            if not left:
                break
            with contextlib.suppress(OSError):
                os.killpg(pgid, sig)
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + TERM_GRACE
            rounds = 0
            while time.monotonic() < deadline:
                self.proc.poll()
                self._reap_orphans()
                rounds += 1
                # the processes found are watched; all of /proc is read again only now and
                # then (for one started meanwhile), and before saying that none is left
                left = _left(pgid) if rounds % 10 == 0 else [p for p in left if _running(p)]
                if not left and not (left := _left(pgid)):
                    break
                time.sleep(0.02)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1.0)
        self._reap_orphans()
