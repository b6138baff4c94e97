"""Who asks, as the queue knows it: a process of this machine, told apart from a later
process that was given the same pid by its start time.

A bare pid is not enough to say that an asker lives: once it dies the kernel hands its
number to the next process. The start time (field 22 of ``/proc/PID/stat``, in clock ticks
since boot, with the boot's id) is the process's own: a pid that now belongs to another
process has another one. Where there is no ``/proc`` the start is unknown (None) and the pid
alone is looked at.
"""

from __future__ import annotations

import os
import pwd
import socket
from pathlib import Path
from typing import NamedTuple

PROC = Path("/proc")


class Process(NamedTuple):
    """An asker: its machine, its pid and its start (None where it cannot be read)."""

    host: str
    pid: int
    start: str | None


_boots: list[str] = []


def _boot() -> str:
    """This boot's id (read once): ticks since boot say nothing across a reboot."""
    if not _boots:
        try:
            _boots.append((PROC / "sys/kernel/random/boot_id").read_text("ascii").strip())
        except (OSError, UnicodeError):
            _boots.append("")
    return _boots[0]


def _stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (the state first)."""
    try:
        with open(PROC / str(pid) / "stat", "rb") as info:
            return info.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_start(pid: int) -> str | None:
    """``BOOT_ID/TICKS``: when process ``pid`` started; None when it is not known (no such
    process, or no ``/proc``)."""
    return _start(_stat(pid))


def _start(fields: list[bytes] | None) -> str | None:
    if fields is None or len(fields) < 20 or not fields[19].isdigit():
        return None
    return f"{_boot()}/{fields[19].decode('ascii')}"


_places: list[str] = []


def place() -> str:
    """Where pids mean the same as here: this boot and this pid namespace; another machine,
    or a container of this one, has another place. Without ``/proc``, the machine's name."""
    if not _places:
        try:
            namespace = os.readlink(PROC / "self/ns/pid")
        except OSError:
            namespace = ""
        found = f"{_boot()}/{namespace}" if _boot() and namespace else None
        _places.append(found or f"host {socket.gethostname()}")
    return _places[0]


def pids_meaningful() -> bool:
    """Whether a pid recorded at :func:`place` names one process for sure: not where the
    place is only a machine's name (no ``/proc``), which two machines may share."""
    return not place().startswith("host ")


_me: dict[int, Process] = {}


def me() -> Process:
    """This process (read once per pid: a forked child is another asker)."""
    pid = os.getpid()
    if pid not in _me:
        _me[pid] = Process(socket.gethostname(), pid, process_start(pid))
    return _me[pid]


def tag() -> str:
    """What tells this asker from another of the same folder in the inbox's lines."""
    return f"pid {me().pid}"


def alive(pid: int | None, start: str | None = None) -> bool:
    """Process ``pid`` runs (a zombie, killed and not yet reaped, does not) and is the one
    that started at ``start`` (when it is known): a pid given to another process is not it."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    fields = _stat(pid)
    if fields is None:
        return not PROC.is_dir()  # no /proc here: what kill said; else it just ended
    if fields[0] in (b"Z", b"X"):
        return False
    return start is None or _start(fields) == start


def unix_user() -> str:
    """Who runs this process, as the system knows it (its effective uid's name; never
    ``$USER``, which anyone may set): who answers on one machine."""
    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def ancestors() -> set[tuple[int, str]]:
    """The processes this one runs under (its parent, theirs, up to the first), each as its
    pid and start (:func:`process_start`); empty where ``/proc`` cannot tell."""
    found: set[tuple[int, str]] = set()
    pid = os.getppid()
    for _ in range(1024):  # a chain of parents ends at pid 1 (or 0: outside the namespace)
        fields = _stat(pid)
        start = _start(fields)
        if fields is None or start is None:
            break
        found.add((pid, start))
        if not fields[1].isdigit() or int(fields[1]) <= 1:
            break
        pid = int(fields[1])
    return found


def runs_under(pid: int | None, start: str | None) -> bool:
    """Whether the process ``pid`` that started at ``start`` is one this process runs under
    (an agent that would answer its own question); False where that cannot be known."""
    return pid is not None and start is not None and (pid, start) in ancestors()
