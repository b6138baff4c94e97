"""The tools registry: tool name -> tool (Claude Code 2.1.88's ``permissionComponentForTool``).

A :class:`Tool` says how to validate a call's input, which soft rules to report in
``askcli check --strict`` and how to answer it. The permission of Claude Code's layer lives in
the handler: AskUserQuestion and the fallback prompt (any name not in the registry) ask the
person; TodoWrite is ``allow`` and asks nothing; ACP's ``session/request_permission`` asks the
person to pick one of the agent's own options. Adding a tool means adding one entry here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import InvalidCall
from ..escaping import visible
from ..questions.outcome import Outcome
from ..questions.state import AnswerState, Conclusion, foreign_keys, specs
from ..schema.inputs import parse_ask, parse_todos, soft_rule_warnings, todo_warnings
from ..schema.issues import MAX_TEXT, Issue, describe_issues, long_text
from ..schema.names import ACP_PERMISSION, ASK_USER_QUESTION, TODO_WRITE
from ..schema.shapes import AskInput, TodoInput
from ..status import ExitStatus
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..wire import results
from ..wire.envelopes import ToolCall
from ..wire.results import ToolResult
from ..wire.wording.base import CLAUDE_CODE_2_1_88, Wording
from . import permission, todos
from .repl import converse

if TYPE_CHECKING:
    from ..wire.dialects.base import Dialect


class Tool(NamedTuple):
    """One tool askcli serves.

    ``parse`` validates the raw input (raising InvalidCall); ``answer`` runs the parsed
    call; ``warnings`` lists the soft rules the input breaks.
    """

    name: str
    parse: Callable[[Any], Any]
    answer: Callable[[ToolCall, Any, Conversation], ToolResult]
    warnings: Callable[[Any], list[str]] = lambda _: []
    invalid: Callable[[list[Issue]], str] = results.validation_error_text


def final_annotations(data: AskInput, conclusion: Conclusion) -> dict[str, dict[str, str]]:
    """The chosen previews and the person's notes, by question text. The call's own
    annotations never pass through unseen: its notes were shown as the person's to keep or
    clear, and a preview comes from the option chosen."""
    out: dict[str, dict[str, str]] = {}
    state = conclusion.state
    for i, question in enumerate(data.questions):
        note: dict[str, str] = {}
        if i in state.previews:
            note["preview"] = state.previews[i]
        if i in state.notes:
            note["notes"] = state.notes[i]
        if note:
            out[question.question] = note
    return out


UNANSWERED_CAPABILITY = "ask_user_question_unanswered_v1"  # askcli.wire.wording's, unimported
# how Claude Code 2.1.332 names why a question went unanswered, by how the call ended; an
# outcome not here is no answer Claude Code takes as one (declined, Ctrl-C, timed out)
_UNANSWERED = {
    Outcome.ANSWERED: "skipped",
    Outcome.FOLLOW_UP: "skipped",
    Outcome.RESPONDED: "replied_in_chat",  # r: free text instead
    Outcome.CLARIFIED: "replied_in_chat",  # c: "chat about this"
    Outcome.STOPPED: "dismissed",  # SIGTERM or SIGHUP: the card closed, nobody declined
    Outcome.ENDED: "dismissed",  # the answers ended first
}
AFK_OFFERED = "afkTimeoutOfferedAt"  # metadata Claude Code adds when it takes afkTimeoutMs
_AFK_WINDOW_MS = 2 * 3_600_000  # how far from now Claude Code takes that offer's time
_AFK_MIN_MS = 1000


def _unanswered(conclusion: Conclusion) -> dict[str, str]:
    """``annotations[q].unanswered`` for the questions the conversation leaves open:
    ``replied_in_chat`` after free text (r) or "chat about this" (c), ``dismissed`` when
    askcli was stopped or the answers ended, else ``skipped``."""
    state = conclusion.state
    why = _UNANSWERED[conclusion.outcome]
    return {q.text: why for q in state.questions if q.text not in state.answers}


def afk_timeout_ms(raw: Any, timeout: float | None, now_ms: float) -> int | None:
    """``afkTimeoutMs`` for a call nobody answered within ``timeout`` seconds, when Claude
    Code offered to take it (its ``metadata.afkTimeoutOfferedAt``, within two hours of
    ``now_ms``); None otherwise."""
    metadata = raw.get("metadata") if isinstance(raw, dict) else None
    offered = metadata.get(AFK_OFFERED) if isinstance(metadata, dict) else None
    if timeout is None or isinstance(offered, bool) or not isinstance(offered, int | float):
        return None
    ms = int(timeout * 1000 + 0.5)
    if ms < _AFK_MIN_MS or not abs(now_ms - offered) <= _AFK_WINDOW_MS:
        return None
    return ms


def ask_user_question(call: ToolCall, data: AskInput, conv: Conversation) -> ToolResult:
    """Ask the person and turn the conclusion into the tool_result, in the words of the
    run's wording (:class:`askcli.wire.wording.base.Wording`: Claude Code 2.1.88's
    by default; with ``--wording claude-code`` every question may be left unanswered, as
    in Claude Code's dialog).

    Answers are listed in the order the person gave them. The call's own answers are only
    suggestions the person confirms; those to questions not in the call are dropped with a
    notice. ``m`` (more questions first) and ``r`` (free text instead) are answers too:
    Claude Code's ``followUp`` and ``response``. The ``unanswered`` annotations go only to a
    Claude Code that listed :data:`askcli.wire.wording.texts.UNANSWERED_CAPABILITY`.
    """
    if data.answers or data.annotations:
        asked = specs(data)
        for what, given in (("answer", data.answers), ("annotation", data.annotations)):
            for key in foreign_keys(asked, given):
                conv.error(
                    f"the call's {what} for {key!r} is dropped: no such question in the call"
                )
    options = conv.options
    wording = options.wording
    data = wording.prepare(data)
    conclusion = converse(call.id, call.input, data, conv)
    state = conclusion.state
    answers = wording.answers(state)
    annotations = final_annotations(data, conclusion)
    payload: dict[str, Any] = {
        "questions": call.input["questions"],
        "answers": state.listed(),  # for scripts: a multi-select's labels as a list
        "annotations": annotations,
        # an interrupted conversation's questions: dismissed when SIGTERM or SIGHUP stopped
        # askcli, declined after Ctrl-C
        "status": conclusion.fates(),
    }
    outcome = conclusion.outcome

    def failed(text: str) -> ToolResult:
        return ToolResult(call.id, text, outcome, is_error=True, data=payload)

    told = UNANSWERED_CAPABILITY in options.capabilities
    # "chat about this" or a dismissal, taken as Claude Code takes them
    taken = told and outcome in _UNANSWERED and outcome.status is not ExitStatus.ANSWERED
    if outcome.status is ExitStatus.ANSWERED or taken:
        updated = {k: v for k, v in call.input.items() if k != "annotations"}
        updated["answers"] = answers
        sent = annotations
        if told:
            sent = {q: dict(note) for q, note in annotations.items()}
            for question, why in _unanswered(conclusion).items():
                sent.setdefault(question, {})["unanswered"] = why
        if sent:
            updated["annotations"] = sent
        if outcome is Outcome.FOLLOW_UP:
            updated["followUp"] = True
            payload["followUp"] = True
        # only with m or r, or the words of "chat about this"
        words = state.clarification if outcome is Outcome.CLARIFIED else state.response
        if words.strip():
            updated["response"] = payload["response"] = words
        if outcome is Outcome.FOLLOW_UP:
            text = wording.follow_up_text(data.questions, answers, annotations, state.response)
        elif outcome is Outcome.RESPONDED or (taken and words.strip()):
            text = wording.responded_text(words)
        else:  # the usual case
            text = wording.answered_text(data.questions, answers, annotations)
        return ToolResult(call.id, text, outcome, data=payload, updated_input=updated, taken=taken)
    if outcome is Outcome.CLARIFIED:
        notes = {
            q.question: state.notes[i] for i, q in enumerate(data.questions) if i in state.notes
        }
        text = wording.clarify_text(state.clarification, data.questions, answers, notes)
        return failed(text)
    if outcome is Outcome.DECLINED:
        return failed(results.REJECT_MESSAGE)
    if outcome.status is ExitStatus.INTERRUPTED:
        return failed(signals.interrupted_text(answers))
    why = conv.why(outcome)
    conv.error(f"no answer ({why})")
    idle = options.timeout if outcome is Outcome.TIMED_OUT else None
    text = wording.no_answer_text(why, idle, data.questions, answers, annotations)
    afk = afk_timeout_ms(call.input, idle, time.time() * 1000) if not answers else None
    if afk is not None:  # Claude Code offered to take "nobody answered" as an answer
        payload["afkTimeoutMs"] = afk
        bare = {k: call.input[k] for k in ("title", "questions", "metadata") if k in call.input}
        updated = {**bare, "answers": {}, "afkTimeoutMs": afk}
        return ToolResult(call.id, text, outcome, data=payload, updated_input=updated, taken=True)
    return failed(text)


def todo_write(call: ToolCall, data: TodoInput, conv: Conversation) -> ToolResult:
    """Show the list, keep it for the session, and answer at once (permission: allow)."""
    given = [dict(item) for item in call.input["todos"]]
    kept = conv.options.todos
    for warning in todo_warnings(data):
        conv.error(f"warning: {warning}")
    key = call.agent_id or conv.options.session or call.session_id or "default"
    all_done = all(t["status"] == "completed" for t in given)
    new = [] if all_done else given
    old: list[dict[str, Any]] = []
    if kept is not None:
        old = kept.replace(key, new)
        for note in kept.notes:
            conv.error(note)
        kept.notes.clear()
    title = f"Todo list ({visible(key)})" + (": all done, cleared" if given and all_done else "")
    conv.say(todos.checklist(given, conv.style, title=title, old=old))
    if kept is not None and kept.interrupted:  # a signal while reading the state
        text = signals.interrupted_text({})
        return ToolResult(call.id, text, signals.interruption(), is_error=True)
    text = todos.RESULT_TEXT
    if todos.needs_verification_note(given, subagent=call.agent_id is not None):
        text += todos.VERIFICATION_NOTE
    return ToolResult(
        call.id,
        text,
        Outcome.ANSWERED,
        data={"oldTodos": old, "newTodos": new},
        updated_input=call.input,
    )


def _acp_parse(raw: Any) -> Any:
    """ACP's permission request (:mod:`askcli.wire.dialects.acp_permission`), imported only
    for such a request."""
    from ..wire.dialects import acp_permission

    return acp_permission.parse(raw)


def _acp_choose(call: ToolCall, request: Any, conv: Conversation) -> ToolResult:
    from .permission_options import choose_option

    return choose_option(call, request, conv)


REGISTRY: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(ASK_USER_QUESTION, parse_ask, ask_user_question, soft_rule_warnings),
        Tool(TODO_WRITE, parse_todos, todo_write, todo_warnings),
        Tool(ACP_PERMISSION, _acp_parse, _acp_choose),
    ]
}
FALLBACK = Tool("", permission.parse_any, permission.fallback)


def tool_for(name: str) -> Tool:
    """The tool serving ``name``: its own, another agent's question tool (a dialect), or
    the fallback permission prompt."""
    tool = REGISTRY.get(name)
    if tool is not None:
        return tool
    from ..wire.dialects import by_tool  # only for calls that are not Claude Code's

    dialect = by_tool(name)
    if dialect is None:
        return FALLBACK
    invalid = dialect.invalid or results.validation_error_text
    return Tool(dialect.tool, dialect.parse, _dialect_answer(dialect), dialect.warnings, invalid)


def _dialect_answer(dialect: Dialect) -> Callable[[ToolCall, Any, Conversation], ToolResult]:
    """Ask a dialect's call as AskUserQuestion is asked, and let the dialect reply."""

    def answer(call: ToolCall, data: AskInput, conv: Conversation) -> ToolResult:
        from ..wire.dialects.base import Asked

        if not data.questions:  # an agent that allows an empty list gets its empty answer
            conv.error(f"the {dialect.tool} call has no questions; nothing to ask")
            done = Conclusion(AnswerState(()), Outcome.ANSWERED)
            return dialect.reply(Asked(call, data, done))
        conclusion = converse(call.id, call.input, data, conv)
        why = None
        if conclusion.outcome.status is ExitStatus.NO_ANSWER:
            why = conv.why(conclusion.outcome)
            conv.error(f"no answer ({why})")
        elif conclusion.outcome is Outcome.STOPPED:
            why = signals.no_answer_reason()
        return dialect.reply(Asked(call, data, conclusion, why))

    return answer


def invalid_result(
    call: ToolCall, error: InvalidCall, wording: Wording = CLAUDE_CODE_2_1_88
) -> ToolResult:
    """The result of a call that fails its schema, in its agent's words (AskUserQuestion's
    in the run's ``wording``)."""
    if call.name == ASK_USER_QUESTION:
        text = wording.invalid_text(call.input, error.issues)
    else:
        text = tool_for(call.name).invalid(error.issues)
    return ToolResult(call.id, text, Outcome.INVALID, is_error=True)


def check_call(call: ToolCall, *, short: bool = False) -> tuple[Tool, Any]:
    """The tool and the parsed input of ``call``; raises InvalidCall, or LookupError for
    a malformed call. ``short``: the call came in a document shorter than any string may
    be, so no string in it needs measuring."""
    if call.problem is not None:
        raise LookupError(call.problem)
    tool = tool_for(call.name)
    # no string is longer than the whole input's JSON text: most calls need no search
    if not short and len(json.dumps(call.input, ensure_ascii=False)) > MAX_TEXT:
        too_long = long_text(call.input)
        if too_long is not None:
            raise InvalidCall(call.name, [too_long])
    try:
        return tool, tool.parse(call.input)
    except InvalidCall as error:
        raise InvalidCall(call.name, error.issues) from None


def checked(
    call: ToolCall,
    say: Callable[[str], None],
    wording: Wording = CLAUDE_CODE_2_1_88,
    *,
    short: bool = False,
) -> tuple[Tool, Any] | ToolResult:
    """:func:`check_call`, or the result of a call that cannot be asked (malformed, or
    failing its schema), given without asking anyone; ``say`` gets why, in one line."""
    try:
        return check_call(call, short=short)
    except InvalidCall as error:
        where = f" {call.id}" if call.id else ""
        say(f"invalid {error.tool} call{where}: {describe_issues(error.issues)}")
        return invalid_result(call, error, wording)
    except LookupError as error:
        say(str(error))
        text = results.unreadable_text(str(error))
        return ToolResult(call.id, text, Outcome.INVALID, is_error=True)


def run_call(call: ToolCall, conv: Conversation, *, short: bool = False) -> ToolResult:
    """Answer one call with its tool; malformed and invalid calls get errors."""
    if call.notice is not None:
        conv.error(call.notice)
    found = checked(call, conv.error, conv.options.wording, short=short)
    if isinstance(found, ToolResult):
        return found
    tool, parsed = found
    conv.call_starts()  # --notify: once per call, at its first prompt (TodoWrite has none)
    try:
        return tool.answer(call, parsed, conv)
    finally:
        conv.call_starts(False)
