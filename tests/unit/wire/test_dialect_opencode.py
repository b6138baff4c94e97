"""OpenCode's ``question`` tool: its input checks and wording, every way a call ends, its
envelopes (provider tool calls and OpenCode's own ``question.asked`` event), the output
modes, hostile strings and a real terminal."""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import AnswerTimeout, InvalidCall
from askcli.runners.recordings import play
from askcli.runners.session import Reply, answer_document
from askcli.schema.issues import format_path
from askcli.status import ExitStatus
from askcli.terminal import signals
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.wire.definitions import tool_definition
from askcli.wire.dialects import by_tool
from askcli.wire.dialects.opencode import (
    DESCRIPTION,
    DISMISSED,
    PARAMETERS_JSON,
    answered_text,
    invalid_text,
    parse,
    title,
    warnings,
)
from askcli.wire.documents import Document
from askcli.wire.envelopes import EnvelopeKind, Output, detect

from tests.support.attacks import ATTACKS, check_bytes
from tests.support.calls import example
from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli
from tests.support.terminals import Terminal

CALL = example("opencode.json")  # an assistant message with one tool call (Chat Completions)
EVENT = example("opencode-event.json")  # OpenCode's question.asked event
ARGS = json.loads(CALL["tool_calls"][0]["function"]["arguments"])
Q1 = "Which database should the API use?"
Q2 = "Which features should the first release have?"
CLOSING = " You can now continue with the user's answers in mind."

DATABASE_SCREEN = [
    "",
    f"[Database] {Q1}   (question 1 of 2)",
    "  1. Postgres (Recommended) - Relational, robust, what production runs",
    "  2. SQLite - Embedded, nothing to run",
    "  3. MySQL - If you already host one",
    "  4. Other - type your own answer",
    "  (optional: s skips it)",
    "  (keys: 1-4 choose, ? help, q decline)",
]
FEATURES_SCREEN = [
    "",
    f"[Features] {Q2}   (question 2 of 2)",
    "  1. Auth - Login and sessions",
    "  2. Search - Full-text search over notes",
    "  3. Export - CSV and JSON export",
    "  4. Webhooks - Notify other services",
    "  5. Audit log - Who changed what",
    "  6. Other - type your own answer",
    "  (optional: s skips it)",
]
REVIEW_HINT = "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help."


def tool_use(questions: Any, id: str = "call_7") -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "question", "input": {"questions": questions}}


def q(
    text: str = "Pick one?", labels: tuple[str, ...] = ("A", "B"), **extra: Any
) -> dict[str, Any]:
    return {
        "question": text,
        "header": "Pick",
        "options": [{"label": label, "description": label.lower()} for label in labels],
        **extra,
    }


def tool_message(line: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(line)
    assert reply["role"] == "tool" and reply["tool_call_id"] == "call_2"
    return reply


# --- golden transcripts: the whole stderr and the exact stdout ---------------------------


def test_answered_with_a_recommended_default_and_a_multi_select_with_other() -> None:
    outcome = play(calls=[CALL], answers=["", "1,3,6", "Webhooks later", ""])
    assert outcome.status == 0
    assert outcome.stderr.split("\n") == [
        *DATABASE_SCREEN,
        "Choose 1-4 [1]: ",
        *FEATURES_SCREEN,
        "Choose 1-6, several allowed (e.g. 1,3): 1,3,6",
        "Other, type your answer: Webhooks later",
        "",
        "Review your answers:",
        f"  1. [Database] {Q1}",
        "       Postgres (Recommended)",
        f"  2. [Features] {Q2}",
        "       Auth, Export, Webhooks later",
        REVIEW_HINT,
        "Submit? [y]: ",
        "",
    ]
    assert outcome.stdout == [
        '{"role":"tool","tool_call_id":"call_2","content":"User has answered your questions: '
        '\\"Which database should the API use?\\"=\\"Postgres (Recommended)\\", '
        '\\"Which features should the first release have?\\"=\\"Auth, Export, Webhooks later\\". '
        "You can now continue with the user's answers in mind.\"}"
    ]


def test_a_skipped_question_is_unanswered_and_the_order_typed_is_kept() -> None:
    outcome = play(calls=[CALL], answers=["s", "4,2", ""])
    assert outcome.status == 0
    assert outcome.stderr.split("\n") == [
        *DATABASE_SCREEN,
        "Choose 1-4 [1]: s",
        "Skipped question 1; answer it from the review.",
        *FEATURES_SCREEN,
        "Choose 1-6, several allowed (e.g. 1,3): 4,2",
        "",
        "Review your answers:",
        f"  1. [Database] {Q1}",
        "       (no answer: skipped)",
        f"  2. [Features] {Q2}",
        "       Webhooks, Search",
        REVIEW_HINT,
        "Submit? [y]: ",
        "",
    ]
    (line,) = outcome.stdout
    assert tool_message(line)["content"] == (
        f'User has answered your questions: "{Q1}"="Unanswered", "{Q2}"="Webhooks, Search".'
        + CLOSING
    )


def test_the_question_asked_event_is_replied_with_question_replied() -> None:
    outcome = play(calls=[EVENT], answers=["2"])
    assert outcome.status == 0
    assert outcome.stderr.split("\n") == [
        "",
        "[Deploy] Deploy the preview build now?   (question 1 of 1)",
        "  1. Yes - Switch to the build agent and deploy",
        "  2. No - Keep planning",
        "  (keys: 1-2 choose, ? help, q decline)",
        "Choose 1-2: 2",
        "",
    ]
    assert outcome.stdout == [
        '{"type":"question.replied","properties":{"sessionID":"ses_dd3c73956fferuTVcABtmHVYWS",'
        '"requestID":"que_22c38c7c7001ZYA1Twb7lQ19Om","answers":[["No"]]}}'
    ]


def test_custom_false_offers_no_other() -> None:
    outcome = play(calls=[EVENT], answers=["3", "1"])
    assert "Other" not in outcome.stderr
    assert "! there is no option 3; choose from 1-2" in outcome.stderr
    assert json.loads(outcome.stdout[0])["properties"]["answers"] == [["Yes"]]


def test_declined_is_dismissed() -> None:
    outcome = play(calls=[CALL], answers=["q"])
    assert outcome.status == 1
    assert outcome.stderr.split("\n") == [*DATABASE_SCREEN, "Choose 1-4 [1]: q", ""]
    assert outcome.stdout == [
        '{"role":"tool","tool_call_id":"call_2","content":"The user dismissed this question"}'
    ]


def test_declined_after_answers_asks_once_and_is_dismissed() -> None:
    outcome = play(calls=[tool_use([q(), q("Second?")])], answers=["1", "q", "y"])
    assert outcome.status == 1
    reply = json.loads(outcome.stdout[0])
    assert reply == {
        "type": "tool_result",
        "tool_use_id": "call_7",
        "content": DISMISSED,
        "is_error": True,
    }


def test_chat_about_this_sends_the_persons_words_as_the_failure() -> None:
    outcome = play(calls=[CALL], answers=["2", "c", "why not MySQL?"])
    assert outcome.status == 1
    assert outcome.stderr.split("\n") == [
        *DATABASE_SCREEN,
        "Choose 1-4 [1]: 2",
        *FEATURES_SCREEN,
        "Choose 1-6, several allowed (e.g. 1,3): c",
        "What would you like to clarify? why not MySQL?",
        "",
    ]
    assert outcome.stdout == ['{"role":"tool","tool_call_id":"call_2","content":"why not MySQL?"}']


def test_chat_about_this_on_the_event_rejects_with_the_message() -> None:
    outcome = play(calls=[EVENT], answers=["c", "what is in the preview?"])
    assert outcome.status == 1
    assert json.loads(outcome.stdout[0]) == {
        "type": "question.rejected",
        "properties": {
            "sessionID": "ses_dd3c73956fferuTVcABtmHVYWS",
            "requestID": "que_22c38c7c7001ZYA1Twb7lQ19Om",
            "message": "what is in the preview?",
        },
    }


def test_the_input_ended_is_no_answer_with_the_answers_so_far() -> None:
    outcome = play(calls=[CALL], answers=["2"])
    assert outcome.status == 3
    assert outcome.stderr.split("\n") == [
        *DATABASE_SCREEN,
        "Choose 1-4 [1]: 2",
        *FEATURES_SCREEN,
        "Choose 1-6, several allowed (e.g. 1,3): ",
        "askcli: no answer (the input ended)",
        "",
    ]
    (line,) = outcome.stdout
    assert tool_message(line)["content"] == (
        f'No answer from the user (the input ended). Answers given before that: "{Q1}"="SQLite".'
    )


def test_the_event_nobody_answered_is_rejected() -> None:
    outcome = play(calls=[EVENT], answers=[])
    assert outcome.status == 3
    assert json.loads(outcome.stdout[0]) == {
        "type": "question.rejected",
        "properties": {
            "sessionID": "ses_dd3c73956fferuTVcABtmHVYWS",
            "requestID": "que_22c38c7c7001ZYA1Twb7lQ19Om",
        },
    }


# --- timeout, Ctrl-C and signals, in process ---------------------------------------------


class Scripted:
    """A reader that types ``lines`` and then times out, is interrupted or is signalled."""

    interactive = False
    at_end = False
    line = 0

    def __init__(self, lines: list[str], then: str) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.then = then

    def unread(self, text: str, *, line_end: bool = True) -> None:
        raise AssertionError("not used")

    def readline(self, timeout: float | None = None) -> str | None:
        line = next(self.lines, None)
        if line is not None:
            return line
        if self.then == "timeout":
            raise AnswerTimeout(timeout or 1)
        if self.then != "interrupt":
            signals._received.append(getattr(signal, self.then))
        raise KeyboardInterrupt


@pytest.fixture
def no_signals() -> Iterator[None]:
    yield
    signals._received.clear()


def run_scripted(lines: list[str], then: str, timeout: float | None = None) -> Reply:
    conv = Conversation(Scripted(lines, then), io.StringIO(), Style(), RunOptions(timeout=timeout))  # type: ignore[arg-type]
    return answer_document(Document(CALL), conv)


def test_a_timeout_is_no_answer() -> None:
    reply = run_scripted(["3", "MariaDB"], "timeout", timeout=30)
    assert reply.status is ExitStatus.NO_ANSWER
    assert reply.replies == [
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": "No answer from the user (no reply within 30 seconds). "
            f'Answers given before that: "{Q1}"="MySQL".',
        }
    ]
    (result,) = reply.results
    assert result.data is not None and result.data["status"] == {Q1: "timed out", Q2: "timed out"}


def test_ctrl_c_dismisses(no_signals: None) -> None:
    reply = run_scripted(["1"], "interrupt")
    assert reply.status is ExitStatus.INTERRUPTED
    (result,) = reply.results
    assert result.content == DISMISSED and result.is_error
    assert result.data is not None and result.data["status"] == {Q1: "declined", Q2: "declined"}


@pytest.mark.parametrize(
    ("then", "why"), [("SIGHUP", "the terminal hung up"), ("SIGTERM", "askcli was stopped")]
)
def test_a_hangup_or_termination_is_no_answer(then: str, why: str, no_signals: None) -> None:
    reply = run_scripted(["1"], then)
    assert reply.status is ExitStatus.INTERRUPTED
    (result,) = reply.results
    assert result.content == (
        f"No answer from the user ({why}). "
        f'Answers given before that: "{Q1}"="Postgres (Recommended)".'
    )
    assert result.data is not None and result.data["status"][Q1] == "dismissed"


# --- the input: OpenCode's checks and its own words --------------------------------------

# the texts OpenCode 1.18.34 sent its model, as captured (research §5.10)
OBSERVED_INVALID = [
    (
        {"questions": [{"question": "Q?", "options": [{"label": "A", "description": "a"}]}]},
        'SchemaError(Missing key\n  at ["questions"][0]["header"])',
    ),
    (
        {"questions": [{"question": "Q?", "header": "H", "options": [{"label": "A"}]}]},
        'SchemaError(Missing key\n  at ["questions"][0]["options"][0]["description"])',
    ),
    ({"questions": "Which?"}, 'SchemaError(Expected array, got "Which?"\n  at ["questions"])'),
    (
        {
            "questions": [
                {
                    "question": "Q?",
                    "header": "H",
                    "options": [{"label": "A", "description": "a"}],
                    "multiple": "yes",
                }
            ]
        },
        'SchemaError(Expected boolean | undefined, got "yes"\n  at ["questions"][0]["multiple"])',
    ),
    ({}, 'SchemaError(Missing key\n  at ["questions"])'),
]


@pytest.mark.parametrize(("raw", "detail"), OBSERVED_INVALID)
def test_invalid_input_is_refused_in_opencodes_words(raw: dict[str, Any], detail: str) -> None:
    with pytest.raises(InvalidCall) as caught:
        parse(raw)
    assert invalid_text(caught.value.issues) == (
        f"The question tool was called with invalid arguments: {detail}.\n"
        "Please rewrite the input so it satisfies the expected schema."
    )


@pytest.mark.parametrize(
    ("raw", "where", "message"),
    [
        (None, "", "Expected object, got null"),
        ({"questions": ["Which?"]}, "questions[0]", 'Expected QuestionPrompt, got "Which?"'),
        ({"questions": [q(question=7)]}, "questions[0].question", "Expected string, got 7"),
        ({"questions": [q(header=None)]}, "questions[0].header", "Expected string, got null"),
        (
            {"questions": [q(options={"a": 1})]},
            "questions[0].options",
            'Expected array, got {"a":1}',
        ),
        (
            {"questions": [q(options=[1.0])]},
            "questions[0].options[0]",
            "Expected QuestionOption, got 1",
        ),
        (
            {"questions": [q(options=[{"label": True, "description": ""}])]},
            "questions[0].options[0].label",
            "Expected string, got true",
        ),
    ],
)
def test_each_check_names_the_first_problem(raw: Any, where: str, message: str) -> None:
    with pytest.raises(InvalidCall) as caught:
        parse(raw)
    (issue,) = caught.value.issues
    assert issue["message"] == message
    assert format_path(issue["path"]) == where


def test_an_invalid_call_gets_one_line_a_result_and_status_2() -> None:
    bad = tool_use([{"question": "Q?", "options": [{"label": "A", "description": "a"}]}], "call_14")
    outcome = play(calls=[bad], answers=[])
    assert outcome.status == 2
    assert (
        outcome.stderr
        == "askcli: invalid question call call_14: questions[0].header: Missing key\n"
    )
    assert outcome.stdout == [
        '{"type":"tool_result","tool_use_id":"call_14","content":"The question tool was called '
        'with invalid arguments: SchemaError(Missing key\\n  at [\\"questions\\"][0]'
        '[\\"header\\"]).\\nPlease rewrite the input so it satisfies the expected schema.",'
        '"is_error":true}'
    ]


def test_an_empty_list_is_answered_at_once_as_opencode_answers_it() -> None:
    empty = {
        "id": "call_42",
        "type": "function",
        "function": {"name": "question", "arguments": '{"questions":[]}'},
    }
    outcome = play(calls=[empty], answers=[])
    assert outcome.status == 0
    assert outcome.stderr == "askcli: the question call has no questions; nothing to ask\n"
    assert outcome.stdout == [
        '{"role":"tool","tool_call_id":"call_42","content":"User has answered your questions: . '
        "You can now continue with the user's answers in mind.\"}"
    ]
    data = json.loads(play(calls=[empty], output=Output.ANSWERS).stdout[0])
    assert data["title"] == "Asked 0 question" and data["metadata"] == {"answers": []}


def test_an_invalid_event_is_rejected_with_status_2() -> None:
    bad = json.loads(json.dumps(EVENT))
    del bad["properties"]["questions"][0]["header"]
    outcome = play(calls=[bad], answers=[])
    assert outcome.status == 2
    assert json.loads(outcome.stdout[0])["type"] == "question.rejected"


def test_opencode_is_lenient_where_it_is() -> None:
    labels = tuple(f"Option {n}" for n in range(1, 8))
    parsed = parse(
        {
            "questions": [
                q("Same?", labels, foo=1),
                q("Same?", header="A header far longer than thirty characters, kept as is"),
                {"question": "Free?", "header": "", "options": [], "custom": False},
            ],
            "extra": True,
        }
    )
    one, two, three = parsed.questions
    assert len(one.options) == 7 and one.other and not one.multiSelect
    assert (one.question, two.question) == ("Same?", "Same? (2)")  # askcli keys by text
    assert two.header.startswith("A header far longer")
    assert three.kind == "text"  # nothing to choose: typed, whatever custom says
    assert not any(x.required for x in parsed.questions)  # the Confirm tab submits without


def test_a_question_alone_is_answered_or_dismissed() -> None:
    (only,) = parse({"questions": [q()]}).questions
    assert only.required


def test_custom_is_honoured_only_as_a_boolean() -> None:
    assert not parse({"questions": [q(custom=False)]}).questions[0].other
    assert parse({"questions": [q(custom=True)]}).questions[0].other
    assert parse({"questions": [q(custom="no")]}).questions[0].other  # dropped, as OpenCode does


def test_repeated_question_texts_are_answered_by_place() -> None:
    call = tool_use([q("Same?"), q("Same?"), q("Same? (2)")])
    outcome = play(calls=[call], answers=["1", "2", "s", ""])
    assert json.loads(outcome.stdout[0])["content"] == (
        'User has answered your questions: "Same?"="A", "Same?"="B", "Same? (2)"="Unanswered".'
        + CLOSING
    )
    assert "Same? (3)" in outcome.stderr


def test_a_question_without_options_takes_a_typed_answer() -> None:
    call = tool_use([{"question": "Free?", "header": "Free", "options": []}])
    outcome = play(calls=[call], answers=['my own "quoted" text, with comma'])
    assert json.loads(outcome.stdout[0])["content"] == (
        'User has answered your questions: "Free?"="my own "quoted" text, with comma".' + CLOSING
    )


# --- the reply's parts -------------------------------------------------------------------


def test_the_answered_text_is_opencodes_byte_for_byte() -> None:
    # research §5.2, §5.4, §5.5, §5.6 (observed)
    assert answered_text(
        ["Which database should we use?", "Which features do you want?", "Anything else?"],
        [["Postgres (Recommended)"], ["Auth", "Search"], []],
    ) == (
        'User has answered your questions: "Which database should we use?"="Postgres '
        '(Recommended)", "Which features do you want?"="Auth, Search", "Anything else?"='
        '"Unanswered". You can now continue with the user\'s answers in mind.'
    )
    assert answered_text(["Free?"], [['my own "quoted" text, with comma\nand newline']]) == (
        'User has answered your questions: "Free?"="my own "quoted" text, with comma\nand '
        "newline\". You can now continue with the user's answers in mind."
    )
    assert answered_text([], []) == "User has answered your questions: ." + CLOSING
    assert (title(0), title(1), title(3)) == (
        "Asked 0 question",
        "Asked 1 question",
        "Asked 3 questions",
    )


def test_output_answers_has_the_statuses_title_and_opencodes_answers() -> None:
    outcome = play(calls=[CALL], answers=["n small team", "3", "s", ""], output=Output.ANSWERS)
    assert "! this agent has no place for notes; answer with an option or Other" in outcome.stderr
    assert json.loads(outcome.stdout[0]) == {
        "questions": ARGS["questions"],
        "answers": {Q1: "MySQL"},
        "annotations": {},
        "status": {Q1: "answered", Q2: "skipped"},
        "title": "Asked 2 questions",
        "metadata": {"answers": [["MySQL"], []]},
    }


def test_output_answers_when_dismissed_has_the_error() -> None:
    outcome = play(calls=[EVENT], answers=["q"], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["error"] == DISMISSED
    assert data["status"] == {"Deploy the preview build now?": "declined"}
    assert data["metadata"] == {"answers": [[]]}


def test_output_text_is_the_text_alone() -> None:
    outcome = play(calls=[CALL], answers=["2", "5", ""], output=Output.TEXT)
    assert outcome.stdout == [
        f'User has answered your questions: "{Q1}"="SQLite", "{Q2}"="Audit log".' + CLOSING
    ]


def test_output_sdk_allows_with_the_answers_or_denies() -> None:
    outcome = play(calls=[CALL], answers=["2", "5", ""], output=Output.SDK)
    assert json.loads(outcome.stdout[0]) == {
        "behavior": "allow",
        "updatedInput": {**ARGS, "answers": [["SQLite"], ["Audit log"]]},
    }
    outcome = play(calls=[CALL], answers=["q"], output=Output.SDK)
    assert json.loads(outcome.stdout[0]) == {"behavior": "deny", "message": DISMISSED}


# --- envelopes ---------------------------------------------------------------------------


def test_every_provider_envelope_reaches_the_dialect() -> None:
    args = json.dumps({"questions": [q()]})
    text = 'User has answered your questions: "Pick one?"="B".' + CLOSING
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (
            tool_use([q()]),
            {"type": "tool_result", "tool_use_id": "call_7", "content": text},
        ),
        (
            {
                "id": "call_8",
                "type": "function",
                "function": {"name": "question", "arguments": args},
            },
            {"role": "tool", "tool_call_id": "call_8", "content": text},
        ),
        (
            {"type": "function_call", "call_id": "call_9", "name": "question", "arguments": args},
            {"type": "function_call_output", "call_id": "call_9", "output": text},
        ),
        (
            {"functionCall": {"id": "g1", "name": "question", "args": {"questions": [q()]}}},
            {"functionResponse": {"id": "g1", "name": "question", "response": {"output": text}}},
        ),
    ]
    for document, expected in cases:
        outcome = play(calls=[document], answers=["2"])
        assert outcome.status == 0
        assert json.loads(outcome.stdout[0]) == expected


def test_a_pending_request_as_get_question_lists_it() -> None:
    request = EVENT["properties"]
    envelope = detect(request)
    assert envelope.kind is EnvelopeKind.OPENCODE
    (call,) = envelope.calls
    assert (call.id, call.name, call.session_id) == (
        request["id"],
        "question",
        request["sessionID"],
    )
    assert call.input == {"questions": request["questions"]}


def test_opencodes_other_events_are_passed_over() -> None:
    events = [
        {"id": "evt_1", "type": "server.connected", "properties": {}},
        {
            "type": "question.replied",
            "properties": {"sessionID": "s", "requestID": "que_1", "answers": []},
        },
        {
            "type": "message.part.updated",
            "properties": {"part": {"type": "text", "text": "ask me"}},
        },
    ]
    for event in events:
        assert detect(event).kind is EnvelopeKind.PASSED_OVER
    outcome = play(calls=[*events, EVENT], answers=["1"])
    assert outcome.status == 0 and len(outcome.stdout) == 1
    assert json.loads(outcome.stdout[0])["type"] == "question.replied"


def test_an_event_without_a_request_id_is_rejected() -> None:
    bad = {"type": "question.asked", "properties": {"sessionID": "s", "questions": [q()]}}
    outcome = play(calls=[bad], answers=[])
    assert outcome.status == 2
    assert 'the question request has no string "id"' in outcome.stderr
    assert json.loads(outcome.stdout[0]) == {
        "type": "question.rejected",
        "properties": {"sessionID": None, "requestID": None},
    }


# --- definition and soft rules -----------------------------------------------------------


def test_the_definition_is_what_opencode_sends() -> None:
    definition = tool_definition("opencode")
    assert definition == {
        "name": "question",
        "description": DESCRIPTION,
        "parameters": json.loads(PARAMETERS_JSON),
    }
    compact = json.dumps(definition["parameters"], separators=(",", ":"))
    assert compact == PARAMETERS_JSON  # key order kept, as sent
    assert len(DESCRIPTION) == 657 and DESCRIPTION.endswith("label\n")
    assert by_tool("question") is not None


@pytest.mark.process
def test_check_strict_names_opencodes_hints() -> None:
    data = parse(
        {
            "questions": [
                q(
                    labels=("A", "B (Recommended)", "Other", "one two three four five six"),
                    header="x" * 31,
                )
            ]
        }
    )
    assert warnings(data) == [
        "questions[0].header is longer than 30 characters",
        "questions[0].options[1] is marked (Recommended) but is not the first option",
        "questions[0].options[2].label 'Other' is a catch-all option; "
        '"Type your own answer" is added automatically',
        "questions[0].options[3].label 'one two three four five six' has more than 5 words",
    ]
    proc = run_askcli("check", "--strict", str(EXAMPLES / "opencode.json"))
    assert proc.returncode == 0, proc.stderr
    assert "ok      call_2 question" in proc.stdout + proc.stderr


# --- hostile strings ---------------------------------------------------------------------


def in_every_field(text: str) -> list[dict[str, Any]]:
    question = {
        "question": text,
        "header": text,
        "options": [{"label": text, "description": text}, {"label": "b", "description": text}],
        "multiple": True,
    }
    event = {
        "id": text,
        "type": "question.asked",
        "properties": {"id": "que_" + text, "sessionID": text, "questions": [question]},
    }
    return [tool_use([question], id=text), event]


@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_hostile_strings_never_reach_the_terminal_raw(attack: str) -> None:
    for document in in_every_field(attack):
        outcome = play(calls=[document], answers=["1,3", attack if attack.strip() else "x", ""])
        check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")
        for line in outcome.stdout:
            check_bytes(line.encode("utf-8", "surrogatepass"), "stdout")
        assert len(outcome.stdout) == 1
        assert "Traceback" not in outcome.stderr


def test_an_escape_in_an_invalid_call_is_shown_escaped() -> None:
    bad = tool_use([{"question": "Q?", "header": "\x1b[2J", "options": "\x1b]0;t\x07"}], "\x1b[31m")
    outcome = play(calls=[bad], answers=[])
    assert outcome.status == 2
    check_bytes(outcome.stderr.encode(), "stderr")
    check_bytes(outcome.stdout[0].encode(), "stdout")


# --- the installed askcli at a terminal --------------------------------------------------


@pytest.mark.pty
def test_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "opencode.json")], tmp_path)
    term.expect(f"[Database] {Q1}   (question 1 of 2)")
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("  5. Audit log - Who changed what")
    term.expect("Choose 1-6, several allowed (e.g. 1,3): ")
    term.type("5 1")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert reply == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": f'User has answered your questions: "{Q1}"="SQLite", "{Q2}"="Audit log, Auth".'
        + CLOSING,
    }


def test_output_answers_gives_a_multiple_question_s_answer_as_a_list() -> None:
    outcome = play(calls=[CALL], answers=["1", "3,1,6", "my, own", ""], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["answers"] == {Q1: "Postgres (Recommended)", Q2: ["Export", "Auth", "my, own"]}
    assert data["metadata"] == {
        "answers": [["Postgres (Recommended)"], ["Export", "Auth", "my, own"]]
    }
