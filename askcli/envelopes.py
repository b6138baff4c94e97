"""Envelopes: the shapes a tool call arrives in, and the shape its reply goes back in.

| envelope                                   | reply                                     |
|--------------------------------------------|-------------------------------------------|
| bare input ``{"questions": ...}``          | ``tool_result`` with a generated id       |
| ``tool_use`` block                         | ``tool_result`` block                     |
| assistant message / Messages API response  | user message listing the ``tool_result``s |

Unknown extra keys (``caller``, ``usage``, ...) are ignored.
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import UnreadableDocument
from .rendering import UNSAFE_BEYOND_C0, escape_controls
from .results import ToolResult

ASK_USER_QUESTION = "AskUserQuestion"
TODO_WRITE = "TodoWrite"

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# characters JSON may carry raw but a terminal could act on: escaped in every output line
_UNSAFE_IN_JSON = re.compile(f"[{UNSAFE_BEYOND_C0}]")


class Output(enum.Enum):
    """What stdout carries for each document (``--output``)."""

    RESULT = "result"  # the reply envelope, one line per document
    ANSWERS = "answers"  # each call's data ({"questions", "answers", "annotations"})
    SDK = "sdk"  # each call's Agent SDK permission decision
    TEXT = "text"  # each call's result text alone


class Kind(enum.Enum):
    BARE = "bare"
    TOOL_USE = "tool_use"
    MESSAGE = "message"


@dataclass(frozen=True)
class ToolCall:
    """One tool call; ``problem`` says why a malformed block cannot be run."""

    id: str | None
    name: str
    input: Any
    problem: str | None = None


@dataclass(frozen=True)
class Context:
    """Text the assistant wrote next to its tool calls, shown to the person."""

    text: str


@dataclass(frozen=True)
class Envelope:
    kind: Kind
    items: tuple[ToolCall | Context, ...]

    @property
    def calls(self) -> list[ToolCall]:
        return [item for item in self.items if isinstance(item, ToolCall)]

    def reply(self, results: Sequence[ToolResult]) -> dict[str, Any]:
        """The reply envelope carrying ``results``, one per call, in order."""
        if self.kind is Kind.MESSAGE:
            return {"role": "user", "content": [r.block() for r in results]}
        (result,) = results
        return result.block()


def generated_id(document: dict[str, Any], seq: int) -> str:
    """A ``toolu_`` id for bare input, derived from the call and its place in the source,
    so that replaying the same session gives the same id."""
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=True)
    digest = int.from_bytes(hashlib.sha256(f"{seq}:{canonical}".encode()).digest()[:18], "big")
    chars = []
    for _ in range(22):
        digest, rem = divmod(digest, 62)
        chars.append(_BASE62[rem])
    return "toolu_01" + "".join(chars)


def _tool_use(block: dict[str, Any]) -> ToolCall:
    block_id = block.get("id")
    name = block.get("name")
    call_id = block_id if isinstance(block_id, str) else None
    if call_id is None:
        return ToolCall(None, str(name), None, 'the tool_use block has no string "id"')
    if not isinstance(name, str):
        return ToolCall(call_id, "", None, 'the tool_use block has no string "name"')
    if "input" not in block:
        return ToolCall(call_id, name, None, 'the tool_use block has no "input"')
    return ToolCall(call_id, name, block["input"])


def detect(document: dict[str, Any], seq: int = 1) -> Envelope:
    """Recognise the envelope of one JSON object; UnreadableDocument if it is none."""
    kind = document.get("type")
    if kind == "tool_use":
        return Envelope(Kind.TOOL_USE, (_tool_use(document),))
    if document.get("role") == "assistant" or kind == "message":
        return Envelope(Kind.MESSAGE, tuple(_message_items(document)))
    if kind is not None or "role" in document:
        what = f'"type": {json.dumps(kind)}' if kind is not None else '"role": ...'
        raise UnreadableDocument(f"a document with {what} is not a tool call askcli knows")
    name = TODO_WRITE if "todos" in document and "questions" not in document else ASK_USER_QUESTION
    return Envelope(Kind.BARE, (ToolCall(generated_id(document, seq), name, document),))


def _message_items(message: dict[str, Any]) -> list[ToolCall | Context]:
    if message.get("role", "assistant") != "assistant":
        raise UnreadableDocument('a message whose "role" is not "assistant" holds no tool call')
    content = message.get("content")
    if isinstance(content, str):
        return [Context(content)] if content.strip() else []
    if not isinstance(content, list):
        raise UnreadableDocument('the assistant message has no "content" list')
    items: list[ToolCall | Context] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                items.append(Context(block["text"]))
        elif block.get("type") == "tool_use":
            items.append(_tool_use(block))
    return items


def json_line(value: Any) -> str:
    """Compact JSON on one line; characters a terminal could act on are ``\\u`` escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def output_lines(
    reply: dict[str, Any] | None, results: Sequence[ToolResult], output: Output
) -> list[str]:
    """The stdout lines for one document's ``reply`` and ``results``."""
    if output is Output.RESULT:
        return [json_line(reply)] if reply is not None else []
    if output is Output.ANSWERS:
        return [json_line(r.answers()) for r in results]
    if output is Output.SDK:
        return [json_line(r.decision()) for r in results]
    return [escape_controls(r.content) for r in results]
