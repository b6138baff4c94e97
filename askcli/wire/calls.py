"""The one permission request askcli builds: a call of another host (a Claude Code hook,
an ACP agent's permission request or form) as Claude Code's ``can_use_tool`` control
request, the document every asker knows (the inbox shows its tool and whole input, or its
questions; here it is asked as ``askcli ask`` asks that line)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def permission_request(
    request_id: str,
    tool: str,
    tool_input: Any,
    *,
    tool_use_id: str | None = None,
    session_id: str | None = None,
    suggestions: Any = None,
    care: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Claude Code's ``can_use_tool`` request for ``tool`` with ``tool_input``: its
    ``permission_suggestions`` and the fields of care (``title``, ``default_to_no``, ...:
    :data:`askcli.wire.permission_request.KEYS`) as sent, when there are any."""
    request: dict[str, Any] = {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input}
    if tool_use_id is not None:
        request["tool_use_id"] = tool_use_id
    if suggestions is not None:
        request["permission_suggestions"] = suggestions
    if care:
        request.update(care)
    out: dict[str, Any] = {"type": "control_request", "request_id": request_id}
    if session_id is not None:
        out["session_id"] = session_id
    out["request"] = request
    return out
