"""Links that record a session (``--record``) or replay a recorded one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .stream_json import Skipped, StreamLink


class ClaudeRecorder:
    """A link that keeps what passed through it, for ``askcli claude --record``."""

    def __init__(self, link: StreamLink) -> None:
        self.link = link
        self.received: list[Any] = []
        self.sent: list[dict[str, Any]] = []
        self.exit_status: int | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self.link.send(message)

    def receive(self) -> Any:
        line = self.link.receive()
        if line is not None:
            self.received.append(f"({line.reason})" if isinstance(line, Skipped) else line)
        return line

    def close(self, *, at_once: bool = False) -> int | None:
        self.exit_status = self.link.close(at_once=at_once)
        return self.exit_status


class ScriptedClaude:
    """Recorded Claude Code lines in place of the process (``askcli replay``)."""

    def __init__(self, lines: Sequence[Any], status: int | None = 0) -> None:
        self.lines = list(lines)
        self.sent: list[dict[str, Any]] = []
        self.status = status

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def receive(self) -> Any:
        return self.lines.pop(0) if self.lines else None

    def close(self, *, at_once: bool = False) -> int | None:
        return self.status
