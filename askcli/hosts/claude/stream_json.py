"""Claude Code's stream-json lines as askcli reads them, and the link they come over."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from ...wire.documents import TooDeep, parse_json

MAX_DEPTH = 200  # a line nesting deeper is skipped


class Skipped(NamedTuple):
    """A line from Claude Code that askcli cannot use; ``reason`` says why."""

    reason: str


class StreamLink(Protocol):
    """The stream-json connection to Claude Code."""

    def send(self, message: dict[str, Any]) -> None: ...

    def receive(self) -> Any:
        """The next line: a JSON object, text that is not JSON, a :class:`Skipped`, or None
        when it ended (recorded lines may be any JSON value)."""

    def close(self, *, at_once: bool = False) -> int | None:
        """End Claude Code (if it still runs), at once or after a grace period for it to end
        by itself; its own exit status, or None when askcli had to end it."""


def parse_line(data: bytes) -> dict[str, Any] | str | Skipped:
    """One line from Claude Code: a JSON object, text that is not JSON, or why it is
    skipped (JSON that is not an object, or nests deeper than :data:`MAX_DEPTH`)."""
    text = data.decode("utf-8", "replace").rstrip("\r\n")
    if not text.lstrip().startswith(("{", "[")):
        return text
    try:
        value = parse_json(text, MAX_DEPTH)
    except TooDeep:
        return Skipped(f"it nests deeper than {MAX_DEPTH} levels")
    except ValueError:
        return text
    if not isinstance(value, dict):
        return Skipped("it is JSON but not an object")
    return value
