"""The tools registry: tool name -> tool (the seed's ``permissionComponentForTool``).

A :class:`Tool` says how to validate a call's input, which soft rules to report in
``askcli check --strict``, and how to answer it. Adding a tool means adding one here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import results
from .envelopes import ASK_USER_QUESTION, ToolCall
from .errors import InvalidCall
from .repl import Conclusion, Conversation, Ending, ask_questions
from .results import Status, ToolResult
from .schema import AskUserQuestionInput, parse_input, soft_rule_warnings
from .state import Outcome
from .validation import describe_issues


@dataclass(frozen=True)
class Tool:
    """One tool askcli serves.

    ``parse`` validates the raw input (raising InvalidCall); ``answer`` runs the parsed
    call with the person; ``warnings`` lists the soft rules the input breaks.
    """

    name: str
    parse: Callable[[Any], Any]
    answer: Callable[[ToolCall, Any, Conversation], ToolResult]
    warnings: Callable[[Any], list[str]] = lambda _: []


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


def ask_user_question(call: ToolCall, data: AskUserQuestionInput, conv: Conversation) -> ToolResult:
    """Ask the person and turn the conclusion into the tool_result.

    Answers are listed in the order they were first given, the call's own answers first.
    """
    conclusion = ask_questions(data, conv)
    state = conclusion.state
    answers = dict(state.answers)
    annotations = final_annotations(data, conclusion)
    payload = {"questions": call.input["questions"], "answers": answers, "annotations": annotations}

    def failed(text: str, status: Status) -> ToolResult:
        return ToolResult(call.id, text, status, is_error=True, data=payload)

    if conclusion.ending is Ending.DONE and state.outcome is Outcome.SUBMITTED:
        updated = {**call.input, "answers": answers}
        if annotations:
            updated["annotations"] = annotations
        text = results.answered_text(answers, annotations)
        return ToolResult(call.id, text, Status.ANSWERED, data=payload, updated_input=updated)
    if conclusion.ending is Ending.DONE and state.outcome is Outcome.CLARIFY:
        questions = [q.question for q in data.questions]
        return failed(
            results.clarify_text(state.clarification, questions, answers), Status.DECLINED
        )
    if conclusion.ending is Ending.DONE:
        return failed(results.REJECT_MESSAGE, Status.DECLINED)
    if conclusion.ending is Ending.INTERRUPTED:
        return failed(results.REJECT_MESSAGE, Status.INTERRUPTED)
    if conclusion.ending is Ending.TIMEOUT:
        why = f"no reply within {conv.timeout:g} seconds" if conv.timeout else "no reply"
    else:
        why = "the input ended"
    conv.error(f"no answer ({why})")
    return failed(results.no_answer_text(why, answers), Status.NO_ANSWER)


REGISTRY: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(ASK_USER_QUESTION, parse_input, ask_user_question, soft_rule_warnings),
    ]
}


def invalid_result(call: ToolCall, error: InvalidCall) -> ToolResult:
    return ToolResult(
        call.id, results.validation_error_text(error.issues), Status.INVALID, is_error=True
    )


def check_call(call: ToolCall) -> tuple[Tool, Any]:
    """The tool and the parsed input of ``call``; raises InvalidCall or LookupError."""
    if call.problem is not None:
        raise LookupError(call.problem)
    tool = REGISTRY.get(call.name)
    if tool is None:
        raise LookupError(f"no such tool: {call.name}")
    return tool, tool.parse(call.input)


def run_call(call: ToolCall, conv: Conversation) -> ToolResult:
    """Answer one call with its tool; malformed, unknown and invalid calls get errors."""
    try:
        tool, parsed = check_call(call)
    except InvalidCall as error:
        where = f" {call.id}" if call.id else ""
        conv.error(f"invalid {error.tool} call{where}: {describe_issues(error.issues)}")
        return invalid_result(call, error)
    except LookupError as error:
        conv.error(str(error))
        if call.problem is not None:
            text = results.unreadable_text(call.problem)
        else:
            text = results.unknown_tool_text(call.name)
        return ToolResult(call.id, text, Status.INVALID, is_error=True)
    return tool.answer(call, parsed, conv)
