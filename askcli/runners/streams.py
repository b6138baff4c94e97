"""The streams of one command: stdout and stderr set up for UTF-8, the readers of calls and
answers, stdout's write errors, the standard descriptors askcli was started without, and the
exit statuses of a closed or failing stdout. Plain I/O, no click."""

from __future__ import annotations

import errno
import io
import os
import select
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from ..errors import InboxError, OutputFailed, UsageError
from ..escaping import visible
from ..files import is_devnull
from ..lines import FdLineReader, LineReader
from ..status import ExitStatus
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.options import RunOptions
from ..terminal.rendering import Style, folded_for, terminal_text
from ..tools.journal import default_dir as journal_default_dir
from ..tools.todo_store import TodoStore, default_path
from ..wire.wording.base import CLAUDE_CODE_2_1_88, Wording

if TYPE_CHECKING:
    from ..terminal.notify import Notice


def text_stream(stream: TextIO, *, errors: str) -> TextIO:
    """``stream`` writing UTF-8 whatever the locale says: model text and answers are
    Unicode. The stream itself is set up, not wrapped, so that nothing closes it twice."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", errors=errors)
        return stream
    return io.TextIOWrapper(stream.buffer, encoding="utf-8", errors=errors, newline="\n")


def open_reader(path: str, what: str) -> FdLineReader:
    if path == "-":
        return FdLineReader(0)
    try:
        # a FIFO with no writer would block the open itself, before any timeout or signal
        # handler applies: open without waiting, then read in blocking mode
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(fd, True)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    problem = None
    if stat.S_ISDIR(mode):
        problem = "it is a directory"
    elif (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not terminal_or_null(fd):
        # /dev/zero, /dev/urandom, a disk: endless bytes that no person typed
        problem = "it is a device, not a file, pipe or terminal"
    if problem is not None:
        os.close(fd)
        raise UsageError(f"cannot read {what} {path}: {problem}")
    return FdLineReader(fd)


def terminal_or_null(fd: int) -> bool:
    """``fd`` is a terminal (``/dev/tty``) or ``/dev/null`` (no input at all)."""
    try:
        return os.isatty(fd) or is_devnull(os.fstat(fd))
    except OSError:
        return False


class Stdout(io.TextIOBase):
    """stdout for results: a write that fails (a full disk, ``/dev/full``) raises
    OutputFailed; a reader that went away stays a BrokenPipeError."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailed(exc.strerror or str(exc), exc.errno) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailed(exc.strerror or str(exc), exc.errno) from None


class Streams:
    """stdout, stderr and the readers for calls and answers of one command."""

    def __init__(self, source: str, answers: str) -> None:
        self.err = text_stream(sys.stderr, errors="backslashreplace")
        self.out = cast(TextIO, Stdout(text_stream(sys.stdout, errors="strict")))
        self.calls = open_reader(source, "calls from")
        if CLOSED_AT_START & {0} and "-" in (source, answers):
            self.say("askcli: stdin is closed: it reads as empty\n")
        shared = source == "-" and answers == "-"
        self.answers = self.calls if shared else open_reader(answers, "answers from")
        if shared and self.calls.interactive:
            self.say("askcli: paste the call (JSON) and then answer; Ctrl-D ends.\n")

    @property
    def shared(self) -> bool:
        return self.answers is self.calls

    def say(self, text: str) -> None:
        try:
            self.err.write(terminal_text(folded_for(self.err, text)))
            self.err.flush()
        except (OSError, ValueError):  # a stderr that is full or gone: nobody to tell
            pass

    def conversation(
        self,
        timeout: float | None = None,
        *,
        state: Path | None = None,
        session: str | None = None,
        journal: Path | None = None,
        journal_dir: Path | None = None,
        notify: str | None = None,
        wording: Wording = CLAUDE_CODE_2_1_88,
    ) -> Conversation:
        options = RunOptions(
            timeout=timeout,
            calls_follow=self.shared,
            todos=TodoStore(state or default_path()),
            session=session,
            journal_file=journal,
            journal_dir=journal_dir,
            quiet=discarded(sys.stderr),
            notice=notice_for(notify, self.answers, self.say) if notify is not None else None,
            wording=wording,
        )
        return Conversation(self.answers, self.err, Style.for_stream(sys.stderr), options)


# askcli.terminal.notify.NotifyMode's values, unimported
NOTIFY_MODES = ("auto", "bell", "osc9", "osc777", "none")


def notice_for(choice: str, answers: LineReader, say: Callable[[str], None]) -> Notice | None:
    """What ``--notify`` writes when a question starts waiting: nothing unless a person
    answers at a terminal and stderr is one. ``""``: ``$ASKCLI_NOTIFY``, else auto; a
    value there that is not a mode is said and taken as auto."""
    if not choice:
        value = os.environ.get("ASKCLI_NOTIFY", "")
        choice = value.strip().lower() or "auto"
        if choice not in NOTIFY_MODES:
            say(
                f"askcli: ASKCLI_NOTIFY={visible(value)} is not one of "
                f"{', '.join(NOTIFY_MODES)}; using auto\n"
            )
            choice = "auto"
    if choice.lower() == "none" or not answers.interactive or not is_tty(sys.stderr):
        return None
    from ..terminal.notify import NotifyMode, resolve

    return resolve(NotifyMode(choice.lower()), os.environ)


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def printer() -> Callable[[str], None]:
    """Print one line on stdout at once (``check``, ``replay``, ``schema``)."""
    out = Stdout(text_stream(sys.stdout, errors="strict"))

    def echo(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    return echo


CLOSED_AT_START: set[int] = set()  # standard descriptors askcli was started without


def reopen_closed_fds() -> set[int]:
    """Put ``/dev/null`` on each of fds 0-2 that is closed, so that no file askcli opens
    takes its number (a call file read as the answers too); the fds that were closed."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if 2 in closed:  # nobody sees the screens: like 2>/dev/null
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    if 0 in closed:
        sys.stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    return closed


def quiet_stdout() -> None:
    """Point stdout at ``/dev/null``, so that the flush at exit cannot fail again."""
    quiet(1)


def reader_gone(fd: int) -> bool:
    """``fd`` writes to a pipe or socket whose reader went away (poll says POLLERR)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    try:
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except OSError:
        return False


def quiet(fd: int) -> None:
    """Point descriptor ``fd`` at ``/dev/null``: what is still written there goes nowhere,
    and fails nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def discarded(stream: TextIO) -> bool:
    """The stream is ``/dev/null``: what is written there is never seen."""
    try:
        return is_devnull(os.fstat(stream.fileno()))
    except (OSError, ValueError, AttributeError):
        return False


def say_err(text: str) -> None:
    """Write to stderr through the terminal gate (folded to a terminal's width); a stderr
    that is gone is no error."""
    try:
        sys.stderr.write(terminal_text(folded_for(sys.stderr, text)))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class GatedStderr(io.TextIOBase):
    """stderr for click's own messages, through the terminal gate."""

    def write(self, text: str) -> int:
        say_err(text)
        return len(text)


def guarded(work: Callable[[], int], *, every_sigint: bool = False) -> int:
    """Run ``work`` with askcli's signal handling; its exit status. A closed stdout ends
    quietly, one that cannot be written or an inbox file that cannot be used is said; a
    signal that ``work`` did not take (a command that asks nothing) gives its status."""
    signals.install(every_sigint=every_sigint)
    try:
        status = work()
    except KeyboardInterrupt:
        return signals.exit_status(ExitStatus.INTERRUPTED)
    except BrokenPipeError:
        # stdout's reader went away: nobody is left to read a result
        quiet_stdout()
        return ExitStatus.STDOUT_GONE
    except OutputFailed as exc:
        quiet_stdout()
        if exc.errno == errno.EIO and signals.no_answer_reason() == signals.HUNG_UP:
            # stdout was the terminal that hung up: that is what happened, not a full disk
            return signals.exit_status(ExitStatus.INTERRUPTED)
        say_err(f"askcli: cannot write the result to stdout: {visible(str(exc))}\n")
        return ExitStatus.OUTPUT_FAILED
    except InboxError as exc:  # the queue file cannot be used: said in one line
        say_err(f"askcli: {visible(str(exc))}\n")
        return int(ExitStatus.INVALID)
    if status == ExitStatus.INTERRUPTED:
        status = signals.exit_status(ExitStatus.INTERRUPTED)
    return status


def settle_streams(status: int) -> int:
    """The exit status, once stdout and stderr are flushed for the last time: Python's own
    flush at exit must find nothing that can fail, or it turns any status into 120. What a
    stream cannot take is dropped (the stream is pointed at ``/dev/null``): nobody can read
    it. A stdout that fails here fails a run that had not failed: 141 or 74."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        quiet(1)
        status = status or ExitStatus.STDOUT_GONE
    except OSError as exc:
        quiet(1)
        if not status:
            say_err(f"askcli: cannot write to stdout: {visible(exc.strerror or str(exc))}\n")
            status = ExitStatus.OUTPUT_FAILED
    except ValueError:  # closed: nothing to flush
        pass
    try:
        sys.stderr.flush()
    except OSError:  # a terminal that went away, a reader gone, a full disk: nobody to tell
        quiet(2)
    except ValueError:
        pass
    return status


class Tee(io.StringIO):
    """Keeps what is written and passes it on to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text)
        return super().write(text)

    def flush(self) -> None:
        self.stream.flush()


def inbox_conversation(
    reader: LineReader, err: TextIO, journal: Path | None, wording: Wording
) -> Conversation:
    """The conversation an inbox asks its questions in (``inbox`` and ``inbox answer``)."""
    options = RunOptions(
        todos=TodoStore(default_path()),
        journal_file=journal,
        journal_dir=journal_default_dir(),
        quiet=discarded(sys.stderr),
        wording=wording,
    )
    return Conversation(reader, err, Style.for_stream(sys.stderr), options)
