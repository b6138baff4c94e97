"""Hook inputs piped to ``askcli ask``: told in one line what to do instead.

A hook input is an agent's event, not a tool call: Claude Code's (and Codex's, which copies
it) ``PreToolUse`` / ``PermissionRequest`` input is answered by ``askcli hook``; Gemini CLI's
``BeforeTool`` hook may allow or block ``ask_user`` but has no way to hand answers back, so
the call itself is what ``askcli ask`` answers.
"""

from __future__ import annotations

import json
from typing import Any

# Gemini CLI's hook events (packages/core/src/hooks/types.ts); the others are Claude Code's
GEMINI_EVENTS = frozenset(
    {
        "BeforeTool",
        "AfterTool",
        "BeforeAgent",
        "AfterAgent",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "PreCompress",
    }
)
# events both agents have: Gemini CLI's input alone carries a "timestamp"
SHARED_EVENTS = frozenset({"Notification", "SessionStart", "SessionEnd"})
_SHOWN = 60  # characters of an event or tool name quoted back


def _quoted(value: str) -> str:
    text = value if len(value) <= _SHOWN else value[: _SHOWN - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def hook_input_hint(document: dict[str, Any]) -> str | None:
    """The one line for a hook input (a string ``hook_event_name``); None for any other
    document."""
    event = document.get("hook_event_name")
    if not isinstance(event, str):
        return None
    tool = document.get("tool_name")
    at = f" for {_quoted(tool)}" if isinstance(tool, str) else ""
    if event in GEMINI_EVENTS or (event in SHARED_EVENTS and "timestamp" in document):
        return (
            f"this is a Gemini CLI hook input ({_quoted(event)}{at}), not a tool call: a "
            "Gemini CLI hook can allow or block ask_user but not answer it; give askcli ask "
            'the call itself ({"name": "ask_user", "args": {...}} or its functionCall)'
        )
    return (
        f"this is a Claude Code hook input ({_quoted(event)}{at}), not a tool call: "
        "use askcli hook as the hook's command"
    )
