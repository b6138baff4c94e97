"""``askcli replay``: a recorded session's agent in place of the process (:class:`ScriptedAgent`;
the recorded lists are described in :mod:`.recording`)."""

from __future__ import annotations

import queue
from collections.abc import Callable, Sequence
from typing import Any

from ..child import as_dict, as_text
from .events import KINDS, Event, EventKind, wire_answer


class ReplayedError(Exception):
    """A request that failed when the session was recorded."""

    def __init__(self, shown: str) -> None:
        super().__init__(shown)
        self.shown = shown


class _Done:
    def __init__(self) -> None:
        self.entry: dict[str, Any] | None = None

    def done(self) -> bool:
        return self.entry is not None

    def result(self) -> Any:
        entry = self.entry or {}
        if "error" in entry:
            text = as_text(entry.get("error"), "?")
            raise ConnectionError(text) if entry.get("ended") else ReplayedError(text)
        return entry.get("result")


class _ScriptQueue:
    def __init__(self, scripted: ScriptedAgent) -> None:
        self.scripted = scripted

    def get(self, timeout: float | None = None) -> Event:
        return self.scripted.next_event()

    def get_nowait(self) -> Event:
        return self.scripted.next_event()


class ScriptedAgent:
    """A recorded session's agent in place of the process (``askcli replay``)."""

    def __init__(
        self,
        received: Sequence[Any],
        status: int | None = 0,
        on_stderr: Callable[[str, int], None] | None = None,
    ) -> None:
        self.lines = [as_dict(entry) for entry in received]
        self.status = status
        self.on_stderr = on_stderr
        self.sent: list[dict[str, Any]] = []
        self.pending: dict[str, list[_Done]] = {}
        self.calls = 0  # requests sent and not yet reached in the script
        self.seconds = 0.0
        self.events = _ScriptQueue(self)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.sent.append({"request": method, "params": params})
        self.calls += 1
        future = _Done()
        if method == "session/cancel":
            future.entry = {"result": None}
        else:
            self.pending.setdefault(method, []).append(future)
        return future

    def next_event(self) -> Event:
        """The next recorded message, up to the next request askcli has not sent yet;
        queue.Empty in place of a request's result (its future is then done)."""
        while self.lines:
            entry = self.lines[0]
            if "sent" in entry:
                if self.calls == 0:
                    break
                self.calls -= 1
                self.lines.pop(0)
                continue
            if "reply" in entry:
                waiting = self.pending.get(as_text(entry.get("reply")))
                if not waiting:
                    break
                self.lines.pop(0)
                future = waiting.pop(0)
                future.entry = entry
                if isinstance(entry.get("seconds"), int | float):
                    self.seconds = float(entry["seconds"])
                break
            self.lines.pop(0)
            if "interrupt" in entry:
                raise KeyboardInterrupt
            if "stderr" in entry:
                if self.on_stderr is not None:
                    more = entry.get("more")
                    self.on_stderr(
                        as_text(entry.get("stderr")), more if isinstance(more, int) else 0
                    )
                continue
            if "refused" in entry:
                return Event(EventKind.REFUSED, {"method": as_text(entry.get("refused"), "?")})
            if "shown" in entry:
                return Event(EventKind.SHOWN, {"text": as_text(entry.get("shown"))})
            method = as_text(entry.get("notification") or entry.get("request"))
            kind = KINDS.get(method)
            if kind is None:
                continue
            params = as_dict(entry.get("params"))
            if kind is EventKind.UPDATE:
                return Event(kind, params)
            number = entry.get("id") if isinstance(entry.get("id"), int) else None

            def answer(
                value: dict[str, Any], number: int | None = number, kind: EventKind = kind
            ) -> None:
                self.sent.append({"id": number, "result": wire_answer(kind, value)})

            return Event(kind, params, answer, number)
        raise queue.Empty

    def gone(self) -> bool:
        """Asked when nothing came and the request waited for is not done: the script has
        nothing more for it (it ends, or what follows waits on another request), as when
        the agent ended."""
        return True

    def elapsed(self, began: float) -> float:
        return self.seconds

    def close(self, *, at_once: bool = False) -> int | None:
        return self.status
