"""TodoWrite: validate the list, show it as a checklist, keep it per session, answer at once.

The current schema is ``{todos: [{content, status, activeForm}]}``; calls whose items all
look like the older ``{id, content, status, priority}`` are validated against that one.
The tool's permission is ``allow``: nobody is asked anything.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .rendering import Style, visible, wrap
from .validation import ZodMessage, validate

TOOL_NAME = "TodoWrite"
STATUSES = ("pending", "in_progress", "completed")
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

TodoStatus = Literal["pending", "in_progress", "completed"]
Content = Annotated[str, Field(min_length=1), ZodMessage("Content cannot be empty")]


class _Item(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class TodoItem(_Item):
    content: Content
    status: TodoStatus
    activeForm: Annotated[str, Field(min_length=1), ZodMessage("Active form cannot be empty")]


class LegacyTodoItem(_Item):
    """The older item shape, which real agents still send."""

    content: Content
    status: TodoStatus
    id: str
    priority: Literal["high", "medium", "low"] | None = None


class TodoWriteInput(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    todos: list[TodoItem] = Field(description="The updated todo list")


class LegacyTodoWriteInput(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    todos: list[LegacyTodoItem]


AnyTodoInput = TodoWriteInput | LegacyTodoWriteInput


def _is_legacy(data: Any) -> bool:
    todos = data.get("todos") if isinstance(data, dict) else None
    return (
        isinstance(todos, list)
        and bool(todos)
        and all(isinstance(t, dict) and "id" in t and "activeForm" not in t for t in todos)
    )


def parse_todos(data: Any) -> AnyTodoInput:
    """Validate a TodoWrite input, current or older shape; InvalidCall with zod issues."""
    if _is_legacy(data):
        return validate(LegacyTodoWriteInput, data, tool=TOOL_NAME)
    return validate(TodoWriteInput, data, tool=TOOL_NAME)


def warnings(data: AnyTodoInput) -> list[str]:
    """The seed's rule of one item in progress at a time, broken by real agents."""
    busy = sum(1 for t in data.todos if t.status == "in_progress")
    if busy > 1:
        return [f"{busy} items are in progress at once; the list should have one at a time"]
    return []


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
