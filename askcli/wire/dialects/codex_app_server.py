"""Codex's app-server JSON-RPC requests to its client (Codex 0.171.0, ``codex app-server``):
the questions and approvals a Codex front end answers, each a dialect named after its method.

- ``item/tool/requestUserInput``: the model's ``request_user_input`` questions, each with an
  ``id``, ``header``, ``question``, ``isOther`` (a free-form Other beside the options),
  ``isSecret`` (the typed text is never shown back) and ``options`` (``null`` or empty: the
  answer is typed). The response is ``{"answers": {"<id>": {"answers": [...]}}}``: the label
  chosen, ``None of the above`` for Other, then the person's texts as ``user_note: ...`` (a
  typed answer too), as Codex's own TUI sends them; a question left open is left out. No
  answer, a decline or Ctrl-C is ``{"answers": {}}``, what Codex's auto-resolution and the
  ACP adapter send: the protocol has no "declined".
- ``item/commandExecution/requestApproval``: run ``command`` in ``cwd`` (``reason``, the host of
  a network request, the amendments proposed), answered ``{"decision": D}`` with ``D`` one of
  the request's ``availableDecisions`` in their order (when it sends none: ``accept``,
  ``acceptForSession``, ``decline``, ``cancel``; for ``kind: humanCommand`` no
  ``acceptForSession``). An amendment decision is sent back as it came.
- ``item/fileChange/requestApproval``: apply the turn's file changes (``reason``, and
  ``grantRoot`` when Codex asks to write under a folder for the session), answered
  ``{"decision": "accept" | "acceptForSession" | "decline" | "cancel"}``.

An approval nobody answered (the answers ended, ``--timeout``, Ctrl-C) is ``cancel``, which
also stops Codex's turn; ``q`` is ``decline`` (the turn goes on without it). The params are
checked against :mod:`askcli.wire.dialects.codex_app_server_models`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

from ...questions.outcome import Outcome
from ...schema.names import CODEX_COMMAND_APPROVAL, CODEX_FILE_APPROVAL, CODEX_USER_INPUT
from ...schema.shapes import AskInput, Option, SharedQuestion
from ...status import ExitStatus
from ..results import ToolResult
from .base import Asked, Dialect
from .codex import NOTE_PREFIX, OTHER_LABEL, _json, _unique

_ACCEPT_LABEL = "Yes, proceed"
_DECISIONS: dict[str, tuple[str, str]] = {  # decision -> (label, what it does)
    "accept": (_ACCEPT_LABEL, "this once"),
    "acceptForSession": ("Yes, and don't ask again this session", "the same approval"),
    "decline": ("No, continue without it", "Codex goes on with its turn"),
    "cancel": ("No, and stop", "Codex's turn is interrupted"),
}
_DEFAULT = ("accept", "acceptForSession", "decline", "cancel")
_HUMAN = ("accept", "decline", "cancel")  # kind humanCommand: a fresh decision each time


def _validated(model_name: str, raw: Any, tool: str) -> Any:
    """``raw`` as the model ``model_name`` (InvalidCall with zod-style issues if not)."""
    from ...schema.validation import validate
    from . import codex_app_server_models as models

    return validate(getattr(models, model_name), raw, tool=tool)


def _schema(name: str) -> dict[str, Any]:
    """One of the app-server's schemas, as Codex generates it."""
    from ..shipped_json import load

    schema: dict[str, Any] = load(f"codex-app-server-{name}.json")
    return schema


# --- item/tool/requestUserInput -------------------------------------------------------------


def parse_user_input(raw: Any) -> AskInput:
    """The questions as the shared model: a choice with the free-form Other when ``isOther``,
    a typed answer when there are no options; a secret's answer is never shown back."""
    params = _validated("ToolRequestUserInputParams", raw, CODEX_USER_INPUT)
    taken: set[str] = set()
    questions = []
    for q in params.questions:
        text = _unique(q.question or q.header or q.id, taken)
        if q.options:
            options = tuple(Option(o.label, o.description) for o in q.options)
            questions.append(
                SharedQuestion(
                    text, q.header, options, other=q.isOther, required=False, secret=q.isSecret
                )
            )
        else:
            questions.append(
                SharedQuestion(
                    text,
                    q.header,
                    (),
                    kind="text",
                    other=False,
                    required=False,
                    notes=False,
                    secret=q.isSecret,
                )
            )
    return AskInput(tuple(questions))


def user_input_answers(asked: Asked) -> dict[str, Any]:
    """The answers by question id, as Codex's TUI gives them (a later id wins, as in Codex)."""
    out: dict[str, Any] = {}
    for i, q in enumerate(asked.call.input["questions"]):
        values = list(asked.chosen_labels(i))
        texts: list[str] = []
        question = asked.data.questions[i]
        if question.typed:
            typed = asked.answers.get(question.question)
            texts += [typed] if typed else []
        other = asked.other_text(i)
        if other is not None:
            values.append(OTHER_LABEL)
            texts.append(other)
        notes = asked.notes(i)
        if notes:
            texts.append(notes)
        values += [NOTE_PREFIX + text.strip() for text in texts if text.strip()]
        if values:
            out[q["id"]] = {"answers": values}
    return out


def reply_user_input(asked: Asked) -> ToolResult:
    submitted = asked.outcome is Outcome.ANSWERED
    given = user_input_answers(asked) if submitted else {}
    response = {"answers": given}
    data = {"questions": asked.call.input["questions"], "status": asked.fates()}
    return ToolResult(asked.call.id, _json(response), asked.outcome, data=data, reply=response)


USER_INPUT = Dialect(
    "codex-app-server-user-input",
    CODEX_USER_INPUT,
    parse_user_input,
    reply_user_input,
    lambda: _schema("ToolRequestUserInputParams"),
)


# --- the approvals --------------------------------------------------------------------------


def _decision_option(decision: Any) -> Option:
    """The option the person sees for one decision (an amendment says what it keeps)."""
    if isinstance(decision, str):
        label, what = _DECISIONS.get(decision, (decision, ""))
        return Option(label, what)
    if isinstance(decision, dict) and "acceptWithExecpolicyAmendment" in decision:
        words = decision["acceptWithExecpolicyAmendment"].get("execpolicy_amendment", [])
        prefix = shlex.join(str(w) for w in words)
        return Option(f"Yes, and don't ask again for commands that start with `{prefix}`", "")
    if isinstance(decision, dict) and "applyNetworkPolicyAmendment" in decision:
        rule = decision["applyNetworkPolicyAmendment"].get("network_policy_amendment", {})
        verb = "Always allow" if rule.get("action") == "allow" else "Always deny"
        return Option(f"{verb} {rule.get('host', '')}", "a lasting network rule")
    return Option(_json(decision), "")


def _approval(question: str, header: str, details: list[str], decisions: list[Any]) -> AskInput:
    options: list[Option] = []
    seen: set[str] = set()
    for decision in decisions:
        option = _decision_option(decision)
        label = _unique(option.label, seen)
        options.append(Option(label, option.description))
    described = "; ".join(details) or None
    shared = SharedQuestion(
        question, header, tuple(options), other=False, notes=False, description=described
    )
    return AskInput((shared,))


def _command_decisions(raw: dict[str, Any], kind: str) -> list[Any]:
    given = raw.get("availableDecisions")
    if isinstance(given, list) and given:
        return given
    return list(_HUMAN if kind == "humanCommand" else _DEFAULT)


def parse_command_approval(raw: Any) -> AskInput:
    params = _validated("CommandExecutionRequestApprovalParams", raw, CODEX_COMMAND_APPROVAL)
    what = params.command or "a command"
    if params.kind == "writeStdin":
        question = f"Send input to the running command {what}?"
    else:
        question = f"Run {what}?"
    details = []
    if params.cwd:
        details.append(f"in {params.cwd}")
    if params.reason:
        details.append(f"reason: {params.reason}")
    if params.networkApprovalContext is not None:
        net = params.networkApprovalContext
        details.append(f"network: {net.protocol} to {net.host}")
    return _approval(question, "Command", details, _command_decisions(raw, params.kind))


def parse_file_approval(raw: Any) -> AskInput:
    params = _validated("FileChangeRequestApprovalParams", raw, CODEX_FILE_APPROVAL)
    details = [f"reason: {params.reason}"] if params.reason else []
    if params.grantRoot:
        details.append(f"and write under {params.grantRoot} for the rest of the session")
    return _approval("Apply Codex's file changes?", "Edit", details, list(_DEFAULT))


def _reply_decision(decisions: list[Any]) -> Callable[[Asked], ToolResult]:
    """The reply of an approval for ``decisions`` (the ones offered, in order)."""

    def reply(asked: Asked) -> ToolResult:
        submitted = asked.outcome is Outcome.ANSWERED
        chosen = asked.selections(0) if submitted else ()
        if chosen:
            decision = decisions[chosen[0] - 1]
        else:  # q: decline; nobody answered: cancel (when offered)
            explicit = asked.outcome.status is ExitStatus.DECLINED  # declined or chat
            wanted = ("decline", "cancel") if explicit else ("cancel", "decline")
            decision = next((d for d in wanted if d in decisions), wanted[0])
        accepted = not (isinstance(decision, str) and decision in ("decline", "cancel"))
        if submitted:
            outcome = Outcome.ANSWERED if accepted else Outcome.DECLINED
        else:
            outcome = asked.outcome
        response = {"decision": decision}
        data = {"decision": decision}
        return ToolResult(asked.call.id, _json(response), outcome, data=data, reply=response)

    return reply


def reply_command_approval(asked: Asked) -> ToolResult:
    raw = asked.call.input
    kind = raw.get("kind") if isinstance(raw.get("kind"), str) else "command"
    return _reply_decision(_command_decisions(raw, kind))(asked)


def reply_file_approval(asked: Asked) -> ToolResult:
    return _reply_decision(list(_DEFAULT))(asked)


COMMAND_APPROVAL = Dialect(
    "codex-app-server-command-approval",
    CODEX_COMMAND_APPROVAL,
    parse_command_approval,
    reply_command_approval,
    lambda: _schema("CommandExecutionRequestApprovalParams"),
)
FILE_APPROVAL = Dialect(
    "codex-app-server-file-approval",
    CODEX_FILE_APPROVAL,
    parse_file_approval,
    reply_file_approval,
    lambda: _schema("FileChangeRequestApprovalParams"),
)
