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
from typing import Any, NamedTuple

from ..lines import LineReader
from ..schema.names import ASK_USER_QUESTION, TODO_WRITE

MAX_DOCUMENT_BYTES = 1024 * 1024  # a call (one JSON document) may not be larger
MAX_DEPTH = 64  # nor nest objects and arrays deeper

_TOKEN = re.compile(r'[{}\[\]"]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*(")?')  # the rest of a string
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


class Document(NamedTuple):
    """One JSON object from the source, or why the text there is not one (``text`` is
    what was read for it, cut to a bounded size)."""

    value: dict[str, Any] | None
    error: str | None = None
    text: str = ""
    size: int = -1  # characters of JSON read for it; -1 when unknown
    report: str | None = None  # the error for the person, with where it is in the source
    # where in its own text the error is, for the report: line, column, predicate
    error_at: tuple[int, int, str] | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def finite_float(text: str) -> float:
    """A JSON number as a float; ValueError for one too large for a float (``1e400``),
    which would come back out as ``Infinity``, not JSON."""
    value = float(text)
    if value in (_INF, -_INF):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"the number {shown} is too large")
    return value


_INF = float("inf")
BOM = "\ufeff"


def nesting_depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests objects and arrays, counted up to ``limit + 1``: level by
    level, so that many small items cost one type check each."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level and depth <= limit:
        depth += 1
        below: list[Any] = []
        for node in level:
            items = node.values() if isinstance(node, dict) else node
            below += [item for item in items if isinstance(item, dict | list)]
        level = below
    return depth


TOO_BIG = f"is larger than {MAX_DOCUMENT_BYTES} bytes, the limit"
TOO_DEEP = f"nests deeper than {MAX_DEPTH} levels, the limit"


class TooDeep(ValueError):
    """JSON that nests objects and arrays deeper than a limit."""


class NotJSON(ValueError):
    """Text that is not JSON; ``reason``, ``line`` and ``column`` say where, as the
    decoder found it (line 1 is the text's first)."""

    def __init__(self, message: str, reason: str, line: int, column: int) -> None:
        super().__init__(message)
        self.reason, self.line, self.column = reason, line, column


def parse_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for untrusted text (a call, a state file, a fixture, a line from
    Claude Code), so that what askcli writes back is JSON too: ValueError for text that is
    not JSON, ``NaN``/``Infinity``, a number too large for a float, and TooDeep for nesting
    deeper than ``max_depth``; the message is a predicate (``is not valid JSON: ...``) for
    the caller to give a subject."""
    too_deep = f"nests deeper than {max_depth} levels, the limit"
    try:
        value = json.loads(text, parse_float=finite_float, parse_constant=_reject_constant)
    except RecursionError:  # far too deep for the parser itself
        raise TooDeep(too_deep) from None
    except json.JSONDecodeError as exc:
        raise NotJSON(f"is not valid JSON: {exc}", exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise ValueError(f"is not valid JSON: {exc}") from None
    # each level needs an opening bracket: text with few of them needs no walk
    if (
        text.count("{") + text.count("[") > max_depth
        and nesting_depth(value, max_depth) > max_depth
    ):
        raise TooDeep(too_deep)
    return value


def loads_limited(text: str) -> Any:
    """:func:`parse_json` within a call's limits: ValueError for text too large, too deep,
    not UTF-8 or not JSON."""
    if len(text) > MAX_DOCUMENT_BYTES:
        raise ValueError(TOO_BIG)
    if _NOT_UTF8.search(text):
        raise ValueError("is not valid UTF-8")
    if text.startswith(BOM):  # a byte-order mark is not part of the document
        text = text[1:]
    return parse_json(text)


def parse_object(text: str) -> Document:
    """Parse one document's text; JSON that is not an object is an error."""
    shown = text[:200]
    try:
        value = loads_limited(text)
    except NotJSON as exc:
        at = (exc.line, exc.column, f"is not valid JSON: {exc.reason}")
        return Document(None, f"the input {exc}", shown, error_at=at)
    except ValueError as exc:
        bad = _NOT_UTF8.search(text)
        if bad is not None and str(exc) == "is not valid UTF-8":
            line = text.count("\n", 0, bad.start()) + 1
            at = (line, bad.start() - text.rfind("\n", 0, bad.start()), str(exc))
            return Document(None, f"the input {exc}", shown, error_at=at)
        return Document(None, f"the input {exc}", shown)
    if not isinstance(value, dict):
        return Document(None, _not_an_object(value), shown)
    return Document(value, text=shown, size=len(text))


def _not_an_object(value: Any) -> str:
    """Why a JSON value that is not an object is no call; for the questions or todos
    without their object, how to wrap them."""
    hint = wrap_hint(value)
    return "the input is not a JSON object" if hint is None else f"the input is {hint}"


class _Scanner:
    """Tracks, outside JSON strings, the brace depth (where a document ends) and the
    deepest nesting of objects and arrays."""

    def __init__(self, *, array: bool = False) -> None:
        self.array = array  # the document is an array: it ends with its closing bracket
        self.braces = 0
        self.depth = 0
        self.deepest = 0
        self.in_string = False
        self.escaped = False  # a piece ended on a backslash inside a string

    def feed(self, text: str, pos: int = 0) -> int | None:
        """Scan ``text`` from ``pos``; the index just past the closing brace, if reached."""
        if self.escaped and pos < len(text):
            pos += 1  # the character the backslash at the end of the last piece escapes
            self.escaped = False
        while True:
            if self.in_string:
                match = _STRING_REST.match(text, pos)
                assert match is not None
                if match.group(1) is None:
                    self.escaped = match.end() < len(text)  # only a lone backslash is left
                    return None
                pos = match.end()
                self.in_string = False
                continue
            token = _TOKEN.search(text, pos)
            if token is None:
                return None
            pos = token.end()
            char = token.group()
            if char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
                self.deepest = max(self.deepest, self.depth)
                if char == "{":
                    self.braces += 1
            else:
                self.depth -= 1
                if self.array:
                    if self.depth == 0:
                        return pos
                elif char == "}":
                    self.braces -= 1
                    if self.braces == 0:
                        return pos


def _report(document: Document, name: str | None, seq: int, line: int, column: int) -> Document:
    """``document`` with its error for the person: where (document ``seq`` of ``name``), the
    source's line and, for an error the decoder placed, its column (``column``: where the
    document began)."""
    if document.value is not None or document.error is None:
        return document
    where = _where(name, seq)
    if document.error_at is None:
        return document._replace(report=f"{where}, line {line}: {document.error}")
    at_line, at_column, predicate = document.error_at
    if at_line == 1:
        at_column += column
    report = f"{where}, line {line + at_line - 1}: the input {predicate} (column {at_column})"
    return document._replace(report=report)


def _skip_line(reader: LineReader) -> None:
    """Read the rest of a line that is not wanted, in bounded pieces."""
    while True:
        piece = reader.read_piece()
        if piece is None or piece[1]:
            return


def read_documents(
    reader: LineReader,
    notice: Callable[[str], None] = lambda _: None,
    *,
    name: str | None = None,
) -> Iterator[Document]:
    """Yield the documents of ``reader`` one by one, reading only as far as each one.

    Before the first document, text that is not a JSON object is yielded as an error.
    After a document, lines that do not begin one are skipped with one ``notice`` per run.
    A document in error has its ``report``: ``NAME: document 3, line 12: ...``, the line
    counted in the source (the answers' lines too, when they share it).
    """
    started = False
    skipping = False
    seq = 0
    while True:
        line = reader.line
        piece = reader.read_piece()
        if piece is None:
            return
        text, ended = piece
        stripped = text.lstrip()
        if stripped.startswith(BOM):  # at the start of a file, of stdin or of a line
            stripped = stripped[1:].lstrip()
        if not stripped:
            continue
        if stripped.startswith("[") and not started:  # the questions without their object?
            started = skipping = True
            seq += 1
            pos = len(text) - len(stripped)
            document = _read_one(reader, text, pos, ended, array=True)
            yield _report(document, name, seq, line, pos)
            continue
        if not stripped.startswith("{"):
            if not ended:
                _skip_line(reader)
            if not started:
                started = skipping = True
                seq += 1
                shown = stripped if len(stripped) <= 40 else stripped[:40] + "..."
                error = Document(None, f"the input is not a JSON object: {shown!r}", text[:200])
                yield _report(error, name, seq, line, 0)
            elif not skipping:
                skipping = True
                notice("skipping lines that do not begin a JSON call")
            continue
        started, skipping = True, False
        seq += 1
        pos = len(text) - len(stripped)
        document = _read_one(reader, text, pos, ended)
        yield _report(document, name, seq, line, pos)


def _where(name: str | None, seq: int) -> str:
    return f"document {seq}" if name is None else f"{name}: document {seq}"


_DECODER = json.JSONDecoder(parse_float=finite_float, parse_constant=_reject_constant)


def _nested_too_deep(value: Any, text: str, start: int, end: int) -> bool:
    """``value``, parsed from ``text[start:end]``, nests objects and arrays deeper than
    :data:`MAX_DEPTH`. Each level needs an opening bracket, so text with few of them
    (every usual call) needs no walk."""
    if text.count("{", start, end) + text.count("[", start, end) <= MAX_DEPTH:
        return False
    return nesting_depth(value, MAX_DEPTH) > MAX_DEPTH


def _one_line(reader: LineReader, text: str, pos: int) -> Document | None:
    """The common case, a whole document on one line, parsed at C speed; None when the
    line does not hold one (it spans lines, or is broken: the scanner will say)."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except (ValueError, RecursionError):
        return None
    if not text.isascii() and _NOT_UTF8.search(text, pos, end):  # isascii: no scan
        return None
    rest = text[end:]
    if rest.strip():
        reader.unread(rest)
    shown = text[pos : min(end, pos + 200)]
    if _nested_too_deep(value, text, pos, end):
        return Document(None, f"the call {TOO_DEEP}", shown)
    if not isinstance(value, dict):
        return Document(None, _not_an_object(value), shown)
    return Document(value, text=shown, size=end - pos)


def _read_one(
    reader: LineReader, text: str, pos: int, ended: bool, *, array: bool = False
) -> Document:
    """The document starting at ``text[pos]``, read in pieces; past the size limit the
    rest is still scanned, to find where it ends, but not kept. ``array``: it is an array
    (read whole, to say what it is)."""
    fits = True  # a line of one piece is within the limit
    if not ended:  # a long line: gather it (within the limit) for the C decoder
        line, length = [text], len(text) - pos
        while not ended and length <= MAX_DOCUMENT_BYTES:
            piece = reader.read_piece()
            if piece is None:
                break
            line.append(piece[0])
            length += len(piece[0])
            ended = piece[1]
        text = "".join(line)
        fits = len(text[pos:].encode("utf-8", "surrogatepass")) <= MAX_DOCUMENT_BYTES
    if ended and fits:  # else the scanner finds the document's end without keeping it
        found = _one_line(reader, text, pos)
        if found is not None:
            return found
    scanner = _Scanner(array=array)
    parts: list[str] = []
    size = 0
    raw = False  # ``text`` is a line (``ended``: it ended there), not a raw chunk
    while True:
        end = scanner.feed(text, pos)
        chunk = text[pos:end]
        size += len(chunk.encode("utf-8", "surrogatepass"))
        if size <= MAX_DOCUMENT_BYTES:
            parts.append(chunk)
        if end is not None:
            rest = text[end:]
            if raw:  # a chunk: a blank rest of the document's last line goes with it
                newline = rest.find("\n")
                if newline >= 0 and not rest[:newline].strip():
                    rest = rest[newline + 1 :]
                if rest:
                    reader.unread(rest, line_end=False)
            elif rest.strip() or not ended:
                reader.unread(rest, line_end=ended)
            if size > MAX_DOCUMENT_BYTES:
                return Document(None, f"the call {TOO_BIG}", "".join(parts)[:200])
            if scanner.deepest > MAX_DEPTH:
                return Document(None, f"the call {TOO_DEEP}", "".join(parts)[:200])
            return parse_object("".join(parts))
        if ended and size <= MAX_DOCUMENT_BYTES:
            parts.append("\n")
        more = reader.read_chunk()  # the rest of a document spanning lines: in big pieces
        if more is None:
            return Document(None, "the input ended inside a JSON document", "".join(parts)[:200])
        text, pos, ended, raw = more, 0, False, True


def wrap_hint(value: Any, name: str | None = None) -> str | None:
    """How to wrap input that is the questions or todos without their object (a bare
    array, or one item on its own), as a predicate for ``the input is ...``; None for any
    other input. With ``name``, only the wrapping that tool takes."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    if all("question" in item and "questions" not in item for item in items):
        key, what = "questions", "question"
    elif all("content" in item and "status" in item and "todos" not in item for item in items):
        key, what = "todos", "todo"
    else:
        return None
    if name is not None and name != {"questions": ASK_USER_QUESTION, "todos": TODO_WRITE}[key]:
        return None
    if isinstance(value, list):
        return f'an array of {what}s: wrap them in {{"{key}": [...]}}'
    if not ("options" in value or key == "todos"):  # a lone object that is surely no call
        return None
    return f'one {what} on its own: wrap it in {{"{key}": [...]}}'
