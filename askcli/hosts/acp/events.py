"""What passes between an ACP session and its link: the agent's messages as
:class:`Event` s, the :class:`Link` they come through (the agent, a recorder of it, or a
recorded session), and how the session ended."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, NamedTuple, Protocol


class EventKind(Enum):
    """What the agent sent: a session update, a permission request, an elicitation, a
    request askcli does not serve, or a line saying what askcli did for the agent."""

    UPDATE = "update"
    PERMISSION = "permission"
    ELICITATION = "elicitation"
    REFUSED = "refused"
    SHOWN = "shown"


class Event(NamedTuple):
    """What the agent sent: ``kind`` is an update, a permission request, an elicitation,
    ``REFUSED`` (a request askcli does not serve) or ``SHOWN`` (a line saying what askcli did
    for the agent: a file read or written, a terminal's command, output and exit); ``answer``
    takes the reply of a request, ``id`` numbers the requests (1, 2, ...) in the order they
    came."""

    kind: EventKind
    params: dict[str, Any]
    answer: Callable[[dict[str, Any]], None] | None = None
    id: int | None = None


METHODS = {
    EventKind.UPDATE: "session/update",
    EventKind.PERMISSION: "session/request_permission",
    EventKind.ELICITATION: "elicitation/create",
}
KINDS = {method: kind for kind, method in METHODS.items()}


class PendingReply(Protocol):
    """The result of one of askcli's requests, once the agent has answered it."""

    def done(self) -> bool: ...

    def result(self) -> Any: ...


class Events(Protocol):
    """What the agent sends, one :class:`Event` at a time (queue.Empty when none came)."""

    def get(self, *, timeout: float | None = None) -> Event: ...

    def get_nowait(self) -> Event: ...


class Link(Protocol):
    """The connection to the agent a session holds."""

    @property
    def events(self) -> Events: ...

    def call(self, method: str, params: dict[str, Any]) -> PendingReply:
        """Send ``method`` with ``params`` (JSON); its reply, when it comes."""

    def gone(self) -> bool:
        """The agent has ended and the connection with it."""

    def elapsed(self, began: float) -> float:
        """Seconds since ``began`` (time.monotonic), for a turn's line."""

    def close(self, *, at_once: bool = False) -> int | None:
        """End the agent; its exit status (negative: the signal), None when askcli had to
        kill it."""


def wire_answer(kind: EventKind, value: dict[str, Any]) -> dict[str, Any]:
    """An answer to the agent's request as it goes on the wire."""
    if kind is not EventKind.PERMISSION:
        return value
    if "optionId" in value:
        return {"outcome": {"outcome": "selected", "optionId": value["optionId"]}}
    return {"outcome": {"outcome": "cancelled"}}
