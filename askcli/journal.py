"""The answer journal: every answer line written durably as it is given, for resuming.

A journal is a file of JSON lines (``askcli-journal/1``): ``{"call", "input", "line"}`` per
accepted answer line, appended and fsynced at once, and ``{"call", "done": true}`` when a
call is finished. Asking the same call again (same id, same input) replays its lines, so
the person continues where they stopped. A journal whose calls are all finished is removed.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from .todo_store import state_dir

FORMAT = "askcli-journal/1"


def default_dir() -> Path:
    """``$XDG_STATE_HOME/askcli/journal``."""
    return state_dir() / "journal"


def journal_name(call_id: str) -> str:
    """A file name for a call id (ids come from the model: never used as a path)."""
    import hashlib  # only when journaling: not at start-up

    return hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def input_digest(value: Any) -> str:
    """A digest of a call's input, so that a journal never resumes a different call."""
    import hashlib

    canonical = json.dumps(value, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


class Journal:
    """One journal file. Writing problems are collected in ``notes``, never raised: an
    answer that cannot be journaled is still an answer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notes: list[str] = []

    def _events(self) -> list[dict[str, Any]]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        events = []
        for row in text.splitlines():
            with contextlib.suppress(ValueError):  # a line cut by a crash
                event = json.loads(row)
                if isinstance(event, dict) and isinstance(event.get("call"), str):
                    events.append(event)
        return events

    def lines(self, call: str, digest: str) -> list[str]:
        """The answer lines kept for an unfinished ``call`` with this input."""
        kept: list[str] = []
        for event in self._events():
            if event["call"] != call:
                continue
            if event.get("done"):
                kept = []
            elif event.get("input") == digest and isinstance(event.get("line"), str):
                kept.append(event["line"])
        return kept

    def _append(self, event: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            data = (json.dumps(event, ensure_ascii=True) + "\n").encode()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self.notes.append(f"cannot write the journal {self.path}: {exc.strerror}")

    def record(self, call: str, digest: str, line: str) -> None:
        """Keep one answer line, durably, before going on."""
        self._append({"format": FORMAT, "call": call, "input": digest, "line": line})

    def finish(self, call: str) -> None:
        """Mark ``call`` finished; remove the journal when nothing in it is unfinished."""
        events = self._events()
        if not any(e["call"] == call for e in events):
            return
        self._append({"format": FORMAT, "call": call, "done": True})
        open_calls: dict[str, bool] = {}
        for event in self._events():
            open_calls[event["call"]] = not event.get("done")
        if not any(open_calls.values()):
            with contextlib.suppress(OSError):
                self.path.unlink()
