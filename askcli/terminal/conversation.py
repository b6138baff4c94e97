"""The conversation with the person: where screens go, where answer lines come from.

A :class:`Conversation` is handed to every tool that talks to the person (the
AskUserQuestion REPL, the fallback permission prompt) and carries what the run knows:
the width and colour, the ``--timeout``, the todo state and session.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from ..errors import LineTooLong, Withdrawn
from ..escaping import visible
from ..lines import LineReader
from ..questions.conclusion import Ending
from . import editing
from .rendering import Style, terminal_text

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


class TodoKeeper(Protocol):
    """Where the TodoWrite lists are kept between calls
    (:class:`askcli.tools.todo_store.TodoStore`): the conversation only carries it to the
    tools that keep them."""

    notes: list[str]  # what went wrong keeping them, to be said to the person
    interrupted: bool  # a signal came while they were read or written

    def replace(self, key: str, todos: list[dict[str, Any]]) -> list[dict[str, Any]]: ...

    def batch(
        self, report: Callable[[str], None] | None = None
    ) -> AbstractContextManager[None]: ...


class Conversation:
    """Where answer lines come from and where the screens go.

    ``calls_follow`` is set when the answers share a stream with the calls: there a line
    beginning with ``{`` where a command is expected means this call's answers ran out and
    the next call begins. ``todos`` is the TodoWrite state (None: not kept) and ``session``
    the ``--session`` id. ``journal_file`` (``--journal``) keeps every answer as it is
    given; without it, ``journal_dir`` does for a person at a terminal. ``quiet`` says
    that nobody can see the screens (stderr is ``/dev/null``), so they need not be drawn.
    ``wording`` (``seed`` or ``claude-code``) picks the texts of AskUserQuestion results.
    """

    def __init__(
        self,
        reader: LineReader,
        out: TextIO,
        style: Style | None = None,
        *,
        timeout: float | None = None,
        calls_follow: bool = False,
        todos: TodoKeeper | None = None,
        session: str | None = None,
        journal_file: Path | None = None,
        journal_dir: Path | None = None,
        quiet: bool = False,
        notice: Notice | None = None,
        wording: str = "seed",
    ) -> None:
        self.reader = reader
        self.out = out
        self.style = style if style is not None else Style()
        self.timeout = timeout
        self.calls_follow = calls_follow
        self.todos = todos
        self.session = session
        self.journal_file = journal_file
        self.journal_dir = journal_dir
        self.quiet = quiet  # the screens go nowhere (stderr is /dev/null): skip drawing them
        self.permission_always = False  # offer "always" at the permission prompt (askcli claude)
        self._gone = quiet
        self.open_line = False  # what was written last left the cursor after text
        self.keys_shown = False  # the keys of a choice question were shown in this run
        self.notice = notice  # --notify, resolved: None when nobody is to be called
        self._attention_due = False
        self.wording = wording  # --wording: the texts of AskUserQuestion's results
        # what the asking Claude Code said it supports (system/init, initialize response)
        self.capabilities: set[str] = set()
        # the control request being answered: a control_cancel_request for it, where an
        # answer line is read from the calls' own stream, withdraws it
        self.pending: object = None

    def say(self, text: str) -> None:
        """Write to the person; a terminal that went away (SIGHUP) is not an error.

        Everything for the person passes here, through :func:`terminal_text`."""
        if self._gone:
            return
        try:
            self.out.write(terminal_text(text, colour=self.style.colour))
            if text:
                self.open_line = not text.endswith("\n")
            self.out.flush()
        except (OSError, ValueError):
            self._gone = True

    def call_starts(self, starting: bool = True) -> None:
        """A call that may ask the person starts (False: it ended): its first prompt asks
        for their attention, once (``notice``)."""
        self._attention_due = starting and self.notice is not None

    def attention(self, notice: Notice | None = None) -> None:
        """Write the bell or notification of ``notice`` (by default this conversation's
        own): the one raw write past the gate, of askcli's own fixed bytes
        (:attr:`askcli.terminal.notify.Notice.sequence`)."""
        notice = notice if notice is not None else self.notice
        if self._gone or notice is None:
            return
        try:
            self.out.write(notice.sequence)
            self.out.flush()
        except (OSError, ValueError):
            self._gone = True

    def error(self, message: str) -> None:
        """One ``askcli: ...`` line; the message may quote the model, so it is escaped."""
        self.say(f"askcli: {visible(message)}\n")

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
        """
        if self._attention_due:
            self._attention_due = False
            self.attention()
        keep = self.calls_follow  # a next call pasted after this one is not type-ahead
        if fresh and self.reader.interactive and self.reader.discard_typed_ahead(keep_calls=keep):
            if self.open_line:
                self.say("\n")
            self.say(self.style.dim(TYPED_AHEAD) + "\n")
        while True:
            try:
                if editing.editable(self, prompt, secret=secret):
                    line = editing.read_line(self, prompt, history, fresh=fresh)
                    break
                self.say(prompt)
                if secret and hasattr(self.reader, "unechoed"):
                    with self.reader.unechoed():
                        line = self.reader.readline(self.timeout)
                    if self.reader.interactive:
                        self.say("\n")  # the Enter the terminal did not echo
                else:
                    line = self.reader.readline(self.timeout)
                break
            except LineTooLong as exc:
                if not self.reader.interactive:
                    self.say(f"(a line of {exc.size} characters)\n")
                self.say(self.style.warn(f"! {exc}") + "\n")
        if line is None:
            self.say("\n")
            return None
        if command and self.calls_follow and line.lstrip().startswith("{"):
            if self.pending is not None and _cancels(line, self.pending):
                raise Withdrawn  # the line is taken: it answered the request's question
            self.reader.unread(line)
            self.say("\n")
            return None
        if not self.reader.interactive and not self._gone:
            self.say(("(hidden)" if secret and line.strip() else visible(line)) + "\n")
        return line

    def why(self, ending: Ending) -> str:
        """The reason in ``No answer from the user (...)``: ``no reply within 1 second``,
        ``... 2.5 seconds``; never an exponent."""
        if ending is Ending.TIMEOUT and self.timeout:
            return no_reply_within(self.timeout)
        return "the input ended"
