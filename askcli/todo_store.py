"""The TodoWrite state file: each session's current todo list, shared by askcli processes.

One JSON file (``askcli-todos/1``) maps a session key to its list. A change is a locked
read-modify-write (``flock`` on a lock file beside it, waited for at most
:data:`LOCK_WAIT` seconds), written to a new temporary file, synced and renamed over the
old one, so two askcli processes never lose each other's changes and a crash never leaves
half a file. The changes of one document are held and written once (:meth:`TodoStore.batch`).

askcli touches only regular files of its own: a state or lock path that is a symlink, a
directory, a FIFO, a socket or a device is refused (the list is just not kept) and never
opened through a symlink; ``/dev/null`` means "keep no state"; a state file that cannot be
read is renamed aside to a new name by a command that writes, never overwritten, and left
alone by one that only reads.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from .documents import parse_json
from .envelopes import json_document

FORMAT = "askcli-todos/1"
MAX_STATE_BYTES = 8 * 1024 * 1024  # a state file larger than this is not read
LOCK_WAIT = 10.0  # seconds to wait for another askcli's lock before going on without it
MAX_DEPTH = 72  # the nesting of the file: a call's own limit (64) and the file's levels
Todos = list[dict[str, Any]]

# never through a symlink, never blocking on a FIFO, never inherited by a child
SAFE_OPEN = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_STRING_FIELDS = ("content", "status", "activeForm", "id")
_names = itertools.count()


def state_dir() -> Path:
    """``$XDG_STATE_HOME/askcli`` (``~/.local/state/askcli`` when unset)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "askcli"


def default_path() -> Path:
    """``$XDG_STATE_HOME/askcli/todos.json``."""
    return state_dir() / "todos.json"


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


def parse_state(data: bytes) -> dict[str, Todos]:
    """The sessions of a state file's bytes; ValueError saying what is wrong with them."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("it is not valid UTF-8") from None
    try:
        state = parse_json(text, MAX_DEPTH)
    except ValueError as exc:
        raise ValueError(f"it {exc}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError("it is not an askcli todo state file")
    sessions = state.get("sessions")
    if not isinstance(sessions, dict):
        raise ValueError("its sessions are not an object")
    for key, todos in sessions.items():
        if not isinstance(todos, list):
            raise ValueError(f"the list of session {key!r} is not a list")
        for item in todos:
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                raise ValueError(f"an item of session {key!r} is not a todo")
            if any(not isinstance(item.get(f, ""), str) for f in _STRING_FIELDS):
                raise ValueError(f"an item of session {key!r} is not a todo")
    return sessions


class Loaded(NamedTuple):
    """What reading the state file found: its sessions, or why they are not usable.

    ``problem`` says why (None when fine); ``writable`` says whether the file may be
    replaced; ``corrupt`` is the regular file whose content is unreadable (to set aside)."""

    sessions: dict[str, Todos]
    problem: str | None = None
    writable: bool = True
    corrupt: os.stat_result | None = None
    discard: bool = False  # the path is /dev/null: keep no state, say nothing


def load(path: Path) -> Loaded:
    """Read the state file at ``path`` without changing anything."""
    try:
        found = lstat_or_none(path)
    except OSError as exc:
        return Loaded({}, f"cannot read the state file {path}: {exc.strerror}", False)
    if found is None:
        return Loaded({})
    if is_devnull(found):
        return Loaded({}, writable=False, discard=True)
    kind = not_regular(found.st_mode)
    if kind is not None:
        return Loaded({}, f"the state file {path} is {kind}, not a regular file", False)
    try:
        fd = os.open(path, os.O_RDONLY | SAFE_OPEN)
    except OSError as exc:
        return Loaded({}, f"cannot read the state file {path}: {exc.strerror}", False)
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (found.st_dev, found.st_ino):
            return Loaded({}, f"the state file {path} changed while it was read", False)
        too_big = opened.st_size > MAX_STATE_BYTES  # said without reading it
        data = None if too_big else read_bounded(fd, MAX_STATE_BYTES)
    except OSError as exc:
        return Loaded({}, f"cannot read the state file {path}: {exc.strerror}", False)
    finally:
        os.close(fd)
    try:
        if data is None:
            raise ValueError(f"it is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB")
        return Loaded(parse_state(data))
    except ValueError as exc:
        return Loaded({}, f"the state file {path} is unreadable: {exc}", corrupt=opened)


def _create_exclusive(directory: Path, name: str) -> tuple[int, Path]:
    """A new file in ``directory`` named ``name`` plus a unique tail: (fd, path)."""
    while True:
        path = directory / f".{name}.{os.getpid()}-{time.time_ns()}-{next(_names)}.tmp"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | SAFE_OPEN, 0o600), path
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


class TodoStore:
    """Todo lists by session key in the file at ``path``.

    Problems that do not stop the call (a file refused or set aside, a lock not had, a
    file that cannot be written) are collected in ``notes`` for the caller to show;
    ``problem`` is why the file could not be read, if it could not; ``interrupted`` is set
    when a signal came while the changes were being kept (they may not be).
    """

    def __init__(self, path: Path, *, lock_wait: float = LOCK_WAIT) -> None:
        self.path = path
        self.lock_wait = lock_wait
        self.notes: list[str] = []
        self.problem: str | None = None
        self.interrupted = False
        self._off = False  # refused for the run: the lists are not kept
        self._gave_up = False  # the lock was not had in time once: later, try without waiting
        self._pending: dict[str, Todos] | None = None  # held changes, in a batch
        self._snapshot: dict[str, Todos] | None = None

    def _refuse(self, problem: str) -> None:
        self._off = True
        self.problem = problem
        self.notes.append(f"{problem}; the todo list is not kept")

    def get(self, key: str) -> Todos:
        """The current list of ``key`` (empty when there is none); changes nothing."""
        loaded = load(self.path)
        if loaded.problem is not None:
            self.problem = loaded.problem
            self.notes.append(loaded.problem)
        return loaded.sessions.get(key, [])

    def replace(self, key: str, todos: Todos) -> Todos:
        """Store ``todos`` for ``key`` (an empty list removes it); return the list before.

        In a :meth:`batch`, the change is held and written when the batch ends."""
        if self._pending is None:
            with self.batch():
                return self.replace(key, todos)
        if self._off:
            return []
        if key in self._pending:
            old = self._pending[key]
        else:
            if self._snapshot is None:
                self._snapshot = self._read_snapshot()
            old = self._snapshot.get(key, [])
        if not self._off:
            self._pending[key] = todos
        return old

    def _read_snapshot(self) -> dict[str, Todos]:
        try:
            loaded = load(self.path)
        except KeyboardInterrupt:
            self.interrupted = True
            self._refuse(f"interrupted while reading the state file {self.path}")
            return {}
        if loaded.discard:
            self._off = True
        elif not loaded.writable and loaded.problem is not None:
            self._refuse(loaded.problem)
        return loaded.sessions  # a corrupt file is set aside when the changes are written

    @contextlib.contextmanager
    def batch(self, report: Callable[[str], None] | None = None) -> Iterator[None]:
        """Hold the changes made inside and write them once at the end, even when the
        block ends by an exception; then pass the notes to ``report``."""
        if self._pending is not None:  # the outer batch writes
            yield
            return
        self._pending, self._snapshot = {}, None
        try:
            yield
        finally:
            pending, self._pending, self._snapshot = self._pending, None, None
            if pending and not self._off:
                self._write_changes(pending)
            if report is not None:
                for note in self.notes:
                    report(note)
                self.notes.clear()

    def _write_changes(self, pending: dict[str, Todos]) -> None:
        try:
            lock = self._lock()
            if lock is None:
                return
            try:
                self._apply(pending)
            finally:
                os.close(lock)  # releases the lock
        except KeyboardInterrupt:
            self.interrupted = True
            self.notes.append(f"interrupted: the todo list may not be kept in {self.path}")
        except OSError as exc:
            self.notes.append(
                f"cannot keep the todo list in {self.path}: {exc.strerror}; "
                "the next call will not see it"
            )

    def _lock(self) -> int | None:
        """The lock file's descriptor, locked; None (noted) when it cannot be had."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = self.path.with_name(self.path.name + ".lock")
        found = lstat_or_none(lock)
        kind = None if found is None else not_regular(found.st_mode)
        if kind is not None:
            self._refuse(f"the lock file {lock} is {kind}, not a regular file")
            return None
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL | SAFE_OPEN, 0o600)
        except FileExistsError:
            fd = os.open(lock, os.O_RDWR | SAFE_OPEN)
        try:
            kind = not_regular(os.fstat(fd).st_mode)
            if kind is not None:
                self._refuse(f"the lock file {lock} is {kind}, not a regular file")
                os.close(fd)
                return None
            if self._wait_for(fd):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        return None

    def _wait_for(self, fd: int) -> bool:
        """Take the lock on ``fd`` within :attr:`lock_wait` seconds (at once, after a wait
        that was given up); a signal meanwhile gives up, marking the store interrupted."""
        deadline = time.monotonic() + (0 if self._gave_up else self.lock_wait)
        pause = 0.005
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return True
                except BlockingIOError:
                    pass
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.1)
        except KeyboardInterrupt:
            self.interrupted = True
            self.notes.append(
                f"interrupted while waiting for another askcli to release {self.path}; "
                "the todo list is not kept"
            )
            return False
        waited = "" if self._gave_up else f" (waited {self.lock_wait:g} s)"
        self._gave_up = True
        self.notes.append(
            f"the state file {self.path} is locked by another process{waited}; "
            "the todo list is not kept"
        )
        return False

    def _apply(self, pending: dict[str, Todos]) -> None:
        """Under the lock: read the file afresh, apply ``pending`` and write it."""
        loaded = load(self.path)
        if loaded.discard:
            return
        if not loaded.writable:
            self._refuse(loaded.problem or f"cannot read the state file {self.path}")
            return
        if loaded.corrupt is not None:
            aside = set_aside(self.path, loaded.corrupt)
            if aside is None:
                self.notes.append(f"{loaded.problem}; it changed, so the todo list is not kept")
                return
            self.notes.append(f"{loaded.problem}; kept as {aside}")
        sessions = loaded.sessions
        changed = loaded.corrupt is not None
        for key, todos in pending.items():
            old = sessions.pop(key, None)
            changed = changed or old != (todos or None)
            if todos:
                sessions[key] = todos  # last: the most recently changed come last
        if changed:
            self._write(sessions)

    def _fit(self, sessions: dict[str, Todos]) -> bytes:
        """The file's bytes, the least recently changed sessions dropped (noted) while
        they would make it larger than :data:`MAX_STATE_BYTES`."""
        data = json_document({"format": FORMAT, "sessions": sessions}).encode()
        dropped = 0
        while len(data) > MAX_STATE_BYTES and sessions:
            excess = len(data) - MAX_STATE_BYTES
            while excess > 0 and sessions:
                oldest = next(iter(sessions))
                excess -= len(json.dumps(sessions.pop(oldest), indent=2))
                dropped += 1
            data = json_document({"format": FORMAT, "sessions": sessions}).encode()
        if dropped:
            self.notes.append(
                f"the state file {self.path} would be larger than "
                f"{MAX_STATE_BYTES // (1024 * 1024)} MiB: the lists of {dropped} least "
                "recently changed session(s) were dropped"
            )
        return data

    def _write(self, sessions: dict[str, Todos]) -> None:
        data = self._fit(sessions)
        fd, temp = _create_exclusive(self.path.parent, self.path.name)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            found = lstat_or_none(self.path)
            kind = None if found is None else not_regular(found.st_mode)
            if kind is not None:  # something else was put there meanwhile: leave it be
                os.unlink(temp)
                self._refuse(f"the state file {self.path} is {kind}, not a regular file")
                return
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        with contextlib.suppress(OSError):  # the rename itself is durable
            dfd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
