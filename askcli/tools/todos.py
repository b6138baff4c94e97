"""TodoWrite: its result texts and its checklist.

The current schema is ``{todos: [{content, status, activeForm}]}``; calls whose items all
look like the older ``{id, content, status, priority}`` are validated against that one
(:mod:`askcli.schema.inputs`, :mod:`askcli.schema.models`). The tool's permission is
``allow``: nobody is asked anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..escaping import visible
from ..terminal.rendering import Style, wrap

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
    """Claude Code 2.1.88's nudge: the main agent just closed 3+ items, none about verification."""
    return (
        not subagent
        and len(todos) >= 3
        and all(t.get("status") == "completed" for t in todos)
        and not any(_VERIF.search(str(t.get("content", ""))) for t in todos)
    )


def _label(todo: dict[str, Any]) -> str:
    return str(todo.get("content", ""))


def changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """What changed from ``old`` to ``new``, as ``(kind, content)`` pairs: ``added``,
    ``completed``, ``started``, ``reopened`` (back to pending) and ``removed``, in the order
    of the lists. Items are told apart by their content; repeated contents pair in order."""
    before: dict[str, list[str]] = {}
    for todo in old:
        before.setdefault(_label(todo), []).append(str(todo.get("status", "")))
    out: list[tuple[str, str]] = []
    for todo in new:
        label, status = _label(todo), str(todo.get("status", ""))
        statuses = before.get(label)
        if not statuses:
            out.append(("added", label))
            continue
        was = statuses.pop(0)
        if was == status:
            continue
        if status == "completed":
            out.append(("completed", label))
        elif status == "in_progress":
            out.append(("started", label))
        else:
            out.append(("reopened", label))
    out += [("removed", label) for label, left in before.items() for _ in left]
    return out


# mark, words and colour of each kind of change, readable without colour
_CHANGE = {
    "added": ("+", "added", "good"),
    "completed": ("✓", "completed", "good"),
    "started": (">", "started", "warn"),
    "reopened": ("~", "pending again", "warn"),
    "removed": ("-", "removed", "dim"),
}


def _plain(text: str) -> str:
    return text


def _paint(style: Style, how: str, text: str) -> str:
    if how == "good":
        return style.good(text)
    if how == "warn":
        return style.warn(text)
    if how == "dim":
        return style.dim(text)
    return style.strong(text)


def checklist(
    todos: list[dict[str, Any]],
    style: Style,
    *,
    title: str,
    old: list[dict[str, Any]] | None = None,
) -> str:
    """``[x]`` done, ``[>]`` in progress (its activeForm), ``[ ]`` pending, then ``N/M done``;
    with ``old``, the session's list before, one line per change since (``+ added: ...``).

    Completed items are green and dim, the one in progress bold yellow: the marks say the
    same without colour."""
    lines = ["", style.strong(title)]
    for todo in todos:
        status = todo.get("status")
        paint_mark: Callable[[str], str] = _plain
        paint: Callable[[str], str] = _plain
        if status == "completed":
            mark, text = "[x]", todo.get("content", "")
            paint_mark, paint = style.good, style.dim
        elif status == "in_progress":
            mark, text = "[>]", todo.get("activeForm") or todo.get("content", "")
            paint_mark = paint = style.in_progress
        else:
            mark, text = "[ ]", todo.get("content", "")
        wrapped = wrap(visible(str(text)), style.width, first=f"  {mark} ", rest="      ")
        lines.append(f"  {paint_mark(mark)} {paint(wrapped[0][6:])}".rstrip())
        lines += [f"      {paint(line[6:])}" for line in wrapped[1:]]
    done = sum(1 for t in todos if t.get("status") == "completed")
    lines.append(f"  {done}/{len(todos)} done" if todos else "  (empty)")
    if old:
        found = changes(old, todos)
        if not found:
            lines.append(style.dim("  (no change since the last list)"))
        for kind, label in found:
            mark, words, how = _CHANGE[kind]
            head = f"  {mark} {words}: "
            wrapped = wrap(visible(label), style.width, first=head, rest="      ")
            lines.append(_paint(style, how, f"  {mark} {words}:") + wrapped[0][len(head) - 1 :])
            lines += wrapped[1:]
    return "\n".join(lines) + "\n"
