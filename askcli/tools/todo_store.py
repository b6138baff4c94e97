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

import fcntl
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from ..files import (
    SAFE_OPEN,
    is_devnull,
    lstat_or_none,
    not_regular,
    read_bounded,
    replace_whole,
    set_aside,
    state_dir,
)
from ..wire.documents import parse_json
from ..wire.envelopes import json_document

FORMAT = "askcli-todos/1"
MAX_STATE_BYTES = 8 * 1024 * 1024  # a state file larger than this is not read
LOCK_WAIT = 10.0  # seconds to wait for another askcli's lock before going on without it
MAX_DEPTH = 72  # the nesting of the file: a call's own limit (64) and the file's levels
Todos = list[dict[str, Any]]

_STRING_FIELDS = ("content", "status", "activeForm", "id")


def default_path() -> Path:
    """``$XDG_STATE_HOME/askcli/todos.json``."""
    return state_dir() / "todos.json"


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
    changed: bool = False  # replaced between the look at it and the reading


READ_TRIES = 5  # reads of a state file that another askcli replaces meanwhile


def load(path: Path) -> Loaded:
    """Read the state file at ``path`` without changing anything. A file replaced while it
    was read (another askcli wrote it: they replace it whole) is read again."""
    for _ in range(READ_TRIES - 1):
        loaded = _load(path)
        if not loaded.changed:
            return loaded
    return _load(path)


def _load(path: Path) -> Loaded:
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
            problem = f"the state file {path} changed while it was read"
            return Loaded({}, problem, False, changed=True)
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

    def batch(self, report: Callable[[str], None] | None = None) -> _Batch:
        """A context that holds the changes made inside and writes them once at the end,
        even when the block ends by an exception; then passes the notes to ``report``."""
        return _Batch(self, report)

    def _end_batch(self, report: Callable[[str], None] | None) -> None:
        pending, self._pending, self._snapshot = self._pending, None, None
        if pending and not self._off:
            self._write_changes(pending)
        if report is not None and self.notes:
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
        kind = replace_whole(self.path, self._fit(sessions), 0o600)
        if kind is not None:  # something else was put there meanwhile: leave it be
            self._refuse(f"the state file {self.path} is {kind}, not a regular file")


class _Batch:
    """:meth:`TodoStore.batch`: a class, not a generator, since it wraps every document."""

    __slots__ = ("outer", "report", "store")

    def __init__(self, store: TodoStore, report: Callable[[str], None] | None) -> None:
        self.store, self.report, self.outer = store, report, False

    def __enter__(self) -> None:
        self.outer = self.store._pending is not None  # an outer batch writes
        if not self.outer:
            self.store._pending, self.store._snapshot = {}, None

    def __exit__(self, *exc: object) -> None:
        if not self.outer:
            self.store._end_batch(self.report)
