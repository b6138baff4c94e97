"""The files askcli keeps: only regular files of its own, never through a symlink.

A path that is a symlink, a directory, a FIFO, a socket or a device is never opened for
writing, renamed or replaced. Files are opened with :data:`SAFE_OPEN`; new ones (but the
append-only journal) are created with ``O_EXCL``; they are read in bounded memory and
replaced whole (a new temporary file, synced and renamed over the old one), so that a
crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import time
from pathlib import Path

# never through a symlink, never blocking on a FIFO, never inherited by a child
SAFE_OPEN = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_names = itertools.count()


def state_dir() -> Path:
    """``$XDG_STATE_HOME/askcli`` (``~/.local/state/askcli`` when unset)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "askcli"


def not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is, in words; None for a regular file."""
    kinds = (
        (stat.S_ISREG, None),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def is_devnull(st: os.stat_result) -> bool:
    """``st`` (from lstat) is the system's ``/dev/null`` itself: "keep nothing"."""
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) and (st.st_dev, st.st_ino) == (null.st_dev, null.st_ino)


def lstat_or_none(path: Path) -> os.stat_result | None:
    """``os.lstat(path)``, None when nothing is there; other errors raise OSError."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def read_bounded(fd: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``fd``; None when it holds more."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, min(1024 * 1024, limit + 1 - size))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def create_exclusive(directory: Path, name: str, mode: int = 0o600) -> tuple[int, Path]:
    """A new file in ``directory`` named ``name`` plus a unique tail: (fd, path)."""
    while True:
        path = directory / f".{name}.{os.getpid()}-{time.time_ns()}-{next(_names)}.tmp"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | SAFE_OPEN, mode), path
        except FileExistsError:
            continue


def set_aside(path: Path, expected: os.stat_result) -> Path | None:
    """Rename the regular file at ``path`` (the one described by ``expected``) to a name
    that did not exist, never replacing a file; None when it is not that file any more."""
    found = lstat_or_none(path)
    if found is None or not stat.S_ISREG(found.st_mode):
        return None
    if (found.st_dev, found.st_ino) != (expected.st_dev, expected.st_ino):
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime()) + f".{time.time_ns() % 10**9:09d}"
    for n in itertools.count(1):
        aside = path.with_name(f"{path.name}.unreadable-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, aside, follow_symlinks=False)  # fails if the name is taken
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links
            if lstat_or_none(aside) is not None:
                continue
            os.rename(path, aside)
            return aside
        os.unlink(path)
        return aside
    raise AssertionError("unreachable")


def replace_whole(path: Path, data: bytes, mode: int) -> str | None:
    """Replace the regular file at ``path`` (or create it) with ``data``, durably: a new
    temporary file beside it (created with ``mode``, less the umask), synced and renamed
    over it. What is at ``path`` when it is not a regular file is left alone: then its kind
    in words is returned (``a FIFO``), else None."""
    fd, temp = create_exclusive(path.parent, path.name, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        found = lstat_or_none(path)
        kind = None if found is None else not_regular(found.st_mode)
        if kind is not None:
            os.unlink(temp)
            return kind
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # the rename itself is durable
        dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return None
