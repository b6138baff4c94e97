"""Codex's ``request_user_input`` (codex-cli 0.171.0), in its own shapes and words.

The call: ``{"questions": [{"id", "header", "question", "options": [{"label",
"description"}]}]}``, usually as a Responses API ``function_call``. Codex reads it with
serde, so unknown keys are ignored and none of the schema's "1-3 questions", "2-3
options" or "12 or fewer chars" is enforced (they are soft rules here, for ``check
--strict``); only a missing or empty ``options`` is refused. Every question gets the
client's free-form Other; ``isSecret`` (not in the schema, honoured when sent) hides the
typed text at the terminal, but the model gets it, as from Codex.

The reply is ``serde_json::to_string`` of the answers by question id:
``{"answers":{"<id>":{"answers":["Label","user_note: notes"]}}}``; a skipped question
has ``[]``. Codex's TUI sends Other as the label ``None of the above`` with the person's
text as a note. A decline or Ctrl-C is Codex's tool abort text (``aborted by user after
1.2s``); no answer (a timeout, the input ended, a hang-up) is the empty answer Codex's
auto-resolution sends, ``{"answers":{}}``.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from ...errors import InvalidCall
from ...questions.outcome import Outcome
from ...schema.issues import Issue, Path, zod_type
from ...schema.shapes import AskInput, Option, SharedQuestion
from ..results import ToolResult
from .base import Asked, Dialect

TOOL = "request_user_input"
OTHER_LABEL = "None of the above"  # the TUI's Other row, sent as the answer's label
NOTE_PREFIX = "user_note: "
NO_OPTIONS = "request_user_input requires non-empty options for every question"
PARSE_FAILED = "failed to parse function arguments: "
DESCRIPTION = (
    "Request user input for one to three short questions and wait for the response. "
    "This tool is only available in Plan mode."
)
# the advertised limits, prompt text only in Codex: warnings for check --strict
MAX_QUESTIONS = 3
OPTIONS_RANGE = (2, 3)
HEADER_MAX = 12
LABEL_MAX_WORDS = 5
_clock = time.monotonic  # how long a call ran (tests set their own)
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


def definition() -> dict[str, Any]:
    """The tool object Codex 0.171.0 sends in ``tools`` (default config: Plan mode)."""
    option = {
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "description": "One short sentence explaining impact/tradeoff if selected.",
            },
            "label": {"type": "string", "description": "User-facing label (1-5 words)."},
        },
        "required": ["label", "description"],
        "additionalProperties": False,
    }
    question = {
        "type": "object",
        "properties": {
            "header": {
                "type": "string",
                "description": "Short header label shown in the UI (12 or fewer chars).",
            },
            "id": {
                "type": "string",
                "description": "Stable identifier for mapping answers (snake_case).",
            },
            "options": {
                "type": "array",
                "description": (
                    "Provide 2-3 mutually exclusive choices. Put the recommended option first "
                    'and suffix its label with "(Recommended)". Do not include an "Other" '
                    'option in this list; the client will add a free-form "Other" option '
                    "automatically."
                ),
                "items": option,
            },
            "question": {
                "type": "string",
                "description": "Single-sentence prompt shown to the user.",
            },
        },
        "required": ["id", "header", "question", "options"],
        "additionalProperties": False,
    }
    return {
        "type": "function",
        "name": TOOL,
        "description": DESCRIPTION,
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "questions": {
                    "type": "array",
                    "description": "Questions to show the user. Prefer 1 and do not exceed 3",
                    "items": question,
                }
            },
            "required": ["questions"],
            "additionalProperties": False,
        },
    }


_ZOD = {"a string": "string", "a boolean": "boolean", "a sequence": "array"}  # zod's names


# serde's words for what it found (``Unexpected``) and what it wanted
def _found(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{json.dumps(value)}`"
    if isinstance(value, int) and value.bit_length() < 64:
        return f"integer `{value}`"
    if isinstance(value, int | float):
        return f"floating point `{float(value)!r}`"
    if isinstance(value, str):
        return f"string {json.dumps(value, ensure_ascii=False)}"
    return "sequence" if isinstance(value, list) else "map"


def _wrong(value: Any, expected: str, path: Path) -> InvalidCall:
    """serde's ``invalid type`` as a zod-style issue."""
    issue: Issue = {
        "code": "invalid_type",
        "expected": _ZOD.get(expected, "object"),
        "received": zod_type(value),
        "message": f"invalid type: {_found(value)}, expected {expected}",
        "path": path,
    }
    return InvalidCall(TOOL, [issue])


def _fields(node: dict[str, Any], types: dict[str, str], path: Path) -> None:
    """serde's checks of one struct: each known field's type in the order the fields
    come, then the first required field missing (in declaration order). Unknown fields
    are ignored, as serde does."""
    for key, value in node.items():
        expected = types.get(key)
        if expected is None or (expected == "options" and value is None):
            continue
        if expected == "options":
            if not isinstance(value, list):
                raise _wrong(value, "a sequence", [*path, key])
            for j, entry in enumerate(value):
                at: Path = [*path, key, j]
                if not isinstance(entry, dict):
                    raise _wrong(entry, "struct RequestUserInputQuestionOption", at)
                _fields(entry, _OPTION_FIELDS, at)
        elif not isinstance(value, str if expected == "a string" else bool):
            raise _wrong(value, expected, [*path, key])
    for key, expected in types.items():
        if expected == "a string" and key not in node:
            issue: Issue = {
                "code": "invalid_type",
                "expected": "string",
                "received": "undefined",
                "message": f"missing field `{key}`",
                "path": path,
            }
            raise InvalidCall(TOOL, [issue])


# the fields serde knows, in their declaration order: what each must be
_QUESTION_FIELDS = {
    "id": "a string",
    "header": "a string",
    "question": "a string",
    "isOther": "a boolean",
    "isSecret": "a boolean",
    "options": "options",
}
_OPTION_FIELDS = {"label": "a string", "description": "a string"}


def _unique(text: str, taken: set[str]) -> str:
    """``text``, or ``text (2)``, ``(3)``...: answers are kept by question text."""
    candidate, n = text, 1
    while candidate in taken:
        n += 1
        candidate = f"{text} ({n})"
    taken.add(candidate)
    return candidate


class _Parsed(AskInput):
    """A parsed call, with the input as sent (for ``check --strict``: ids, keys Codex
    ignores) and when it was read (Codex's abort text says how long the tool ran)."""

    raw: dict[str, Any]
    started: float

    def __new__(cls, questions: tuple[SharedQuestion, ...], raw: dict[str, Any]) -> _Parsed:
        self = super().__new__(cls, questions)
        self.raw = raw
        self.started = _clock()
        return self


def parse(raw: Any) -> AskInput:
    """The call as the shared question model, checked as Codex checks it: serde's types
    and required fields (its first complaint, in its words), then non-empty options.
    Unknown keys, and any number of questions or options, pass as they do in Codex."""
    if not isinstance(raw, dict):
        raise _wrong(raw, "struct RequestUserInputArgs", [])
    items = raw.get("questions")
    if "questions" in raw and not isinstance(items, list):
        raise _wrong(items, "a sequence", ["questions"])
    for i, item in enumerate(items or []):
        if not isinstance(item, dict):
            raise _wrong(item, "struct RequestUserInputQuestion", ["questions", i])
        _fields(item, _QUESTION_FIELDS, ["questions", i])
    if not isinstance(items, list):
        issue: Issue = {
            "code": "invalid_type",
            "expected": "array",
            "received": "undefined",
            "message": "missing field `questions`",
            "path": [],
        }
        raise InvalidCall(TOOL, [issue])
    empty = [["questions", i, "options"] for i, q in enumerate(items) if not q.get("options")]
    if empty:
        raise InvalidCall(
            TOOL, [{"code": "custom", "message": NO_OPTIONS, "path": path} for path in empty]
        )
    taken: set[str] = set()
    questions = tuple(
        SharedQuestion(
            _unique(q["question"], taken),
            q["header"],
            tuple(Option(o["label"], o["description"]) for o in q["options"]),
            other=True,  # Codex sets isOther on every question, whatever was sent
            required=False,  # the TUI submits with unanswered questions
            secret=q.get("isSecret", False),
        )
        for q in items
    )
    return _Parsed(questions, raw)


def invalid_text(issues: list[Issue]) -> str:
    """The ``function_call_output`` Codex sends for an invalid call: serde's first
    complaint after ``failed to parse function arguments: ``, or the options error."""
    message = str(issues[0]["message"]) if issues else "invalid arguments"
    return message if message == NO_OPTIONS else PARSE_FAILED + message


def warnings(parsed: Any) -> list[str]:
    """The schema's advice Codex does not enforce (for ``askcli check --strict``), for
    a parsed call (or its input as sent)."""
    out: list[str] = []
    raw = parsed.raw if isinstance(parsed, _Parsed) else parsed
    items = raw.get("questions") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        return out
    for key in raw:
        if key != "questions":
            out.append(f"{key}: not in the schema (Codex ignores it)")
    if len(items) > MAX_QUESTIONS:
        out.append(f"questions: {len(items)} questions; the schema says do not exceed 3")
    ids: set[str] = set()
    for i, q in enumerate(items):
        if not isinstance(q, dict):
            continue
        at = f"questions[{i}]"
        for key in q:
            if key not in _QUESTION_FIELDS:
                out.append(f"{at}.{key}: not in the schema (Codex ignores it)")
            elif key in ("isOther", "isSecret"):
                out.append(f"{at}.{key}: not in the schema the model is given")
        qid, header, options = q.get("id"), q.get("header"), q.get("options")
        if isinstance(qid, str):
            if qid in ids:
                out.append(f"{at}.id: {qid!r} is used twice; one answer would hide the other")
            ids.add(qid)
            if not _SNAKE.fullmatch(qid):
                out.append(f"{at}.id: {qid!r} is not snake_case")
        if isinstance(header, str) and len(header) > HEADER_MAX:
            out.append(f"{at}.header: longer than {HEADER_MAX} characters")
        if not isinstance(options, list):
            continue
        low, high = OPTIONS_RANGE
        if options and not low <= len(options) <= high:
            count = f"{len(options)} option{'s' if len(options) != 1 else ''}"
            out.append(f"{at}.options: {count}; the schema asks for 2-3")
        for j, o in enumerate(options):
            label = o.get("label") if isinstance(o, dict) else None
            if not isinstance(label, str):
                continue
            where = f"{at}.options[{j}].label"
            if len(label.split()) > LABEL_MAX_WORDS:
                out.append(f"{where}: more than {LABEL_MAX_WORDS} words")
            if label.strip().lower() in ("other", OTHER_LABEL.lower()):
                out.append(f"{where}: the client adds Other itself")
            if j > 0 and label.rstrip().lower().endswith("(recommended)"):
                out.append(f"{where}: the recommended option goes first")
    return out


def _ids(asked: Asked) -> list[str]:
    return [q["id"] for q in asked.call.input["questions"]]


def _answers(asked: Asked, words: str | None = None, at: int | None = None) -> dict[str, Any]:
    """Codex's answers by question id: the label chosen, or ``None of the above`` for
    Other, then the person's texts as ``user_note: ...`` (Other's text, the notes, and
    ``words`` at question ``at``). A later question with the same id wins, as in Codex."""
    out: dict[str, Any] = {}
    for i, qid in enumerate(_ids(asked)):
        values = list(asked.chosen_labels(i))
        texts = []
        other = asked.other_text(i)
        if other is not None:
            values.append(OTHER_LABEL)
            texts.append(other)
        notes = asked.notes(i)
        if notes:
            texts.append(notes)
        if words is not None and i == at:
            texts.append(words)
        values += [NOTE_PREFIX + text.strip() for text in texts if text.strip()]
        out[qid] = {"answers": values}
    return out


def _json(value: Any) -> str:
    """``serde_json::to_string``: compact, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _elapsed(asked: Asked) -> float:
    started = getattr(asked.data, "started", None)
    return 0.0 if started is None else _clock() - started


def abort_text(seconds: float) -> str:
    """Codex's output for a tool call the person aborted (``core/src/tools/parallel.rs``)."""
    return f"aborted by user after {max(seconds, 0.1):.1f}s"


def reply(asked: Asked) -> ToolResult:
    """The ``function_call_output`` text for what the person did."""
    given = _answers(asked)
    data = {
        "questions": asked.call.input["questions"],
        "answers": given,
        "status": asked.fates(),
    }
    call_id = asked.call.id
    if asked.outcome is Outcome.ANSWERED:
        text = _json({"answers": given})
        updated = {**asked.call.input, "answers": given}
        return ToolResult(call_id, text, Outcome.ANSWERED, data=data, updated_input=updated)
    if asked.outcome is Outcome.CLARIFIED:
        # "chat about this": the person's words as a note on the question they were at
        # (the first, from the review), with whatever they had chosen
        at = asked.conclusion.state.at
        at = at if at < len(asked.data.questions) else 0
        words = _answers(asked, asked.clarification, at)
        data["answers"] = words
        return ToolResult(call_id, _json({"answers": words}), asked.outcome, data=data)
    if asked.outcome in (Outcome.DECLINED, Outcome.INTERRUPTED):
        text = abort_text(_elapsed(asked))
        return ToolResult(call_id, text, asked.outcome, is_error=True, data=data)
    # nobody answered: Codex's auto-resolution sends no answers at all
    return ToolResult(call_id, _json({"answers": {}}), asked.outcome, data=data)


DIALECT = Dialect(
    "codex",
    TOOL,
    parse,
    reply,
    definition,
    warnings,
    invalid_text,
)
