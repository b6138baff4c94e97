"""Shared builders for the tests."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from askcli.lines import TextLineReader

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def option(label: str, description: str = "", **extra: Any) -> dict[str, Any]:
    return {"label": label, "description": description, **extra}


def question(
    text: str = "Which one?",
    header: str = "Pick",
    labels: tuple[str, ...] = ("A", "B"),
    multi: bool | None = False,
    **extra: Any,
) -> dict[str, Any]:
    q: dict[str, Any] = {
        "question": text,
        "header": header,
        "options": [option(label, f"about {label}") for label in labels],
        **extra,
    }
    if multi is not None:
        q["multiSelect"] = multi
    return q


def call(*questions: dict[str, Any], id: str = "toolu_test", **extra: Any) -> dict[str, Any]:
    """A tool_use block for AskUserQuestion."""
    return {
        "type": "tool_use",
        "id": id,
        "name": "AskUserQuestion",
        "input": {"questions": list(questions) or [question()], **extra},
    }


def example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text())


def deep(value: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(value)


def run_askcli(
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 20,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """The installed askcli with text pipes, colour off; it must never print a traceback."""
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80", **(env or {})},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def askcli_path() -> Path:
    """The installed ``askcli`` script next to the running interpreter."""
    import sys

    path = Path(sys.executable).with_name("askcli")
    if not path.exists():
        raise RuntimeError(f"askcli is not installed next to {sys.executable}; run make test")
    return path


class Stopping(TextLineReader):
    """Lines from a string, then ``exc`` raised where the next line would be read (a
    timeout, Ctrl-C, or a signal's KeyboardInterrupt)."""

    def __init__(self, text: str, exc: BaseException) -> None:
        super().__init__(io.StringIO(text), interactive=False)
        self.exc = exc

    def _more(self, timeout: float | None) -> bytes:
        data = super()._more(timeout)
        if not data:
            raise self.exc
        return data
