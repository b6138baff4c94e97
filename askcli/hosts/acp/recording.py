"""``askcli acp --record``: a link that keeps what passed through it (:class:`AcpRecorder`).

A recorded session is two lists. ``received`` is what askcli took from the agent, in the
order the session handled it: ``{"notification": "session/update", "params": ...}``,
``{"request": METHOD, "id": N, "params": ...}``, ``{"refused": METHOD}``, ``{"shown":
TEXT}`` (what askcli did for the agent with --fs or --terminal), ``{"interrupt": true}``
(Ctrl-C while waiting on the agent; one at a question is the answer line "\\x03"), the result
of each of askcli's requests as it was taken (``{"reply": METHOD, "result": ...}`` or
``{"reply": METHOD, "error": TEXT, "ended": BOOL}``, a turn's with its ``seconds``), the
agent's stderr lines (``{"stderr": TEXT, "more": N}``) and, where askcli sent a request,
``{"sent": METHOD}``: nothing after it is handed out before askcli sends it again. ``sent``
is what askcli sent: ``{"request": METHOD, "params": ...}`` and the answers to the agent's
requests, ``{"id": N, "result": ...}``.

:mod:`.scripted` plays such a session back (``askcli replay``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .events import METHODS, Event, EventKind, wire_answer
from .failures import failure


def _event_entry(event: Event) -> dict[str, Any]:
    if event.kind is EventKind.SHOWN:
        return {"shown": event.params.get("text", "")}
    if event.kind is EventKind.REFUSED:
        return {"refused": event.params.get("method", "?")}
    if event.kind is EventKind.UPDATE:
        return {"notification": METHODS[EventKind.UPDATE], "params": event.params}
    return {"request": METHODS[event.kind], "id": event.id, "params": event.params}


class _RecordingQueue:
    def __init__(self, recorder: AcpRecorder) -> None:
        self.recorder = recorder

    def _kept(self, event: Event) -> Event:
        rec = self.recorder
        with rec.lock:
            rec.received.append(_event_entry(event))
        answer = event.answer
        if answer is None:
            return event

        def answered(value: dict[str, Any], answer: Any = answer) -> None:
            rec.sent.append({"id": event.id, "result": wire_answer(event.kind, value)})
            answer(value)

        return event._replace(answer=answered)

    def get(self, timeout: float | None = None) -> Event:
        return self._kept(self.recorder.link.events.get(timeout=timeout))

    def get_nowait(self) -> Event:
        return self._kept(self.recorder.link.events.get_nowait())


class _RecordedFuture:
    """A request's future whose result is recorded when the session takes it."""

    def __init__(self, recorder: AcpRecorder, method: str, future: Any) -> None:
        self.recorder, self.method, self.future = recorder, method, future

    def done(self) -> bool:
        return bool(self.future.done())

    def result(self) -> Any:
        entry: dict[str, Any] = {"reply": self.method}
        try:
            value = self.future.result()
        except Exception as exc:
            entry.update(error=failure(exc), ended=isinstance(exc, ConnectionError))
            with self.recorder.lock:
                self.recorder.received.append(entry)
            raise
        entry["result"] = value
        with self.recorder.lock:
            self.recorder.received.append(entry)
        if self.method == "session/prompt":
            self.recorder.last_turn = entry
        return value


class AcpRecorder:
    """A link that keeps what passed through it, for ``askcli acp --record``.

    Make it first, give :meth:`stderr` to the :class:`AgentLink` as its ``on_stderr``, then
    :meth:`attach` the link."""

    def __init__(self) -> None:
        self.link: Any = None
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.exit_status: int | None = None
        self.lock = threading.Lock()
        self.events = _RecordingQueue(self)
        self.last_turn: dict[str, Any] | None = None

    def attach(self, link: Any) -> AcpRecorder:
        self.link = link
        return self

    def stderr(self, shown: Callable[[str, int], None]) -> Callable[[str, int], None]:
        def kept(text: str, more: int) -> None:
            with self.lock:
                self.received.append({"stderr": text, "more": more})
                shown(text, more)

        return kept

    def call(self, method: str, params: dict[str, Any]) -> Any:
        with self.lock:
            self.sent.append({"request": method, "params": params})
            self.received.append({"sent": method})
        return _RecordedFuture(self, method, self.link.call(method, params))

    def interrupt(self) -> None:
        """Ctrl-C came while the session waited on the agent."""
        with self.lock:
            self.received.append({"interrupt": True})

    def gone(self) -> bool:
        return bool(self.link.gone())

    def elapsed(self, began: float) -> float:
        seconds = float(self.link.elapsed(began))
        if self.last_turn is not None:
            self.last_turn["seconds"] = round(seconds, 3)
        return seconds

    def close(self, *, at_once: bool = False) -> int | None:
        self.exit_status = self.link.close(at_once=at_once)
        return self.exit_status
