"""The AskUserQuestion input schema: pydantic models mirroring the seed's zod schema.

zod's ``z.object`` drops unknown keys and its ``z.strictObject`` refuses them, so the
top level forbids extra keys and the nested objects ignore them. Types are strict (no
``"true"`` for ``true``), and an optional field may be absent but not ``null``, as in zod.
The ``.describe()`` hints (header of 12 characters, a question ending in ``?``) are not
rules and are not enforced.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from .validation import validate

TOOL_NAME = "AskUserQuestion"
HEADER_MAX = 12
LABEL_MAX_WORDS = 5
UNIQUENESS_MESSAGE = (
    "Question texts must be unique, option labels must be unique within each question"
)


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


def uniqueness_problem(data: Any) -> str | None:
    """The seed's UNIQUENESS_REFINE: question texts unique, labels unique per question."""
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        return None
    texts = [q.get("question") for q in questions if isinstance(q, dict)]
    if len(texts) != len(set(map(repr, texts))):
        return UNIQUENESS_MESSAGE
    for q in questions:
        options = q.get("options") if isinstance(q, dict) else None
        if isinstance(options, list):
            labels = [repr(o.get("label")) for o in options if isinstance(o, dict)]
            if len(labels) != len(set(labels)):
                return UNIQUENESS_MESSAGE
    return None


def parse_input(data: Any) -> AskUserQuestionInput:
    """Validate an AskUserQuestion input; raise InvalidCall with zod issues when it fails."""
    return validate(AskUserQuestionInput, data, tool=TOOL_NAME, refine=uniqueness_problem)


def is_recommended(label: str) -> bool:
    """A label marked as the agent's recommendation, e.g. ``date-fns (Recommended)``."""
    return label.rstrip().lower().endswith("(recommended)")


_OTHER_LABEL = re.compile(r"other\b\s*(\(.*\)|[:.…-].*)?", re.IGNORECASE)


def soft_rule_warnings(data: AskUserQuestionInput) -> list[str]:
    """The seed's ``.describe()`` hints that this input breaks (``askcli check --strict``)."""
    found = []
    for i, q in enumerate(data.questions):
        where = f"questions[{i}]"
        if len(q.header) > HEADER_MAX:
            found.append(f"{where}.header {q.header!r} is longer than {HEADER_MAX} characters")
        if not q.question.rstrip().endswith(("?", "？")):
            found.append(f"{where}.question does not end with a question mark")
        for j, option in enumerate(q.options):
            label = option.label.strip()
            if len(label.split()) > LABEL_MAX_WORDS:
                found.append(
                    f"{where}.options[{j}].label {label!r} has more than {LABEL_MAX_WORDS} words"
                )
            if _OTHER_LABEL.fullmatch(label):
                found.append(
                    f"{where}.options[{j}].label {label!r} is an Other option; "
                    "askcli adds Other itself"
                )
            if j > 0 and is_recommended(label):
                found.append(
                    f"{where}.options[{j}] is marked (Recommended) but is not the first option"
                )
            if q.multiSelect and option.preview is not None:
                found.append(f"{where}.options[{j}] has a preview on a multiSelect question")
    return found
