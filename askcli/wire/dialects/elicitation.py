"""MCP ``elicitation/create`` (specification 2025-11-25): an MCP server asks the person.

Form mode (``mode`` ``"form"`` or absent): one question per property of the flat
``requestedSchema``, in its order (Claude Code's ``property_order`` when it sends one).
The question is the property's ``title`` with its ``description`` below (without a title:
the description, else the property name), under a chip of the property name. A string
is typed (``minLength``, ``maxLength``, ``pattern``, ``format`` checked before it is
sent), a number or integer too (``minimum``, ``maximum``); a boolean is a yes/no;
``enum`` (with the legacy ``enumNames``) and titled ``oneOf`` are a choice among the
values, an array of ``items.enum`` / ``items.anyOf`` a multi-select (``minItems``,
``maxItems``). A ``writeOnly`` property, of any type, or a ``format: password`` string is
a secret question. There is never an Other: a value outside the
schema could not be sent. ``default`` values are suggested answers the person confirms;
a property not ``required`` may be skipped and is then left out of ``content``. A form
without properties is a yes/no: accept with empty ``content``, or decline.

URL mode (``mode: "url"``): the whole URL, on a line of its own the host a browser would
open (:mod:`askcli.wire.urls`: WHATWG parsing, punycode and Unicode forms), warnings for
how the URL hides or disguises that host and for http, and a yes/no for consent; a URL
that is not http(s) with a host is refused. askcli never opens or fetches anything.

Replies (the ``ElicitResult``): ``{"action":"accept","content":{...}}`` (URL mode: no
``content``); ``{"action":"decline"}`` for the person's explicit no (``q``, "chat about
this", ``No`` to a URL or to an empty form); ``{"action":"cancel"}`` when nobody chose
(the answers ended, ``--timeout``, Ctrl-C, SIGHUP, SIGTERM): the MCP spec's "dismissed
without making an explicit choice".
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from ...errors import InvalidCall
from ...escaping import visible
from ...questions.outcome import Outcome
from ...questions.state import ANSWER_SEPARATOR
from ...schema.issues import Issue, zod_type
from ...schema.names import ELICITATION
from ...schema.shapes import AskInput, Option, SharedQuestion
from ...schema.value_rules import FORMATS, MAX_PATTERN, ValueRule, as_number
from ...status import ExitStatus
from ..results import ToolResult
from ..urls import BadURL, Target, target_lines, web_target
from .base import Asked, Dialect

MAX_PROPERTIES = 100  # properties of one form
MAX_OPTIONS = 500  # values of one enum
YES, NO = "Yes", "No"
URL_HEADER = "URL"
EMPTY_HEADER = "Confirm"
EMPTY_QUESTION = "Accept? The form has nothing to fill in."
URL_QUESTION = "Open this URL in your browser?"
URL_NOTE = "askcli opens nothing: if you say yes, open it yourself."
_SENSITIVE = re.compile(
    r"pass(word|wd|phrase)|secret|token|api[ _-]?key|private[ _-]?key|credit[ _-]?card|"
    r"card[ _-]?number|\bcvv\b|\bcvc\b|\bpin\b|\bssn\b",
    re.IGNORECASE,
)
_LINK = re.compile(r"\bhttps?://", re.IGNORECASE)


class Field(NamedTuple):
    """How question i's answer becomes a content value: ``key`` the property, ``kind``
    text | number | integer | boolean | choice | multi, ``values`` the choices' values."""

    key: str
    kind: str
    values: tuple[str, ...] = ()


class Elicitation(AskInput):
    """The questions of one elicitation, with what its reply needs: ``mode`` (form, url,
    or empty: a form without properties), each question's :class:`Field`, and the soft
    rules the request breaks."""

    mode: str
    fields: tuple[Field, ...]
    soft: tuple[str, ...]


def _elicitation(
    questions: list[SharedQuestion],
    answers: dict[str, str],
    mode: str,
    fields: list[Field],
    soft: list[str],
) -> Elicitation:
    # a form is always reviewed before it is sent (the MCP spec), its defaults are the server's
    made = Elicitation(tuple(questions), answers or None, None, mode == "form", "the server")
    made.mode, made.fields, made.soft = mode, tuple(fields), tuple(soft)
    return made


# -- issues ------------------------------------------------------------------------------


def _missing(path: list[str | int], expected: str) -> Issue:
    return {
        "code": "invalid_type",
        "expected": expected,
        "received": "undefined",
        "path": path,
        "message": "Required",
    }


def _wrong(path: list[str | int], expected: str, value: Any) -> Issue:
    received = zod_type(value)
    return {
        "code": "invalid_type",
        "expected": expected,
        "received": received,
        "path": path,
        "message": f"Expected {expected}, received {received}",
    }


def _custom(path: list[str | int], message: str) -> Issue:
    return {"code": "custom", "message": message, "path": path}


class _Problem(Exception):
    def __init__(self, issue: Issue) -> None:
        self.issue = issue


def _text(node: dict[str, Any], key: str, path: list[str | int], *, needed: bool) -> str | None:
    """``node[key]`` as a string: absent is None (an issue when ``needed``)."""
    if key not in node or (node[key] is None and not needed):
        if needed:
            raise _Problem(_missing([*path, key], "string"))
        return None
    value = node[key]
    if not isinstance(value, str):
        raise _Problem(_wrong([*path, key], "string", value))
    return value


def _count(node: dict[str, Any], key: str, path: list[str | int]) -> int | None:
    """A non-negative whole number (``minLength``, ``maxItems``, ...), or None."""
    value = node.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Problem(_wrong([*path, key], "number", value))
    if value != int(value) or value < 0:
        raise _Problem(_custom([*path, key], f"{key} must be a whole number of at least 0"))
    return int(value)


def _bound(node: dict[str, Any], key: str, path: list[str | int]) -> float | None:
    value = node.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Problem(_wrong([*path, key], "number", value))
    return value


# -- form mode ---------------------------------------------------------------------------


def _number_text(value: Any, kind: str) -> str | None:
    """A default number as the person would type it, or None when it is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return ValueRule("number").check(repr(value) if isinstance(value, float) else str(value))
    except Exception:  # a default a person could not type: not suggested
        return None


def _flatten(node: dict[str, Any]) -> dict[str, Any]:
    """A property as the MCP spec writes it: pydantic's ``Optional`` (``anyOf`` a type and
    ``null``) and a ``type`` list with ``"null"`` are read as the one type they allow."""
    branches = node.get("anyOf")
    if "type" not in node and isinstance(branches, list):
        kept = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(kept) == 1 and isinstance(kept[0], dict) and "const" not in kept[0]:
            outer = {k: v for k, v in node.items() if k != "anyOf"}
            return {**kept[0], **outer}
    kind = node.get("type")
    if isinstance(kind, list):
        kept = [k for k in kind if k != "null"]
        if len(kept) == 1:
            return {**node, "type": kept[0]}
    return node


def _titled(items: Any, path: list[str | int]) -> list[tuple[str, str]] | None:
    """``[{const, title}]`` as (value, title) pairs; None when ``items`` is not that."""
    if not isinstance(items, list) or not items:
        return None
    if not all(isinstance(item, dict) and "const" in item for item in items):
        return None
    pairs = []
    for n, item in enumerate(items):
        value = item["const"]
        if not isinstance(value, str):
            raise _Problem(_wrong([*path, n, "const"], "string", value))
        title = item.get("title")
        pairs.append((value, title if isinstance(title, str) and title.strip() else value))
    return pairs


def _untitled(values: Any, names: Any, path: list[str | int]) -> list[tuple[str, str]]:
    """``enum`` values with the legacy ``enumNames`` where there is one."""
    if not isinstance(values, list):
        raise _Problem(_wrong(path, "array", values))
    if not values:
        raise _Problem(_custom(path, "the enum has no values to choose from"))
    shown = names if isinstance(names, list) else []
    pairs = []
    for n, value in enumerate(values):
        if not isinstance(value, str):
            raise _Problem(_wrong([*path, n], "string", value))
        name = shown[n] if n < len(shown) else None
        pairs.append((value, name if isinstance(name, str) and name.strip() else value))
    return pairs


def _choices(
    pairs: list[tuple[str, str]], path: list[str | int]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The values (each once) and their labels, made unique so that each can be typed."""
    seen: dict[str, str] = {}
    for value, title in pairs:
        seen.setdefault(value, title)
    if len(seen) > MAX_OPTIONS:
        raise _Problem(_custom(path, f"askcli shows at most {MAX_OPTIONS} values to choose from"))
    labels: list[str] = []
    for value, title in seen.items():
        label = " ".join(title.split()) or json.dumps(value)
        if label in labels:
            label = f"{label} ({value})"
        n = 2
        while label in labels:
            label, n = f"{label} ({n})", n + 1
        labels.append(label)
    return tuple(seen), tuple(labels)


def _question_text(key: str, node: dict[str, Any], used: set[str]) -> str:
    """The title on one line with the description below it; without a title, the
    description alone (on one line), else the property name. Unique within the form."""
    title, description = node.get("title"), node.get("description")
    title = " ".join(title.split()) if isinstance(title, str) else ""
    about = description.strip() if isinstance(description, str) else ""
    if not title:
        title, about = " ".join(about.split()) or key, ""
    elif about.casefold() == title.casefold():  # pydantic's titles often repeat it
        about = ""
    head = visible(title)
    text, n = head, 2
    while (text + "\n" + about if about else text) in used:
        text, n = f"{head} ({n})", n + 1
    text = text + "\n" + about if about else text
    used.add(text)
    return text


def _property(
    key: str, raw: Any, required: bool, used: set[str], soft: list[str]
) -> tuple[SharedQuestion, Field, str | None]:
    """One property's question, how its answer is sent, and its default as an answer."""
    path: list[str | int] = ["requestedSchema", "properties", key]
    where = f"requestedSchema.properties.{key}"
    if not isinstance(raw, dict):
        raise _Problem(_wrong(path, "object", raw))
    node = _flatten(raw)
    kind = node.get("type")
    if kind is None:
        if "enum" in node or _titled(node.get("oneOf"), [*path, "oneOf"]) is not None:
            kind = "string"
        else:
            raise _Problem(_custom([*path, "type"], "the property has no type askcli can ask"))
    text = _question_text(key, node, used)
    # a write-only field, of any type (a string, an integer PIN, a number, a choice): a
    # secret, not echoed, not journaled, erased from the inbox once delivered, not in the log
    secret = node.get("writeOnly") is True
    _text(node, "title", path, needed=False)
    _text(node, "description", path, needed=False)
    default = node.get("default")
    if kind == "object":
        raise _Problem(
            _custom(
                path,
                "nested objects are not supported: a form has only top-level properties "
                "of primitive types",
            )
        )
    if kind == "array":
        return _multi(key, node, path, where, text, required, soft, secret)
    if kind == "boolean":
        suggested = None
        if isinstance(default, bool):
            suggested = YES if default else NO
        elif default is not None:
            soft.append(f"{where}.default is not a boolean; it is not suggested")
        yes_no = (Option(YES, ""), Option(NO, ""))
        question = SharedQuestion(
            text,
            key,
            yes_no,
            kind="yesno",
            other=False,
            required=required,
            notes=False,
            secret=secret,
        )
        return question, Field(key, "boolean"), suggested
    if kind in ("number", "integer"):
        low, high = _bound(node, "minimum", path), _bound(node, "maximum", path)
        if low is not None and high is not None and low > high:
            raise _Problem(_custom(path, "minimum is more than maximum: no number fits"))
        step = node.get("multipleOf")
        if step is not None and (
            isinstance(step, bool) or not isinstance(step, int | float) or step <= 0
        ):
            step = None
        rule = ValueRule(kind, minimum=low, maximum=high, step=step)
        suggested = _number_text(default, kind)
        if default is not None and suggested is None:
            soft.append(f"{where}.default is not a number; it is not suggested")
        question = SharedQuestion(
            text,
            key,
            (),
            kind="number",
            other=False,
            required=required,
            rule=rule,
            notes=False,
            secret=secret,
        )
        return question, Field(key, kind), suggested
    if kind != "string":
        raise _Problem(
            _custom([*path, "type"], f"askcli cannot ask a property of type {json.dumps(kind)}")
        )
    titled = _titled(node.get("oneOf"), [*path, "oneOf"])
    if titled is None:
        titled = _titled(node.get("anyOf"), [*path, "anyOf"])
    if titled is not None or "enum" in node:
        if titled is None:
            if "enumNames" in node:
                soft.append(f"{where}.enumNames is the legacy form; use oneOf with const and title")
            titled = _untitled(node["enum"], node.get("enumNames"), [*path, "enum"])
        values, labels = _choices(titled, path)
        options = tuple(Option(label, "") for label in labels)
        question = SharedQuestion(
            text, key, options, other=False, required=required, notes=False, secret=secret
        )
        suggested = None
        if isinstance(default, str) and default in values:
            suggested = labels[values.index(default)]
        elif default is not None:
            soft.append(f"{where}.default is not one of the values; it is not suggested")
        return question, Field(key, "choice", values), suggested
    return _string(key, node, path, where, text, required, soft, secret)


def _string(
    key: str,
    node: dict[str, Any],
    path: list[str | int],
    where: str,
    text: str,
    required: bool,
    soft: list[str],
    secret: bool,
) -> tuple[SharedQuestion, Field, str | None]:
    low, high = _count(node, "minLength", path), _count(node, "maxLength", path)
    if low is not None and high is not None and low > high:
        raise _Problem(_custom(path, "minLength is more than maxLength: no text fits"))
    form = _text(node, "format", path, needed=False)
    if form is not None and form not in FORMATS:
        soft.append(f"{where}.format {form!r} is not one of {', '.join(FORMATS)}; not checked")
        form = None
    pattern = _text(node, "pattern", path, needed=False)
    if pattern is not None:
        soft.append(f"{where}.pattern is not part of the 2025-11-25 StringSchema")
        try:
            if len(pattern) > MAX_PATTERN:
                raise re.error("too long")
            re.compile(pattern)
        except re.error:
            soft.append(
                f"{where}.pattern cannot be read as a Python regular expression; not checked"
            )
            pattern = None
    rule = ValueRule("text", min_length=low, max_length=high, pattern=pattern, format=form)
    default = node.get("default")
    suggested = default if isinstance(default, str) and default else None
    if default is not None and not isinstance(default, str):
        soft.append(f"{where}.default is not a string; it is not suggested")
    # a write-only or password field: not echoed, not journaled, erased from the inbox
    secret = secret or node.get("format") == "password"
    question = SharedQuestion(
        text,
        key,
        (),
        kind="text",
        other=False,
        required=required,
        rule=rule,
        notes=False,
        secret=secret,
    )
    return question, Field(key, "text"), suggested


def _multi(
    key: str,
    node: dict[str, Any],
    path: list[str | int],
    where: str,
    text: str,
    required: bool,
    soft: list[str],
    secret: bool,
) -> tuple[SharedQuestion, Field, str | None]:
    items = node.get("items")
    if not isinstance(items, dict):
        raise _Problem(
            _custom([*path, "items"], "an array must be a multi-select: items.enum or items.anyOf")
        )
    titled = _titled(items.get("anyOf"), [*path, "items", "anyOf"])
    if titled is None:
        titled = _titled(items.get("oneOf"), [*path, "items", "oneOf"])
    if titled is None:
        if "enum" not in items:
            raise _Problem(
                _custom(
                    [*path, "items"],
                    "an array must be a multi-select of strings: items.enum or items.anyOf",
                )
            )
        titled = _untitled(items["enum"], items.get("enumNames"), [*path, "items", "enum"])
    values, labels = _choices(titled, path)
    low, high = _count(node, "minItems", path), _count(node, "maxItems", path)
    if low is not None and high is not None and low > high:
        raise _Problem(_custom(path, "minItems is more than maxItems: no choice fits"))
    if low is not None and low > len(values):
        raise _Problem(_custom(path, f"minItems is {low} but there are {len(values)} values"))
    options = tuple(Option(label, "") for label in labels)
    question = SharedQuestion(
        text,
        key,
        options,
        True,
        other=False,
        required=required,
        min_items=low or None,
        max_items=high,
        notes=False,
        secret=secret,
    )
    default = node.get("default")
    suggested = None
    if isinstance(default, list) and all(isinstance(v, str) and v in values for v in default):
        chosen = [labels[values.index(v)] for v in dict.fromkeys(default)]
        suggested = ANSWER_SEPARATOR.join(chosen) or None
    elif default is not None:
        soft.append(f"{where}.default is not a list of the values; it is not suggested")
    return question, Field(key, "multi", values), suggested


def _form(params: dict[str, Any], soft: list[str]) -> Elicitation:
    schema = params.get("requestedSchema")
    if "requestedSchema" not in params:
        raise _Problem(_missing(["requestedSchema"], "object"))
    if not isinstance(schema, dict):
        raise _Problem(_wrong(["requestedSchema"], "object", schema))
    kind = schema.get("type", "object")
    if kind != "object":
        raise _Problem(
            _custom(["requestedSchema", "type"], 'the requested schema must be of type "object"')
        )
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _Problem(_wrong(["requestedSchema", "properties"], "object", properties))
    if len(properties) > MAX_PROPERTIES:
        raise _Problem(
            _custom(
                ["requestedSchema", "properties"],
                f"askcli asks at most {MAX_PROPERTIES} properties in one form",
            )
        )
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise _Problem(_wrong(["requestedSchema", "required"], "array", required))
    for name in required:
        if name not in properties:
            soft.append(f"requestedSchema.required names {name!r}, which is no property")
    order = params.get("property_order")
    keys = list(properties)
    if isinstance(order, list):
        first = [k for k in dict.fromkeys(order) if isinstance(k, str) and k in properties]
        keys = first + [k for k in keys if k not in first]
    if not keys:
        question = SharedQuestion(
            EMPTY_QUESTION,
            EMPTY_HEADER,
            (Option(YES, ""), Option(NO, "")),
            kind="yesno",
            other=False,
            notes=False,
        )
        return _elicitation([question], {}, "empty", [], soft)
    questions: list[SharedQuestion] = []
    fields: list[Field] = []
    answers: dict[str, str] = {}
    used: set[str] = set()
    for key in keys:
        question, field, suggested = _property(key, properties[key], key in required, used, soft)
        questions.append(question)
        fields.append(field)
        if suggested is not None:
            answers[question.question] = suggested
        node = properties[key]
        words = " ".join(
            str(node.get(k, "")) for k in ("title", "description") if isinstance(node, dict)
        )
        if _SENSITIVE.search(f"{key} {words}"):
            soft.append(
                f"requestedSchema.properties.{key} looks like a secret; form mode must not "
                "ask for passwords, API keys, tokens or payment credentials (use URL mode)"
            )
        if _LINK.search(words):
            soft.append(f"requestedSchema.properties.{key} holds a URL; form fields should not")
    return _elicitation(questions, answers, "form", fields, soft)


# -- URL mode ----------------------------------------------------------------------------


def url_question_text(url: str, target: Target) -> str:
    """The consent question: the whole URL, its domain on a line of its own, the warnings.
    The URL and host are escaped here, on one line each, so that nothing in them can
    start a line of its own."""
    lines = [URL_QUESTION, visible(url), *target_lines(target), URL_NOTE]
    return "\n".join(lines)


def _url(params: dict[str, Any], soft: list[str]) -> Elicitation:
    url = _text(params, "url", [], needed=True)
    assert url is not None
    elicitation_id = _text(params, "elicitationId", [], needed=False)
    if elicitation_id is None:
        soft.append("elicitationId is missing: 2025-11-25 requires it in URL mode")
    try:
        target = web_target(url)
    except BadURL as bad:
        raise _Problem(_custom(["url"], str(bad))) from None
    if target.scheme != "https":
        soft.append("url is not https: servers should use HTTPS URLs")
    question = SharedQuestion(
        url_question_text(url, target),
        URL_HEADER,
        (Option(YES, "I will open it myself"), Option(NO, "decline")),
        kind="yesno",
        other=False,
        notes=False,
    )
    return _elicitation([question], {}, "url", [Field("url", "consent")], soft)


# -- the dialect -------------------------------------------------------------------------


def parse(raw: Any) -> AskInput:
    """``elicitation/create`` params as questions; InvalidCall saying what cannot be asked."""
    try:
        if not isinstance(raw, dict):
            raise _Problem(_wrong([], "object", raw))
        _text(raw, "message", [], needed=True)
        mode = raw.get("mode", "form")
        soft: list[str] = []
        if mode is None or mode == "form":
            return _form(raw, soft)
        if mode == "url":
            return _url(raw, soft)
        raise _Problem(
            _custom(
                ["mode"],
                f'mode {json.dumps(mode)} is not supported (askcli answers "form" and "url")',
            )
        )
    except _Problem as problem:
        raise InvalidCall(ELICITATION, [problem.issue]) from None


def invalid_text(issues: list[Issue]) -> str:
    """The JSON-RPC error message for params askcli cannot ask (code -32602)."""
    from ...schema.issues import describe_issues

    return f"Invalid params: {describe_issues(issues)}"


def warnings(data: Any) -> list[str]:
    """The MCP spec's soft rules the request breaks (``askcli check --strict``)."""
    return list(getattr(data, "soft", ()))


def _request(asked: Asked) -> Elicitation:
    data = asked.data
    if isinstance(data, Elicitation) and hasattr(data, "fields"):
        return data
    made = parse(asked.call.input)
    assert isinstance(made, Elicitation)
    return made


def _value(asked: Asked, index: int, field: Field) -> Any:
    """Question ``index``'s answer as the content value the schema wants, or None."""
    question = asked.data.questions[index]
    answer = asked.answers.get(question.question)
    if answer is None:
        return None
    if field.kind == "text":
        return answer
    if field.kind in ("number", "integer"):
        return as_number(answer, field.kind)
    chosen = asked.selections(index)
    if field.kind == "boolean":
        return chosen == (1,)
    values = [field.values[n - 1] for n in chosen if 1 <= n <= len(field.values)]
    if field.kind == "choice":
        return values[0] if values else None
    return values


def content(asked: Asked) -> dict[str, Any]:
    """The values given so far, by property, typed as the schema says."""
    request = _request(asked)
    if request.mode != "form":
        return {}
    out: dict[str, Any] = {}
    for index, field in enumerate(request.fields):
        value = _value(asked, index, field)
        if value is not None:
            out[field.key] = value
    return out


def reply(asked: Asked) -> ToolResult:
    """The ElicitResult for what the person did (see the module's docstring)."""
    request = _request(asked)
    given = content(asked)
    keys = [f.key for f in request.fields]
    fates = list(asked.fates().values())
    answered = asked.outcome is Outcome.ANSWERED
    said_no = request.mode in ("url", "empty") and answered and asked.selections(0) == (2,)
    if answered and not said_no:
        action = "accept"
        result: dict[str, Any] = {"action": action}
        if request.mode != "url":
            result["content"] = given
        outcome = Outcome.ANSWERED
    elif asked.outcome.status is ExitStatus.DECLINED or said_no:
        outcome = Outcome.DECLINED if said_no else asked.outcome
        action, result = "decline", {"action": "decline"}
        fates = ["declined"] * len(fates)
    else:
        action, result, outcome = "cancel", {"action": "cancel"}, asked.outcome
        fates = [f.replace("declined", "dismissed") for f in fates]
    data: dict[str, Any] = {
        "questions": asked.call.input,
        "answers": given,
        "status": dict(zip(keys, fates, strict=False)),
        "action": action,
    }
    if asked.outcome is Outcome.CLARIFIED:
        data["clarification"] = asked.clarification
    if asked.why:
        data["why"] = asked.why
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return ToolResult(
        asked.call.id,
        text,
        outcome,
        is_error=outcome.status is not ExitStatus.ANSWERED,
        data=data,
        updated_input=result,
        reply=result,
    )


def definition() -> dict[str, Any]:
    """The JSON Schema of the ``elicitation/create`` params askcli answers (form and URL
    mode, MCP 2025-11-25), with the specification's own descriptions
    (``askcli/wire/data/elicitation-request-params.json``)."""
    from ..shipped_json import load

    schema: dict[str, Any] = load("elicitation-request-params.json")
    return schema


DIALECT = Dialect(
    "elicitation",
    ELICITATION,
    parse,
    reply,
    definition,
    warnings,
    invalid_text,
)
