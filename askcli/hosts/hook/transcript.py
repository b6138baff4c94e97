"""Claude Code's session transcript (the hook input's ``transcript_path``), read as it grows.

Claude Code asks at its own prompt while a PermissionRequest hook waits, and tells the hook
nothing when the person answers there: 2.1.197 lets the hook run until it exits, 2.1.332 stops
it a few seconds after the turn. What it does write, within a fraction of a second, is the
call's ``tool_result`` in the transcript; :class:`Transcript` finds it, so that the question
waiting in the inbox is withdrawn as soon as Claude Code moves on.
"""

from __future__ import annotations

import json
import os
from typing import Any

TAIL = 4 << 20  # of a long transcript, the bytes read back for the call's tool_use
CHUNK = 1 << 20  # read at a time as it grows
MAX_LINE = 16 << 20  # a longer line is skipped, never held whole


class Transcript:
    """The transcript at ``path``, for the call of ``tool`` with ``tool_input`` (the hook
    input carries no tool_use id: the call is the last such tool_use without a result)."""

    def __init__(self, path: str, tool: str, tool_input: Any) -> None:
        self.path = path
        self.tool = tool
        self.input = tool_input
        self.call: str | None = None  # its tool_use id, once found
        self.answered: set[str] = set()
        self._at: int | None = None  # where the next line starts; None: not read yet
        self._partial = b""

    def decided(self) -> bool:
        """True once the transcript holds the call's result: Claude Code went on without
        the hook. A transcript that cannot be read is never taken for that."""
        first = self._at is None
        try:
            lines = self._new_lines()
        except OSError:
            return False
        for line in lines:
            self._read(line)
        if first and self.call in self.answered:
            # an identical call before this one, already done: this one's tool_use is not
            # written yet (it is found in a later read)
            self.call = None
        return self.call is not None and self.call in self.answered

    def _new_lines(self) -> list[bytes]:
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        try:
            size = os.fstat(fd).st_size
            if self._at is None or size < self._at:  # first read, or the file was replaced
                self._at, self._partial = max(0, size - TAIL), b""
                skip_first = self._at > 0  # read back from the middle of a line
            else:
                skip_first = False
            os.lseek(fd, self._at, os.SEEK_SET)
            data = os.read(fd, min(CHUNK, max(size - self._at, 0)))
        finally:
            os.close(fd)
        self._at += len(data)
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        if len(self._partial) > MAX_LINE:
            self._partial = b""  # a line too long to hold is not one of these anyway
        return lines[1:] if skip_first else lines

    def _read(self, line: bytes) -> None:
        for block in blocks(line)[1]:
            kind = block.get("type")
            if kind == "tool_use" and block.get("name") == self.tool:
                if block.get("input") == self.input and isinstance(block.get("id"), str):
                    self.call = block["id"]  # the last one is this hook's
            elif kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
                self.answered.add(block["tool_use_id"])


def blocks(line: bytes) -> tuple[str | None, list[dict[str, Any]]]:
    """The message id and the content blocks of one transcript line (none when it holds no
    message)."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None, []
    message = entry.get("message") if isinstance(entry, dict) else None
    if not isinstance(message, dict):
        return None, []
    content, message_id = message.get("content"), message.get("id")
    found = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    return (message_id if isinstance(message_id, str) else None), found


def calls_beside(path: str, tool_use_id: str) -> int | None:
    """How many tool calls the model made in the message that holds ``tool_use_id``
    (Claude Code writes each block of a message on a line of its own, with the message's
    id), read from the end of the transcript at ``path``; None when the transcript cannot be
    read or does not hold the call."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, max(0, size - TAIL), os.SEEK_SET)
        data = b"".join(iter(lambda: os.read(fd, CHUNK), b""))
    except OSError:
        return None
    finally:
        os.close(fd)
    calls: dict[str, set[str]] = {}
    holder = None
    for line in data.split(b"\n"):
        if len(line) > MAX_LINE:
            continue
        message_id, found = blocks(line)
        if message_id is None:
            continue
        for block in found:
            if block.get("type") == "tool_use":
                calls.setdefault(message_id, set()).add(str(block.get("id")))
                if block.get("id") == tool_use_id:
                    holder = message_id
    return len(calls[holder]) if holder is not None else None
