"""Gemini CLI's ``ask_user`` tool, answered as Gemini CLI answers it.

The model sends a ``functionCall`` named ``ask_user`` whose ``args`` hold 1-4 questions of
type ``choice`` (2-4 options, an automatic Other, ``multiSelect``), ``text`` or ``yesno``.
The reply is the ``functionResponse``'s ``response``: ``{"output": "{\\"answers\\":{...}}"}``,
the answers keyed by 0-based question index, unanswered questions left out, built with
``JSON.stringify``'s spacing; a dismissal is ``{"error": "[Operation Cancelled] Reason: User
denied execution."}``; an invalid call ``{"error": "<Ajv's or the tool's own text>"}``.
Texts and limits: ``packages/core/src/tools/ask-user.ts``, ``AskUserDialog.tsx`` and the
scheduler of google-gemini/gemini-cli (checked against ``@google/gemini-cli-core`` 0.61.0).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ...errors import InvalidCall
from ...questions.outcome import Outcome
from ...schema.issues import Issue
from ...schema.shapes import AskInput, Option, SharedQuestion
from ..results import ToolResult
from .base import Asked, Dialect

TOOL = "ask_user"
TYPES = ("choice", "text", "yesno")
MAX_QUESTIONS = 4
MIN_OPTIONS, MAX_OPTIONS = 2, 4
SEPARATOR = ", "  # a multi-select's labels, in option order, then Other's text
ALL_OF_THE_ABOVE = Option("All of the above", "Select all options")
YES_NO = (Option("Yes", ""), Option("No", ""))

CANCELLED = "[Operation Cancelled] Reason: "
DENIED = CANCELLED + "User denied execution."  # Esc or Ctrl+C in the dialog

DESCRIPTION = (
    "Ask the user one or more questions to gather preferences, clarify requirements, "
    "or make decisions."
)
# what models of the gemini-3 family are told instead (the schema is the same)
DESCRIPTION_GEMINI_3 = (
    DESCRIPTION + " When using this tool, prefer providing multiple-choice options with "
    "detailed descriptions and enable multi-select where appropriate to provide maximum "
    "flexibility."
)

# JavaScript's String.prototype.trim: WhiteSpace and LineTerminator (not Python's isspace)
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_TRIM = re.compile(f"^[{_JS_SPACE}]+|[{_JS_SPACE}]+$")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_trim(text: str) -> str:
    return _JS_TRIM.sub("", text)


def unescape(text: str) -> str:
    """``createInvocation``'s unescape: a literal ``\\r\\n`` or ``\\n`` becomes a newline."""
    return text.replace("\\r\\n", "\n").replace("\\n", "\n")


def stringify(value: Any) -> str:
    """``JSON.stringify(value)``: no spaces, non-ASCII as it is, a lone surrogate escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# ---- validation: Ajv first (only its first error), then validateToolParamValues ----


class _Refusal(Exception):
    def __init__(self, message: str, path: list[str | int], code: str = "custom") -> None:
        super().__init__(message)
        self.message, self.path, self.code = message, path, code


def _where(path: list[str | int]) -> str:
    return "params" + "".join(f"/{part}" for part in path)


def _type_name(value: Any) -> str | None:
    """The JSON type Ajv's ``type`` keyword would accept ``value`` as."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else None


def _must_be(value: Any, kind: str, path: list[str | int]) -> None:
    if _type_name(value) != kind:
        raise _Refusal(f"{_where(path)} must be {kind}", path, "invalid_type")


def _required(node: dict[str, Any], keys: tuple[str, ...], path: list[str | int]) -> None:
    for key in keys:
        if key not in node:
            message = f"{_where(path)} must have required property '{key}'"
            raise _Refusal(message, [*path, key], "invalid_type")


def _ajv(params: Any) -> None:
    """The schema's checks in Ajv's order (type, required, then properties in the order
    the schema lists them; items in order), stopping at the first as Ajv does."""
    if not isinstance(params, dict):
        if isinstance(params, list):  # typeof [] is 'object': Ajv sees it
            raise _Refusal("params must be object", [], "invalid_type")
        raise _Refusal("Value of params must be an object", [], "invalid_type")
    _required(params, ("questions",), [])
    questions = params["questions"]
    _must_be(questions, "array", ["questions"])
    if len(questions) < 1:
        raise _Refusal(
            "params/questions must NOT have fewer than 1 items", ["questions"], "too_small"
        )
    if len(questions) > MAX_QUESTIONS:
        message = f"params/questions must NOT have more than {MAX_QUESTIONS} items"
        raise _Refusal(message, ["questions"], "too_big")
    for i, q in enumerate(questions):
        at: list[str | int] = ["questions", i]
        _must_be(q, "object", at)
        _required(q, ("question", "header", "type"), at)
        _must_be(q["question"], "string", [*at, "question"])
        _must_be(q["header"], "string", [*at, "header"])
        _must_be(q["type"], "string", [*at, "type"])
        if q["type"] not in TYPES:
            message = f"{_where([*at, 'type'])} must be equal to one of the allowed values"
            raise _Refusal(message, [*at, "type"], "invalid_enum_value")
        if "options" in q:
            _must_be(q["options"], "array", [*at, "options"])
            for j, option in enumerate(q["options"]):
                place: list[str | int] = [*at, "options", j]
                _must_be(option, "object", place)
                _required(option, ("label", "description"), place)
                _must_be(option["label"], "string", [*place, "label"])
                _must_be(option["description"], "string", [*place, "description"])
        if "multiSelect" in q:
            _must_be(q["multiSelect"], "boolean", [*at, "multiSelect"])
        if "placeholder" in q:
            _must_be(q["placeholder"], "string", [*at, "placeholder"])


def _tool_checks(params: dict[str, Any]) -> None:
    """``AskUserTool.validateToolParamValues``, with its 1-based numbers."""
    for i, q in enumerate(params["questions"], start=1):
        options = q.get("options")
        at: list[str | int] = ["questions", i - 1, "options"]
        if q["type"] == "choice":
            if not options or len(options) < MIN_OPTIONS:
                message = (
                    f"Question {i}: type='choice' requires 'options' array with "
                    f"{MIN_OPTIONS}-{MAX_OPTIONS} items."
                )
                raise _Refusal(message, at, "too_small")
            if len(options) > MAX_OPTIONS:
                message = f"Question {i}: 'options' array must have at most {MAX_OPTIONS} items."
                raise _Refusal(message, at, "too_big")
        for j, option in enumerate(options or [], start=1):
            if not js_trim(option["label"]):
                message = (
                    f"Question {i}, option {j}: 'label' is required and must be a non-empty string."
                )
                raise _Refusal(message, [*at, j - 1, "label"])


def invalid_text(issues: list[Issue]) -> str:
    """What the model gets for an invalid call: the one message, Ajv's or the tool's own,
    as the scheduler's error response carries it (no prefix)."""
    return "; ".join(str(issue["message"]) for issue in issues)


def _unique(text: str, taken: set[str]) -> str:
    """``text``, numbered `` (2)``, `` (3)``... when an earlier question has it: askcli
    keys its answers by question text; the reply keys them by index."""
    if text not in taken:
        return text
    n = 2
    while f"{text} ({n})" in taken:
        n += 1
    return f"{text} ({n})"


SUGGESTED = "The agent suggested (type one of these, or your own answer):"


def suggested(options: list[dict[str, Any]] | None) -> str | None:
    """A ``text`` question's options, which the model may still send: Gemini CLI's dialog
    shows a text field and drops them; askcli asks the same typed question and lists them
    under it, so that nothing the model wrote is hidden from the person."""
    if not options:
        return None
    lines = [SUGGESTED]
    for o in options:
        label, about = unescape(o["label"]), js_trim(o["description"])
        lines.append(f"- {label}: {unescape(about)}" if about else f"- {label}")
    return "\n".join(lines)


def _question(q: dict[str, Any], text: str, alone: bool) -> SharedQuestion:
    header = unescape(q["header"]) if q["header"] else q["header"]
    placeholder = unescape(q["placeholder"]) if q.get("placeholder") else q.get("placeholder")
    multi = q["type"] == "choice" and q.get("multiSelect") is True
    # any question may be left unanswered (it is left out of the reply): from the review,
    # or, alone, as an empty text or a multi-select's Done with nothing chosen; a lone
    # single choice (or yes/no) is answered or dismissed
    required = alone and q["type"] != "text" and not multi
    if q["type"] == "text":
        return SharedQuestion(
            text, header, (), kind="text", other=False, required=required,
            placeholder=placeholder, notes=False, description=suggested(q.get("options")),
        )  # fmt: skip
    if q["type"] == "yesno":  # the model's options are not shown
        return SharedQuestion(
            text, header, YES_NO, kind="yesno", required=required,
            placeholder=placeholder, notes=False,
        )  # fmt: skip
    options = []
    for o in q["options"]:
        about = js_trim(o["description"])
        options.append(Option(unescape(o["label"]), unescape(about) if about else ""))
    if multi:
        options.append(ALL_OF_THE_ABOVE)  # the dialog's row; never itself in an answer
    return SharedQuestion(
        text, header, tuple(options), multi, required=required, placeholder=placeholder,
        notes=False,
    )  # fmt: skip


def parse(raw: Any) -> AskInput:
    """``args`` as the shared model (texts unescaped as the CLI does), or InvalidCall with
    the CLI's own text as the one issue's message."""
    params = {} if raw is None else raw  # turn.ts: `fnCall.args || {}`
    try:
        _ajv(params)
        _tool_checks(params)
    except _Refusal as refusal:
        issue = {"code": refusal.code, "message": refusal.message, "path": refusal.path}
        raise InvalidCall(TOOL, [issue]) from None
    raw_questions = params["questions"]
    taken: set[str] = set()
    questions = []
    for q in raw_questions:
        text = _unique(unescape(q["question"]), taken)
        taken.add(text)
        questions.append(_question(q, text, len(raw_questions) == 1))
    return AskInput(tuple(questions))


# ---- the reply ----


def _answer(asked: Asked, index: int) -> str:
    """Question ``index``'s answer as the dialog builds it ('' when unanswered)."""
    question = asked.data.questions[index]
    if question.typed:
        return js_trim(asked.answers.get(question.question, ""))
    return SEPARATOR.join(_parts(asked, index))


def _parts(asked: Asked, index: int) -> list[str]:
    """The labels chosen at choice question ``index`` in option order ("All of the above":
    every one), then Other's text: what the dialog joins."""
    question = asked.data.questions[index]
    chosen = asked.selections(index)
    if not chosen:
        return []
    raw = asked.call.input["questions"][index]
    count = len(question.options)
    if question.kind == "choice" and question.multiSelect:
        count = len(raw["options"])  # the last row is All of the above
        if count + 1 in chosen:
            chosen = tuple(range(1, count + 1))
    labels = [question.options[n - 1].label for n in sorted(set(chosen)) if n <= count]
    other = asked.other_text(index)
    if other is not None and js_trim(other):
        labels.append(js_trim(other))
    return labels


def answers(asked: Asked) -> dict[str, str]:
    """The dialog's answers: 0-based index -> answer, the unanswered left out."""
    out = {}
    for i in range(len(asked.data.questions)):
        answer = _answer(asked, i)
        if answer:
            out[str(i)] = answer
    return out


def _data(asked: Asked, given: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    """The data for scripts: the answers by index, a multi-select's as a list of its parts."""
    listed: dict[str, str | list[str]] = dict(given)
    for key in given:
        question = asked.data.questions[int(key)]
        if not question.typed and question.kind == "choice" and question.multiSelect:
            listed[key] = _parts(asked, int(key))
    return {
        "questions": asked.call.input["questions"],
        "answers": listed,
        "status": asked.fates(),
        **extra,
    }


def reply(asked: Asked) -> ToolResult:
    """What the model gets back, in the ``functionResponse``'s ``response``."""
    given = answers(asked)
    call_id = asked.call.id
    if asked.outcome is Outcome.ANSWERED:
        output = stringify({"answers": given})
        updated = {**asked.call.input, "answers": given}
        return ToolResult(
            call_id,
            output,
            Outcome.ANSWERED,
            data=_data(asked, given),
            updated_input=updated,
            reply={"output": output},
        )
    if asked.why is not None:  # nobody answered: Gemini CLI's cancellation, askcli's reason
        text = f"{CANCELLED}No answer from the user ({asked.why})."
        if given:
            text += f" Answers given before that: {stringify({'answers': given})}"
    else:  # q, c or Ctrl-C: the dialog's Esc
        text = DENIED
    extra = {"clarification": asked.clarification} if asked.outcome is Outcome.CLARIFIED else {}
    return ToolResult(
        call_id,
        text,
        asked.outcome,
        is_error=True,
        data=_data(asked, given, **extra),
        reply={"error": text},
    )


def definition() -> dict[str, Any]:
    """The declaration Gemini CLI sends (``getSchema`` for gemini-2.5 and other models;
    gemini-3 models get :data:`DESCRIPTION_GEMINI_3`), key order as sent."""
    option = {
        "type": "object",
        "required": ["label", "description"],
        "properties": {
            "label": {
                "type": "string",
                "description": 'The display text for this option (1-5 words). Example: "OAuth 2.0"',
            },
            "description": {
                "type": "string",
                "description": (
                    'Brief explanation of this option. Example: "Industry standard, supports SSO"'
                ),
            },
        },
    }
    question = {
        "type": "object",
        "required": ["question", "header", "type"],
        "properties": {
            "question": {
                "type": "string",
                "description": (
                    "The complete question to ask the user. Should be clear, specific, "
                    "and end with a question mark."
                ),
            },
            "header": {
                "type": "string",
                "description": (
                    "Very short label displayed as a chip/tag. Use abbreviations: "
                    '"Auth" not "Authentication", "Config" not "Configuration". '
                    'Examples: "Auth method", "Library", "Approach", "Database".'
                ),
            },
            "type": {
                "type": "string",
                "enum": list(TYPES),
                "default": "choice",
                "description": (
                    "Question type: 'choice' (default) for multiple-choice with options, "
                    "'text' for free-form input, 'yesno' for Yes/No confirmation with "
                    "optional 'Other' feedback."
                ),
            },
            "options": {
                "type": "array",
                "description": (
                    "The selectable choices for 'choice' type questions. Provide 2-4 "
                    "options. An 'Other' option is automatically added for 'choice' and "
                    "'yesno' types. Not needed for 'text' or 'yesno'."
                ),
                "items": option,
            },
            "multiSelect": {
                "type": "boolean",
                "description": (
                    "Only applies when type='choice'. Set to true to allow selecting "
                    "multiple options."
                ),
            },
            "placeholder": {
                "type": "string",
                "description": (
                    "Hint text shown in the input field. For type='text', shown in the "
                    "main input. For type='choice' and 'yesno', shown in the 'Other' "
                    "custom input."
                ),
            },
        },
    }
    return {
        "name": TOOL,
        "description": DESCRIPTION,
        "parametersJsonSchema": {
            "type": "object",
            "required": ["questions"],
            "properties": {
                "questions": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_QUESTIONS,
                    "items": question,
                }
            },
        },
    }


_OTHER = re.compile(r"other\b.*", re.IGNORECASE)


def warnings(data: AskInput) -> list[str]:
    """The declaration's soft rules (``check --strict``): the CLI accepts these calls."""
    found = []
    for i, q in enumerate(data.questions):
        where = f"questions[{i}]"
        if not q.question.rstrip().endswith("?"):
            found.append(f"{where}.question does not end with a question mark")
        if len(q.header) > 16:
            found.append(
                f"{where}.header is longer than 16 characters (cut short on inactive tabs)"
            )
        if q.kind == "text" and q.description and q.description.startswith(SUGGESTED):
            found.append(
                f"{where} is a text question with options: Gemini CLI drops them "
                "(askcli lists them as suggestions)"
            )
        if q.kind != "choice":
            continue
        for j, option in enumerate(q.options):
            if option == ALL_OF_THE_ABOVE and q.multiSelect and j == len(q.options) - 1:
                continue
            if len(option.label.split()) > 5:
                found.append(f"{where}.options[{j}].label has more than 5 words")
            if _OTHER.fullmatch(option.label.strip()):
                found.append(
                    f"{where}.options[{j}].label is an Other option; Other is added by itself"
                )
            if q.multiSelect and SEPARATOR in option.label:
                found.append(
                    f"{where}.options[{j}].label holds {SEPARATOR!r}, which also joins "
                    "a multi-select's answers"
                )
    return found


DIALECT = Dialect(
    "gemini",
    TOOL,
    parse,
    reply,
    definition,
    warnings,
    invalid_text,
)
