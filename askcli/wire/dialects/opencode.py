"""OpenCode's ``question`` tool (opencode 1.18.34, the v1 tool its TUI and server run).

Input: ``{"questions": [{question, header, options: [{label, description}], multiple?,
custom?}]}``. OpenCode checks types and required keys only (Effect Schema, first issue
only): no limit on the number of questions or options, nor on any length; unknown keys are
dropped. ``custom`` is not in the model's schema (OpenCode strips it from a model's call)
but is part of the question as its server and SDK carry it: ``custom: false`` is honoured
here, so the question has no Other. A question without options can only be answered by
typing, so it is asked as a text question whatever ``custom`` says. With several questions
any may be left unanswered (OpenCode's Confirm tab); a question alone is answered or
dismissed. An empty ``questions`` is answered at once, as OpenCode 1.18.34 answers it.

Reply: ``User has answered your questions: "q"="a, b", ... You can now continue with the
user's answers in mind.``, ``Unanswered`` for a question left without answer; a dismissal
is ``The user dismissed this question`` (an error). OpenCode has no place for notes, no
"chat about this" and no timeout: notes go to ``--output answers`` only, the person's
words of "chat about this" are the tool failure (as OpenCode's newer runtime sends a
dismissal with a message), and a call nobody answered says so in askcli's words.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from ...errors import InvalidCall
from ...questions.outcome import Outcome
from ...schema.issues import Issue, Path
from ...schema.shapes import LABEL_MAX_WORDS, AskInput, Option, SharedQuestion, is_recommended
from .. import results
from ..results import DISMISSED, ToolResult
from .base import Asked, Dialect, failed

TOOL = "question"
UNANSWERED = "Unanswered"
TYPE_OWN = "Type your own answer"  # the TUI's custom row and its placeholder
HEADER_HINT = 30  # "Very short label (max 30 chars)": a hint, never enforced

DESCRIPTION = (
    "Use this tool when you need to ask the user questions during execution. "
    "This allows you to:\n"
    "1. Gather user preferences or requirements\n"
    "2. Clarify ambiguous instructions\n"
    "3. Get decisions on implementation choices as you work\n"
    "4. Offer choices to the user about what direction to take.\n"
    "\n"
    "Usage notes:\n"
    '- When `custom` is enabled (default), a "Type your own answer" option is added '
    'automatically; don\'t include "Other" or catch-all options\n'
    "- Answers are returned as arrays of labels; set `multiple: true` to allow selecting "
    "more than one\n"
    "- If you recommend a specific option, make that the first option in the list and add "
    '"(Recommended)" at the end of the label\n'
)

# the parameters exactly as opencode 1.18.34 sends them (Chat Completions, Anthropic)
PARAMETERS_JSON = (
    '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",'
    '"properties":{"questions":{"type":"array","items":{"type":"object","properties":'
    '{"question":{"type":"string","description":"Complete question"},'
    '"header":{"type":"string","description":"Very short label (max 30 chars)"},'
    '"options":{"type":"array","items":{"type":"object","properties":'
    '{"label":{"type":"string","description":"Display text (1-5 words, concise)"},'
    '"description":{"type":"string","description":"Explanation of choice"}},'
    '"required":["label","description"]},"description":"Available choices"},'
    '"multiple":{"type":"boolean","description":"Allow selecting multiple choices"}},'
    '"required":["question","header","options"]},"description":"Questions to ask"}},'
    '"required":["questions"]}'
)


def definition() -> dict[str, Any]:
    """The tool as OpenCode gives it to its model (the openai-compatible ``function``)."""
    return {"name": TOOL, "description": DESCRIPTION, "parameters": json.loads(PARAMETERS_JSON)}


def _shown(value: Any) -> str:
    """A value as Effect's ``formatUnknown`` prints it in ``got ...``."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value)) if abs(value) < 1e21 else repr(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_shown(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = (f"{json.dumps(str(k), ensure_ascii=False)}:{_shown(v)}" for k, v in value.items())
        return "{" + ",".join(pairs) + "}"
    return str(value)


def _issue(message: str, path: Path, code: str = "invalid_type") -> InvalidCall:
    return InvalidCall(TOOL, [{"code": code, "message": message, "path": path}])


def _expect(node: Any, key: str, path: Path, expected: str, ok: type | tuple[type, ...]) -> Any:
    if key not in node:
        raise _issue("Missing key", [*path, key])
    value = node[key]
    if not isinstance(value, ok):
        raise _issue(f"Expected {expected}, got {_shown(value)}", [*path, key])
    return value


def _optional_boolean(node: dict[str, Any], key: str, path: Path) -> bool | None:
    value = node.get(key)
    if key in node and not isinstance(value, bool):
        raise _issue(f"Expected boolean | undefined, got {_shown(value)}", [*path, key])
    return value


def _unique(texts: Sequence[str]) -> list[str]:
    """The question texts made unique (askcli keys answers by text; OpenCode by place):
    a repeated text gets `` (2)``, `` (3)``, ... ."""
    originals = set(texts)
    taken: set[str] = set()
    out: list[str] = []
    for text in texts:
        name, n = text, 1
        while name in taken:
            n += 1
            name = f"{text} ({n})"
            if name in originals:  # never take the text of another question
                name = text
        taken.add(name)
        out.append(name)
    return out


def parse(raw: Any) -> AskInput:
    """OpenCode's checks, in its order, reporting the first issue as it words it."""
    if not isinstance(raw, dict):
        raise _issue(f"Expected object, got {_shown(raw)}", [])
    items = _expect(raw, "questions", [], "array", list)
    parsed: list[SharedQuestion] = []
    several = len(items) > 1  # one question alone is answered or dismissed, never skipped
    for i, item in enumerate(items):
        where: Path = ["questions", i]
        if not isinstance(item, dict):
            raise _issue(f"Expected QuestionPrompt, got {_shown(item)}", where)
        text = _expect(item, "question", where, "string", str)
        header = _expect(item, "header", where, "string", str)
        raw_options = _expect(item, "options", where, "array", list)
        options = []
        for j, option in enumerate(raw_options):
            at: Path = [*where, "options", j]
            if not isinstance(option, dict):
                raise _issue(f"Expected QuestionOption, got {_shown(option)}", at)
            label = _expect(option, "label", at, "string", str)
            description = _expect(option, "description", at, "string", str)
            options.append(Option(label, description))
        multiple = _optional_boolean(item, "multiple", where)
        custom = item.get("custom")  # not in the model's schema: honoured when a boolean
        if not options:  # nothing to choose: the answer is typed
            parsed.append(
                SharedQuestion(text, header, (), kind="text", required=not several, notes=False)
            )
            continue
        parsed.append(
            SharedQuestion(
                text,
                header,
                tuple(options),
                multiSelect=multiple is True,
                other=custom is not False,
                required=not several,  # its Confirm tab submits a question unanswered
                notes=False,  # OpenCode's reply has no place for notes
            )
        )
    names = _unique([q.question for q in parsed])
    return AskInput(tuple(q._replace(question=n) for q, n in zip(parsed, names, strict=True)))


def invalid_text(issues: list[Issue]) -> str:
    """What OpenCode tells its model about an invalid call (its ToolInvalidArgumentsError
    around an Effect SchemaError)."""
    lines = []
    for issue in issues:
        line = issue["message"]
        if issue["path"]:
            line += "\n  at " + "".join(
                f"[{json.dumps(p, ensure_ascii=False)}]" for p in issue["path"]
            )
        lines.append(line)
    detail = "SchemaError(" + "\n".join(lines) + ")"
    return (
        f"The {TOOL} tool was called with invalid arguments: {detail}.\n"
        "Please rewrite the input so it satisfies the expected schema."
    )


def _texts(asked: Asked) -> list[str]:
    """The questions as the agent wrote them (not made unique), in order."""
    questions = asked.call.input["questions"]
    return [q["question"] for q in questions]


def answer_lists(asked: Asked) -> list[list[str]]:
    """Each question's answer as OpenCode keeps it: the chosen labels and the typed text in
    the order given; ``[]`` for a question left unanswered."""
    out: list[list[str]] = []
    for i, question in enumerate(asked.data.questions):
        if question.typed:
            typed = asked.answers.get(question.question)
            out.append([typed] if typed else [])
            continue
        labels = [o.label for o in question.options]
        other = asked.other_text(i)
        answer = []
        for number in asked.selections(i):
            if number <= len(labels):
                answer.append(labels[number - 1])
            elif other is not None:
                answer.append(other)
        out.append(answer)
    return out


def answered_text(questions: Sequence[str], answers: Sequence[Sequence[str]]) -> str:
    """OpenCode's tool output: every question, answered or ``Unanswered``, nothing escaped."""
    pieces = []
    for i, question in enumerate(questions):
        given = answers[i] if i < len(answers) else ()
        pieces.append(f'"{question}"="{", ".join(given) if given else UNANSWERED}"')
    return (
        f"User has answered your questions: {', '.join(pieces)}. "
        "You can now continue with the user's answers in mind."
    )


def _listed(asked: Asked, lists: Sequence[list[str]]) -> dict[str, str | list[str]]:
    """The answers by question text for scripts: a multiple question's as its list."""
    out: dict[str, str | list[str]] = dict(asked.answers)
    for question, given in zip(asked.data.questions, lists, strict=True):
        if question.multiSelect and not question.typed and question.question in out:
            out[question.question] = given
    return out


def title(count: int) -> str:
    """The tool part's title: ``Asked 1 question``, ``Asked 3 questions``."""
    return f"Asked {count} question{'s' if count > 1 else ''}"


def reply(asked: Asked) -> ToolResult:
    """The tool output OpenCode's model gets, for each way the call ended."""
    texts = _texts(asked)
    lists = answer_lists(asked)
    notes = {
        q.question: {"notes": note}
        for i, q in enumerate(asked.data.questions)
        if (note := asked.notes(i)) is not None
    }
    data: dict[str, Any] = {
        "questions": asked.call.input["questions"],
        "answers": _listed(asked, lists),
        "annotations": notes,
        "status": asked.fates(),
        "title": title(len(texts)),
        "metadata": {"answers": lists},
    }
    if asked.outcome is Outcome.ANSWERED:
        updated = {**asked.call.input, "answers": lists}
        return ToolResult(
            asked.call.id,
            answered_text(texts, lists),
            Outcome.ANSWERED,
            data=data,
            updated_input=updated,
        )
    if asked.outcome is Outcome.CLARIFIED:
        return failed(asked, asked.clarification, data=data)
    if asked.why is not None:  # nobody answered: OpenCode would still be waiting
        given = {t: ", ".join(a) for t, a in zip(texts, lists, strict=True) if a}
        return failed(asked, results.no_answer_text(asked.why, given), data=data)
    return failed(asked, DISMISSED, data=data)  # q, or Ctrl-C (the TUI's exit dismisses)


def warnings(data: AskInput) -> list[str]:
    """The hints of OpenCode's schema and description that a call breaks."""
    found = []
    for i, q in enumerate(data.questions):
        where = f"questions[{i}]"
        if len(q.header) > HEADER_HINT:
            found.append(f"{where}.header is longer than {HEADER_HINT} characters")
        for j, option in enumerate(q.options):
            label = option.label.strip()
            if len(label.split()) > LABEL_MAX_WORDS:
                found.append(
                    f"{where}.options[{j}].label {label!r} has more than {LABEL_MAX_WORDS} words"
                )
            if q.other and label.lower().rstrip(".…:") in ("other", TYPE_OWN.lower()):
                found.append(
                    f"{where}.options[{j}].label {label!r} is a catch-all option; "
                    '"Type your own answer" is added automatically'
                )
            if j > 0 and is_recommended(label):
                found.append(
                    f"{where}.options[{j}] is marked (Recommended) but is not the first option"
                )
    return found


DIALECT = Dialect(
    "opencode",
    TOOL,
    parse,
    reply,
    definition,
    warnings,
    invalid_text,
)
