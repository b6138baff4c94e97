"""The answer journal: every answer line written durably as it is given, for resuming.

A journal is a file of JSON lines (``askcli-journal/1``): ``{"call", "input", "line"}`` per
accepted answer line, appended and fsynced at once, and ``{"call", "done": true}`` when a
call is finished. Asking the same call again (same id, same input) replays its lines, so
the person continues where they stopped. A journal whose calls are all finished is removed.

A journal is a regular file of at most :data:`MAX_JOURNAL_BYTES`, read in bounded memory;
neither it nor its folder is ever opened through a symlink. Anything else (a FIFO, a
device, a directory, a symlink) is refused with a note and the answers are not journaled;
``/dev/null`` means "keep no journal".
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..files import SAFE_OPEN, is_devnull, lstat_or_none, not_regular, state_dir

FORMAT = "askcli-journal/1"
MAX_JOURNAL_BYTES = 8 * 1024 * 1024  # a journal larger than this is not read or written
# an answer line is at most 65,536 characters, each at most 12 bytes as escaped JSON
MAX_EVENT_BYTES = 1024 * 1024
_PIECE = 64 * 1024


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


def _rows(fd: int) -> Iterator[bytes]:
    """The lines of ``fd`` up to :data:`MAX_JOURNAL_BYTES`, in bounded memory; a line
    longer than :data:`MAX_EVENT_BYTES` is skipped."""
    buffer = b""
    skipping = False
    total = 0
    while total <= MAX_JOURNAL_BYTES:
        piece = os.read(fd, _PIECE)
        if not piece:
            break
        total += len(piece)
        buffer += piece
        *rows, buffer = buffer.split(b"\n")
        for row in rows:
            if skipping:
                skipping = False  # the end of an over-long line
            elif len(row) <= MAX_EVENT_BYTES:
                yield row
        if len(buffer) > MAX_EVENT_BYTES:
            buffer, skipping = b"", True
    if buffer and not skipping:
        yield buffer


def _event(row: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(row.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # a line cut by a crash, or not a journal's
        return None
    if isinstance(event, dict) and isinstance(event.get("call"), str):
        return event
    return None


class Journal:
    """One journal file. Problems are collected in ``notes``, never raised: an answer
    that cannot be journaled is still an answer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notes: list[str] = []
        self._off = False  # refused: nothing is read or written
        self._checked = False

    def _refuse(self, why: str) -> None:
        self._off = True
        self.notes.append(f"the journal {self.path} {why}; answers are not journaled")

    def usable(self) -> bool:
        """The journal may be used: its folder and file are not symlinks and the file,
        if there, is a regular file within the size limit (else noted, once)."""
        if not self._checked:
            self._checked = True
            try:
                self._check()
            except OSError as exc:
                self._refuse(f"cannot be used ({exc.strerror})")
        return not self._off

    def _check(self) -> None:
        folder = lstat_or_none(self.path.parent)
        if folder is not None and not stat.S_ISDIR(folder.st_mode):
            what = not_regular(folder.st_mode) or "a file"
            self._refuse(f"is in {self.path.parent}, which is {what}, not a folder")
            return
        found = lstat_or_none(self.path)
        if found is None:
            return
        if is_devnull(found):
            self._off = True  # "keep no journal": nothing to say
            return
        kind = not_regular(found.st_mode)
        if kind is not None:
            self._refuse(f"is {kind}, not a regular file")
        elif found.st_size > MAX_JOURNAL_BYTES:
            self._refuse(f"is larger than {MAX_JOURNAL_BYTES // (1024 * 1024)} MiB, the limit")

    def _folder(self, *, create: bool) -> int:
        """The journal's folder, opened without following a symlink (created 0700)."""
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | SAFE_OPEN)

    def _open(self, flags: int) -> int:
        """The journal file, opened with ``flags`` in its folder without following a
        symlink; OSError, or ValueError naming what it is when it is not a regular file."""
        folder = self._folder(create=bool(flags & os.O_CREAT))
        try:
            fd = os.open(self.path.name, flags | SAFE_OPEN, 0o600, dir_fd=folder)
        finally:
            os.close(folder)
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            os.close(fd)
            raise ValueError(f"is {kind}, not a regular file")
        return fd

    def _events(self) -> list[dict[str, Any]]:
        if not self.usable():
            return []
        try:
            fd = self._open(os.O_RDONLY)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._refuse(f"cannot be read ({exc.strerror})")
            return []
        except ValueError as exc:
            self._refuse(str(exc))
            return []
        try:
            if os.fstat(fd).st_size > MAX_JOURNAL_BYTES:
                self._refuse(f"is larger than {MAX_JOURNAL_BYTES // (1024 * 1024)} MiB, the limit")
                return []
            return [e for e in map(_event, _rows(fd)) if e is not None]
        except OSError as exc:
            self._refuse(f"cannot be read ({exc.strerror})")
            return []
        finally:
            os.close(fd)

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
        if not self.usable():
            return
        data = (json.dumps(event, ensure_ascii=True) + "\n").encode()
        try:
            fd = self._open(os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except OSError as exc:
            self._refuse(f"cannot be written ({exc.strerror})")
            return
        except ValueError as exc:
            self._refuse(str(exc))
            return
        try:
            if os.fstat(fd).st_size + len(data) > MAX_JOURNAL_BYTES:
                limit = MAX_JOURNAL_BYTES // (1024 * 1024)
                self._refuse(f"would be larger than {limit} MiB, the limit")
                return
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            self._refuse(f"cannot be written ({exc.strerror})")
        finally:
            os.close(fd)

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
        if self.usable() and not any(open_calls.values()):
            try:
                folder = self._folder(create=False)
            except OSError:
                return
            try:
                found = os.stat(self.path.name, dir_fd=folder, follow_symlinks=False)
                if stat.S_ISREG(found.st_mode):
                    os.unlink(self.path.name, dir_fd=folder)
            except OSError:
                pass
            finally:
                os.close(folder)
