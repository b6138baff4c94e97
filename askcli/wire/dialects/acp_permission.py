"""ACP's ``session/request_permission``: an agent asks before it runs a tool call.

The request (ACP schema, ``RequestPermissionRequest``): ``sessionId``, the ``toolCall``
(``toolCallId``, ``title``, ``kind``, ``rawInput``, ``content``, ``locations``) and the
agent's own ``options`` (``optionId``, ``name``, ``kind``: ``allow_once``,
``allow_always``, ``reject_once`` or ``reject_always``). askcli shows the tool call whole and
the options in the order sent, and the person picks one by its number: ``y`` selects the
first ``allow_once`` option and ``n`` the first ``reject_once`` one, never an "always"
option, which makes a rule that outlasts the call (the grammar:
:func:`askcli.questions.allowing.parse_option_line`; the prompt:
:mod:`askcli.tools.permission_options`).

The answer is ACP's ``RequestPermissionResponse``: ``{"outcome": {"outcome": "selected",
"optionId": ...}}`` for the option picked, ``{"outcome": {"outcome": "cancelled"}}`` when
nobody picked one (the answers ended, ``--timeout``, Ctrl-C, no options to pick from):
silence never selects an option.
"""

from __future__ import annotations

import enum
import json
from typing import Any, NamedTuple

from ...errors import InvalidCall
from ...questions.outcome import Outcome
from ...schema.issues import object_expected
from ..envelopes import ACP_CANCELLED, ToolCall
from ..results import ToolResult


class OptionKind(enum.Enum):
    """What an option does (ACP's ``PermissionOptionKind``)."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    REJECT_ONCE = "reject_once"
    REJECT_ALWAYS = "reject_always"

    @property
    def allows(self) -> bool:
        return self in (OptionKind.ALLOW_ONCE, OptionKind.ALLOW_ALWAYS)


class PermissionOption(NamedTuple):
    """One of the agent's options as sent: ``kind`` None for a kind ACP does not name
    (``kind_text`` says what was sent, ``?`` for none)."""

    option_id: Any
    name: str
    kind: OptionKind | None
    kind_text: str


class PermissionRequest(NamedTuple):
    """A permission request as askcli shows it: the tool call's title, every detail of
    what it will do (:func:`tool_details`), and the options; ``allow`` and ``reject`` are
    the indexes of the first once options (what ``y`` and ``n`` select)."""

    title: str
    details: dict[str, Any]
    options: tuple[PermissionOption, ...]

    def first(self, kind: OptionKind) -> int | None:
        kinds = [option.kind for option in self.options]
        return kinds.index(kind) if kind in kinds else None

    @property
    def allow(self) -> int | None:
        return self.first(OptionKind.ALLOW_ONCE)

    @property
    def reject(self) -> int | None:
        return self.first(OptionKind.REJECT_ONCE)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _option(raw: dict[str, Any]) -> PermissionOption:
    kind_text = _text(raw.get("kind"), "?")
    kind = next((k for k in OptionKind if k.value == kind_text), None)
    return PermissionOption(raw.get("optionId"), _text(raw.get("name"), "?"), kind, kind_text)


def parse(raw: Any) -> PermissionRequest:
    """The request's params as askcli shows them; InvalidCall when they are not an object.
    What does not fit ACP's schema is shown as sent rather than refused: an option that is
    not an object is passed over, a missing name or kind is shown as ``?``."""
    if not isinstance(raw, dict):
        issue = object_expected(raw)
        raise InvalidCall("session/request_permission", [issue])
    tool_call = _dict(raw.get("toolCall"))
    options = raw.get("options")
    listed = options if isinstance(options, list) else []
    return PermissionRequest(
        title(raw),
        tool_details(tool_call),
        tuple(_option(o) for o in listed if isinstance(o, dict)),
    )


def title(raw: dict[str, Any]) -> str:
    """The request's title (else its tool call's id), as the inbox lists it: read without
    the whole display (:func:`tool_details` diffs every edited file)."""
    tool_call = _dict(raw.get("toolCall"))
    return _text(tool_call.get("title")) or _text(tool_call.get("toolCallId"), "a tool call")


def tool_details(tool_call: dict[str, Any]) -> dict[str, Any]:
    """Everything a permission request says the call will do, for the whole display: its
    kind, each content item (a diff as a unified diff of the whole file), the locations
    and the raw input."""
    shown: dict[str, Any] = {}
    if tool_call.get("kind") is not None:
        shown["kind"] = tool_call.get("kind")
    content = tool_call.get("content") or []
    for n, item in enumerate(content, 1):
        item = _dict(item)
        key = f"content {n}" if len(content) > 1 else "content"
        if item.get("type") == "diff":
            path = _text(item.get("path"), "?")
            shown[f"{key} (edit of {path})"] = _diff(item, path)
        elif item.get("type") == "content":
            block = _dict(item.get("content"))
            text = block_text(block)
            shown[key] = text if text or block.get("type") == "text" else block
        elif item.get("type") == "terminal":
            shown[key] = f"terminal {_text(item.get('terminalId'), '?')}"
        else:
            shown[key] = item
    locations = [
        _text(_dict(loc).get("path"), "?")
        + (f":{_dict(loc).get('line')}" if _dict(loc).get("line") is not None else "")
        for loc in tool_call.get("locations") or []
    ]
    if locations:
        shown["locations"] = "\n".join(locations)
    if "rawInput" in tool_call:
        shown["input"] = tool_call["rawInput"]
    return shown


def _diff(item: dict[str, Any], path: str) -> str:
    import difflib  # only for a request that edits a file

    old = _text(item.get("oldText")).splitlines()
    new = _text(item.get("newText")).splitlines()
    lines = difflib.unified_diff(
        old,
        new,
        path if path.startswith("/") else f"a/{path}",
        path if path.startswith("/") else f"b/{path}",
        lineterm="",
        n=max(len(old), len(new)),
    )
    return "\n".join(lines) or "(no change)"


def block_text(block: dict[str, Any]) -> str:
    """The text of a content block (text, or a resource's text); "" for others."""
    if block.get("type") == "text":
        return _text(block.get("text"))
    return _text(_dict(block.get("resource")).get("text"))


CANCELLED = ACP_CANCELLED


def selected(option_id: Any) -> dict[str, Any]:
    """ACP's response for the option picked."""
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


def chosen_text(option: PermissionOption) -> str:
    return f"The user chose {json.dumps(option.name, ensure_ascii=False)} ({option.kind_text})."


def picked(call: ToolCall, request: PermissionRequest, index: int) -> ToolResult:
    """The result for the option at ``index``: an allow option allows (exit 0), a reject
    option declines (exit 1); both are a selected outcome."""
    option = request.options[index]
    allows = option.kind is not None and option.kind.allows
    outcome = Outcome.ANSWERED if allows else Outcome.DECLINED
    data = {"optionId": option.option_id, "kind": option.kind_text, "allowed": allows}
    return ToolResult(
        call.id,
        chosen_text(option),
        outcome,
        is_error=not allows,
        data=data,
        reply=selected(option.option_id),
    )


def cancelled(call: ToolCall, text: str, outcome: Outcome) -> ToolResult:
    """The result when no option was picked: ``outcome`` says why (no answer, Ctrl-C, no
    options to pick from)."""
    data = {"optionId": None, "allowed": False}
    return ToolResult(call.id, text, outcome, is_error=True, data=data, reply=CANCELLED)


def option_id(reply: Any) -> tuple[bool, Any]:
    """From ACP's response: whether an option was selected, and its id."""
    outcome = _dict(_dict(reply).get("outcome"))
    if outcome.get("outcome") == "selected" and "optionId" in outcome:
        return True, outcome["optionId"]
    return False, None
