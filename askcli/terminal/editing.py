"""Line editing at a terminal: Left/Right, Home/End, Backspace anywhere, Up/Down for earlier
answers, with Python's :mod:`readline` (GNU readline or libedit).

Only a person at a terminal gets it: the answers come from a terminal (stdin, ``--answers
/dev/tty``, the terminal of an ssh session). A descriptor on ``/dev/tty`` has that device's
number, not the terminal's own: it is the same terminal as another descriptor that is the
controlling terminal too. When the screens go elsewhere (a file, another terminal,
nowhere), the line is edited on the answer terminal itself, without the prompt (which is
on the screens, with the line written after it once it is read: :func:`apart`). Pipes,
files, a secret question, a missing ``readline`` module, a line already read into the
reader's buffer or typed ahead whole, answers that share the terminal's stream with the
calls (``ask -``: a call pasted, the Ctrl-D that ends the input, must keep their order with
the answers), and a prompt too wide for a terminal that cannot wrap it (``TERM=dumb``) are
read as before, by the reader.

``input()`` is what reaches readline from Python, and it edits only on descriptors 0 and 1.
So, for the one read, the answer terminal is put on descriptor 0 and the screen's terminal
on descriptor 1 (screens elsewhere: the answer terminal on 1, and on 2 for readline's bell);
stdout (the results, often a pipe) is put back before anything else runs,
on every path: an answer, Ctrl-D, a timeout, a signal. Signals are blocked while the
descriptors are swapped and put back. A ticker thread wakes the main thread every
:data:`TICK` seconds (SIGALRM, to the main thread only) so that, while a line is edited,
the ``--timeout`` ends the wait, a watched descriptor (the inbox) is looked at, and a line
past :data:`~askcli.lines.MAX_ANSWER_BYTES` is dropped.

History is kept in memory only, one list per kind of prompt (:data:`CHOICE`, :data:`TEXT`,
:data:`MESSAGE`, :data:`INBOX`), at most :data:`HISTORY` lines each; readline's history is
loaded with that kind's list for each read and never written to a file. The person's
``~/.inputrc`` (``~/.editrc`` for libedit) applies; bracketed paste is turned off, so that a
pasted line ends at its line end as it does without editing, and Tab inserts a tab, kept
as it is without editing. A line that holds a control character is refused by the
conversation (:func:`~askcli.terminal.conversation.control_refusal`) and never kept here.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from ..errors import AnswerTimeout, LineTooLong
from ..escaping import first_control
from ..lines import MAX_ANSWER_BYTES, FdLineReader, encode, same_terminal, terminal_mode
from . import signals
from .rendering import ROOM_TO_TYPE, display_width, terminal_text

if TYPE_CHECKING:
    from ..lines import LineReader
    from .options import RunOptions
    from .rendering import Style


class ConversationView(Protocol):
    """What line editing uses of a conversation (a :class:`~.conversation.Conversation` is
    one): where answers are read and screens written, and what it says; a protocol, so that
    editing does not import the conversation that imports it."""

    reader: LineReader
    out: TextIO
    style: Style

    @property
    def options(self) -> RunOptions: ...

    @property
    def apart(self) -> bool: ...

    @property
    def open_line(self) -> bool: ...

    @open_line.setter
    def open_line(self, value: bool) -> None: ...

    def say(self, text: str) -> None: ...


CHOICE = "choice"  # question, review and permission prompts: numbers and command words
TEXT = "text"  # typed answers: Other, a text question, a reply to the agent
MESSAGE = "message"  # the "> " prompt of askcli claude and askcli acp
INBOX = "inbox"  # the inbox's own prompts
HISTORY = 100  # lines kept per kind
TICK = 0.1  # seconds between looks while a line is edited

# the signals that interrupt a read (terminal.signals) and the ticker's
_BLOCKED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM}
_COLOUR = re.compile("(\x1b\\[[0-9;]*m)")
_ENVIRONMENT = ("LINES", "COLUMNS")  # GNU readline exports the size; askcli's children keep theirs


class _Overlong(Exception):
    """The line being edited went past the limit."""

    def __init__(self, size: int) -> None:
        self.size = size


class _AsTyped:
    """A whole line, or Ctrl-D, waited at the terminal when editing was to start."""


class _State:
    """What lasts between reads: readline itself, the histories, a line cut short."""

    def __init__(self) -> None:
        self.module: ModuleType | None = None
        self.missing = False
        self.histories: dict[str, list[str]] = {}
        # a line being typed when the read was woken (the inbox): typed on at the next read
        # of the same kind, unless that one drops what was typed before it
        self.carried: tuple[str, str] | None = None
        self.environment = {name: os.environ.get(name) for name in _ENVIRONMENT}


_state = _State()


def reset() -> None:
    """Forget the histories (tests; one run is one process)."""
    _state.histories.clear()
    _state.carried = None


def shelve() -> str | None:
    """The line being typed when the last read was woken, put in its kind's history (Up
    brings it back) instead of typed on at the next read: its question was taken away (the
    inbox). The line, or None when none was being typed."""
    carried, _state.carried = _state.carried, None
    if carried is None or not carried[1].strip():
        return None
    _remember(*carried)
    return carried[1]


def history(kind: str) -> list[str]:
    """The lines kept for ``kind``, oldest first."""
    return list(_state.histories.get(kind, ()))


def _readline(answers: int | None = None, screen: int | None = None) -> ModuleType | None:
    """The readline module, imported once; with the two terminals on descriptors 0 and 1
    when they are given, since readline takes the screen size from there."""
    if _state.module is None and not _state.missing:
        try:
            if answers is not None and screen is not None:
                with _blocked(), _on(0, answers), _on(1, screen), _environment():
                    import readline
            else:
                import readline
        except ImportError:
            _state.missing = True
            return None
        _state.module = readline
        _set_up(readline)
    return _state.module


def _set_up(module: Any) -> None:
    module.set_auto_history(False)  # askcli adds the lines: never a secret, never a refusal
    module.set_completer(lambda text, state: None)  # no file names offered on Esc-Tab
    # a tab typed or pasted is text, kept as without editing (an ~/.inputrc's Tab that
    # completes would drop it: there is nothing to complete)
    if "libedit" in (module.__doc__ or ""):
        module.parse_and_bind("bind ^I ed-insert")
    else:
        module.parse_and_bind("set enable-bracketed-paste off")
        module.parse_and_bind('"\\t": tab-insert')


def _fd(stream: object) -> int | None:
    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) else None


def apart(conv: ConversationView) -> bool:
    """The answers are typed at a terminal and the screens go elsewhere: to a file, a pipe,
    ``/dev/null`` or another terminal (``--answers /dev/tty 2>log``, another pane). A screen
    that is no descriptor (``io.StringIO``) counts as the same: nothing is known of it."""
    reader = conv.reader
    if not isinstance(reader, FdLineReader) or not reader.interactive:
        return False
    screen = _fd(conv.out)
    return screen is not None and not same_terminal(reader.fd, screen)


def editable(conv: ConversationView, prompt: str = "", *, secret: bool) -> bool:
    """The next line of ``conv`` is read with line editing: a person at a terminal, nothing
    read ahead, not a secret, ``readline`` there, and a ``prompt`` it can show whole (on
    the same terminal; a screen elsewhere shows it apart)."""
    reader = conv.reader
    if secret or not isinstance(reader, FdLineReader) or not reader.interactive:
        return False
    if conv.options.calls_follow:  # calls pasted with the answers (ask -): one stream, in order
        return False
    if reader.buffered or threading.current_thread() is not threading.main_thread():
        return False
    if _waiting(reader.fd):  # typed ahead for a prompt that keeps it: read as it was typed
        return False
    screen = _fd(conv.out)
    if screen is None:  # an io.StringIO: not a person's screen
        return False
    if conv.apart:  # the line is drawn on the answer terminal, without the prompt
        return _readline(reader.fd, reader.fd) is not None
    if _scrolled_away(prompt.rpartition("\n")[2], screen, conv.style.width):
        return False
    return _readline(reader.fd, screen) is not None


def _scrolled_away(prompt: str, screen: int, width: int) -> bool:
    """On a terminal that cannot move the cursor up (``TERM=dumb``) readline scrolls the
    line sideways instead of wrapping it: a prompt without room to type after it would be
    shown cut (``<ter for more``). Such a prompt is read as the terminal gives it."""
    if os.environ.get("TERM", "") not in ("", "dumb"):
        return False
    with contextlib.suppress(OSError):
        width = os.get_terminal_size(screen).columns or width
    return display_width(_COLOUR.sub("", prompt)) + ROOM_TO_TYPE > width


def _waiting(fd: int) -> bool:
    """A whole line, or the end of input (Ctrl-D), waits at the terminal: typed before the
    prompt, in the terminal's own line mode, and read as such."""
    try:
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(readable)


def read_line(
    conv: ConversationView, prompt: str, kind: str = CHOICE, *, fresh: bool = True
) -> str | None:
    """Show ``prompt`` and read one edited line of ``conv`` (:func:`editable` said so);
    None when the input ended (Ctrl-D on an empty line). Raises AnswerTimeout after the
    conversation's timeout, LineTooLong for a line past the limit, and lets what the
    signal handlers raise through, all with the descriptors put back."""
    reader = conv.reader
    assert isinstance(reader, FdLineReader)
    module = _readline()
    assert module is not None
    carried = _state.carried
    _state.carried = None
    start = carried[1] if carried is not None and carried[0] == kind and not fresh else ""
    drawing: contextlib.AbstractContextManager[int | None]
    if conv.apart:  # the prompt on the screens, the line on the answer terminal
        conv.say(prompt)
        last = shown = ""
        drawing = _drawing_on(reader.fd)
    else:
        head, newline, last = prompt.rpartition("\n")
        if newline:
            conv.say(head + newline)
        conv.open_line = bool(last)  # as if said: the cursor stays after the prompt
        shown = _COLOUR.sub("\x01\\1\x02", terminal_text(last, colour=conv.style.colour))
        screen = _fd(conv.out)
        assert screen is not None
        drawing = contextlib.nullcontext(screen)
    try:
        with drawing as at:
            if at is None:  # the answer terminal cannot be written: read as it is typed
                return reader.readline(conv.options.timeout)
            timeout = conv.options.timeout
            line = _edit(module, reader, at, shown, kind, start, timeout, conv.out, conv.apart)
    except _Overlong as overlong:
        with contextlib.suppress(LineTooLong):
            reader.readline(conv.options.timeout)  # the rest of that line, read and dropped
        raise LineTooLong(overlong.size, MAX_ANSWER_BYTES) from None
    if isinstance(line, _AsTyped):  # a line or Ctrl-D came meanwhile: read as it was typed
        conv.say(last)
        return reader.readline(conv.options.timeout)
    reader.typed(line)
    if line is not None:
        if len(encode(line)) > MAX_ANSWER_BYTES:
            raise LineTooLong(len(line), MAX_ANSWER_BYTES)
        _remember(kind, line)
    return line


@contextlib.contextmanager
def _drawing_on(answers: int) -> Iterator[int | None]:
    """A descriptor that writes to the answer terminal (``answers`` is opened to read), for
    readline to draw the line on; None when it cannot be opened."""
    try:
        fd = os.open(os.ttyname(answers), os.O_WRONLY | os.O_NOCTTY)
    except OSError:
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def _remember(kind: str, line: str) -> None:
    if not line.strip() or first_control(line) is not None:  # a refused line: not kept
        return
    kept = _state.histories.setdefault(kind, [])
    if kept and kept[-1] == line:
        return
    kept.append(line)
    del kept[:-HISTORY]


def _edit(
    module: Any,
    reader: FdLineReader,
    screen: int,
    prompt: str,
    kind: str,
    start: str,
    timeout: float | None,
    out: TextIO,
    apart: bool = False,
) -> str | _AsTyped | None:
    deadline = None if timeout is None else time.monotonic() + timeout
    live = [False]  # the ticks may act: input() is (about to be) waiting

    def tick(signum: int, frame: FrameType | None) -> None:
        if not live[0]:
            return
        if deadline is not None and time.monotonic() >= deadline:
            assert timeout is not None
            raise AnswerTimeout(timeout)
        if not _editing_now():
            return  # readline has not started the line, or has handed it back: keep it
        typed = module.get_line_buffer()
        if len(encode(typed)) > MAX_ANSWER_BYTES:
            raise _Overlong(len(typed))
        try:
            reader.look()
        except BaseException:
            _state.carried = (kind, typed)
            raise

    # Each restore is the first thing done in its own with-block: an exception a signal
    # handler raises during one cannot skip another. Signals are blocked from here until
    # input() waits, and again from its return until everything is put back.
    with _blocked() as mask:
        # keys typed from here on arrive one by one, as readline reads them: a Ctrl-D or a
        # line typed before is the terminal's own (readline would see Ctrl-D as a NUL)
        if _waiting(reader.fd):
            return _AsTyped()
        at = _at(reader.fd, screen, out, bell=apart)
        with _keys(reader.fd), at, _ticking(tick, reader.watched):
            return _read(module, kind, start, prompt, mask, live)


def _read(
    module: Any,
    kind: str,
    start: str,
    prompt: str,
    mask: set[int | signal.Signals],
    live: list[bool],
) -> str | None:
    with _starting(module, start):
        _load_history(module, kind)
        heard = signals.received_count()
        live[0] = True
        try:
            with _unblocked(mask):
                return input(prompt)
        except EOFError:
            # a Ctrl-C (a signal) as readline starts the line: the handler ran and raised,
            # but input() reports the end of input; it is the signal, never "the input ended"
            if signals.received_count() > heard:
                raise KeyboardInterrupt from None
            return None
        finally:
            live[0] = False


def _editing_now() -> bool:
    """readline has the terminal in its own mode: a line is being edited. Its mode reads
    with no timer (VTIME 0); the one around it (:func:`_keys`) has one."""
    import termios

    try:
        attributes = termios.tcgetattr(0)
    except (OSError, termios.error):
        return False
    return not attributes[3] & termios.ICANON and attributes[6][termios.VTIME] == 0


def _keys(fd: int) -> contextlib.AbstractContextManager[None]:
    """The terminal hands over keys one by one (as in readline's own mode, but for a read
    timer, which tells the two apart); its mode is put back on the way out (a terminal that
    went away: readline will see its end)."""
    import termios

    def keys(mode: list[Any]) -> None:
        mode[3] &= ~termios.ICANON  # echo stays: readline takes it to mean "show the line"
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 1

    return terminal_mode(fd, keys)


def _load_history(module: Any, kind: str) -> None:
    if hasattr(module, "clear_history"):
        module.clear_history()
    else:  # a libedit without it
        for index in reversed(range(module.get_current_history_length())):
            module.remove_history_item(index)
    for line in _state.histories.get(kind, ()):
        module.add_history(line)


class _Std:
    """sys.stdin or sys.stdout as ``input()`` checks them: the descriptor and encoding."""

    encoding = "utf-8"

    def __init__(self, fd: int, errors: str, out: TextIO) -> None:
        self.fd = fd
        self.errors = errors
        self.out = out

    def fileno(self) -> int:
        return self.fd

    def flush(self) -> None:
        self.out.flush()

    def write(self, text: str) -> int:  # input() without readline: the prompt, on the screen
        return self.out.write(text)

    def readline(self, size: int = -1) -> str:
        return ""  # input() without readline: the terminal went away, the input ended


@contextlib.contextmanager
def _blocked() -> Iterator[set[int | signal.Signals]]:
    """The signals that interrupt a read wait inside; the mask before is given."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
    try:
        yield before
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def _unblocked(mask: set[int | signal.Signals]) -> Iterator[None]:
    """The signal mask is ``mask`` inside, and blocks them again on the way out."""
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)


@contextlib.contextmanager
def _at(answers: int, screen: int, out: TextIO, *, bell: bool = False) -> Iterator[None]:
    """Descriptor 0 reads the answer terminal and 1 writes to the screen's, for ``input()``;
    sys.stdin and sys.stdout say so. ``bell``: 2 writes there too (GNU readline rings its
    bell on stderr: on the terminal being typed at, never into a log the screens go to).
    Everything is put back on the way out."""
    bells = _on(2, screen) if bell else contextlib.nullcontext()
    with _on(0, answers), _on(1, screen), bells, _standard(out), _environment():
        yield


@contextlib.contextmanager
def _on(fd: int, target: int) -> Iterator[None]:
    """Descriptor ``fd`` is ``target``'s terminal inside."""
    if fd == target or same_terminal(fd, target):
        yield
        return
    saved = os.dup(fd)
    try:
        os.dup2(target, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


@contextlib.contextmanager
def _standard(out: TextIO) -> Iterator[None]:
    streams = sys.stdin, sys.stdout
    sys.stdin = _Std(0, "surrogateescape", out)
    sys.stdout = _Std(1, "backslashreplace", out)
    try:
        yield
    finally:
        sys.stdin, sys.stdout = streams


@contextlib.contextmanager
def _environment() -> Iterator[None]:
    """GNU readline exports LINES and COLUMNS when it reads the size: undone, so that the
    agents askcli starts later see the environment askcli was given."""
    try:
        yield
    finally:
        for name, value in _state.environment.items():
            if value is None:
                os.unsetenv(name)
            else:
                os.putenv(name, value)


@contextlib.contextmanager
def _starting(module: Any, start: str) -> Iterator[None]:
    """The line starts with ``start`` typed (a line cut short by a wake)."""
    if not start:
        yield
        return
    module.set_startup_hook(lambda: module.insert_text(start))
    try:
        yield
    finally:
        module.set_startup_hook(None)


@contextlib.contextmanager
def _ticking(
    tick: Callable[[int, FrameType | None], None], watched: int | None = None
) -> Iterator[None]:
    """``tick`` runs in the main thread (which alone runs Python's signal handlers) every
    :data:`TICK` seconds while inside, and at once when ``watched`` has bytes (the inbox's
    news wakes the prompt as fast as without editing): a thread sends it SIGALRM."""
    main = threading.main_thread().ident
    assert main is not None
    previous = signal.signal(signal.SIGALRM, tick)
    stop_read, stop_write = os.pipe()

    def run() -> None:
        looking = [stop_read] if watched is None else [stop_read, watched]
        while True:
            try:
                ready, _, _ = select.select(looking, [], [], TICK)
            except (OSError, ValueError):  # the watched descriptor was closed
                looking = [stop_read]
                continue
            if stop_read in ready:
                return
            signal.pthread_kill(main, signal.SIGALRM)
            if ready:  # news: the main thread looks before this thread looks again
                time.sleep(TICK / 5)

    ticker = threading.Thread(target=run, name="askcli-editing-tick", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        os.write(stop_write, b".")
        ticker.join()
        os.close(stop_read)
        os.close(stop_write)
        # a SIGALRM sent and held (blocked) is dropped before the old handler is back
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.signal(signal.SIGALRM, previous)
