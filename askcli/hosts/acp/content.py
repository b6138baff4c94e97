"""What the agent's messages show: a content block's text or a mark for it, and a
permission request's tool call whole."""

from __future__ import annotations

import difflib
from typing import Any

from ...escaping import visible
from ...terminal.conversation import Conversation
from ...terminal.rendering import wrap
from ...tools.permission import fold, input_lines, shown
from ..child import as_dict, as_text


def content_text(block: Any) -> str:
    """The text of a content block (text, or a resource's text); "" for others."""
    block = as_dict(block)
    if block.get("type") == "text":
        return as_text(block.get("text"))
    resource = as_dict(block.get("resource"))
    return as_text(resource.get("text"))


def content_mark(block: Any) -> str:
    """A line's worth for a content block with no text to show: ``[image image/png]``,
    ``[audio ...]``, ``[link NAME: URI]``, ``[resource URI]``; "" for text."""
    block = as_dict(block)
    kind = as_text(block.get("type"))
    if kind in ("image", "audio"):
        mime = as_text(block.get("mimeType"))
        return f"[{kind}{' ' + mime if mime else ''}]"
    if kind == "resource_link":
        name, uri = as_text(block.get("name")), as_text(block.get("uri"), "?")
        return f"[link {name}: {uri}]" if name and name != uri else f"[link {uri}]"
    if kind == "resource":
        resource = as_dict(block.get("resource"))
        if not isinstance(resource.get("text"), str):
            return f"[resource {as_text(resource.get('uri'), '?')}]"
    return ""


def tool_details(tool_call: dict[str, Any]) -> dict[str, Any]:
    """Everything a permission request says the call will do, for the whole display."""
    shown: dict[str, Any] = {}
    if tool_call.get("kind") is not None:
        shown["kind"] = tool_call.get("kind")
    for n, item in enumerate(tool_call.get("content") or [], 1):
        item = as_dict(item)
        key = f"content {n}" if len(tool_call.get("content") or []) > 1 else "content"
        if item.get("type") == "diff":
            old = as_text(item.get("oldText")).splitlines()
            new = as_text(item.get("newText")).splitlines()
            path = as_text(item.get("path"), "?")
            lines = difflib.unified_diff(
                old,
                new,
                path if path.startswith("/") else f"a/{path}",
                path if path.startswith("/") else f"b/{path}",
                lineterm="",
                n=max(len(old), len(new)),
            )
            shown[f"{key} (edit of {path})"] = "\n".join(lines) or "(no change)"
        elif item.get("type") == "content":
            block = as_dict(item.get("content"))
            text = content_text(block)
            shown[key] = text if text or block.get("type") == "text" else block
        elif item.get("type") == "terminal":
            shown[key] = f"terminal {as_text(item.get('terminalId'), '?')}"
        else:
            shown[key] = item
    locations = [
        as_text(as_dict(loc).get("path"), "?")
        + (f":{as_dict(loc).get('line')}" if as_dict(loc).get("line") is not None else "")
        for loc in tool_call.get("locations") or []
    ]
    if locations:
        shown["locations"] = "\n".join(locations)
    if "rawInput" in tool_call:
        shown["input"] = tool_call["rawInput"]
    return shown


def permission_lines(
    tool_call: dict[str, Any], options: list[dict[str, Any]], conv: Conversation
) -> list[str]:
    style = conv.style
    title = as_text(tool_call.get("title")) or as_text(tool_call.get("toolCallId"), "a tool call")
    # the title is the agent's: a wrap of it goes on after the mark, never as a line of input
    head = fold(f"The agent asks to run: {shown(title)}", style.width, "", "  ")
    lines = ["", *(style.strong(row) for row in head)]
    lines += input_lines(tool_details(tool_call), style)
    for n, option in enumerate(options, 1):
        name = visible(as_text(option.get("name"), "?"))
        kind = visible(as_text(option.get("kind"), "?"))
        lines += wrap(f"{n}. {name}  ({kind})", style.width, first="  ", rest="     ")
    return lines
