"""TodoWrite: its result texts and its checklist.

The current schema is ``{todos: [{content, status, activeForm}]}``; calls whose items all
look like the older ``{id, content, status, priority}`` are validated against that one
(:mod:`askcli.inputs`, :mod:`askcli.schema`). The tool's permission is ``allow``: nobody
is asked anything.
"""

from __future__ import annotations

import re
from typing import Any

from .rendering import Style, visible, wrap

RESULT_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list "
    "to track your progress. Please proceed with the current tasks if applicable"
)
VERIFICATION_NOTE = (
    "\n\nNOTE: You just closed out 3+ tasks and none of them was a verification step. "
    "Before writing your final summary, spawn the verification agent "
    '(subagent_type="verification"). '
    "You cannot self-assign PARTIAL by listing caveats in your summary — only the verifier "
    "issues a verdict."
)
_VERIF = re.compile("verif", re.IGNORECASE)


def needs_verification_note(todos: list[dict[str, Any]], *, subagent: bool) -> bool:
    """The seed's nudge: the main agent just closed 3+ items, none about verification."""
    return (
        not subagent
        and len(todos) >= 3
        and all(t.get("status") == "completed" for t in todos)
        and not any(_VERIF.search(str(t.get("content", ""))) for t in todos)
    )


def checklist(todos: list[dict[str, Any]], style: Style, *, title: str) -> str:
    """``[x]`` done, ``[>]`` in progress (its activeForm), ``[ ]`` pending, then ``N/M done``."""
    lines = ["", style.strong(title)]
    for todo in todos:
        status = todo.get("status")
        if status == "completed":
            mark, text = "[x]", todo.get("content", "")
        elif status == "in_progress":
            mark, text = "[>]", todo.get("activeForm") or todo.get("content", "")
        else:
            mark, text = "[ ]", todo.get("content", "")
        lines += wrap(visible(str(text)), style.width, first=f"  {mark} ", rest="      ")
    done = sum(1 for t in todos if t.get("status") == "completed")
    lines.append(f"  {done}/{len(todos)} done" if todos else "  (empty)")
    return "\n".join(lines) + "\n"
