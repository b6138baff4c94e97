"""Codex's ``request_user_input``: its call, its checks and its replies, byte for byte as
codex-cli 0.171.0 sends them (the outputs marked "observed" were captured from it)."""

from __future__ import annotations

import io
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import InvalidCall
from askcli.escaping import first_control
from askcli.lines import TextLineReader
from askcli.runners.check import check
from askcli.runners.recordings import play
from askcli.runners.session import answer_document, ask
from askcli.status import ExitStatus
from askcli.terminal import signals
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.wire.dialects import by_name, by_tool, codex
from askcli.wire.documents import Document
from askcli.wire.envelopes import Output

from tests.support.attacks import ATTACKS, check_bytes
from tests.support.calls import Scripted, example
from tests.support.terminals import Terminal

EXAMPLE = example("codex.json")
CALL_ID = "call_Xk3p9QvZ2mTn8Lw4Rb7Yd1Hs"
# the call of the research's captures (codex-cli 0.171.0)
CONFIRM = {
    "id": "confirm_path",
    "header": "Confirm",
    "question": "Proceed with the plan?",
    "options": [
        {"label": "Yes (Recommended)", "description": "Continue the current plan."},
        {"label": "No", "description": "Stop and revisit the approach."},
    ],
}
DB = {
    "id": "db",
    "header": "Database",
    "question": "Which database?",
    "options": [
        {"label": "Postgres", "description": "Robust."},
        {"label": "SQLite", "description": "Simple."},
    ],
}


def function_call(*questions: dict[str, Any], call_id: str = "call-A", **extra: Any) -> Any:
    """A Responses API ``function_call`` item, ``arguments`` a JSON string as Codex sends."""
    arguments = json.dumps({"questions": list(questions) or [CONFIRM], **extra})
    return {
        "type": "function_call",
        "name": "request_user_input",
        "arguments": arguments,
        "call_id": call_id,
    }


def output_of(line: str) -> str:
    """The ``output`` of a ``function_call_output`` line."""
    reply = json.loads(line)
    assert reply["type"] == "function_call_output" and set(reply) == {"type", "call_id", "output"}
    return str(reply["output"])


def played(answers: list[str], *questions: dict[str, Any], **kw: Any) -> tuple[str, str, int]:
    """The output string, the whole stderr and the status of one call."""
    outcome = play(calls=[function_call(*questions)], answers=answers, **kw)
    (line,) = outcome.stdout
    return output_of(line), outcome.stderr, outcome.status


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock the test moves: Codex's abort text says how long the tool ran."""
    now = [100.0]
    monkeypatch.setattr(codex, "_clock", lambda: now[0])
    return now


# --- golden transcripts: the whole stderr, the exact stdout ------------------------------

EXAMPLE_SCREEN_1 = [
    "",
    "[Storage] Where should the job queue keep its state?   (question 1 of 2)",
    "  1. Postgres (Recommended)",
    "     Reuses the existing database; no new service to run.",
    "  2. Redis",
    "     Faster polling, but one more service to deploy and back up.",
    "  3. SQLite file",
    "     Simplest to ship; only works with a single worker.",
    "  4. Other",
    "     type your own answer",
    "  (optional: s skips it)",
    "  (keys: 1-4 choose, ? help, q decline)",
]
EXAMPLE_SCREEN_2 = [
    "",
    "[Retries] How should failed jobs be retried?   (question 2 of 2)",
    "  1. Exponential backoff (Recommended)",
    "     Up to 5 attempts, doubling the delay each time.",
    "  2. Fixed delay",
    "     Every 30 seconds until an operator intervenes.",
    "  3. Other",
    "     type your own answer",
    "  (optional: s skips it)",
]
REVIEW_END = [
    "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.",
    "Submit? [y]: ",
    "",
]


def test_golden_the_example_answered() -> None:
    outcome = play(calls=[EXAMPLE], answers=["1", "2", ""])
    assert outcome.stderr.split("\n") == [
        *EXAMPLE_SCREEN_1,
        "Choose 1-4 [1]: 1",
        *EXAMPLE_SCREEN_2,
        "Choose 1-3 [1]: 2",
        "",
        "Review your answers:",
        "  1. [Storage] Where should the job queue keep its state?",
        "       Postgres (Recommended)",
        "  2. [Retries] How should failed jobs be retried?",
        "       Fixed delay",
        *REVIEW_END,
    ]
    assert outcome.stdout == [
        '{"type":"function_call_output","call_id":"call_Xk3p9QvZ2mTn8Lw4Rb7Yd1Hs","output":'
        '"{\\"answers\\":{\\"storage\\":{\\"answers\\":[\\"Postgres (Recommended)\\"]},'
        '\\"retry_policy\\":{\\"answers\\":[\\"Fixed delay\\"]}}}"}'
    ]
    assert outcome.status == 0


def test_golden_notes_other_and_a_skipped_question() -> None:
    outcome = play(
        calls=[EXAMPLE], answers=["n one worker only", "4", "sqlite in WAL mode", "s", ""]
    )
    assert outcome.stderr.split("\n") == [
        *EXAMPLE_SCREEN_1,
        "Choose 1-4 [1]: n one worker only",
        "Notes saved.",
        "Choose 1-4 [1]: 4",
        "Other, type your answer: sqlite in WAL mode",
        *EXAMPLE_SCREEN_2,
        "Choose 1-3 [1]: s",
        "Skipped question 2; answer it from the review.",
        "",
        "Review your answers:",
        "  1. [Storage] Where should the job queue keep its state?",
        "       sqlite in WAL mode",
        "       notes: one worker only",
        "  2. [Retries] How should failed jobs be retried?",
        "       (no answer: skipped)",
        *REVIEW_END,
    ]
    assert outcome.stdout == [
        '{"type":"function_call_output","call_id":"call_Xk3p9QvZ2mTn8Lw4Rb7Yd1Hs","output":'
        '"{\\"answers\\":{\\"storage\\":{\\"answers\\":[\\"None of the above\\",'
        '\\"user_note: sqlite in WAL mode\\",\\"user_note: one worker only\\"]},'
        '\\"retry_policy\\":{\\"answers\\":[]}}}"}'
    ]
    assert outcome.status == 0


CONFIRM_SCREEN = [
    "",
    "[Confirm] Proceed with the plan?   (question 1 of 1)",
    "  1. Yes (Recommended) - Continue the current plan.",
    "  2. No - Stop and revisit the approach.",
    "  3. Other - type your own answer",
    "  (optional: s skips it)",
    "  (keys: 1-3 choose, ? help, q decline)",
]


def test_golden_declined(clock: list[float]) -> None:
    outcome = play(calls=[function_call()], answers=["q"])
    assert outcome.stderr.split("\n") == [*CONFIRM_SCREEN, "Choose 1-3 [1]: q", ""]
    assert outcome.stdout == [
        '{"type":"function_call_output","call_id":"call-A","output":"aborted by user after 0.1s"}'
    ]
    assert outcome.status == 1


def test_golden_chat_about_this() -> None:
    outcome = play(calls=[function_call()], answers=["c", "what does the plan change?"])
    assert outcome.stderr.split("\n") == [
        *CONFIRM_SCREEN,
        "Choose 1-3 [1]: c",
        "What would you like to clarify? what does the plan change?",
        "",
    ]
    assert outcome.stdout == [
        '{"type":"function_call_output","call_id":"call-A","output":"{\\"answers\\":'
        '{\\"confirm_path\\":{\\"answers\\":[\\"user_note: what does the plan change?\\"]}}}"}'
    ]
    assert outcome.status == 1


def test_golden_the_input_ended() -> None:
    outcome = play(calls=[function_call()], answers=[])
    assert outcome.stderr.split("\n") == [
        *CONFIRM_SCREEN,
        "Choose 1-3 [1]: ",
        "askcli: no answer (the input ended)",
        "",
    ]
    assert outcome.stdout == [
        '{"type":"function_call_output","call_id":"call-A","output":"{\\"answers\\":{}}"}'
    ]
    assert outcome.status == 3


def test_golden_invalid_call_is_one_line_and_exit_2() -> None:
    bad = function_call({**CONFIRM, "options": []})
    outcome = play(calls=[bad], answers=["1"])
    assert outcome.stderr == (
        "askcli: invalid request_user_input call call-A: questions[0].options: "
        "request_user_input requires non-empty options for every question\n"
    )
    (line,) = outcome.stdout
    reply = json.loads(line)
    assert reply["call_id"] == "call-A"
    assert "request_user_input requires non-empty options for every question" in reply["output"]
    assert outcome.status == 2


# --- every reply case ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answers", "observed"),
    [
        (["2"], '{"answers":{"confirm_path":{"answers":["No"]}}}'),
        (
            ["n because reasons", "1"],
            '{"answers":{"confirm_path":{"answers":'
            '["Yes (Recommended)","user_note: because reasons"]}}}',
        ),
        (
            ["3", "use sqlite instead"],
            '{"answers":{"confirm_path":{"answers":'
            '["None of the above","user_note: use sqlite instead"]}}}',
        ),
        ([""], '{"answers":{"confirm_path":{"answers":["Yes (Recommended)"]}}}'),
    ],
    ids=["option", "option-and-note", "other-text", "recommended-default"],
)
def test_the_outputs_codex_sends(answers: list[str], observed: str) -> None:
    """Each byte for byte as captured from codex-cli 0.171.0's requests."""
    text, _, status = played(answers)
    assert text == observed
    assert status == 0


def test_a_skipped_question_has_an_empty_list() -> None:
    text, stderr, status = played(["s", "", ""], DB, CONFIRM)
    # observed (Codex's HashMap orders keys as it likes; askcli keeps the call's order):
    # {"answers":{"db":{"answers":[]},"confirm_path":{"answers":["Yes (Recommended)"]}}}
    assert (
        text == '{"answers":{"db":{"answers":[]},"confirm_path":{"answers":["Yes (Recommended)"]}}}'
    )
    assert "       (no answer: skipped)" in stderr
    assert status == 0


def test_a_note_alone_on_a_skipped_question() -> None:
    text, _, _ = played(["n ask me tomorrow", "s", "2", ""], DB, CONFIRM)
    assert json.loads(text)["answers"]["db"] == {"answers": ["user_note: ask me tomorrow"]}


def test_notes_are_trimmed_and_blank_ones_dropped() -> None:
    text, _, _ = played(["n    spaced out   ", "2"])
    assert json.loads(text)["answers"]["confirm_path"]["answers"] == ["No", "user_note: spaced out"]


def test_a_multiselect_key_is_ignored_as_codex_ignores_it() -> None:
    text, stderr, _ = played(["1,2", "2"], {**CONFIRM, "multiSelect": True})
    assert "! this question takes one answer; type a single number" in stderr
    assert json.loads(text)["answers"]["confirm_path"]["answers"] == ["No"]


def test_is_other_false_still_gets_other() -> None:
    text, stderr, _ = played(["3", "later"], {**CONFIRM, "isOther": False})
    assert "  3. Other - type your own answer" in stderr
    assert json.loads(text)["answers"]["confirm_path"]["answers"] == [
        "None of the above",
        "user_note: later",
    ]


def test_chat_about_this_at_the_review_goes_on_the_first_question() -> None:
    text, _, status = played(["2", "1", "c tell me more first"], DB, CONFIRM)
    assert json.loads(text) == {
        "answers": {
            "db": {"answers": ["SQLite", "user_note: tell me more first"]},
            "confirm_path": {"answers": ["Yes (Recommended)"]},
        }
    }
    assert status == 1


def test_the_abort_text_says_how_long_the_call_ran(clock: list[float]) -> None:
    class Slow(Scripted):
        def readline(self, timeout: float | None = None) -> str | None:
            clock[0] += 2.34
            return super().readline(timeout)

    conv = Conversation(Slow(["1", "q", "y"], "end"), io.StringIO(), Style())
    reply = answer_document(Document(function_call(DB, CONFIRM)), conv)
    (result,) = reply.results
    assert result.content == "aborted by user after 7.0s"
    assert result.is_error and reply.status is ExitStatus.DECLINED
    assert codex.abort_text(0.0) == "aborted by user after 0.1s"  # Codex's floor
    assert codex.abort_text(12.349) == "aborted by user after 12.3s"


def run_scripted(lines: list[str], then: str, timeout: float | None = None) -> Any:
    out = io.StringIO()
    conv = Conversation(Scripted(lines, then), out, Style(), RunOptions(timeout=timeout))
    reply = answer_document(Document(function_call(DB, CONFIRM)), conv)
    (result,) = reply.results
    return reply, result, out.getvalue()


def test_ctrl_c_is_the_abort(clock: list[float]) -> None:
    reply, result, _ = run_scripted(["1"], "interrupt")
    assert reply.status is ExitStatus.INTERRUPTED
    assert result.content == "aborted by user after 0.1s"
    assert result.answers()["status"] == {
        "Which database?": "declined",
        "Proceed with the plan?": "declined",
    }


def test_a_timeout_sends_no_answers_as_codex_auto_resolution_does() -> None:
    reply, result, shown = run_scripted(["1"], "timeout", timeout=2.5)
    assert reply.status is ExitStatus.NO_ANSWER
    assert result.content == '{"answers":{}}'
    assert "askcli: no answer (no reply within 2.5 seconds)" in shown
    data = result.answers()
    assert data["answers"] == {"db": {"answers": ["Postgres"]}, "confirm_path": {"answers": []}}
    assert data["status"] == {"Which database?": "timed out", "Proceed with the plan?": "timed out"}


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_hang_up_or_stop_sends_no_answers(
    monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    monkeypatch.setattr(signals, "_received", [sig])
    reply, result, _ = run_scripted(["2"], "interrupt")
    assert reply.status is ExitStatus.INTERRUPTED
    assert result.content == '{"answers":{}}'
    assert result.answers()["status"]["Which database?"] == "dismissed"


def test_the_input_ended_keeps_what_was_given_in_the_data() -> None:
    reply, result, _ = run_scripted(["2"], "end")
    assert reply.status is ExitStatus.NO_ANSWER and result.content == '{"answers":{}}'
    assert result.answers()["answers"]["db"] == {"answers": ["SQLite"]}


# --- secrets --------------------------------------------------------------------------------


def test_a_secret_is_hidden_at_the_terminal_but_sent_as_codex_sends_it() -> None:
    secret = {**CONFIRM, "isSecret": True}
    text, stderr, _ = played(["3", "hunter2"], secret)
    assert "hunter2" not in stderr
    assert "Other, type your answer: (hidden)" in stderr
    # observed: the model gets the plain text (Codex does not redact it)
    assert json.loads(text)["answers"]["confirm_path"]["answers"] == [
        "None of the above",
        "user_note: hunter2",
    ]


@pytest.mark.parametrize("secret", [False, True], ids=["plain", "secret"])
def test_a_secret_call_is_never_journaled(secret: bool, tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    conv = Conversation(
        TextLineReader(io.StringIO("3\nhunter2\n")),
        io.StringIO(),
        Style(),
        RunOptions(journal_file=journal),
    )
    # the input ends at the second question: a journal keeps the lines of an unfinished call
    call = function_call({**CONFIRM, "isSecret": secret}, DB)
    reply = answer_document(Document(call), conv)
    assert reply.status is ExitStatus.NO_ANSWER
    written = journal.read_text() if journal.exists() else ""
    assert ("hunter2" in written) is not secret


# --- --output ---------------------------------------------------------------------------


def test_output_answers_is_the_data_for_jq() -> None:
    outcome = play(
        calls=[function_call(DB, CONFIRM)], answers=["2", "n soon", "1", ""], output=Output.ANSWERS
    )
    (line,) = outcome.stdout
    assert json.loads(line) == {
        "questions": [DB, CONFIRM],
        "answers": {
            "db": {"answers": ["SQLite"]},
            "confirm_path": {"answers": ["Yes (Recommended)", "user_note: soon"]},
        },
        "status": {"Which database?": "answered", "Proceed with the plan?": "answered"},
    }


def test_output_answers_when_declined_has_the_error(clock: list[float]) -> None:
    outcome = play(calls=[function_call()], answers=["q"], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["error"] == "aborted by user after 0.1s"
    assert data["status"] == {"Proceed with the plan?": "declined"}


def test_output_text_is_the_output_string() -> None:
    outcome = play(calls=[function_call()], answers=["2"], output=Output.TEXT)
    assert outcome.stdout == ['{"answers":{"confirm_path":{"answers":["No"]}}}']


def test_output_sdk(clock: list[float]) -> None:
    allowed = play(calls=[function_call()], answers=["2"], output=Output.SDK)
    assert json.loads(allowed.stdout[0]) == {
        "behavior": "allow",
        "updatedInput": {
            "questions": [CONFIRM],
            "answers": {"confirm_path": {"answers": ["No"]}},
        },
    }
    denied = play(calls=[function_call()], answers=["q"], output=Output.SDK)
    assert json.loads(denied.stdout[0]) == {
        "behavior": "deny",
        "message": "aborted by user after 0.1s",
    }


# --- envelopes ------------------------------------------------------------------------------


def test_a_chat_tool_call_and_a_tool_use_block() -> None:
    arguments = json.dumps({"questions": [CONFIRM]})
    chat = {
        "id": "call_chat",
        "type": "function",
        "function": {"name": "request_user_input", "arguments": arguments},
    }
    block = {
        "type": "tool_use",
        "id": "toolu_x",
        "name": "request_user_input",
        "input": {"questions": [CONFIRM]},
    }
    outcome = play(calls=[chat, block], answers=["2", "1"])
    first, second = (json.loads(line) for line in outcome.stdout)
    assert first == {
        "role": "tool",
        "tool_call_id": "call_chat",
        "content": '{"answers":{"confirm_path":{"answers":["No"]}}}',
    }
    assert second == {
        "type": "tool_result",
        "tool_use_id": "toolu_x",
        "content": '{"answers":{"confirm_path":{"answers":["Yes (Recommended)"]}}}',
    }


def test_a_whole_responses_api_response() -> None:
    outcome = play(calls=[example("codex-response.json")], answers=["2", "1", ""])
    assert "Assistant: Before I write the plan I need two decisions" in outcome.stderr
    (line,) = outcome.stdout
    assert json.loads(line) == {
        "type": "function_call_output",
        "call_id": CALL_ID,
        "output": '{"answers":{"storage":{"answers":["Redis"]},'
        '"retry_policy":{"answers":["Exponential backoff (Recommended)"]}}}',
    }


def test_the_output_is_serde_json_spelling() -> None:
    """Compact, non-ASCII as it is, controls as serde_json escapes them."""
    text, _, _ = played(["3", 'naïve 日本 "q" \\ tab\there'])
    assert text == (
        '{"answers":{"confirm_path":{"answers":["None of the above",'
        '"user_note: naïve 日本 \\"q\\" \\\\ tab\\there"]}}}'
    )


# --- parsing: as lenient as Codex, refusing what it refuses -------------------------------


def test_codex_accepts_what_its_schema_only_advises() -> None:
    many = [
        {**CONFIRM, "id": f"q{i}", "question": f"Q{i}?", "header": "A very long header indeed"}
        for i in range(4)
    ]
    many[0]["options"] = [{"label": f"Opt {n}", "description": ""} for n in range(5)]
    many[1]["options"] = many[1]["options"][:1]
    many[2]["extra"] = 1
    parsed = codex.parse({"questions": many, "unknown": True})
    assert len(parsed.questions) == 4
    assert [len(q.options) for q in parsed.questions] == [5, 1, 2, 2]
    assert all(q.other and not q.required and not q.multiSelect for q in parsed.questions)


def test_same_question_texts_are_told_apart_and_answered_by_id() -> None:
    twin = {**DB, "id": "db2"}
    parsed = codex.parse({"questions": [DB, twin]})
    assert [q.question for q in parsed.questions] == ["Which database?", "Which database? (2)"]
    text, stderr, _ = played(["1", "2", ""], DB, twin)
    assert "[Database] Which database? (2)   (question 2 of 2)" in stderr
    assert json.loads(text) == {
        "answers": {"db": {"answers": ["Postgres"]}, "db2": {"answers": ["SQLite"]}}
    }


def test_a_repeated_id_keeps_the_later_answer_as_codex_does() -> None:
    again = {**CONFIRM, "question": "Really proceed?"}
    text, _, _ = played(["1", "2", ""], CONFIRM, again)
    assert text == '{"answers":{"confirm_path":{"answers":["No"]}}}'


def test_is_secret_makes_a_secret_question() -> None:
    parsed = codex.parse(
        {"questions": [{**CONFIRM, "isSecret": True}, CONFIRM | {"id": "b", "question": "B?"}]}
    )
    assert [q.secret for q in parsed.questions] == [True, False]


@pytest.mark.parametrize(
    ("raw", "where", "message"),
    [
        ({}, "", "missing field `questions`"),
        ([1], "", "invalid type: sequence, expected struct RequestUserInputArgs"),
        ({"questions": "x"}, "questions", 'invalid type: string "x", expected a sequence'),
        (
            {"questions": [7]},
            "questions[0]",
            "invalid type: integer `7`, expected struct RequestUserInputQuestion",
        ),
        (
            {"questions": [{k: v for k, v in CONFIRM.items() if k != "id"}]},
            "questions[0]",
            "missing field `id`",
        ),
        (
            {"questions": [{"header": 1}]},
            "questions[0].header",
            "invalid type: integer `1`, expected a string",
        ),
        (
            {"questions": [{**CONFIRM, "question": None}]},
            "questions[0].question",
            "invalid type: null, expected a string",
        ),
        (
            {"questions": [{**CONFIRM, "isSecret": "yes"}]},
            "questions[0].isSecret",
            'invalid type: string "yes", expected a boolean',
        ),
        (
            {"questions": [{**CONFIRM, "isOther": 1.5}]},
            "questions[0].isOther",
            "invalid type: floating point `1.5`, expected a boolean",
        ),
        (
            {"questions": [{**CONFIRM, "options": {}}]},
            "questions[0].options",
            "invalid type: map, expected a sequence",
        ),
        (
            {"questions": [{**CONFIRM, "options": [[]]}]},
            "questions[0].options[0]",
            "invalid type: sequence, expected struct RequestUserInputQuestionOption",
        ),
        (
            {"questions": [{**CONFIRM, "options": [{"label": "x"}]}]},
            "questions[0].options[0]",
            "missing field `description`",
        ),
        (
            {"questions": [{**CONFIRM, "options": [{"label": True, "description": ""}]}]},
            "questions[0].options[0].label",
            "invalid type: boolean `true`, expected a string",
        ),
        (
            {"questions": [{k: v for k, v in CONFIRM.items() if k != "options"}]},
            "questions[0].options",
            codex.NO_OPTIONS,
        ),
        ({"questions": [{**CONFIRM, "options": None}]}, "questions[0].options", codex.NO_OPTIONS),
        ({"questions": [{**CONFIRM, "options": []}]}, "questions[0].options", codex.NO_OPTIONS),
    ],
)
def test_what_codex_refuses_in_its_words(raw: Any, where: str, message: str) -> None:
    with pytest.raises(InvalidCall) as caught:
        codex.parse(raw)
    (issue,) = caught.value.issues
    from askcli.schema.issues import format_path

    assert (format_path(issue["path"]), issue["message"]) == (where, message)


def test_serde_reports_a_wrong_type_before_a_missing_field() -> None:
    with pytest.raises(InvalidCall) as caught:
        codex.parse({"questions": [{"question": 5}]})
    assert caught.value.issues[0]["message"] == "invalid type: integer `5`, expected a string"


def test_an_empty_list_is_answered_at_once_as_codex_does() -> None:
    call = {"type": "function_call", "call_id": "call_0", "name": "request_user_input"}
    reply = ask({**call, "arguments": '{"questions":[]}'}, input=io.StringIO(""))
    assert reply.envelope == {
        "type": "function_call_output",
        "call_id": "call_0",
        "output": '{"answers":{}}',
    }
    assert reply.status == 0


def test_an_invalid_call_gets_codex_s_own_text() -> None:
    call = {"type": "function_call", "call_id": "call_0", "name": "request_user_input"}
    reply = ask({**call, "arguments": '{"questions":[{"question":5}]}'}, input=io.StringIO(""))
    assert reply.envelope == {
        "type": "function_call_output",
        "call_id": "call_0",
        "output": "failed to parse function arguments: invalid type: integer `5`, expected a "
        "string",
    }
    assert reply.status == 2


def test_the_texts_codex_sends_for_an_invalid_call() -> None:
    assert codex.invalid_text([{"message": codex.NO_OPTIONS, "path": []}]) == codex.NO_OPTIONS
    assert (
        codex.invalid_text([{"message": "missing field `id`", "path": []}])
        == "failed to parse function arguments: missing field `id`"
    )


# --- the tool definition, and the soft rules --------------------------------------------------

# the tool object in the `tools` of codex-cli 0.171.0's /v1/responses request (Plan mode)
CAPTURED_DEFINITION = (
    '{"type":"function","name":"request_user_input","description":"Request user input for one to '
    "three short questions and wait for the response. This tool is only available in Plan "
    'mode.","strict":false,"parameters":{"type":"object","properties":{"questions":{"type":'
    '"array","description":"Questions to show the user. Prefer 1 and do not exceed 3","items":'
    '{"type":"object","properties":{"header":{"type":"string","description":"Short header label '
    'shown in the UI (12 or fewer chars)."},"id":{"type":"string","description":"Stable '
    'identifier for mapping answers (snake_case)."},"options":{"type":"array","description":'
    '"Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its '
    'label with \\"(Recommended)\\". Do not include an \\"Other\\" option in this list; the '
    'client will add a free-form \\"Other\\" option automatically.","items":{"type":"object",'
    '"properties":{"description":{"type":"string","description":"One short sentence explaining '
    'impact/tradeoff if selected."},"label":{"type":"string","description":"User-facing label '
    '(1-5 words)."}},"required":["label","description"],"additionalProperties":false}},'
    '"question":{"type":"string","description":"Single-sentence prompt shown to the user."}},'
    '"required":["id","header","question","options"],"additionalProperties":false}}},'
    '"required":["questions"],"additionalProperties":false}}'
)


def test_the_definition_is_the_one_codex_sends() -> None:
    assert json.dumps(codex.definition(), separators=(",", ":")) == CAPTURED_DEFINITION


def test_the_dialect_is_registered() -> None:
    assert by_name("codex") is codex.DIALECT
    assert by_tool("request_user_input") is codex.DIALECT


def test_check_strict_lists_the_soft_rules() -> None:
    questions = [
        {**CONFIRM, "id": "Confirm Path", "header": "Much too long a header", "isOther": True},
        {**DB, "extra": 1, "options": [{"label": "Other", "description": ""}]},
        {
            **DB,
            "id": "db",
            "question": "Again?",
            "options": [
                {"label": "Use the small and simple one", "description": ""},
                {"label": "B (Recommended)", "description": ""},
                {"label": "C", "description": ""},
                {"label": "D", "description": ""},
            ],
        },
        {**DB, "id": "d4", "question": "Four?"},
    ]
    lines: list[str] = []
    source = TextLineReader(io.StringIO(json.dumps(function_call(*questions, more=1)) + "\n"))
    status = check(source, lines.append, strict=True)
    assert status is ExitStatus.ANSWERED
    head = "warning call-A request_user_input: "
    assert lines[0] == "ok      call-A request_user_input"
    assert lines[-1] == "1 valid, 0 invalid, 12 warning(s)"
    assert [line.removeprefix(head) for line in lines[1:-1]] == [
        "more: not in the schema (Codex ignores it)",
        "questions: 4 questions; the schema says do not exceed 3",
        "questions[0].isOther: not in the schema the model is given",
        "questions[0].id: 'Confirm Path' is not snake_case",
        "questions[0].header: longer than 12 characters",
        "questions[1].extra: not in the schema (Codex ignores it)",
        "questions[1].options: 1 option; the schema asks for 2-3",
        "questions[1].options[0].label: the client adds Other itself",
        "questions[2].id: 'db' is used twice; one answer would hide the other",
        "questions[2].options: 4 options; the schema asks for 2-3",
        "questions[2].options[0].label: more than 5 words",
        "questions[2].options[1].label: the recommended option goes first",
    ]


# --- hostile strings ------------------------------------------------------------------------


def hostile(text: str) -> list[Any]:
    """The attack in every string of a call, and the answers that show each one."""
    question = {
        "id": text,
        "header": text,
        "question": text,
        "options": [{"label": text, "description": text}, {"label": "B", "description": text}],
    }
    return [function_call(question, call_id=text)]


@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_no_raw_control_reaches_the_terminal_or_the_output(attack: str) -> None:
    typed = attack if attack.strip() else "x"
    for output in (Output.RESULT, Output.TEXT, Output.ANSWERS):
        outcome = play(calls=hostile(attack), answers=[f"n {attack}", "3", typed], output=output)
        check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")
        for line in outcome.stdout:
            check_bytes(line.encode("utf-8", "surrogatepass"), "stdout")
        assert "Traceback" not in outcome.stderr
        assert len(outcome.stdout) == 1


# hostile text a person can type: invisible and bidi characters, no control, no surrogate
TYPABLE = [
    a for a in ATTACKS if first_control(a) is None and not any("\ud800" <= c <= "\udfff" for c in a)
][:8]


@pytest.mark.parametrize("attack", TYPABLE, ids=[f"t{n}" for n in range(len(TYPABLE))])
def test_a_hostile_answer_reaches_the_agent_unchanged(attack: str) -> None:
    """What the person typed is the agent's data: escaped on the way, whole on arrival."""
    outcome = play(calls=[function_call()], answers=["3", attack])
    (line,) = outcome.stdout
    answers = json.loads(output_of(line))["answers"]["confirm_path"]["answers"]
    assert answers == ["None of the above", "user_note: " + attack.strip()]


@pytest.mark.parametrize("attack", ATTACKS[:8], ids=[f"a{n}" for n in range(8)])
def test_a_typed_control_never_reaches_the_agent(attack: str) -> None:
    """A control character or an escape sequence is no text (issue 29): the line is
    refused, saying so, and the next one is sent."""
    outcome = play(calls=[function_call()], answers=["3", attack, "plain"])
    (line,) = outcome.stdout
    answers = json.loads(output_of(line))["answers"]["confirm_path"]["answers"]
    assert answers == ["None of the above", "user_note: plain"]
    assert "is not text: the line was not taken" in outcome.stderr


def test_a_hostile_invalid_call_is_one_line() -> None:
    outcome = play(calls=[function_call({"id": "x\n\x1b[2JFORGED", "header": 1})], answers=[])
    assert outcome.stderr.count("\n") == 1 and "\x1b" not in outcome.stderr
    assert outcome.status == 2


# --- at a terminal ----------------------------------------------------------------------------


@pytest.mark.pty
def test_at_a_terminal(tmp_path: Path) -> None:
    call = tmp_path / "call.json"
    call.write_text(json.dumps(function_call(DB, {**CONFIRM, "isSecret": True})))
    term = Terminal(["ask", str(call)], tmp_path)
    term.expect("[Database] Which database?   (question 1 of 2)")
    term.expect("Choose 1-3: ")
    term.type("n keep it small")
    term.expect("Notes saved.")
    term.expect("Choose 1-3: ")
    term.type("2")
    term.expect("[Confirm] Proceed with the plan?   (question 2 of 2)")
    term.expect("Choose 1-3 [1]: ")
    term.type("3")
    term.expect("Other, type your answer: ")
    term.type("hunter2")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert "hunter2" not in term.log.getvalue()
    assert reply == {
        "type": "function_call_output",
        "call_id": "call-A",
        "output": '{"answers":{"db":{"answers":["SQLite","user_note: keep it small"]},'
        '"confirm_path":{"answers":["None of the above","user_note: hunter2"]}}}',
    }
