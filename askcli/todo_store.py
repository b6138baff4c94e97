"""The TodoWrite state file: each session's current todo list, shared by askcli processes.

One JSON file (``askcli-todos/1``) maps a session key to its list. Every change is a
locked read-modify-write (``flock`` on a lock file beside it), and the new content is
written to a temporary file, synced and renamed over the old one, so two askcli processes
never lose each other's changes and a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .envelopes import json_document

FORMAT = "askcli-todos/1"
Todos = list[dict[str, Any]]


def state_dir() -> Path:
    """``$XDG_STATE_HOME/askcli`` (``~/.local/state/askcli`` when unset)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "askcli"


def default_path() -> Path:
    """``$XDG_STATE_HOME/askcli/todos.json``."""
    return state_dir() / "todos.json"


class TodoStore:
    """Todo lists by session key in the file at ``path``.

    Problems that do not stop the call (an unreadable file set aside, a file that cannot be
    written) are collected in ``notes`` for the caller to show.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notes: list[str] = []

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> dict[str, Todos]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            state = json.loads(text)
            sessions = state["sessions"]
            if state.get("format") != FORMAT or not isinstance(sessions, dict):
                raise ValueError("not an askcli todo state file")
        except (ValueError, KeyError, TypeError) as exc:
            aside = self.path.with_name(f"{self.path.name}.unreadable-{int(time.time())}")
            os.replace(self.path, aside)
            self.notes.append(f"the state file {self.path} was unreadable ({exc}); kept as {aside}")
            return {}
        return {str(k): v for k, v in sessions.items() if isinstance(v, list)}

    def _write(self, sessions: dict[str, Todos]) -> None:
        import tempfile  # with what it imports, slow enough to keep off start-up

        text = json_document({"format": FORMAT, "sessions": sessions})
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def get(self, key: str) -> Todos:
        """The current list of ``key`` (empty when there is none)."""
        try:
            with self._locked():
                return self._read().get(key, [])
        except OSError as exc:
            self.notes.append(f"cannot read the state file {self.path}: {exc.strerror}")
            return []

    def replace(self, key: str, todos: Todos) -> Todos:
        """Store ``todos`` for ``key`` (an empty list removes it); return the list before."""
        try:
            with self._locked():
                sessions = self._read()
                old = sessions.pop(key, [])
                if todos:
                    sessions[key] = todos
                self._write(sessions)
                return old
        except OSError as exc:
            self.notes.append(
                f"cannot keep the todo list in {self.path}: {exc.strerror}; "
                "the next call will not see it"
            )
            return []
