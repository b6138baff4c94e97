"""AskUserQuestion's extended questions, as Claude Code 2.1.332 defines them.

With ``CLAUDE_CODE_QUESTION_EXTENDED`` (the Agent SDK's
``toolConfig.askUserQuestion.extendedQuestions``) Claude Code's model may ask ``text`` and
``number`` questions beside choices, give a call a ``title`` and a question a
``description``, and leave out option descriptions. A call is read this way when it uses
any of these; every rule and message is Claude Code's (its zod schema and ``superRefine``),
so a call askcli refuses is one Claude Code refuses, in the same words.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import InvalidCall
from .issues import Issue
from .names import ASK_USER_QUESTION
from .shapes import AskInput, Option, SharedQuestion, uniqueness_problem
from .value_rules import ValueRule

KINDS = ("choice", "text", "number")
_TOP = ("title", "questions", "answers", "annotations", "metadata")
_MARKS = frozenset(
    {"kind", "description", "placeholder", "min", "max", "step", "defaultValue", "unit"}
)
_ONLY_FOR = (
    ("placeholder", "text"),
    ("min", "number"),
    ("max", "number"),
    ("step", "number"),
    ("defaultValue", "number"),
    ("unit", "number"),
)


def is_extended(data: Any) -> bool:
    """The call uses what only the extended schema has: a ``title``, or a question with a
    ``kind``, a ``description``, a placeholder or number bounds."""
    if not isinstance(data, dict):
        return False
    if "title" in data:
        return True
    questions = data.get("questions")
    return isinstance(questions, list) and any(
        isinstance(q, dict) and not _MARKS.isdisjoint(q) for q in questions
    )


def _received(value: Any) -> str:
    """What zod 4 calls a value it did not expect."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type(path: list[str | int], expected: str, value: Any) -> Issue:
    what = "undefined" if value is _ABSENT else _received(value)
    return {
        "expected": expected,
        "code": "invalid_type",
        "path": path,
        "message": f"Invalid input: expected {expected}, received {what}",
    }


def _custom(path: list[str | int], message: str) -> Issue:
    return {"code": "custom", "path": path, "message": message}


_ABSENT = object()


class _Reader:
    """Collects zod-style issues while the fields are read."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def string(
        self, node: dict[str, Any], key: str, path: list[str | int], *, optional: bool
    ) -> str | None:
        value = node.get(key, _ABSENT)
        if value is _ABSENT and optional:
            return None
        if not isinstance(value, str):
            self.issues.append(_type([*path, key], "string", value))
            return None
        return value

    def number(self, node: dict[str, Any], key: str, path: list[str | int]) -> float | None:
        value = node.get(key, _ABSENT)
        if value is _ABSENT:
            return None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            self.issues.append(_type([*path, key], "number", value))
            return None
        return value

    def array(
        self, value: Any, path: list[str | int], low: int | None, high: int
    ) -> list[Any] | None:
        if not isinstance(value, list):
            self.issues.append(_type(path, "array", value))
            return None
        if low is not None and len(value) < low:
            self.issues.append(_size(path, "too_small", low, ">="))
        if len(value) > high:
            self.issues.append(_size(path, "too_big", high, "<="))
        return value


def _size(path: list[str | int], code: str, bound: int, sign: str) -> Issue:
    word = "Too small" if code == "too_small" else "Too big"
    key = "minimum" if code == "too_small" else "maximum"
    return {
        "origin": "array",
        "code": code,
        key: bound,
        "inclusive": True,
        "path": path,
        "message": f"{word}: expected array to have {sign}{bound} items",
    }


def _options(read: _Reader, raw: Any, path: list[str | int]) -> tuple[Option, ...]:
    items = read.array(raw, path, None, 4) if raw is not _ABSENT else []
    options = []
    for j, item in enumerate(items or []):
        where = [*path, j]
        if not isinstance(item, dict):
            read.issues.append(_type(where, "object", item))
            continue
        label = read.string(item, "label", where, optional=False)
        description = read.string(item, "description", where, optional=True)
        preview = read.string(item, "preview", where, optional=True)
        if label is not None:
            options.append(Option(label, description or "", preview))
    return tuple(options)


def _question(read: _Reader, raw: Any, i: int) -> tuple[SharedQuestion, float | None] | None:
    """One question and its ``defaultValue``; None when it cannot be read."""
    path: list[str | int] = ["questions", i]
    if not isinstance(raw, dict):
        read.issues.append(_type(path, "object", raw))
        return None
    before = len(read.issues)
    text = read.string(raw, "question", path, optional=False)
    header = read.string(raw, "header", path, optional=False)
    kind = raw.get("kind", "choice")
    if kind not in KINDS:
        read.issues.append(
            {
                "code": "invalid_value",
                "values": list(KINDS),
                "path": [*path, "kind"],
                "message": 'Invalid option: expected one of "choice"|"text"|"number"',
            }
        )
    description = read.string(raw, "description", path, optional=True)
    options = _options(read, raw.get("options", _ABSENT), [*path, "options"])
    multi = raw.get("multiSelect", False)
    if not isinstance(multi, bool):
        read.issues.append(_type([*path, "multiSelect"], "boolean", multi))
    placeholder = read.string(raw, "placeholder", path, optional=True)
    low, high = read.number(raw, "min", path), read.number(raw, "max", path)
    step, default = read.number(raw, "step", path), read.number(raw, "defaultValue", path)
    unit = read.string(raw, "unit", path, optional=True)
    if step is not None and step <= 0:
        read.issues.append(
            {
                "origin": "number",
                "code": "too_small",
                "minimum": 0,
                "inclusive": False,
                "path": [*path, "step"],
                "message": "Too small: expected number to be >0",
            }
        )
    if len(read.issues) > before or text is None or header is None or kind not in KINDS:
        return None
    # Claude Code's superRefine, rule by rule
    for key, only in _ONLY_FOR:
        if kind != only and key in raw:
            read.issues.append(_custom([*path, key], f'{key} applies only to "{only}" questions.'))
    if kind == "choice":
        if len(options) < 2:
            read.issues.append(
                _custom(
                    [*path, "options"],
                    'A choice question needs 2-4 options; use kind "text" for an open-ended '
                    "question.",
                )
            )
    else:
        if options:
            read.issues.append(
                _custom(
                    [*path, "options"],
                    f'A "{kind}" question takes no options; remove them or omit kind to ask a '
                    "choice question.",
                )
            )
        if multi:
            read.issues.append(
                _custom(
                    [*path, "multiSelect"],
                    f'multiSelect applies only to choice questions, not "{kind}".',
                )
            )
        if kind == "number":
            if low is None or high is None or not low < high:
                read.issues.append(
                    _custom(
                        [*path, "min"],
                        "A number question needs numeric min and max with min < max.",
                    )
                )
            elif default is not None and not low <= default <= high:
                read.issues.append(
                    _custom([*path, "defaultValue"], "defaultValue must lie within min..max.")
                )
    if kind == "choice":
        return SharedQuestion(text, header, options, multi is True, description=description), None
    rule = ValueRule("number", minimum=low, maximum=high, step=step, unit=unit)
    question = SharedQuestion(
        text,
        header,
        (),
        kind=kind,
        rule=rule if kind == "number" else None,
        placeholder=placeholder,
        description=description,
    )
    return question, default


def _strings(read: _Reader, data: dict[str, Any], key: str) -> dict[str, str] | None:
    """``answers``: question text -> answer; an array of labels is joined with ``, `` as
    Claude Code's preprocessing does."""
    value = data.get(key, _ABSENT)
    if value is _ABSENT:
        return None
    if not isinstance(value, dict):
        read.issues.append(_type([key], "record", value))
        return None
    out = {}
    for name, answer in value.items():
        if isinstance(answer, list) and all(isinstance(a, str) for a in answer):
            answer = ", ".join(answer)
        if not isinstance(answer, str):
            read.issues.append(_type([key, name], "string", answer))
            continue
        out[name] = answer
    return out


def _annotations(read: _Reader, data: dict[str, Any]) -> dict[str, dict[str, str]] | None:
    value = data.get("annotations", _ABSENT)
    if value is _ABSENT:
        return None
    if not isinstance(value, dict):
        read.issues.append(_type(["annotations"], "record", value))
        return None
    out = {}
    for name, note in value.items():
        if not isinstance(note, dict):
            read.issues.append(_type(["annotations", name], "object", note))
            continue
        kept = {}
        for key in ("preview", "notes"):
            text = read.string(note, key, ["annotations", name], optional=True)
            if text is not None:
                kept[key] = text
        out[name] = kept
    return out


def _shown(number: float) -> str:
    """A number as JavaScript's ``String`` writes it (``8``, ``2.5``)."""
    return json.dumps(int(number)) if float(number).is_integer() else repr(float(number))


def parse_extended(data: Any) -> AskInput:
    """An extended AskUserQuestion input in the shared model; InvalidCall with Claude
    Code's issues when it fails."""
    read = _Reader()
    if not isinstance(data, dict):
        raise InvalidCall(ASK_USER_QUESTION, [_type([], "object", data)])
    unknown = [key for key in data if key not in _TOP]
    if unknown:
        keys = ", ".join(json.dumps(k) for k in unknown)
        read.issues.append(
            {
                "code": "unrecognized_keys",
                "keys": unknown,
                "path": [],
                "message": f"Unrecognized key{'s' if len(unknown) > 1 else ''}: {keys}",
            }
        )
    title = read.string(data, "title", [], optional=True)
    raw = read.array(data.get("questions", _ABSENT), ["questions"], 1, 4)
    parsed = [_question(read, q, i) for i, q in enumerate(raw or [])]
    answers = _strings(read, data, "answers")
    annotations = _annotations(read, data)
    metadata = data.get("metadata", _ABSENT)
    if metadata is not _ABSENT and not isinstance(metadata, dict):
        read.issues.append(_type(["metadata"], "object", metadata))
    if not read.issues:
        message = uniqueness_problem(data)
        if message is not None:
            read.issues.append(_custom([], message))
    if read.issues:
        raise InvalidCall(ASK_USER_QUESTION, read.issues)
    questions = [p[0] for p in parsed if p is not None]
    given = dict(answers or {})
    for found in parsed:  # a number's starting value is a suggestion the person confirms
        if found is not None and found[1] is not None and found[0].question not in given:
            given[found[0].question] = _shown(found[1])
    return AskInput(
        tuple(questions),
        given or None,
        annotations,
        extras=True,
        title=title if title and title.strip() else None,
    )
