"""Line readers: where calls and answer lines come from.

A reader hands out lines without their line ending and ``None`` at the end of input.
When the calls come from stdin the same reader serves both the JSON documents and the
answer lines that follow each one, so nothing is read ahead into a buffer the other side
cannot see. Bytes that are not UTF-8 come through as lone surrogates (``surrogateescape``)
for the consumer to refuse.
"""

from __future__ import annotations

import os
import select
import time
from typing import Protocol, TextIO

from .errors import AnswerTimeout

_CHUNK = 65536


class LineReader(Protocol):
    @property
    def interactive(self) -> bool:
        """True when a person types the lines at a terminal."""

    def readline(self, timeout: float | None = None) -> str | None:
        """The next line without its ending, or None at the end; AnswerTimeout if none came."""

    def unread(self, text: str) -> None:
        """Put ``text`` back as the next line."""


class FdLineReader:
    """Lines from a file descriptor (a file, a pipe, a terminal), with timeouts.

    Every line read from the descriptor (not the ones put back) is appended to
    ``transcript`` when it is a list: that is how ``askcli record`` keeps what was typed.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.transcript: list[str] | None = None
        self._buf = bytearray()
        self._pos = 0
        self._eof = False
        self._pushed: list[str] = []
        try:
            self._tty = os.isatty(fd)
        except OSError:
            self._tty = False

    @property
    def interactive(self) -> bool:
        return self._tty

    def unread(self, text: str) -> None:
        self._pushed.append(text)

    def readline(self, timeout: float | None = None) -> str | None:
        if self._pushed:
            return self._pushed.pop()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            end = self._buf.find(b"\n", self._pos)
            if end >= 0:
                return self._take(end, end + 1)
            if self._eof:
                return self._take(len(self._buf), len(self._buf)) if self._rest() else None
            if deadline is not None:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self.fd], [], [], max(left, 0))
                if not ready:
                    assert timeout is not None
                    raise AnswerTimeout(timeout)
            self._fill()

    def _rest(self) -> int:
        return len(self._buf) - self._pos

    def _take(self, end: int, after: int) -> str:
        raw = bytes(self._buf[self._pos : end])
        self._pos = after
        if self._pos > _CHUNK and self._pos * 2 > len(self._buf):
            del self._buf[: self._pos]
            self._pos = 0
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        line = raw.decode("utf-8", "surrogateescape")
        if self.transcript is not None:
            self.transcript.append(line)
        return line

    def _fill(self) -> None:
        try:
            data = os.read(self.fd, _CHUNK)
        except OSError:  # e.g. EIO from a terminal that went away
            data = b""
        if data:
            self._buf += data
        else:
            self._eof = True


class TextLineReader:
    """Lines from a text stream such as ``io.StringIO`` (no timeouts)."""

    def __init__(self, stream: TextIO, *, interactive: bool | None = None) -> None:
        self.stream = stream
        self._pushed: list[str] = []
        if interactive is None:
            try:
                interactive = stream.isatty()
            except (AttributeError, ValueError):
                interactive = False
        self._interactive = interactive

    @property
    def interactive(self) -> bool:
        return self._interactive

    def unread(self, text: str) -> None:
        self._pushed.append(text)

    def readline(self, timeout: float | None = None) -> str | None:
        if self._pushed:
            return self._pushed.pop()
        line = self.stream.readline()
        if not line:
            return None
        if line.endswith("\n"):
            line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
        return line


def reader_for(source: TextIO | LineReader) -> LineReader:
    """A reader for ``source``: a text stream is wrapped, a reader is used as it is."""
    if hasattr(source, "unread"):
        return source  # type: ignore[return-value]
    return TextLineReader(source)
