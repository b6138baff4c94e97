"""Shapes seen in real traffic (issue 31, item 7): Gemini CLI's bare ``{"name": "ask_user",
"args": {...}}`` (its logs, session transcripts and the SDK's ``functionCalls``), a ``text``
question that still carries options, and hook inputs piped to ``askcli ask``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from askcli.runners.recordings import play
from askcli.wire.dialects import gemini
from askcli.wire.envelopes import EnvelopeKind, detect

from tests.support.hook import hook_input

DENIED = "[Operation Cancelled] Reason: User denied execution."
CALL_ID = "ask_user__ask_user_1780793400000_0"  # turn.ts: `${name}__${name}_${Date.now()}_N`
CHOICE = {
    "question": "Which database?",
    "header": "Database",
    "type": "choice",
    "options": [
        {"label": "PostgreSQL", "description": "Relational"},
        {"label": "SQLite", "description": "Embedded"},
    ],
}
TEXT_WITH_OPTIONS = {
    "question": "What should the project be called?",
    "header": "Name",
    "type": "text",
    "placeholder": "my-app",
    "options": [
        {"label": "acme-api", "description": "Matches the repository"},
        {"label": "acme", "description": " "},
    ],
}


def bare(*questions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "ask_user", "args": {"questions": list(questions)}, **extra}


def output_of(line: str) -> dict[str, Any]:
    reply = json.loads(line)
    assert set(reply) <= {"id", "name", "response"}, reply  # no functionResponse envelope
    return reply


# ---- Gemini CLI's bare call ---------------------------------------------------------------


def test_a_bare_call_is_answered_with_the_bare_function_response() -> None:
    outcome = play(calls=[bare(CHOICE)], answers=["2"])
    assert outcome.stdout == [
        '{"name":"ask_user","response":{"output":"{\\"answers\\":{\\"0\\":\\"SQLite\\"}}"}}'
    ]
    assert outcome.status == 0
    assert "[Database] Which database?" in outcome.stderr


def test_a_bare_call_with_an_id_keeps_it() -> None:
    outcome = play(calls=[bare(CHOICE, id=CALL_ID)], answers=["1"])
    reply = output_of(outcome.stdout[0])
    assert list(reply) == ["id", "name", "response"]
    assert reply["id"] == CALL_ID
    assert reply["response"] == {"output": '{"answers":{"0":"PostgreSQL"}}'}


def test_a_session_transcript_record_is_a_bare_call_its_other_keys_ignored() -> None:
    """``recordCompletedToolCalls``: ``{id, name, args, result, status, timestamp, ...}``."""
    record = bare(
        CHOICE,
        id=CALL_ID,
        result=None,
        status="awaiting_approval",
        timestamp="2026-12-07T00:50:00.000Z",
        displayName="Ask User",
        description="Asking user: Which database?",
        renderOutputAsMarkdown=False,
    )
    envelope = detect(record)
    assert envelope.kind is EnvelopeKind.GEMINI_CALL
    (call,) = envelope.calls
    assert (call.id, call.name, call.problem) == (CALL_ID, "ask_user", None)
    outcome = play(calls=[record], answers=["2"])
    assert output_of(outcome.stdout[0])["response"] == {"output": '{"answers":{"0":"SQLite"}}'}


def test_declined_bare_call_gets_the_schedulers_cancellation() -> None:
    outcome = play(calls=[bare(CHOICE)], answers=["q"])
    assert outcome.stdout == ['{"name":"ask_user","response":{"error":"' + DENIED + '"}}']
    assert outcome.status == 1


def test_an_invalid_bare_call_gets_the_clis_text_and_status_2() -> None:
    outcome = play(calls=[{"name": "ask_user", "args": {"questions": [{"question": "Q?"}]}}])
    assert outcome.stdout == [
        '{"name":"ask_user","response":{"error":'
        "\"params/questions/0 must have required property 'header'\"}}"
    ]
    assert outcome.status == 2
    assert "invalid AskUserQuestion call" not in outcome.stderr


def test_args_null_is_the_empty_args_as_gemini_cli_reads_it() -> None:
    outcome = play(calls=[{"name": "ask_user", "args": None}])
    assert outcome.stdout == [
        '{"name":"ask_user","response":{"error":'
        "\"params must have required property 'questions'\"}}"
    ]


def test_output_answers_of_a_bare_call() -> None:
    from askcli.wire.envelopes import Output

    outcome = play(calls=[bare(CHOICE)], answers=["1"], output=Output.ANSWERS)
    assert json.loads(outcome.stdout[0])["answers"] == {"0": "PostgreSQL"}


# ---- a text question that carries options --------------------------------------------------


def test_a_text_question_with_options_is_asked_as_text_with_the_options_listed() -> None:
    outcome = play(calls=[bare(TEXT_WITH_OPTIONS)], answers=["acme-web"])
    assert (
        "[Name] What should the project be called?   (question 1 of 1)\n"
        "  The agent suggested (type one of these, or your own answer):\n"
        "  - acme-api: Matches the repository\n"
        "  - acme\n"
        "  Type your answer (optional: s skips it).\n"
        "  e.g. my-app\n"
    ) in outcome.stderr
    assert "Choose" not in outcome.stderr  # no numbered choice: the answer is the line typed
    assert output_of(outcome.stdout[0])["response"] == {"output": '{"answers":{"0":"acme-web"}}'}


def test_a_suggestion_typed_is_sent_as_typed_and_a_number_is_text() -> None:
    outcome = play(calls=[bare(TEXT_WITH_OPTIONS, CHOICE)], answers=["acme-api", "1", ""])
    (reply,) = outcome.stdout
    assert output_of(reply)["response"] == {
        "output": '{"answers":{"0":"acme-api","1":"PostgreSQL"}}'
    }
    outcome = play(calls=[bare(TEXT_WITH_OPTIONS)], answers=["2"])
    assert output_of(outcome.stdout[0])["response"] == {"output": '{"answers":{"0":"2"}}'}


def test_the_options_of_a_text_question_are_the_suggestions_in_the_shared_model() -> None:
    data = gemini.parse({"questions": [TEXT_WITH_OPTIONS]})
    (question,) = data.questions
    assert question.typed and question.options == ()
    assert question.description == (
        "The agent suggested (type one of these, or your own answer):\n"
        "- acme-api: Matches the repository\n"
        "- acme"
    )
    assert gemini.warnings(data) == [
        "questions[0] is a text question with options: Gemini CLI drops them "
        "(askcli lists them as suggestions)"
    ]
    plain = gemini.parse({"questions": [{**TEXT_WITH_OPTIONS, "options": []}]})
    assert plain.questions[0].description is None and gemini.warnings(plain) == []


def test_a_suggestion_cannot_forge_a_line() -> None:
    q = {**TEXT_WITH_OPTIONS, "options": [{"label": "a\x1b[2Jb", "description": "c\rd"}]}
    outcome = play(calls=[bare(q)], answers=["x"])
    assert "\x1b" not in outcome.stderr and "\r" not in outcome.stderr


# ---- hook inputs piped to askcli ask ------------------------------------------------------

CLAUDE_PRE_TOOL_USE = {
    "session_id": "1a2b3c4d-0000-4000-8000-000000000000",
    "transcript_path": "/home/u/.claude/projects/-home-u-api/1a2b3c4d.jsonl",
    "cwd": "/home/u/api",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "AskUserQuestion",
    "tool_input": {
        "questions": [
            {
                "question": "Which library?",
                "header": "Library",
                "options": [
                    {"label": "date-fns", "description": "Small"},
                    {"label": "luxon", "description": "Zones"},
                ],
                "multiSelect": False,
            }
        ]
    },
    "tool_use_id": "toolu_01ABCDEFGHIJKLMNOPQRSTUV",
}
CLAUDE_PERMISSION_REQUEST = {
    "session_id": "1a2b3c4d-0000-4000-8000-000000000000",
    "transcript_path": "/home/u/.claude/projects/-home-u-api/1a2b3c4d.jsonl",
    "cwd": "/home/u/api",
    "permission_mode": "default",
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "Remove the build folder"},
}
GEMINI_BEFORE_TOOL = {
    "session_id": "8e4f0c1a-0000-4000-8000-000000000000",
    "transcript_path": "/home/u/.gemini/tmp/abc/chats/session-2026-12-07T00-50-8e4f0c1a.json",
    "cwd": "/home/u/api",
    "hook_event_name": "BeforeTool",
    "timestamp": "2026-12-07T00:50:00.000Z",
    "tool_name": "ask_user",
    "tool_input": {"questions": [CHOICE]},
}


@pytest.mark.parametrize(
    ("document", "said"),
    [
        (
            CLAUDE_PRE_TOOL_USE,
            'askcli: this is a Claude Code hook input ("PreToolUse" for "AskUserQuestion"), '
            "not a tool call: use askcli hook as the hook's command\n",
        ),
        (
            CLAUDE_PERMISSION_REQUEST,
            'askcli: this is a Claude Code hook input ("PermissionRequest" for "Bash"), '
            "not a tool call: use askcli hook as the hook's command\n",
        ),
        (
            {k: v for k, v in CLAUDE_PRE_TOOL_USE.items() if k != "tool_name"},
            'askcli: this is a Claude Code hook input ("PreToolUse"), '
            "not a tool call: use askcli hook as the hook's command\n",
        ),
        (
            GEMINI_BEFORE_TOOL,
            'askcli: this is a Gemini CLI hook input ("BeforeTool" for "ask_user"), not a tool '
            "call: a Gemini CLI hook can allow or block ask_user but not answer it; give askcli "
            'ask the call itself ({"name": "ask_user", "args": {...}} or its functionCall)\n',
        ),
    ],
)
def test_a_hook_input_is_told_in_one_line_what_to_do(document: dict[str, Any], said: str) -> None:
    outcome = play(calls=[document], answers=["1"])
    assert outcome.stderr == said  # nothing asked
    (line,) = outcome.stdout
    result = json.loads(line)
    assert result["tool_use_id"] is None  # no invented id
    assert result["is_error"] is True
    assert result["content"] == (
        f"<tool_use_error>InputValidationError: {said[len('askcli: ') : -1]}</tool_use_error>"
    )
    assert outcome.status == 2


@pytest.mark.parametrize(
    ("event", "tool"), [("PreToolUse", "AskUserQuestion"), ("PermissionRequest", "Bash")]
)
def test_claude_codes_own_hook_input_gets_the_hint(event: str, tool: str) -> None:
    """Claude Code 2.1.197's hook input as it wrote it (``prompt_id``, ``effort``, ...)."""
    outcome = play(calls=[hook_input(event, tool)])
    assert outcome.stderr == (
        f'askcli: this is a Claude Code hook input ("{event}" for "{tool}"), '
        "not a tool call: use askcli hook as the hook's command\n"
    )
    assert json.loads(outcome.stdout[0])["tool_use_id"] is None
    assert outcome.status == 2


def test_an_event_both_agents_have_is_told_apart_by_geminis_timestamp() -> None:
    start = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "SessionStart"}
    claude = play(calls=[{**start, "source": "startup"}])
    assert "Claude Code hook input" in claude.stderr
    gemini_start = play(calls=[{**start, "timestamp": "2026-12-07T00:50:00.000Z"}])
    assert "Gemini CLI hook input" in gemini_start.stderr


def test_a_long_event_name_is_cut_short() -> None:
    outcome = play(calls=[{**CLAUDE_PRE_TOOL_USE, "hook_event_name": "E" * 500}])
    assert len(outcome.stderr) < 300 and "E…" in outcome.stderr


def test_hook_input_keys_inside_a_call_are_no_hook_input() -> None:
    """Only the document's own ``hook_event_name`` counts: a question may mention one."""
    q = {**CHOICE, "question": '{"hook_event_name": "PreToolUse"}?'}
    outcome = play(calls=[bare(q)], answers=["1"])
    assert outcome.status == 0
