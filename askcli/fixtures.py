"""Recorded sessions: a fixture holds calls, answer lines and what askcli printed.

Format ``askcli-fixture/1``, one JSON object per file::

    {
      "format": "askcli-fixture/1",
      "description": "what the session shows",
      "columns": 80,
      "calls": [ {...call...} or "raw text", ... ],
      "answers": ["2", "", ...],
      "stdout": ["{...reply line...}", ...],
      "stderr": "the whole conversation, as printed",
      "status": 0
    }

Calls are fed as a source (an object as one JSON line, a string as it is) and the answers
as a separate stream, with colour off and ``columns`` as the width.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .envelopes import json_line
from .lines import TextLineReader
from .rendering import Style
from .repl import Conversation
from .session import run

FORMAT = "askcli-fixture/1"


@dataclass(frozen=True)
class Outcome:
    stdout: list[str]
    stderr: str
    status: int


def source_text(calls: Sequence[Any]) -> str:
    return "".join((c if isinstance(c, str) else json_line(c)) + "\n" for c in calls)


def play(calls: Sequence[Any], answers: Sequence[str], *, columns: int = 80) -> Outcome:
    """Run ``calls`` with ``answers`` typed, in process, and collect what was printed."""
    out, err = io.StringIO(), io.StringIO()
    conv = Conversation(
        reader=TextLineReader(io.StringIO("".join(a + "\n" for a in answers))),
        out=err,
        style=Style(width=columns, colour=False),
    )
    status = run(TextLineReader(io.StringIO(source_text(calls))), conv, out)
    return Outcome(out.getvalue().splitlines(), err.getvalue(), int(status))


def make(
    calls: Sequence[Any], answers: Sequence[str], *, description: str = "", columns: int = 80
) -> dict[str, Any]:
    """A fixture recording what askcli prints for ``calls`` and ``answers`` now."""
    outcome = play(calls, answers, columns=columns)
    return {
        "format": FORMAT,
        "description": description,
        "columns": columns,
        "calls": list(calls),
        "answers": list(answers),
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "status": outcome.status,
    }


def load(path: Path) -> dict[str, Any]:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(fixture, dict) or fixture.get("format") != FORMAT:
        raise ValueError(f"{path}: not an {FORMAT} fixture")
    return fixture


def replay(fixture: dict[str, Any]) -> tuple[Outcome, Outcome]:
    """(expected, actual) for one fixture."""
    expected = Outcome(fixture["stdout"], fixture["stderr"], fixture["status"])
    actual = play(fixture["calls"], fixture["answers"], columns=fixture.get("columns", 80))
    return expected, actual
