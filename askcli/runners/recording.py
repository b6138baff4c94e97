"""``askcli record``: a live session on a source of calls, saved as a fixture."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..status import ExitStatus
from ..wire.documents import Document
from ..wire.envelopes import Output
from ..wire.wording.base import Wording
from .recording_files import save_fixture, writable_fixture
from .recordings import make, typed_lines
from .session import run
from .streams import Streams, Tee


def record_command(
    *,
    source: str,
    fixture_path: Path,
    answers_path: str,
    output: Output,
    session: str | None,
    wording: Wording,
    description: str,
    columns: int,
) -> Callable[[], int]:
    """The session's work, ready to run under askcli's signal handling; UsageError for a
    fixture path or a source that cannot be used."""
    writable_fixture(fixture_path)
    streams = Streams(source, answers_path)
    typed = bytearray()
    calls: list[Any] = []

    def keep(document: Document) -> None:
        calls.append(document.value if document.value is not None else document.text)

    if streams.shared:
        streams.calls.transcript = typed
    else:
        streams.answers.transcript = typed
    out = Tee(streams.out)

    def work() -> int:
        with tempfile.TemporaryDirectory(prefix="askcli-record-") as scratch:
            status = run(
                streams.calls,
                streams.conversation(
                    state=Path(scratch) / "todos.json", session=session, wording=wording
                ),
                out,
                output=output,
                on_document=None if streams.shared else keep,
            )
        if status is ExitStatus.INTERRUPTED:
            streams.say("askcli: interrupted; no fixture written\n")
            return int(status)
        lines = typed_lines(typed)
        shape: dict[str, Any] = (
            {"stdin": lines} if streams.shared else {"calls": calls, "answers": lines}
        )
        fixture = make(
            **shape,
            description=description,
            columns=columns,
            output=output,
            session=session,
            wording=wording,
        )
        if fixture["stdout"] != out.getvalue().splitlines() or fixture["status"] != status:
            streams.say("askcli: warning: replaying this session does not give what it printed\n")
        if not save_fixture(fixture_path, fixture, streams.say):
            return ExitStatus.OUTPUT_FAILED
        return int(status)

    return work
