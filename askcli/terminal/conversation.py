"""The conversation with the person: where screens go, where answer lines come from.

A :class:`Conversation` is handed to every tool that talks to the person (the
AskUserQuestion REPL, the fallback permission prompt): the reader, the screen and its
style, and the run's settings (:class:`askcli.terminal.options.RunOptions`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TextIO

from ..errors import LineTooLong, Withdrawn
from ..escaping import first_control, visible
from ..lines import FdLineReader, LineReader
from ..questions.outcome import Outcome
from . import editing, signals
from .options import RunOptions
from .rendering import Style, display_width, on_terminal, terminal_text, wrap

if TYPE_CHECKING:
    from .notify import Notice


def _cancels(line: str, request_id: object) -> bool:
    """``line`` is Claude Code's ``control_cancel_request`` for ``request_id``."""
    if "control_cancel_request" not in line:  # the usual next call: no parsing
        return False
    from ..wire.documents import parse_json

    try:
        message = parse_json(line)
    except ValueError:
        return False
    return (
        isinstance(message, dict)
        and message.get("type") == "control_cancel_request"
        and message.get("request_id") == request_id
    )


def no_reply_within(seconds: float) -> str:
    """``no reply within 1 second``, ``... 2.5 seconds``; never an exponent."""
    number = f"{seconds:g}"
    if "e" in number:  # 1e-05, 1e+06: written out
        from decimal import Decimal

        number = format(Decimal(repr(seconds)), "f")
        number = number.rstrip("0").rstrip(".") if "." in number else number
    unit = "second" if number == "1" else "seconds"
    return f"no reply within {number} {unit}"


TYPED_AHEAD = "(ignored what was typed before this question)"

# what a person may have pressed, for the reason a line is refused
_ARROWS = {"A": "Up", "B": "Down", "C": "Right", "D": "Left", "H": "Home", "F": "End"}
_TILDE = {"1": "Home", "2": "Insert", "3": "Delete", "4": "End", "5": "Page Up", "6": "Page Down"}
_KEYS = {
    "\x1b": "Esc",
    "\x7f": "Backspace",
    "\x08": "Ctrl-H, Backspace",
    **{f"\x1b{lead}{end}": f"the {key} key" for end, key in _ARROWS.items() for lead in "[O"},
    **{f"\x1b[{n}~": f"the {key} key" for n, key in _TILDE.items()},
}


NOT_UTF8 = "that line is not valid UTF-8; type it again"
_UNDECODED = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)


def control_refusal(line: str, *, secret: bool = False) -> str | None:
    """Why ``line`` is not taken, when it holds a control character (a tab is text) or an
    escape sequence: a key's code that a terminal without line editing passes on
    (``\\x1b[D``, the Left key), a Ctrl key, a paste. Said visibly escaped; of a
    ``secret`` line, only that it holds one. A line with bytes that were not UTF-8 is
    refused too. None for a line of text."""
    found = first_control(line)
    if found is None:
        if _UNDECODED.search(line):  # bytes that were not UTF-8
            return NOT_UTF8
        return None
    if secret:
        return "the line holds a control character, not text: it was not taken"
    name = _KEYS.get(found)
    if name is None and len(found) == 1 and found < " ":
        name = f"Ctrl-{chr(ord(found) + 64)}"
    elif name is None:
        name = "a control character" if len(found) == 1 else "an escape sequence"
    return f"{visible(found)} ({name}) is not text: the line was not taken"


class _Screen:
    """What every view of one conversation shares (:meth:`Conversation.with_options`)."""

    __slots__ = ("apart", "attention_due", "gone", "keys_shown", "open_line", "said", "terminal")

    def __init__(self, gone: bool, terminal: bool) -> None:
        self.gone = gone  # the screens go nowhere: stderr is /dev/null, or the terminal went
        self.apart: bool | None = None  # answers typed at a terminal, screens elsewhere
        self.terminal = terminal  # the screens go to a terminal
        self.open_line = False  # what was written last left the cursor after text
        self.attention_due = False  # the next prompt calls the person (--notify)
        self.said = 0  # writes to the person so far (what came last, for a host's lines)
        self.keys_shown = False  # the keys of a choice question were shown in this run


class Conversation:
    """Where answer lines come from and where the screens go: the reader, the stream the
    screens are written to and their style, and the run's settings, :attr:`options`.

    A setting that changes during the run is a new :class:`RunOptions` in a new view of
    the same conversation (:meth:`with_options`); the control request being answered is
    another view (:meth:`answering`). The views share the reader, the screen and its state.
    """

    __slots__ = ("_options", "_request", "_screen", "out", "reader", "style")

    def __init__(
        self,
        reader: LineReader,
        out: TextIO,
        style: Style | None = None,
        options: RunOptions | None = None,
    ) -> None:
        self.reader = reader
        self.out = out
        self.style = style if style is not None else Style()
        self._options = options if options is not None else RunOptions()
        self._screen = _Screen(gone=self._options.quiet, terminal=on_terminal(out))
        # the control request this view answers: a control_cancel_request for it, where an
        # answer line is read from the calls' own stream, withdraws it
        self._request: object = None

    @property
    def options(self) -> RunOptions:
        """The run's settings (immutable)."""
        return self._options

    def _view(self, options: RunOptions, request: object) -> Conversation:
        view = object.__new__(type(self))  # no __init__: the screen is this one's
        view.reader, view.out, view.style = self.reader, self.out, self.style
        view._options, view._request, view._screen = options, request, self._screen
        return view

    def with_options(self, options: RunOptions) -> Conversation:
        """This conversation with other settings: the same reader, screen and state."""
        return self._view(options, self._request)

    def answering(self, request_id: object) -> Conversation:
        """This conversation while it answers control request ``request_id``: an answer
        line that is Claude Code's ``control_cancel_request`` for it raises Withdrawn."""
        return self._view(self._options, request_id)

    @property
    def said(self) -> int:
        """How many times the person was written to so far."""
        return self._screen.said

    @property
    def open_line(self) -> bool:
        """What was written last left the cursor after text."""
        return self._screen.open_line

    @open_line.setter
    def open_line(self, value: bool) -> None:  # a prompt readline wrote (terminal.editing)
        self._screen.open_line = value

    @property
    def apart(self) -> bool:
        """The answers are typed at a terminal and the screens go elsewhere (a file,
        another terminal): each line is written after its prompt, as a piped one is."""
        screen = self._screen
        if screen.apart is None:
            screen.apart = editing.apart(self)
        return screen.apart

    @property
    def keys_shown(self) -> bool:
        """The keys of a choice question were shown in this run (they are shown once)."""
        return self._screen.keys_shown

    @keys_shown.setter
    def keys_shown(self, value: bool) -> None:
        self._screen.keys_shown = value

    def say(self, text: str) -> None:
        """Write to the person; a terminal that went away (SIGHUP) is not an error.

        Everything for the person passes here, through :func:`terminal_text`."""
        screen = self._screen
        if screen.gone:
            return
        try:
            screen.said += 1
            self.out.write(terminal_text(text, colour=self.style.colour))
            if text:
                screen.open_line = not text.endswith("\n")
            self.out.flush()
        except (OSError, ValueError):
            screen.gone = True

    def call_starts(self, starting: bool = True) -> None:
        """A call that may ask the person starts (False: it ended): its first prompt asks
        for their attention, once (``notice``)."""
        self._screen.attention_due = starting and self._options.notice is not None

    def attention(self, notice: Notice | None = None) -> None:
        """Write the bell or notification of ``notice`` (by default this conversation's
        own): the one raw write past the gate, of askcli's own fixed bytes
        (:attr:`askcli.terminal.notify.Notice.sequence`)."""
        notice = notice if notice is not None else self._options.notice
        if self._screen.gone or notice is None:
            return
        try:
            self.out.write(notice.sequence)
            self.out.flush()
        except (OSError, ValueError):
            self._screen.gone = True

    def error(self, message: str) -> None:
        """One ``askcli: ...`` line; the message may quote the model, so it is escaped."""
        self.say(self.folded(f"askcli: {visible(message)}") + "\n")

    def folded(self, line: str) -> str:
        """A message's ``line`` (escaped already): at a terminal folded at spaces to the
        width, going on under two spaces, so that no word is split; elsewhere one line, for
        logs and ``grep``."""
        if self._screen.terminal and display_width(line) > self.style.width:
            return "\n".join(wrap(line, self.style.width, rest="  "))
        return line

    def read_answer(
        self,
        prompt: str,
        *,
        command: bool = True,
        secret: bool = False,
        fresh: bool = True,
        history: str = editing.CHOICE,
    ) -> str | None:
        """Show ``prompt`` and read one line; None when the answers ended.

        Raises AnswerTimeout and lets KeyboardInterrupt through. A line from a pipe or file
        is echoed after the prompt so that the transcript reads like the session; a
        ``secret`` line never is, and a terminal does not echo it either. At a terminal,
        what was typed before the prompt is dropped first (``fresh``: the prompt answers
        what is on screen; False for a prompt that takes type-ahead, such as the next
        message to an agent). At a terminal the line is edited (:mod:`.editing`), with
        the earlier answers of its ``history`` kind under Up.

        Every line a person types passes here: one that holds a control character or a
        key's escape sequence is refused, saying which (:func:`control_refusal`), and the
        prompt is shown again; it never reaches the agent.
        """
        while True:
            line = self._read_line(prompt, command, secret, fresh, history)
            if line is None or (line.isascii() and line.isprintable()):  # the usual line
                return line
            refused = control_refusal(line, secret=secret)
            if refused is None:
                return line
            rows = wrap(f"! {refused}", self.style.width, rest="  ")
            self.say("\n".join(self.style.warn(row) for row in rows) + "\n")

    def _read_line(
        self, prompt: str, command: bool, secret: bool, fresh: bool, history: str
    ) -> str | None:
        """One line as :meth:`read_answer` reads it, before it is looked at."""
        screen, options = self._screen, self._options
        if screen.attention_due:
            screen.attention_due = False
            self.attention()
        keep = options.calls_follow  # a next call pasted after this one is not type-ahead
        interactive = self.reader.interactive
        if fresh and interactive and self.reader.discard_typed_ahead(keep_calls=keep):
            if screen.open_line:
                self.say("\n")
            self.say(self.style.dim(TYPED_AHEAD) + "\n")
        while True:
            try:
                if interactive and editing.editable(self, prompt, secret=secret):
                    line = editing.read_line(self, prompt, history, fresh=fresh)
                    break
                self.say(prompt)
                if secret and hasattr(self.reader, "unechoed"):
                    with self.reader.unechoed():
                        line = self.reader.readline(options.timeout)
                    if interactive and not self.apart:  # (apart: the line is written)
                        self.say("\n")  # the Enter the terminal did not echo
                else:
                    line = self.reader.readline(options.timeout)
                break
            except LineTooLong as exc:
                if not interactive or self.apart:
                    self.say(f"(a line of {exc.size} characters)\n")
                self.say(self.style.warn(f"! {exc}") + "\n")
        if line is None:
            if isinstance(self.reader, FdLineReader) and self.reader.hung_up:
                signals.hung_up()  # not a Ctrl-D: the terminal went away, as SIGHUP says
            self.say("\n")
            return None
        if command and options.calls_follow and line.lstrip().startswith("{"):
            if self._request is not None and _cancels(line, self._request):
                raise Withdrawn  # the line is taken: it answered the request's question
            self.reader.unread(line)
            self.say("\n")
            return None
        if (not interactive or self.apart) and not screen.gone:
            self.say(("(hidden)" if secret and line.strip() else visible(line)) + "\n")
        elif interactive:  # the Enter typed ended the line; Ctrl-D after text did not
            screen.open_line = bool(getattr(self.reader, "at_end", False))
        return line

    def why(self, outcome: Outcome) -> str:
        """The reason in ``No answer from the user (...)``: ``no reply within 1 second``,
        ``... 2.5 seconds``; never an exponent."""
        timeout = self._options.timeout
        if outcome is Outcome.TIMED_OUT and timeout:
            return no_reply_within(timeout)
        return self._options.ended or "the input ended"
