"""The tools registry: tool name -> handler (the seed's ``permissionComponentForTool``).

A handler takes one :class:`~askcli.envelopes.ToolCall` and the conversation and returns
its :class:`~askcli.results.ToolResult`. Adding a tool means adding a handler here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import results
from .envelopes import ASK_USER_QUESTION, ToolCall
from .errors import InvalidCall
from .repl import Conclusion, Conversation, Ending, ask_questions
from .results import Status, ToolResult
from .schema import AskUserQuestionInput, parse_input
from .state import Outcome
from .validation import describe_issues

Handler = Callable[[ToolCall, Conversation], ToolResult]


def final_answers(conclusion: Conclusion) -> dict[str, str]:
    """The answers in the order they were first given, the call's own answers first."""
    return dict(conclusion.state.answers)


def final_annotations(
    data: AskUserQuestionInput, conclusion: Conclusion
) -> dict[str, dict[str, str]]:
    """The call's annotations, with the chosen previews and the person's notes merged in."""
    out = {
        key: note.model_dump(exclude_none=True) for key, note in (data.annotations or {}).items()
    }
    state = conclusion.state
    for i, question in enumerate(data.questions):
        note = dict(out.get(question.question, {}))
        if i in state.previews:
            note["preview"] = state.previews[i]
        if i in state.notes:
            note["notes"] = state.notes[i]
        if note:
            out[question.question] = note
    return {key: note for key, note in out.items() if note}


def invalid(call: ToolCall, error: InvalidCall, conv: Conversation) -> ToolResult:
    where = f" {call.id}" if call.id else ""
    conv.error(f"invalid {error.tool} call{where}: {describe_issues(error.issues)}")
    return ToolResult(
        call.id, results.validation_error_text(error.issues), Status.INVALID, is_error=True
    )


def ask_user_question(call: ToolCall, conv: Conversation) -> ToolResult:
    """Validate, ask the person, and turn the conclusion into the tool_result."""
    try:
        data = parse_input(call.input)
    except InvalidCall as error:
        return invalid(call, error, conv)
    conclusion = ask_questions(data, conv)
    answers = final_answers(conclusion)
    state = conclusion.state
    if conclusion.ending is Ending.DONE and state.outcome is Outcome.SUBMITTED:
        annotations = final_annotations(data, conclusion)
        payload: dict[str, Any] = {"questions": call.input["questions"], "answers": answers}
        if annotations:
            payload["annotations"] = annotations
        text = results.answered_text(answers, annotations)
        return ToolResult(call.id, text, Status.ANSWERED, data=payload)
    if conclusion.ending is Ending.DONE and state.outcome is Outcome.CLARIFY:
        questions = [q.question for q in data.questions]
        text = results.clarify_text(state.clarification, questions, answers)
        return ToolResult(call.id, text, Status.DECLINED, is_error=True)
    if conclusion.ending is Ending.DONE:
        return ToolResult(call.id, results.REJECT_MESSAGE, Status.DECLINED, is_error=True)
    if conclusion.ending is Ending.INTERRUPTED:
        return ToolResult(call.id, results.REJECT_MESSAGE, Status.INTERRUPTED, is_error=True)
    if conclusion.ending is Ending.TIMEOUT:
        why = f"no reply within {conv.timeout:g} seconds" if conv.timeout else "no reply"
    else:
        why = "the input ended"
    conv.error(f"no answer ({why})")
    return ToolResult(
        call.id, results.no_answer_text(why, answers), Status.NO_ANSWER, is_error=True
    )


REGISTRY: dict[str, Handler] = {
    ASK_USER_QUESTION: ask_user_question,
}


def run_call(call: ToolCall, conv: Conversation) -> ToolResult:
    """Answer one call with its tool's handler; malformed and unknown calls get errors."""
    if call.problem is not None:
        conv.error(call.problem)
        return ToolResult(
            call.id, results.unreadable_text(call.problem), Status.INVALID, is_error=True
        )
    handler = REGISTRY.get(call.name)
    if handler is None:
        conv.error(f"no such tool: {call.name}")
        return ToolResult(
            call.id, results.unknown_tool_text(call.name), Status.INVALID, is_error=True
        )
    return handler(call, conv)
