"""What every agent askcli hosts as a child process shares (``askcli claude``, ``askcli
acp``): its life tied to askcli's, its stderr shown to the person line by line, its end
described, and the reading of what it sends, which may be anything."""

from __future__ import annotations

import collections
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .. import lines
from ..escaping import visible
from ..questions.outcome import Outcome
from ..runners.streams import quiet_stdout
from ..status import ExitStatus
from ..terminal import screens
from ..terminal.conversation import Conversation
from ..terminal.rendering import truncate

MAX_LINE = 16 * 1024 * 1024  # a longer line from the agent is skipped unread
MAX_NAMES = 4096  # tool calls remembered for what still comes of them
SHOWN = 500  # characters of a line of text (stderr, not JSON) shown; the rest is counted
TAIL = 10  # a child's last stderr lines kept, shown when it ends early
# terminal control sequences, for telling a stderr line that holds nothing to read
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]"
)


class Ended(NamedTuple):
    """How a hosted session ended early (``askcli claude``, ``askcli acp``): its exit
    status, and what to say of it."""

    status: int
    message: str | None = None

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> Ended:
        """The end a call brings to the session: its outcome's exit status (nobody
        answered: the session ends as ``ask`` does, with NO_ANSWER)."""
        return cls(int(outcome.status))


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` by which the child receives SIGTERM when askcli dies, even by
    SIGKILL (Linux; None elsewhere). It reaches the child only, not the processes it
    starts, and is tied to the thread that starts the child, which must live as long.

    libc is looked up here, in the parent: the child, forked from a process with threads,
    only calls it (no import there, whose lock another thread may have held)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return preexec


def shorten(text: str, limit: int = SHOWN) -> str:
    """``text`` escaped on one line, cut to ``limit`` characters with the rest counted."""
    if len(text) <= limit:
        return visible(text)
    return visible(text[:limit]) + f"… ({len(text) - limit} more characters)"


def stderr_line(text: str, more: int = 0, who: str = "Claude Code") -> str | None:
    """How a line of ``who``'s stderr is shown; None for one that holds nothing to read
    (only terminal control sequences and spaces, such as ``ESC[?25h``)."""
    if not _SEQUENCE.sub("", text).strip() and not more:
        return None
    extra = f"… ({more} more bytes)" if more else ""
    return f"({who} stderr) {shorten(text)}{extra}\n"


def describe_exit(code: int) -> str:
    """``exited with status 3`` or ``was killed by SIGKILL``."""
    if code >= 0:
        return f"exited with status {code}"
    try:
        return f"was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


def same_terminal(out: Any, err: Any) -> bool:
    """Whether ``out`` and ``err`` write to one terminal (the same tty device, or both the
    controlling terminal, one opened as ``/dev/tty``), so that what one shows the person
    already sees on the other."""
    try:
        return lines.same_terminal(out.fileno(), err.fileno())
    except (AttributeError, OSError, ValueError):
        return False


class AgentStderr:
    """A child's stderr lines (a callable for its stderr reader's thread): each shown to the
    person as it comes, escaped, one line each, and the last :data:`TAIL` kept (bounded, as
    each line is), to be shown with its exit status when it ends early (:meth:`ended`)."""

    def __init__(self, conv: Conversation, who: str) -> None:
        self.conv = conv
        self.who = who
        self.kept: collections.deque[tuple[str, int]] = collections.deque(maxlen=TAIL)
        self.count = 0  # lines that held something to read
        self.shown = 0  # of them, those shown as they came
        self.mark = -1  # conv.said just after the last line shown as it came
        self.live = True
        self.lock = threading.Lock()

    def __call__(self, text: str, more: int) -> None:
        line = stderr_line(text, more, self.who)
        if line is None:
            return
        with self.lock:
            self.count += 1
            self.kept.append((text, more))
            if self.live:  # folded at a terminal, as askcli's own messages
                self.conv.say(self.conv.folded(line[:-1]) + "\n")
                self.shown, self.mark = self.count, self.conv.said

    def hold(self) -> None:
        """The child ended early: the lines still to come are kept, not shown, for
        :meth:`ended` (Gemini CLI, for one, writes its stderr only as it exits)."""
        with self.lock:
            self.live = False

    def ended(self, message: str, then: Sequence[str] = ()) -> None:
        """Say that the child ended early: ``message`` (with its exit status; folded to the
        width at a terminal, one line elsewhere, as every ``askcli:`` line), the lines
        ``then`` (what to do about it), then its last stderr lines, each cut to the width:
        those that came after :meth:`hold`, or the whole tail when something else was shown
        after the last line shown as it came (the lines just above are not shown twice)."""
        with self.lock:
            above = self.shown > 0 and self.mark == self.conv.said
            lines = list(self.kept)
            if above:  # only what came after them
                lines = lines[len(lines) - min(len(lines), self.count - self.shown) :]
            width = self.conv.style.width
            said = [*self.conv.folded(f"askcli: {visible(message)}").split("\n"), *then]
            if lines:
                of = f" ({len(lines)} of {self.count})" if len(lines) < self.count else ""
                plural = "s" if len(lines) > 1 else ""
                said.append(f"  its last stderr line{plural}{of}:")
                for text, more in lines:
                    shown = visible(text) + (f"… ({more} more bytes)" if more else "")
                    said.append(truncate("  | " + shown, width, words=True))
            self.conv.say("\n".join(said) + "\n")


def show_stderr(conv: Conversation, who: str = "Claude Code") -> AgentStderr:
    """Where a child's stderr lines go: to the person, escaped, one line each (folded at a
    terminal); the last ones kept for an early end."""
    return AgentStderr(conv, who)


def session_ended(status: int, save: Callable[[int], bool] | None = None) -> int:
    """A hosted session's exit status: stdout quietened when it failed, and with ``save``
    (``--record``: saves the fixture, False when it cannot) OUTPUT_FAILED when it fails."""
    if status in (ExitStatus.STDOUT_GONE, ExitStatus.OUTPUT_FAILED):
        quiet_stdout()
    if save is not None and not save(status):
        return ExitStatus.OUTPUT_FAILED
    return status


def hint_messages(conv: Conversation, to: str) -> None:
    """Before the first ``> `` of a session at a terminal, the keys it takes in one line (a
    pipe or a file of prompts gets none: its transcripts stay as they were)."""
    if conv.reader.interactive:
        conv.say(conv.style.dim(screens.message_hint(to, conv.style.width)) + "\n")
