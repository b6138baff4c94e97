"""The conversation with the person: where screens go, where answer lines come from.

A :class:`Conversation` is handed to every tool that talks to the person (the
AskUserQuestion REPL, the fallback permission prompt) and carries what the run knows:
the width and colour, the ``--timeout``, the todo state and session.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TextIO

from .lines import LineReader
from .rendering import Style, visible
from .todo_store import TodoStore


class Ending(enum.Enum):
    """How a conversation with the person ended."""

    DONE = "done"  # the person decided
    ENDED = "ended"  # the answer stream ended first
    TIMEOUT = "timeout"  # no line within the timeout
    INTERRUPTED = "interrupted"  # Ctrl-C


@dataclass
class Conversation:
    """Where answer lines come from and where the screens go.

    ``calls_follow`` is set when the answers share a stream with the calls: there a line
    beginning with ``{`` where a command is expected means this call's answers ran out and
    the next call begins. ``todos`` is the TodoWrite state (None: not kept) and ``session``
    the ``--session`` id.
    """

    reader: LineReader
    out: TextIO
    style: Style = field(default_factory=Style)
    timeout: float | None = None
    calls_follow: bool = False
    todos: TodoStore | None = None
    session: str | None = None

    def say(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def error(self, message: str) -> None:
        """One ``askcli: ...`` line; the message may quote the model, so it is escaped."""
        self.say(f"askcli: {visible(message)}\n")

    def read_answer(self, prompt: str, *, command: bool = True) -> str | None:
        """Show ``prompt`` and read one line; None when the answers ended.

        Raises AnswerTimeout and lets KeyboardInterrupt through. A line from a pipe or file
        is echoed after the prompt so that the transcript reads like the session.
        """
        self.say(prompt)
        line = self.reader.readline(self.timeout)
        if line is None:
            self.say("\n")
            return None
        if command and self.calls_follow and line.lstrip().startswith("{"):
            self.reader.unread(line)
            self.say("\n")
            return None
        if not self.reader.interactive:
            self.say(visible(line) + "\n")
        return line

    def why(self, ending: Ending) -> str:
        """The reason in ``No answer from the user (...)``."""
        if ending is Ending.TIMEOUT and self.timeout:
            return f"no reply within {self.timeout:g} seconds"
        return "the input ended"
