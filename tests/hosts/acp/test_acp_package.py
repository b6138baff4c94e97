"""askcli.hosts.acp as a package: the agent's messages come as EventKind members whose values
stay the names recorded fixtures and the wire use, through any Link (a replayed one here)."""

from __future__ import annotations

from askcli.hosts.acp import EventKind, Link, ScriptedAgent
from askcli.hosts.acp.events import KINDS, METHODS, Event, wire_answer
from askcli.hosts.acp.recording import AcpRecorder

from tests.support.paths import ROOT

PACKAGE = ROOT / "askcli" / "hosts" / "acp"


def test_event_kinds_keep_their_names() -> None:
    assert {kind.value for kind in EventKind} == {
        "update",
        "permission",
        "elicitation",
        "refused",
        "shown",
    }
    assert METHODS == {
        EventKind.UPDATE: "session/update",
        EventKind.PERMISSION: "session/request_permission",
        EventKind.ELICITATION: "elicitation/create",
    }
    assert KINDS["session/request_permission"] is EventKind.PERMISSION


def test_a_replayed_agent_sends_event_kinds_and_answers_as_on_the_wire() -> None:
    received = [
        {"notification": "session/update", "params": {"update": {}}},
        {"shown": "  -> read a.txt (1 line)"},
        {"request": "session/request_permission", "id": 1, "params": {"options": []}},
    ]
    link: Link = ScriptedAgent(received)
    events = [link.events.get_nowait() for _ in received]
    assert [e.kind for e in events] == [EventKind.UPDATE, EventKind.SHOWN, EventKind.PERMISSION]
    assert events[2].answer is not None
    events[2].answer({"optionId": "allow"})
    assert isinstance(link, ScriptedAgent)
    assert link.sent == [
        {"id": 1, "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}
    ]
    assert wire_answer(EventKind.ELICITATION, {"action": "cancel"}) == {"action": "cancel"}


def test_a_recorder_keeps_events_in_the_fixture_format() -> None:
    class Queue:
        def __init__(self, events: list[Event]) -> None:
            self.events = events

        def get(self, timeout: float | None = None) -> Event:
            return self.events.pop(0)

        def get_nowait(self) -> Event:
            return self.events.pop(0)

    class Inner:
        events = Queue(
            [
                Event(EventKind.REFUSED, {"method": "fs/read_text_file"}),
                Event(EventKind.ELICITATION, {"message": "?"}, lambda _v: None, 2),
            ]
        )

    recorder = AcpRecorder().attach(Inner())
    recorder.events.get_nowait()
    asked = recorder.events.get_nowait()
    assert asked.answer is not None
    asked.answer({"action": "decline"})
    assert recorder.received == [
        {"refused": "fs/read_text_file"},
        {"request": "elicitation/create", "id": 2, "params": {"message": "?"}},
    ]
    assert recorder.sent == [{"id": 2, "result": {"action": "decline"}}]


def test_every_module_of_the_package_is_small() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py")}
    assert sizes and max(sizes.values()) < 500, sizes
