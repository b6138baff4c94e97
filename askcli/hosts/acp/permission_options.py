"""Which of an ACP agent's permission options a word selects, and the inbox's form for
choosing one by number.

``y`` (and the inbox's Yes) selects only an ``allow_once`` option, ``n`` (and No) only a
``reject_once`` one: never an ``allow_always`` or ``reject_always``, which make a rule that
outlasts the call. When the request has no such option, the person picks one by its number,
each shown with its kind; in the inbox that is a form with a choice among the options.
"""

from __future__ import annotations

import json
from typing import Any

from ...questions.allowing import command_word
from ...status import ExitStatus
from ...wire import urls
from ...wire.results import ToolResult

FIELD = "option"


def once(options: list[dict[str, Any]]) -> tuple[int | None, int | None]:
    """The indexes of the first ``allow_once`` and the first ``reject_once`` option."""
    kinds = [option.get("kind") for option in options]

    def first(kind: str) -> int | None:
        return kinds.index(kind) if kind in kinds else None

    return first("allow_once"), first("reject_once")


def keys(count: int, allow: int | None, reject: int | None) -> str:
    """What may be typed: ``1-3, y = 2, n = 3`` (y and n only for once options)."""
    return f"1-{count}" + "".join(
        f", {k} = {n + 1}" for k, n in (("y", allow), ("n", reject)) if n is not None
    )


def pick(line: str, count: int, allow: int | None, reject: int | None) -> int | str:
    """The option an answer line selects (its index), or what to tell the person: a number
    (``N.`` too), ``y``/``yes`` for the allow-once option, ``n``/``no``/``q`` for the
    reject-once one. Nothing else is guessed: any other line is asked again."""
    word = command_word(line)
    if word.isdigit() and 1 <= int(word) <= count:
        return int(word) - 1
    for words, index, missing in (
        (("y", "yes"), allow, "allow"),
        (("n", "no", "q"), reject, "reject"),
    ):
        if word in words:
            if index is not None:
                return index
            return (
                f"! the agent offers no {missing}_once option and {word} never selects an "
                f'"always" one: type the number of the option you choose (1-{count})'
            )
    return f"! type {keys(count, allow, reject)}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)


def _name(option: dict[str, Any]) -> str:
    name, kind = option.get("name"), option.get("kind")
    return f"{name if isinstance(name, str) else '?'} ({kind if isinstance(kind, str) else '?'})"


def form(number: int, title: str, details: dict[str, Any], options: list[dict[str, Any]]) -> Any:
    """An ``elicitation/create`` for the inbox: what the call is, and a choice among the
    options by number, each named with its kind."""
    lines = [f"The agent asks to run: {title}"]
    for key, value in details.items():
        rows = _text(value).split("\n")
        if len(rows) == 1:
            lines.append(f"  {key}: {rows[0]}")
        else:
            lines += [f"  {key}:", *(f"      {row}" for row in rows)]
    lines += urls.report(urls.strings_in(details), str)  # escaped where the form is shown
    lines.append("It offers no once option for y or n: choose one of its options.")
    choices = [{"const": str(n), "title": _name(o)} for n, o in enumerate(options, 1)]
    schema = {
        "type": "object",
        "properties": {FIELD: {"type": "string", "title": "Option", "oneOf": choices}},
        "required": [FIELD],
    }
    params = {"message": "\n".join(lines), "mode": "form", "requestedSchema": schema}
    return {"jsonrpc": "2.0", "id": number, "method": "elicitation/create", "params": params}


def chosen(
    result: ToolResult, options: list[dict[str, Any]], allow: int | None, reject: int | None
) -> dict[str, Any]:
    """The answer to the agent for what the person did in the inbox: the option picked by
    number (when the inbox asked :func:`form`), else by Yes or No; otherwise cancelled."""
    pick: int | None = None
    if allow is None or reject is None:  # the inbox asked for a number
        reply = result.reply or {}
        value = (reply.get("content") or {}).get(FIELD) if reply.get("action") == "accept" else None
        if isinstance(value, str) and value.isdigit() and 1 <= int(value) <= len(options):
            pick = int(value) - 1
        elif result.status is ExitStatus.DECLINED:
            pick = reject
    elif result.allowed:
        pick = allow
    elif result.status is ExitStatus.DECLINED:
        pick = reject
    if pick is None:
        return {}  # cancelled, never allowed
    return {"optionId": options[pick].get("optionId")}
