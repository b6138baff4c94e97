"""What the agent's messages show: a content block's text or a mark for it (a permission
request's tool call: :mod:`askcli.wire.dialects.acp_permission`)."""

from __future__ import annotations

from typing import Any

from ...wire.dialects.acp_permission import block_text
from ..child import as_dict, as_text


def content_text(block: Any) -> str:
    """The text of a content block (text, or a resource's text); "" for others."""
    return block_text(as_dict(block))


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
