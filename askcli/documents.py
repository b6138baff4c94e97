"""Split a source into JSON documents, one at a time, without reading ahead.

A source holds JSON objects one per line or pretty-printed over several lines, possibly
with answer lines between them. Documents are found by counting braces outside strings,
so a document ends at its closing ``}`` and the next line is left unread for whoever
wants it (the answers of the call just read, when calls and answers share stdin).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .lines import LineReader

_TOKEN = re.compile(r'[{}"]')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*(")?')
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True)
class Document:
    """One JSON object from the source, or why the text there is not one (``text`` is
    what was read for it)."""

    value: dict[str, Any] | None
    error: str | None = None
    text: str = ""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_object(text: str) -> Document:
    """Parse one document's text; JSON that is not an object is an error."""
    if _NOT_UTF8.search(text):
        return Document(None, "the input is not valid UTF-8", text)
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return Document(None, "the JSON is nested too deeply", text)
    except ValueError as exc:
        return Document(None, f"the input is not valid JSON: {exc}", text)
    if not isinstance(value, dict):
        return Document(None, "the input is not a JSON object", text)
    return Document(value, text=text)


class _Scanner:
    """Tracks brace depth across lines, outside JSON strings."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False

    def feed(self, line: str, pos: int = 0) -> int | None:
        """Scan ``line`` from ``pos``; the index just past the closing brace, if reached."""
        while True:
            if self.in_string:
                match = _STRING_REST.match(line, pos)
                assert match is not None
                if match.group(1) is None:
                    return None
                pos = match.end()
                self.in_string = False
                continue
            token = _TOKEN.search(line, pos)
            if token is None:
                return None
            pos = token.end()
            char = token.group()
            if char == '"':
                self.in_string = True
            elif char == "{":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth == 0:
                    return pos


def read_documents(
    reader: LineReader, notice: Callable[[str], None] = lambda _: None
) -> Iterator[Document]:
    """Yield the documents of ``reader`` one by one, reading only as far as each one.

    Before the first document, text that is not a JSON object is yielded as an error.
    After a document, lines that do not begin one are skipped with one ``notice`` per run.
    """
    started = False
    skipping = False
    while True:
        line = reader.readline()
        if line is None:
            return
        stripped = line.lstrip()
        if not stripped:
            continue
        if not stripped.startswith("{"):
            if not started:
                started = skipping = True
                shown = stripped if len(stripped) <= 40 else stripped[:40] + "..."
                yield Document(None, f"the input is not a JSON object: {shown!r}", line)
            elif not skipping:
                skipping = True
                notice("skipping lines that do not begin a JSON call")
            continue
        started, skipping = True, False
        yield _read_one(reader, line, len(line) - len(stripped))


def _read_one(reader: LineReader, line: str, start: int) -> Document:
    scanner = _Scanner()
    parts: list[str] = []
    pos = start
    while True:
        end = scanner.feed(line, pos)
        if end is not None:
            parts.append(line[pos:end])
            rest = line[end:]
            if rest.strip():
                reader.unread(rest)
            return parse_object("\n".join(parts))
        parts.append(line[pos:])
        next_line = reader.readline()
        if next_line is None:
            return Document(None, "the input ended inside a JSON document", "\n".join(parts))
        line, pos = next_line, 0
