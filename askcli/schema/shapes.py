"""The tool inputs' shapes, as plain objects (no pydantic), and the rules both the fast
check (:mod:`.inputs`) and the pydantic models (:mod:`.models`) share: a module of its own,
so that neither imports the other for them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .value_rules import ValueRule

HEADER_MAX = 12
LABEL_MAX_WORDS = 5
UNIQUENESS_MESSAGE = (
    "Question texts must be unique, option labels must be unique within each question"
)
TODO_STATUSES = ("pending", "in_progress", "completed")
PRIORITIES = ("high", "medium", "low")


class Option(NamedTuple):
    label: str
    description: str
    preview: str | None = None


class SharedQuestion(NamedTuple):
    """One question of any dialect (the shared model): a choice among ``options`` (one, or
    several with ``multiSelect``), or a typed answer when ``kind`` is ``text`` or
    ``number`` (``rule`` says what it must be). AskUserQuestion's questions use the first
    four fields; the others serve the other agents' question tools and MCP forms."""

    question: str
    header: str
    options: tuple[Option, ...]
    multiSelect: bool = False
    kind: str = "choice"  # choice | yesno | text | number
    other: bool = True  # the automatic Other is offered (a choice)
    required: bool = True  # the review submits only with an answer
    rule: ValueRule | None = None  # a typed answer's limits
    placeholder: str | None = None  # shown at an empty text question
    secret: bool = False  # the answer is never shown back
    min_items: int | None = None  # a multiSelect's bounds
    max_items: int | None = None
    notes: bool = True  # the agent has a place for the person's notes (n TEXT)
    description: str | None = None  # one helper line shown under the question

    @property
    def typed(self) -> bool:
        """Answered by typing a value rather than choosing options."""
        return self.kind in ("text", "number")


# an AskUserQuestion question's fields past its first four: the shared model's defaults
PLAIN = tuple(SharedQuestion._field_defaults[name] for name in SharedQuestion._fields[4:])


class AskInput(NamedTuple):
    """A valid AskUserQuestion input (or another dialect's, in the shared model);
    ``annotations`` hold only ``preview``/``notes``. ``review``: a review screen comes
    even after a lone question (an MCP form: the MCP spec wants a review before sending);
    ``asker``: who suggests the ``answers``, as the screens name them."""

    questions: tuple[SharedQuestion, ...]
    answers: dict[str, str] | None = None
    annotations: dict[str, dict[str, str]] | None = None
    review: bool = False
    asker: str = "the agent"
    extras: bool = False  # m (ask me more) and r (free text instead) are taken: Claude Code
    title: str | None = None  # one line shown above the questions


class TodoItem(NamedTuple):
    content: str
    status: str
    activeForm: str | None = None


class TodoInput(NamedTuple):
    todos: tuple[TodoItem, ...]


def is_recommended(label: str) -> bool:
    """A label marked as the agent's recommendation, e.g. ``date-fns (Recommended)``."""
    return label.rstrip().lower().endswith("(recommended)")


def uniqueness_problem(data: Any) -> str | None:
    """Claude Code 2.1.88's UNIQUENESS_REFINE: question texts unique, labels unique per question."""
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


def todos_are_legacy(data: Any) -> bool:
    """Every item has an ``id`` and no ``activeForm``: the older shape."""
    todos = data.get("todos") if isinstance(data, dict) else None
    return (
        isinstance(todos, list)
        and bool(todos)
        and all(isinstance(t, dict) and "id" in t and "activeForm" not in t for t in todos)
    )
