"""askcli's exceptions: a small hierarchy the CLI turns into exit statuses."""

from __future__ import annotations

from typing import Any


class AskcliError(Exception):
    """Base of every error askcli raises on purpose."""


class UsageError(AskcliError):
    """The command line or an option is wrong (exit status 2)."""


class OutputFailed(AskcliError):
    """stdout refused what askcli wrote (a full disk, ``/dev/full``, an I/O error);
    ``errno`` is the error's number (``errno.EIO``: a terminal that went away)."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


class BadFixture(AskcliError, ValueError):
    """A file that is not a fixture ``askcli replay`` can run; the message says why."""


class InvalidCall(AskcliError):
    """A tool call that fails its schema; ``issues`` are zod-style issue dicts."""

    def __init__(self, tool: str, issues: list[dict[str, Any]]) -> None:
        self.tool = tool
        self.issues = issues
        super().__init__(f"invalid {tool} call")


class UnreadableDocument(AskcliError):
    """Text that is not a JSON object where a call was expected."""


class AnswerTimeout(AskcliError):
    """No answer line arrived within the ``--timeout``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no reply within {seconds:g} seconds")


class InboxError(AskcliError):
    """The inbox's queue file cannot be used (not a regular file, corrupt, busy)."""


class InboxRefused(InboxError):
    """The inbox file is not one askcli may use: another user's, writable by others, not
    an askcli inbox, or a URL; it is left as it is."""


class InboxBusy(InboxError):
    """The inbox stayed locked by another process for longer than askcli waits."""


class QuestionDeferred(AskcliError):
    """Nobody answered within the deferral's time: the question stays in the inbox,
    deferred (``question_id``), for the asker that comes back for it."""

    def __init__(self, question_id: int) -> None:
        super().__init__(f"question {question_id} is deferred")
        self.question_id = question_id


class Withdrawn(AskcliError):
    """The asker took its question back while the person was answering (Claude Code's
    ``control_cancel_request``); nothing is sent for it."""


class LineTooLong(AskcliError):
    """An answer line longer than the limit; it was read to its end and dropped."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"that line is too long ({size} characters; the limit is {limit})")


class Refused(AskcliError):
    """An answer or action that does not fit the current state; the message says why."""
