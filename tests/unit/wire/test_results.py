"""Result texts: the seed's format and Claude Code's rejection texts, exactly."""

from __future__ import annotations

from askcli.questions.outcome import Outcome
from askcli.status import ExitStatus
from askcli.wire.results import (
    REJECT_MESSAGE,
    ToolResult,
    answered_text,
    clarify_text,
    no_answer_text,
    validation_error_text,
)


def test_answered_text_one_question() -> None:
    assert answered_text({"Which?": "dayjs"}, {}) == (
        'User has answered your questions: "Which?"="dayjs". '
        "You can now continue with the user's answers in mind."
    )


def test_answered_text_with_preview_and_notes() -> None:
    text = answered_text(
        {"Q1": "A1", "Q2": "A2"},
        {"Q1": {"preview": "<preview>", "notes": "<notes>"}, "Q2": {}},
    )
    assert text == (
        'User has answered your questions: "Q1"="A1" selected preview:\n<preview> '
        'user notes: <notes>, "Q2"="A2". You can now continue with the user\'s answers in mind.'
    )


def test_reject_message_is_claude_codes() -> None:
    assert REJECT_MESSAGE == (
        "The user doesn't want to proceed with this tool use. The tool use was rejected "
        "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
        "you are doing and wait for the user to tell you how to proceed."
    )


def test_clarify_text() -> None:
    text = clarify_text("What is S2S?", ["Q1?", "Q2?"], {"Q1?": "A"})
    assert text == (
        "The user doesn't want to proceed with this tool use. The tool use was rejected "
        "(eg. if it was a file edit, the new_string was NOT written to the file). "
        "To tell you how to proceed, the user said:\n"
        "The user wants to clarify these questions.\n"
        "What is S2S?\n"
        "\n"
        "Questions asked:\n"
        '- "Q1?"\n'
        "  Answer: A\n"
        '- "Q2?"\n'
        "  (No answer provided)"
    )


def test_no_answer_text() -> None:
    assert no_answer_text("the input ended", {}) == "No answer from the user (the input ended)."
    assert no_answer_text("no reply within 5 seconds", {"Q1": "A", "Q2": "B"}) == (
        "No answer from the user (no reply within 5 seconds). Answers given before that: "
        '"Q1"="A", "Q2"="B".'
    )


def test_error_texts() -> None:
    issue = {"code": "custom", "message": "m", "path": []}
    assert validation_error_text([issue]) == (
        '<tool_use_error>InputValidationError: [\n  {\n    "code": "custom",\n'
        '    "message": "m",\n    "path": []\n  }\n]</tool_use_error>'
    )


def test_tool_result_block_has_is_error_only_when_true() -> None:
    ok = ToolResult("toolu_1", "fine", Outcome.ANSWERED)
    assert ok.block() == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fine"}
    bad = ToolResult("toolu_1", "no", Outcome.DECLINED, is_error=True)
    assert bad.block()["is_error"] is True


def test_exit_statuses() -> None:
    assert [int(s) for s in ExitStatus] == [0, 1, 2, 3, 74, 129, 130, 141, 143]


def test_decisions_for_the_agent_sdk() -> None:
    allowed = ToolResult(
        "t", "fine", Outcome.ANSWERED, updated_input={"questions": [], "answers": {}}
    )
    assert allowed.decision() == {
        "behavior": "allow",
        "updatedInput": {"questions": [], "answers": {}},
    }
    declined = ToolResult("t", "no", Outcome.DECLINED, is_error=True)
    assert declined.decision() == {"behavior": "deny", "message": "no"}
    interrupted = ToolResult("t", "stop", Outcome.INTERRUPTED, is_error=True)
    assert interrupted.decision() == {"behavior": "deny", "message": "stop", "interrupt": True}


def test_answers_view_adds_the_error_only_when_not_answered() -> None:
    data = {"questions": [], "answers": {"Q": "A"}, "annotations": {}}
    assert ToolResult("t", "ok", Outcome.ANSWERED, data=data).answers() == data
    assert ToolResult("t", "no", Outcome.ENDED, True, data=data).answers() == {
        **data,
        "error": "no",
    }
