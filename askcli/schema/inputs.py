"""Tool inputs as plain objects, parsed without pydantic when they are valid.

The pydantic models of :mod:`askcli.schema.models` decide what is valid. Importing pydantic's
machinery and building the models costs more than everything else askcli does before
its first prompt, so a valid input is recognised here by a plain check of the same rules,
and pydantic is imported only for an input this check refuses: to say why, zod-style, or
(should the two ever disagree) to accept it after all. A property test keeps the two in
agreement.
"""

from __future__ import annotations

import re
from typing import Any

from .shapes import (
    HEADER_MAX,
    LABEL_MAX_WORDS,
    PLAIN,
    PRIORITIES,
    TODO_STATUSES,
    AskInput,
    Option,
    SharedQuestion,
    TodoInput,
    TodoItem,
    is_recommended,
    todos_are_legacy,
)

_ASK_KEYS = frozenset({"questions", "answers", "annotations", "metadata"})


def _optional_str(node: dict[str, Any], key: str) -> bool:
    """Absent, or a string (zod's ``.optional()``: ``null`` is not absent)."""
    return key not in node or isinstance(node[key], str)


def _strings(node: Any) -> bool:
    return isinstance(node, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in node.items()
    )


def fast_ask(data: Any) -> AskInput | None:
    """``data`` as an AskInput when it is valid, else None (pydantic will say why)."""
    if not isinstance(data, dict) or not _ASK_KEYS.issuperset(data):
        return None
    raw = data.get("questions")
    if not isinstance(raw, list) or not 1 <= len(raw) <= 4:
        return None
    questions = []
    new_option = Option._make  # about twice as fast as calling the class
    new_question = SharedQuestion._make
    for q in raw:
        if not isinstance(q, dict):
            return None
        text, header, raw_options = q.get("question"), q.get("header"), q.get("options")
        multi = q.get("multiSelect", False)
        if not (isinstance(text, str) and isinstance(header, str) and type(multi) is bool):
            return None
        if not isinstance(raw_options, list) or not 2 <= len(raw_options) <= 4:
            return None
        options = []
        for o in raw_options:
            if not isinstance(o, dict):
                return None
            label, description, preview = o.get("label"), o.get("description"), o.get("preview")
            if not (isinstance(label, str) and isinstance(description, str)):
                return None
            if (preview is not None or "preview" in o) and not isinstance(preview, str):
                return None
            options.append(new_option((label, description, preview)))
        if len({o.label for o in options}) != len(options):
            return None  # Claude Code 2.1.88's uniqueness rule, for labels
        questions.append(new_question((text, header, tuple(options), multi, *PLAIN)))
    if len({q.question for q in questions}) != len(questions):
        return None  # ... and for question texts
    answers = data.get("answers")
    if "answers" in data and not _strings(answers):
        return None
    annotations = None
    if "annotations" in data:
        notes = data["annotations"]
        if not isinstance(notes, dict):
            return None
        annotations = {}
        for key, note in notes.items():
            if (
                not isinstance(key, str)
                or not isinstance(note, dict)
                or not (_optional_str(note, "preview") and _optional_str(note, "notes"))
            ):
                return None
            annotations[key] = {k: note[k] for k in ("preview", "notes") if k in note}
    if "metadata" in data:
        metadata = data["metadata"]
        if not isinstance(metadata, dict) or not _optional_str(metadata, "source"):
            return None
    return AskInput(tuple(questions), answers, annotations, extras=True)


def parse_ask(data: Any) -> AskInput:
    """Validate an AskUserQuestion input; InvalidCall with zod issues when it fails. A call
    using Claude Code's extended questions (text and number kinds, a title) is read by
    their rules (:mod:`askcli.schema.extended_questions`)."""
    parsed = fast_ask(data)
    if parsed is not None:
        return parsed
    from .extended_questions import is_extended, parse_extended

    if is_extended(data):
        return parse_extended(data)
    from .models import validate_ask  # only now: pydantic is slow to import

    model = validate_ask(data)  # raises InvalidCall with the reasons
    return AskInput(
        tuple(
            SharedQuestion(
                q.question,
                q.header,
                tuple(Option(o.label, o.description, o.preview) for o in q.options),
                q.multiSelect,
            )
            for q in model.questions
        ),
        dict(model.answers) if model.answers is not None else None,
        {k: v.model_dump(exclude_none=True) for k, v in model.annotations.items()}
        if model.annotations is not None
        else None,
        extras=True,
    )


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 1


def fast_todos(data: Any) -> TodoInput | None:
    """``data`` as a TodoInput when it is valid (either shape), else None."""
    if not isinstance(data, dict) or set(data) != {"todos"} or not isinstance(data["todos"], list):
        return None
    legacy = todos_are_legacy(data)
    items = []
    for t in data["todos"]:
        if not isinstance(t, dict) or not _text(t.get("content")):
            return None
        status = t.get("status")
        if not isinstance(status, str) or status not in TODO_STATUSES:
            return None
        if legacy:
            if not isinstance(t.get("id"), str) or t.get("priority", None) not in (
                None,
                *PRIORITIES,
            ):
                return None
            items.append(TodoItem(t["content"], status))
        else:
            if not _text(t.get("activeForm")):
                return None
            items.append(TodoItem(t["content"], status, t["activeForm"]))
    return TodoInput(tuple(items))


def parse_todos(data: Any) -> TodoInput:
    """Validate a TodoWrite input, current or older shape; InvalidCall with zod issues."""
    parsed = fast_todos(data)
    if parsed is not None:
        return parsed
    from .models import validate_todos  # only now: pydantic is slow to import

    model = validate_todos(data)
    return TodoInput(
        tuple(TodoItem(t.content, t.status, getattr(t, "activeForm", None)) for t in model.todos)
    )


_OTHER_LABEL = re.compile(r"other\b\s*(\(.*\)|[:.…-].*)?", re.IGNORECASE)


def soft_rule_warnings(data: AskInput) -> list[str]:
    """Claude Code 2.1.88's ``.describe()`` hints this input breaks (``askcli check --strict``)."""
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


def todo_warnings(data: TodoInput) -> list[str]:
    """Claude Code 2.1.88's rule of one item in progress at a time, broken by real agents."""
    busy = sum(1 for t in data.todos if t.status == "in_progress")
    if busy > 1:
        return [f"{busy} items are in progress at once; the list should have one at a time"]
    return []
