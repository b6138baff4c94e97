"""The tool input schemas: pydantic models mirroring Claude Code 2.1.88's zod schemas.

They decide what is valid (:mod:`askcli.schema.inputs` recognises valid input faster, by the same
rules), produce the zod-style reasons for what is not, and give ``askcli schema`` its JSON
Schema.

zod's ``z.object`` drops unknown keys and its ``z.strictObject`` refuses them, so the
top level forbids extra keys and the nested objects ignore them. Types are strict (no
``"true"`` for ``true``), and an optional field may be absent but not ``null``, as in zod.
The ``.describe()`` hints (header of 12 characters, a question ending in ``?``) are not
rules and are not enforced.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from .names import ASK_USER_QUESTION as TOOL_NAME
from .names import TODO_WRITE as TODO_TOOL_NAME
from .shapes import todos_are_legacy, uniqueness_problem
from .validation import ZodMessage, validate


def _not_null(error_type: str) -> BeforeValidator:
    """zod's ``.optional()`` admits a missing key, never ``null``."""

    def check(value: Any) -> Any:
        if value is None:
            raise PydanticCustomError(error_type, "Input should not be null")
        return value

    return BeforeValidator(check)


OptionalStr = Annotated[str | None, _not_null("string_type")]


class _Loose(BaseModel):
    """A zod ``z.object``: strict types, unknown keys dropped."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class QuestionOption(_Loose):
    label: str = Field(
        description="The display text for this option that the user will see and select. "
        "Should be concise (1-5 words) and clearly describe the choice."
    )
    description: str = Field(
        description="Explanation of what this option means or what will happen if chosen. "
        "Useful for providing context about trade-offs or implications."
    )
    preview: OptionalStr = Field(
        default=None,
        description="Optional preview content rendered when this option is focused. "
        "Use for mockups, code snippets, or visual comparisons.",
    )


class Question(_Loose):
    question: str = Field(
        description="The complete question to ask the user. Should be clear, specific, "
        "and end with a question mark."
    )
    header: str = Field(
        description="Very short label displayed as a chip/tag (max 12 chars). "
        'Examples: "Auth method", "Library", "Approach".'
    )
    options: list[QuestionOption] = Field(
        min_length=2,
        max_length=4,
        description="The available choices for this question. Must have 2-4 options. "
        'There should be no "Other" option, that will be provided automatically.',
    )
    multiSelect: bool = Field(
        default=False,
        description="Set to true to allow the user to select multiple options instead of just one.",
    )


class Annotation(_Loose):
    preview: OptionalStr = None
    notes: OptionalStr = None


class Metadata(_Loose):
    source: OptionalStr = None


class AskUserQuestionInput(BaseModel):
    """The tool's input; ``z.strictObject`` at the top level."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    questions: list[Question] = Field(
        min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)"
    )
    answers: Annotated[dict[str, str] | None, _not_null("dict_type")] = Field(
        default=None, description="User answers collected by the permission component"
    )
    annotations: Annotated[dict[str, Annotation] | None, _not_null("dict_type")] = Field(
        default=None,
        description="Optional per-question annotations from the user (e.g. notes on "
        "preview selections), keyed by question text.",
    )
    metadata: Annotated[Metadata | None, _not_null("model_type")] = Field(
        default=None,
        description="Optional metadata for tracking and analytics purposes. "
        "Not displayed to the user.",
    )


def validate_ask(data: Any) -> AskUserQuestionInput:
    """Validate an AskUserQuestion input with the models; InvalidCall with zod issues."""
    return validate(AskUserQuestionInput, data, tool=TOOL_NAME, refine=uniqueness_problem)


# --- TodoWrite -----------------------------------------------------------------------

TodoStatus = Literal["pending", "in_progress", "completed"]
Content = Annotated[str, Field(min_length=1), ZodMessage("Content cannot be empty")]


class TodoItemModel(_Loose):
    content: Content
    status: TodoStatus
    activeForm: Annotated[str, Field(min_length=1), ZodMessage("Active form cannot be empty")]


class LegacyTodoItemModel(_Loose):
    """The older item shape, which real agents still send."""

    content: Content
    status: TodoStatus
    id: str
    priority: Literal["high", "medium", "low"] | None = None


class TodoWriteInput(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    todos: list[TodoItemModel] = Field(description="The updated todo list")


class LegacyTodoWriteInput(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    todos: list[LegacyTodoItemModel]


def validate_todos(data: Any) -> TodoWriteInput | LegacyTodoWriteInput:
    """Validate a TodoWrite input, current or older shape; InvalidCall with zod issues."""
    if todos_are_legacy(data):
        return validate(LegacyTodoWriteInput, data, tool=TODO_TOOL_NAME)
    return validate(TodoWriteInput, data, tool=TODO_TOOL_NAME)
