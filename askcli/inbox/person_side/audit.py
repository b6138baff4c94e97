"""The audit trail: what each answer decided, in a few words, and ``askcli inbox log``.

When the inbox answers a question it keeps, beside the reply, who answered, where, when and
:func:`decision`: ``Library: date-fns``, ``allowed``, ``denied``, ``declined``. A secret's
text is never in it (``a secret answer (not kept)``), nor in anything the log prints.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any

from ...escaping import visible
from ...status import ExitStatus
from ...terminal.rendering import truncate
from ...wire.dialects.acp_permission import OptionKind
from ..store.audit_log import Logged
from ..store.base import QueuedQuestion, QueueState
from . import queue_screens

SECRET = "a secret answer (not kept)"
MAX_DECISION = 200  # characters of a decision kept
QUESTION_COLUMNS = 50  # of a question's text in a log line


def decision(call: Any, reply: Mapping[str, Any]) -> str:
    """A few words saying what ``reply`` (:func:`askcli.inbox.asker_side.reply_to_json`)
    decided for ``call``; never a secret's text."""
    found = queue_screens.summary(call)
    status = reply.get("status")
    if status == ExitStatus.DECLINED:
        return (
            "denied" + _option_kind(reply) if found.kind == queue_screens.PERMISSION else "declined"
        )
    if status != ExitStatus.ANSWERED:
        return "refused (an invalid call)"
    if found.kind == queue_screens.PERMISSION:
        return "allowed" + _option_kind(reply)
    if found.kind == queue_screens.TODO:
        return "shown"
    if queue_screens.has_secret(call):
        return SECRET
    said = [part for result in reply.get("results") or () for part in _answers(result)]
    return truncate("; ".join(said), MAX_DECISION) if said else "answered"


def _option_kind(reply: Mapping[str, Any]) -> str:
    """`` (allow_always)``: the kind of the option an ACP permission request's answer
    selected (an "always" one makes a lasting rule); "" for any other permission."""
    for result in reply.get("results") or ():
        data = result.get("data") if isinstance(result, dict) else None
        kind = data.get("kind") if isinstance(data, dict) and "optionId" in data else None
        if kind in {k.value for k in OptionKind}:
            return f" ({kind})"
    return ""


def rules(reply: Mapping[str, Any]) -> list[str]:
    """The lasting permission rules ``reply`` grants (``Bash(rm:*)``, ``WebFetch``): the
    rules of each ``addRules`` update it chose, as Claude Code writes them."""
    found: list[str] = []
    for result in reply.get("results") or ():
        updates = result.get("updated_permissions") if isinstance(result, dict) else None
        for update in updates if isinstance(updates, list) else ():
            if not isinstance(update, dict) or update.get("type") != "addRules":
                continue
            listed = update.get("rules")
            for rule in listed if isinstance(listed, list) else ():
                tool = rule.get("toolName") if isinstance(rule, dict) else None
                if not isinstance(tool, str):
                    continue
                content = rule.get("ruleContent")
                behavior = update.get("behavior", "allow")
                said = f"{tool}({content})" if isinstance(content, str) else tool
                found.append(said if behavior == "allow" else f"{behavior} {said}")
    return found


def _answers(result: Any) -> list[str]:
    """``Header: answer`` for each answer of one call's result data."""
    data = result.get("data") if isinstance(result, dict) else None
    if not isinstance(data, dict):
        return []
    if data.get("allowed") is not None:
        return ["allowed" if data["allowed"] else "denied"]
    answers = data.get("answers")
    if not isinstance(answers, dict):
        return []
    headers: dict[str, str] = {}
    asked = data.get("questions")
    if isinstance(asked, list):
        for q in asked:
            if isinstance(q, dict) and isinstance(q.get("question"), str):
                header = q.get("header")
                headers[q["question"]] = header if isinstance(header, str) and header else ""
    out = []
    for text, answer in answers.items():
        name = headers.get(str(text)) or str(text)
        if isinstance(answer, list):  # a multi-select's labels
            value = ", ".join(str(part) for part in answer)
        else:
            value = answer if isinstance(answer, str) else str(answer)
        out.append(f"{truncate(name, 40)}: {value}")
    return out


def iso(seconds: float | None, *, local: bool = True) -> str | None:
    """A time as ISO 8601 to the second: local time with its offset, or UTC."""
    if seconds is None:
        return None
    zone = None if local else datetime.timezone.utc
    return datetime.datetime.fromtimestamp(seconds, zone).astimezone(zone).isoformat("T", "seconds")


def _by(question: QueuedQuestion) -> str:
    who = visible(question.answered_by) if question.answered_by else "someone"
    where = f" on {visible(question.answered_host)}" if question.answered_host else ""
    if question.answered_from and question.answered_from != "local":
        where += f" ({visible(question.answered_from)})"
    return f"{who}{where}"


def log_line(entry: Logged) -> str:
    """One settled question: ``2026-12-02T01:02:03+01:00 #3 claude ~/api on box1: Which
    database? -- alice on box2: DB: Postgres``; escaped, never a secret."""
    question = entry.question
    when = iso(question.finished if question.finished is not None else question.arrived)
    asker = queue_screens.label(question)
    if question.asker_host:
        asker += f" on {visible(question.asker_host)}"
    text = truncate(queue_screens.summary(question.call).shown, QUESTION_COLUMNS, words=True)
    if question.state is QueueState.WITHDRAWN:
        settled = "withdrawn"
    else:
        settled = f"{_by(question)}: {visible(entry.decision or 'answered')}"
        if entry.rules:
            settled += f" (from now on: {visible(', '.join(entry.rules))})"
    return f"{when} #{question.id} {asker}: {text} -- {settled}"


def log_json(entry: Logged) -> dict[str, Any]:
    """One settled question as ``inbox log --json`` prints it; never its result."""
    question = entry.question
    found = queue_screens.summary(question.call)
    return {
        "id": question.id,
        "status": question.state.value,
        "agent": question.agent.label,
        "asker_host": question.asker_host,
        "to": question.to,
        "question": found.first,
        "arrived": iso(question.arrived, local=False),
        "finished": iso(question.finished, local=False),
        "answered_by": question.answered_by,
        "answered_host": question.answered_host,
        "answered_from": question.answered_from,
        "decision": entry.decision,
        "rules": list(entry.rules),
    }


def print_log(
    entries: list[Logged],
    echo: Callable[[str], None],
    *,
    as_json: bool = False,
    said: Callable[[str], None] = lambda _: None,
) -> int:
    """``inbox log``: a line (or JSON object) per settled question, oldest first."""
    from ...wire.envelopes import json_line

    if not entries:
        said("no question was answered or withdrawn yet")
    for entry in entries:
        echo(json_line(log_json(entry)) if as_json else log_line(entry))
    return ExitStatus.OK
