"""The AskUserQuestion calls the tests build, and a call answered in process up to a stop."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from typing import Any

from askcli.errors import AnswerTimeout
from askcli.lines import TextLineReader

from tests.support.paths import EXAMPLES


def option(label: str, description: str = "", **extra: Any) -> dict[str, Any]:
    return {"label": label, "description": description, **extra}


# the question the inbox, hook and MCP tests ask ({"questions": [COLOR]} is the input)
COLOR = {
    "question": "Which color?",
    "header": "Color",
    "multiSelect": False,
    "options": [option("Red", "warm"), option("Blue", "cool")],
}


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


def ask_stopped(document: dict[str, Any], lines: str, exc: BaseException) -> tuple[Any, str]:
    """Answer ``document`` (a copy) with ``lines`` typed, then ``exc`` where the next line
    would be read: (the Reply, what the person saw)."""
    from askcli.errors import AnswerTimeout
    from askcli.runners.session import answer_document
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.options import RunOptions
    from askcli.terminal.rendering import Style
    from askcli.wire.documents import Document

    err = io.StringIO()
    conv = Conversation(
        reader=Stopping(lines, exc),
        out=err,
        style=Style(width=80, colour=False),
        options=RunOptions(timeout=5 if isinstance(exc, AnswerTimeout) else None),
    )
    return answer_document(Document(copy.deepcopy(document)), conv), err.getvalue()


class Scripted:
    """A reader that types ``lines`` and then does ``then``: end, time out or Ctrl-C."""

    interactive = False

    def __init__(self, lines: list[str], then: str) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.then = then
        self.pushed: list[str] = []

    def unread(self, text: str) -> None:
        self.pushed.append(text)

    def discard_typed_ahead(self, *, keep_calls: bool = False) -> bool:
        return False  # each line is typed when its prompt is on screen

    def readline(self, timeout: float | None = None) -> str | None:
        if self.pushed:
            return self.pushed.pop()
        line = next(self.lines, None)
        if line is not None:
            return line
        if self.then == "timeout":
            raise AnswerTimeout(timeout or 1)
        if self.then == "interrupt":
            raise KeyboardInterrupt
        return None
