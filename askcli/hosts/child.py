"""What every agent askcli hosts as a child process shares (``askcli claude``, ``askcli
acp``): its life tied to askcli's, its stderr shown to the person line by line, its end
described, and the reading of what it sends, which may be anything."""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Callable
from typing import Any

from ..escaping import visible
from ..runners.streams import quiet_stdout
from ..status import ExitStatus
from ..terminal.conversation import Conversation

MAX_LINE = 16 * 1024 * 1024  # a longer line from the agent is skipped unread
MAX_NAMES = 4096  # tool calls remembered for what still comes of them
SHOWN = 500  # characters of a line of text (stderr, not JSON) shown; the rest is counted
# terminal control sequences, for telling a stderr line that holds nothing to read
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]"
)


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
    """Whether ``out`` and ``err`` write to one terminal (the same tty device), so that what
    one shows the person already sees on the other."""
    try:
        first, second = os.fstat(out.fileno()), os.fstat(err.fileno())
        ttys = os.isatty(out.fileno()) and os.isatty(err.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    if not ttys:
        return False
    return first.st_rdev == second.st_rdev or (first.st_dev, first.st_ino) == (
        second.st_dev,
        second.st_ino,
    )


def show_stderr(conv: Conversation, who: str = "Claude Code") -> Callable[[str, int], None]:
    """Where a child's stderr lines go: to the person, escaped, one line each."""

    def shown(text: str, more: int) -> None:
        line = stderr_line(text, more, who)
        if line is not None:
            conv.say(line)

    return shown


def session_ended(status: int, save: Callable[[int], bool] | None = None) -> int:
    """A hosted session's exit status: stdout quietened when it failed, and with ``save``
    (``--record``: saves the fixture, False when it cannot) OUTPUT_FAILED when it fails."""
    if status in (ExitStatus.STDOUT_GONE, ExitStatus.OUTPUT_FAILED):
        quiet_stdout()
    if save is not None and not save(status):
        return ExitStatus.OUTPUT_FAILED
    return status
