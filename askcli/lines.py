"""Line readers: where calls and answer lines come from.

A reader hands out lines without their line ending and ``None`` at the end of input.
When the calls come from stdin the same reader serves both the JSON documents and the
answer lines that follow each one, so nothing is read ahead into a buffer the other side
cannot see. Memory stays bounded whatever arrives: documents are read in pieces
(:meth:`BufferedLineReader.read_piece`), and an answer line over the limit is consumed and
refused (:class:`~askcli.errors.LineTooLong`) rather than kept. Bytes that are not UTF-8
come through as lone surrogates (``surrogateescape``) for the consumer to refuse.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import stat
import sys
import time
from collections.abc import Callable, Iterator
from typing import IO, Any, BinaryIO, Protocol, TextIO

from .errors import AnswerTimeout, LineTooLong

CHUNK = 65536
MAX_ANSWER_BYTES = 65536  # an answer line longer than this is refused


class LineReader(Protocol):
    @property
    def interactive(self) -> bool:
        """True when a person types the lines at a terminal."""

    def readline(self, timeout: float | None = None) -> str | None:
        """The next line without its ending, or None at the end; AnswerTimeout if none came,
        LineTooLong (the line consumed) when it is over the answer limit."""

    def read_piece(self, limit: int = CHUNK) -> tuple[str, bool] | None:
        """Up to ``limit`` bytes of the current line, and whether that ended the line."""

    def read_chunk(self, limit: int = CHUNK) -> str | None:
        """Up to ``limit`` bytes of what comes next, line ends included (None at the end)."""

    def unread(self, text: str, *, line_end: bool = True) -> None:
        """Put ``text`` back in front of what is still to be read."""

    @property
    def line(self) -> int:
        """The source's line the next character read is on (1 at the start)."""

    @property
    def at_end(self) -> bool:
        """The source has ended and everything in it was read."""

    def discard_typed_ahead(self, *, keep_calls: bool = False) -> bool:
        """At a terminal, drop what was typed and not yet read (nothing elsewhere); True
        when something was dropped. ``keep_calls``: the calls share the stream, and a line
        that begins a JSON document, with all after it, is kept (a pasted next call)."""


def each_line(stream: IO[bytes], handle: Callable[[str, int], None], keep: int) -> None:
    """Read ``stream`` to its end in bounded lines (another process's stderr): each line's
    first ``keep`` bytes, decoded, go to ``handle`` with the count of the bytes past them,
    which are read and dropped. A stream that fails ends the reading."""
    with contextlib.suppress(OSError, ValueError):
        while True:
            line = stream.readline(keep)
            if not line:
                return
            more = 0
            while not line.endswith(b"\n"):
                rest = stream.readline(CHUNK)
                if not rest:
                    break
                more += len(rest.rstrip(b"\r\n"))
                if rest.endswith(b"\n"):
                    break
            handle(line.decode("utf-8", "replace").rstrip("\r\n"), more)


def encode(text: str) -> bytes:
    """UTF-8 bytes of ``text``; undecodable bytes (surrogateescape) go back as they came."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that did not come from a byte
        return text.encode("utf-8", "surrogatepass")


def _utf8_cut(data: bytes | bytearray, end: int) -> int:
    """``end`` moved back so that it does not split a UTF-8 sequence."""
    back = end
    while back > 0 and end - back < 4 and (data[back] & 0xC0) == 0x80:
        back -= 1
    return back if back > 0 else end


class BufferedLineReader:
    """The line logic over a byte buffer; subclasses say how to get more bytes.

    ``transcript``, when a bytearray, receives every byte taken from the source (not the
    ones put back): that is how ``askcli record`` keeps what was typed.
    """

    def __init__(self, *, interactive: bool = False) -> None:
        self._buf = bytearray()
        self._pos = 0
        self._eof = False
        self._interactive = interactive
        self.transcript: bytearray | None = None
        self.line = 1  # counted as line ends are taken and put back
        self._pushed = 0  # bytes at the front of what is unread that unread() put back
        # the next calls pasted with this one at a terminal, set aside while its answers are
        # typed: they come back when the next document is read
        self._held = bytearray()
        self._held_came = 0  # of which came from the source (not put back by unread)

    @property
    def interactive(self) -> bool:
        return self._interactive

    def _more(self, timeout: float | None) -> bytes:
        """The next bytes from the source (b"" at its end); AnswerTimeout after ``timeout``."""
        raise NotImplementedError

    @property
    def buffered(self) -> bool:
        """The next line comes from this reader's own buffer: bytes taken from the source
        wait here unread (a line put back, a paste read in with a call), or the source
        has ended."""
        return self._pos < len(self._buf) or self._eof

    def typed(self, line: str | None) -> None:
        """``line`` was read from this reader's terminal past it (line editing,
        :mod:`askcli.terminal.editing`): kept in ``transcript`` as if read here; None: the
        input ended there (Ctrl-D), as it does here."""
        if line is None:
            self._eof = True
            return
        if self.transcript is not None:
            self.transcript += encode(line) + b"\n"
        self.line += 1

    def _fill(self, timeout: float | None = None) -> None:
        if self._pos > CHUNK and self._pos * 2 > len(self._buf):
            del self._buf[: self._pos]
            self._pos = 0
        data = self._more(timeout)
        if not data:
            self._eof = True
            return
        if self.transcript is not None:
            self.transcript += data
        self._buf += data

    @property
    def at_end(self) -> bool:
        return self._eof and self._pos >= len(self._buf) and not self._held

    def unread(self, text: str, *, line_end: bool = True) -> None:
        data = encode(text) + (b"\n" if line_end else b"")
        self._buf[self._pos : self._pos] = data
        self._pushed += len(data)
        self.line -= text.count("\n") + line_end

    def _advance(self, to: int) -> None:
        self._pushed = max(0, self._pushed - (to - self._pos))
        self._pos = to

    def discard_typed_ahead(self, *, keep_calls: bool = False) -> bool:
        """At a terminal: what was typed before now is dropped, from this buffer (and from
        ``transcript``: it answered nothing) and from the terminal's own queue. Pipes and
        files are read as they come: nothing is dropped there. ``keep_calls``: what waits
        is read in instead, and only the lines before the first one that begins a JSON
        document are dropped (the calls share this stream: a next call pasted is kept)."""
        if not self._interactive:
            return False
        flushed = False
        if keep_calls:
            self._take_waiting()
        else:
            flushed = self._flush_source()
        end = len(self._buf)
        upto = self._next_document() if keep_calls else end
        dropped = upto > self._pos
        if self.transcript is not None and dropped:  # its tail is what came, unread
            typed = end - self._pos - min(self._pushed, end - self._pos)
            start = max(self._pos, end - typed)
            if start < upto:
                at = len(self.transcript) - (end - start)
                del self.transcript[at : at + (upto - start)]
        self._pushed = max(0, self._pushed - (upto - self._pos))
        del self._buf[self._pos : upto]
        if len(self._buf) > self._pos:  # later calls: set aside until this one is answered
            rest = len(self._buf) - self._pos
            came = rest - min(self._pushed, rest)  # from the source: in the transcript
            if self.transcript is not None and came:
                del self.transcript[-came:]  # given back there when they are read
            self._held += self._buf[self._pos :]
            self._held_came += came
            del self._buf[self._pos :]
            self._pushed = 0
        return dropped or flushed

    def _next_document(self) -> int:
        """Where the first unread line that begins a JSON document starts (the end if none)."""
        at = self._pos
        while at < len(self._buf):
            if self._buf[at:].lstrip(b" \t\r").startswith(b"{"):
                return at
            newline = self._buf.find(b"\n", at)
            if newline < 0:
                return len(self._buf)
            at = newline + 1
        return at

    def _flush_source(self) -> bool:
        """Drop what waits in the source itself; True when something did."""
        return False

    def _take_waiting(self) -> None:
        """Read in what the source holds now, without waiting."""

    def _take(self, end: int, after: int) -> str:
        raw = self._buf[self._pos : end]  # decoded as it is: no copy to bytes first
        if self._pushed:  # else _advance's only change is the position
            self._advance(after)
        else:
            self._pos = after
        self.line += after > end  # a line end was taken
        if raw.endswith(b"\r") and after > end:
            raw = raw[:-1]
        return raw.decode("utf-8", "surrogateescape")

    def read_piece(self, limit: int = CHUNK) -> tuple[str, bool] | None:
        self._give_back_held()
        return self._piece(limit)

    def _give_back_held(self) -> None:
        if self._held:  # read now, in the order they answer: in the transcript now
            if self.transcript is not None and self._held_came:
                self.transcript += self._held[-self._held_came :]
            self._buf[self._pos : self._pos] = self._held
            self._pushed = len(self._held) - self._held_came
            self._held, self._held_came = bytearray(), 0

    def _piece(self, limit: int) -> tuple[str, bool] | None:
        while True:
            newline = self._buf.find(b"\n", self._pos, self._pos + limit + 1)
            if newline >= 0:
                return self._take(newline, newline + 1), True
            if len(self._buf) - self._pos > limit:
                end = _utf8_cut(self._buf, self._pos + limit)
                return self._take(end, end), False
            if self._eof:
                if self._pos < len(self._buf):
                    return self._take(len(self._buf), len(self._buf)), True
                return None
            self._fill()

    def read_chunk(self, limit: int = CHUNK) -> str | None:
        self._give_back_held()
        while self._pos >= len(self._buf):
            if self._eof:
                return None
            self._fill()
        end = min(len(self._buf), self._pos + limit)
        if end < len(self._buf):
            end = _utf8_cut(self._buf, end)
        raw = bytes(self._buf[self._pos : end])
        self._advance(end)
        self.line += raw.count(b"\n")
        return raw.decode("utf-8", "surrogateescape")

    def readline(self, timeout: float | None = None) -> str | None:
        newline = self._buf.find(b"\n", self._pos, self._pos + MAX_ANSWER_BYTES + 1)
        if newline >= 0:  # the usual case: the whole line is here already
            return self._take(newline, newline + 1)
        deadline = None if timeout is None else time.monotonic() + timeout
        while (
            self._buf.find(b"\n", self._pos) < 0
            and not self._eof
            and len(self._buf) - self._pos <= MAX_ANSWER_BYTES
        ):
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                self._fill(left)
            except AnswerTimeout:
                assert timeout is not None
                raise AnswerTimeout(timeout) from None
        parts: list[str] = []
        size = 0
        while True:  # the line, in pieces; past the limit it is read to its end and dropped
            piece = self._piece(MAX_ANSWER_BYTES)
            if piece is None:
                return "".join(parts) if parts else None
            text, ended = piece
            size += len(text)
            if size <= MAX_ANSWER_BYTES:
                parts.append(text)
            if ended:
                if size > MAX_ANSWER_BYTES:
                    raise LineTooLong(size, MAX_ANSWER_BYTES)
                return "".join(parts)


class FdLineReader(BufferedLineReader):
    """Lines from a file descriptor (a file, a pipe, a terminal), with timeouts."""

    def __init__(self, fd: int) -> None:
        try:
            tty = os.isatty(fd)
        except OSError:
            tty = False
        super().__init__(interactive=tty)
        self.fd = fd
        self._watched: tuple[int, Callable[[], bool]] | None = None
        try:
            # a FIFO reads as ended until its first writer comes: wait for it in select
            self._wait = stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError:
            self._wait = False

    @property
    def hung_up(self) -> bool:
        """The terminal read here went away (an SSH connection dropped, a terminal window
        closed): it no longer answers as a terminal (EIO), where after a Ctrl-D it does.
        Its reads end as a Ctrl-D's would, whether or not SIGHUP reached askcli."""
        if not self.interactive:
            return False
        import termios  # POSIX only, as askcli is

        try:
            termios.tcgetattr(self.fd)
        except termios.error as exc:
            return bool(exc.args) and exc.args[0] == errno.EIO
        return False

    def unechoed(self) -> contextlib.AbstractContextManager[None]:
        """Lines read inside are not echoed by the terminal (a secret answer); nothing
        changes for a pipe or a file."""
        import termios  # POSIX only, as askcli is

        def quiet(mode: list[Any]) -> None:
            mode[3] &= ~termios.ECHO

        return terminal_mode(self.fd, quiet)

    def _flush_source(self) -> bool:
        return flush_terminal(self.fd)

    def _take_waiting(self) -> None:
        waiting = waiting_at_terminal(self.fd)
        while waiting > 0:
            data = os.read(self.fd, waiting)
            if not data:
                return
            if self.transcript is not None:
                self.transcript += data
            self._buf += data
            waiting = waiting_at_terminal(self.fd)

    def watch(self, fd: int | None, ready: Callable[[], bool] | None = None) -> None:
        """While waiting for a line, also wait on ``fd`` (another process's output) and
        call ``ready`` whenever it has bytes: ``ready`` may raise (e.g. Withdrawn) and
        returns False to stop watching. ``None`` stops watching."""
        self._watched = (fd, ready) if fd is not None and ready is not None else None

    @property
    def watched(self) -> int | None:
        """The descriptor watched while a line is awaited (:meth:`watch`), if any."""
        return None if self._watched is None else self._watched[0]

    def look(self) -> None:
        """Call the watcher when its descriptor has bytes, as a wait for a line does; it
        may raise (e.g. Withdrawn). Used while a line is edited past this reader."""
        if self._watched is None:
            return
        other, ready = self._watched
        try:
            readable, _, _ = select.select([other], [], [], 0)
        except (OSError, ValueError):  # the watched descriptor was closed
            self._watched = None
            return
        if readable and not ready():
            self._watched = None

    def _more(self, timeout: float | None) -> bytes:
        if self._watched is not None:
            return self._more_watching(timeout)
        if timeout is not None or self._wait:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready and timeout is not None:
                raise AnswerTimeout(timeout)
        try:
            return os.read(self.fd, CHUNK)
        except OSError:  # e.g. EIO from a terminal that went away
            return b""

    def _more_watching(self, timeout: float | None) -> bytes:
        assert self._watched is not None
        other, ready = self._watched
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                readable, _, _ = select.select([self.fd, other], [], [], left)
            except (OSError, ValueError):  # the watched descriptor was closed
                self._watched = None
                return self._more(left)
            if not readable:
                assert timeout is not None
                raise AnswerTimeout(timeout)
            if other in readable and not ready():
                self._watched = None
                return self._more(
                    None if deadline is None else max(deadline - time.monotonic(), 0.0)
                )
            if self.fd in readable:
                try:
                    return os.read(self.fd, CHUNK)
                except OSError:
                    return b""


class TextLineReader(BufferedLineReader):
    """Lines from a text stream such as ``io.StringIO`` or ``sys.stdin`` (no timeouts)."""

    def __init__(self, stream: TextIO, *, interactive: bool | None = None) -> None:
        if interactive is None:
            try:
                interactive = stream.isatty()
            except (AttributeError, ValueError):
                interactive = False
        super().__init__(interactive=interactive)
        self.stream = stream

    def _more(self, timeout: float | None) -> bytes:
        return encode(self.stream.readline(CHUNK))

    def _flush_source(self) -> bool:
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.StringIO: nothing to flush
            return False
        return flush_terminal(fd)


class BytesLineReader(BufferedLineReader):
    """Lines from a binary stream such as ``io.BytesIO`` (no timeouts)."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__()
        self.stream = stream

    def _more(self, timeout: float | None) -> bytes:
        return self.stream.read(CHUNK)


def flush_terminal(fd: int) -> bool:
    """Discard the input waiting on the terminal ``fd`` (``tcflush(TCIFLUSH)``): whole
    lines typed and a line being typed. True when whole lines were waiting; False, and
    nothing done, when ``fd`` is not a terminal."""
    import termios  # POSIX only, as askcli is; imported when a person answers at a terminal

    try:
        if not os.isatty(fd):
            return False
        waiting = waiting_at_terminal(fd)
        termios.tcflush(fd, termios.TCIFLUSH)
    except (OSError, termios.error):
        return False
    return waiting > 0


def same_terminal(one: int, other: int) -> bool:
    """Both descriptors are on one terminal: the same device, or both on the controlling
    terminal (one of them opened as ``/dev/tty``, which has a device number of its own)."""
    try:
        if not (os.isatty(one) and os.isatty(other)):
            return False
        return os.fstat(one).st_rdev == os.fstat(other).st_rdev or (
            _controlling(one) and _controlling(other)
        )
    except OSError:
        return False


def _controlling(fd: int) -> bool:
    """``fd`` is on this process's controlling terminal (only there has it a foreground
    process group to tell: ENOTTY elsewhere), on Linux and macOS alike."""
    try:
        os.tcgetpgrp(fd)
    except OSError:
        return False
    return True


def waiting_at_terminal(fd: int) -> int:
    """The bytes of whole lines waiting to be read at the terminal ``fd`` (0 on failure)."""
    import fcntl  # POSIX only, as askcli is
    import termios

    try:
        return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), sys.byteorder)
    except OSError:
        return 0


def reader_for(source: TextIO | LineReader) -> LineReader:
    """A reader for ``source``: a text stream is wrapped, a reader is used as it is."""
    if hasattr(source, "unread"):
        return source  # type: ignore[return-value]
    return TextLineReader(source)


@contextlib.contextmanager
def terminal_mode(fd: int, change: Callable[[list[Any]], None]) -> Iterator[None]:
    """Inside, the terminal ``fd`` is in its mode as ``change`` makes it (``change`` edits
    a copy of ``termios.tcgetattr``'s list, its control characters a list too); the mode
    is put back on every way out. Not a terminal, or one gone away: nothing changes."""
    import termios

    try:
        before = termios.tcgetattr(fd)
        mode = [*before[:6], list(before[6])]
        change(mode)
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except (OSError, termios.error):
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)
