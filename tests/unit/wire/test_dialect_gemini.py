"""Gemini CLI's ask_user tool: golden transcripts, every reply, Gemini's own error texts."""

# ruff: noqa: E501 - the declaration and the error table are kept as Gemini CLI prints them

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import AnswerTimeout
from askcli.runners.recordings import play
from askcli.terminal import signals
from askcli.wire.dialects import gemini
from askcli.wire.envelopes import Output, json_line

from tests.support.attacks import ATTACKS, check_bytes
from tests.support.calls import ask_stopped, example
from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli
from tests.support.terminals import Terminal

CONTENT = example("gemini.json")  # a model content: text and a functionCall with an id
PART = example("gemini-part.json")  # a functionCall part without an id
RESPONSE = example("gemini-response.json")  # a generateContent response
DENIED = "[Operation Cancelled] Reason: User denied execution."
DECLARATION = r"""{
  "name": "ask_user",
  "description": "Ask the user one or more questions to gather preferences, clarify requirements, or make decisions.",
  "parametersJsonSchema": {
    "type": "object",
    "required": [
      "questions"
    ],
    "properties": {
      "questions": {
        "type": "array",
        "minItems": 1,
        "maxItems": 4,
        "items": {
          "type": "object",
          "required": [
            "question",
            "header",
            "type"
          ],
          "properties": {
            "question": {
              "type": "string",
              "description": "The complete question to ask the user. Should be clear, specific, and end with a question mark."
            },
            "header": {
              "type": "string",
              "description": "Very short label displayed as a chip/tag. Use abbreviations: \"Auth\" not \"Authentication\", \"Config\" not \"Configuration\". Examples: \"Auth method\", \"Library\", \"Approach\", \"Database\"."
            },
            "type": {
              "type": "string",
              "enum": [
                "choice",
                "text",
                "yesno"
              ],
              "default": "choice",
              "description": "Question type: 'choice' (default) for multiple-choice with options, 'text' for free-form input, 'yesno' for Yes/No confirmation with optional 'Other' feedback."
            },
            "options": {
              "type": "array",
              "description": "The selectable choices for 'choice' type questions. Provide 2-4 options. An 'Other' option is automatically added for 'choice' and 'yesno' types. Not needed for 'text' or 'yesno'.",
              "items": {
                "type": "object",
                "required": [
                  "label",
                  "description"
                ],
                "properties": {
                  "label": {
                    "type": "string",
                    "description": "The display text for this option (1-5 words). Example: \"OAuth 2.0\""
                  },
                  "description": {
                    "type": "string",
                    "description": "Brief explanation of this option. Example: \"Industry standard, supports SSO\""
                  }
                }
              }
            },
            "multiSelect": {
              "type": "boolean",
              "description": "Only applies when type='choice'. Set to true to allow selecting multiple options."
            },
            "placeholder": {
              "type": "string",
              "description": "Hint text shown in the input field. For type='text', shown in the main input. For type='choice' and 'yesno', shown in the 'Other' custom input."
            }
          }
        }
      }
    }
  }
}"""


def part(
    *questions: dict[str, Any], id: str | None = "ask_user__t1", **args: Any
) -> dict[str, Any]:
    """A functionCall part for ask_user."""
    call: dict[str, Any] = {"name": "ask_user", "args": {"questions": list(questions), **args}}
    if id is not None:
        call["id"] = id
    return {"functionCall": call}


def choice(
    text: str = "Which one?", labels: tuple[str, ...] = ("A", "B"), **extra: Any
) -> dict[str, Any]:
    options = [{"label": label, "description": f"about {label}"} for label in labels]
    return {"question": text, "header": "Pick", "type": "choice", "options": options, **extra}


def response_of(line: str) -> dict[str, Any]:
    """The functionResponse of a reply line (a part, or the one part of a content)."""
    reply = json.loads(line)
    if "parts" in reply:
        reply = reply["parts"][0]
    return reply["functionResponse"]


def answers_of(line: str) -> dict[str, str]:
    response = response_of(line)["response"]
    assert set(response) == {"output"}, response
    decoded = json.loads(response["output"])
    assert set(decoded) == {"answers"}
    return decoded["answers"]


# ---- golden transcripts ------------------------------------------------------------------

CONTENT_STDERR = (
    """
Assistant: Before I scaffold the project I need a few decisions from you.

[Database] Which database?   (question 1 of 4)
  1. PostgreSQL - Relational
  2. SQLite - Embedded
  3. Other - type your own answer
  (optional: s skips it)
  (keys: 1-3 choose, ? help, q decline)
Choose 1-3: 2

[Docs] Which docs should be updated?   (question 2 of 4)
  1. User Guide - How to use it
  2. API Reference - Every endpoint
  3. Changelog - What changed
  4. All of the above - Select all options
  5. Other - type your own answer
  (optional: s skips it)
Choose 1-5, several allowed (e.g. 1,3): 3,1,5
Other, type your answer: Also the README

[Name] Project name?   (question 3 of 4)
  Type your answer (optional: s skips it).
  e.g. my-app
  (a command word alone is the command: b back, s skip, q decline; =q types q)
Answer: my-app

[Deploy] Deploy now?   (question 4 of 4)
  1. Yes
  2. No
  3. Other - type your own answer
  (optional: s skips it)
Choose 1-3 or y/n: 3
Other, type your answer: Only after tests pass

Review your answers:
  1. [Database] Which database?
       SQLite
  2. [Docs] Which docs should be updated?
       Changelog, User Guide, Also the README
  3. [Name] Project name?
       my-app
  4. [Deploy] Deploy now?
       Only after tests pass
Enter or y submits, 1-4 changes an answer, b goes back, q declines, ? for help.
"""
    + "Submit? [y]: \n"
)


def test_content_with_text_and_a_function_call_every_kind_answered() -> None:
    answers = ["2", "3,1,5", "Also the README", "my-app", "3", "Only after tests pass", ""]
    outcome = play(calls=[CONTENT], answers=answers)
    assert outcome.stderr == CONTENT_STDERR
    # multi-select: labels in option order (not as typed), Other's text last, ", " between;
    # the reply is JSON.stringify's text in response.output
    assert outcome.stdout == [
        '{"role":"user","parts":[{"functionResponse":{"id":"ask_user__abc123","name":"ask_user",'
        '"response":{"output":"{\\"answers\\":{\\"0\\":\\"SQLite\\",\\"1\\":\\"User Guide, '
        'Changelog, Also the README\\",\\"2\\":\\"my-app\\",\\"3\\":\\"Only after tests pass'
        '\\"}}"}}}]}'
    ]
    assert outcome.status == 0


def test_a_function_call_part_without_id_is_answered_by_a_part_without_id() -> None:
    outcome = play(calls=[PART], answers=["2"])
    assert outcome.stderr == (
        "\n"
        "[Auth] Which auth method should the API use?   (question 1 of 1)\n"
        "  1. OAuth 2.0 - Industry standard, supports SSO\n"
        "  2. API keys - Simple, one key per client\n"
        "  3. JWT - Stateless tokens signed by the server\n"
        "  4. Other - type your own answer\n"
        "  (keys: 1-4 choose, ? help, q decline)\n"
        "Choose 1-4: 2\n"
    )
    assert outcome.stdout == [
        '{"functionResponse":{"name":"ask_user","response":{"output":'
        '"{\\"answers\\":{\\"0\\":\\"API keys\\"}}"}}}'
    ]
    assert outcome.status == 0


def test_a_function_call_part_with_id_keeps_it() -> None:
    outcome = play(calls=[part(choice(), id="abc123")], answers=["1"])
    assert outcome.stdout == [
        '{"functionResponse":{"id":"abc123","name":"ask_user","response":{"output":'
        '"{\\"answers\\":{\\"0\\":\\"A\\"}}"}}}'
    ]


def test_a_generate_content_response_partly_answered() -> None:
    outcome = play(calls=[RESPONSE], answers=["s", "2", ""])
    assert outcome.stderr == (
        "\n"
        "[Tests] Which test runner should the project use?   (question 1 of 2)\n"
        "  1. Vitest - Fast, Vite-native, Jest-compatible API\n"
        "  2. Jest - The most widely used, large ecosystem\n"
        "  3. Other - type your own answer\n"
        "  (optional: s skips it)\n"
        "  (keys: 1-3 choose, ? help, q decline)\n"
        "Choose 1-3: s\n"
        "Skipped question 1; answer it from the review.\n"
        "\n"
        "[CI] Should I add a CI workflow for it?   (question 2 of 2)\n"
        "  1. Yes\n"
        "  2. No\n"
        "  3. Other - type your own answer\n"
        "  (optional: s skips it)\n"
        "Choose 1-3 or y/n: 2\n"
        "\n"
        "Review your answers:\n"
        "  1. [Tests] Which test runner should the project use?\n"
        "       (no answer: skipped)\n"
        "  2. [CI] Should I add a CI workflow for it?\n"
        "       No\n"
        "Enter or y submits, 1-2 changes an answer, b goes back, q declines, ? for help.\n"
        "Submit? [y]: \n"
    )
    # the skipped question is left out of the answers, with no marker
    assert outcome.stdout == [
        '{"role":"user","parts":[{"functionResponse":{"name":"ask_user","response":'
        '{"output":"{\\"answers\\":{\\"1\\":\\"No\\"}}"}}}]}'
    ]
    assert outcome.status == 0


def test_declined_is_the_schedulers_cancellation() -> None:
    outcome = play(calls=[PART], answers=["q"])
    assert outcome.stderr.endswith(
        "  4. Other - type your own answer\n  (keys: 1-4 choose, ? help, q decline)\nChoose 1-4: q\n"
    )
    assert outcome.stdout == [
        '{"functionResponse":{"name":"ask_user","response":'
        '{"error":"[Operation Cancelled] Reason: User denied execution."}}}'
    ]
    assert outcome.status == 1


def test_invalid_call_gets_ajvs_text_alone_one_stderr_line_and_status_2() -> None:
    bad = part({"question": "Q?", "header": "H"}, id="c1")
    outcome = play(calls=[bad])
    assert outcome.stderr == (
        "askcli: invalid ask_user call c1: questions[0].type: "
        "params/questions/0 must have required property 'type'\n"
    )
    assert outcome.stdout == [
        '{"functionResponse":{"id":"c1","name":"ask_user","response":'
        '{"error":"params/questions/0 must have required property \'type\'"}}}'
    ]
    assert outcome.status == 2


# ---- every answer and every reply --------------------------------------------------------

FOUR = part(
    choice("Which database?", ("PostgreSQL", "SQLite")),
    choice("Which docs?", ("User Guide", "API Reference", "Changelog"), multiSelect=True),
    {"question": "Project name?", "header": "Name", "type": "text", "placeholder": "my-app"},
    {"question": "Deploy now?", "header": "Deploy", "type": "yesno"},
)


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (["1", "2", "x", "1", ""], {"0": "PostgreSQL", "1": "API Reference", "2": "x", "3": "Yes"}),
        (["s", "s", "s", "s", ""], {}),  # submitted with nothing answered
        (["s", "3,2,1", "s", "2", ""], {"1": "User Guide, API Reference, Changelog", "3": "No"}),
        (["s", "4", "s", "s", ""], {"1": "User Guide, API Reference, Changelog"}),  # all above
        (["s", "4,2", "s", "s", ""], {"1": "User Guide, API Reference, Changelog"}),
        (["s", "5", "Wiki", "s", "s", ""], {"1": "Wiki"}),  # Other alone
        (["s", "4,5", "Wiki", "s", "s", ""], {"1": "User Guide, API Reference, Changelog, Wiki"}),
        (["3", "  Cassandra  ", "s", "s", "s", ""], {"0": "Cassandra"}),  # trimmed as .trim()
        (["s", "s", "  spaced name  ", "s", ""], {"2": "spaced name"}),
        (["s", "s", "s", "3", "Yes, but with caveats", ""], {"3": "Yes, but with caveats"}),
        (["s", "s", "s", "yes", ""], {"3": "Yes"}),  # a label typed whole
        (["PostgreSQL", "s", "=q", "no", ""], {"0": "PostgreSQL", "2": "q", "3": "No"}),
    ],
    ids=[
        "all",
        "nothing",
        "multi-option-order",
        "all-of-the-above",
        "all-of-the-above-and-one",
        "other-alone",
        "all-and-other",
        "other-trimmed",
        "text-trimmed",
        "yesno-other",
        "yesno-label",
        "labels-and-=q",
    ],
)
def test_answers_by_index_as_the_dialog_builds_them(
    answers: list[str], expected: dict[str, str]
) -> None:
    outcome = play(calls=[FOUR], answers=answers)
    assert outcome.status == 0, outcome.stderr
    (line,) = outcome.stdout
    assert answers_of(line) == expected
    # JSON.stringify's spacing: none at all
    output = response_of(line)["response"]["output"]
    assert output == json.dumps({"answers": expected}, separators=(",", ":"), ensure_ascii=False)


def test_a_single_text_question_is_answered_at_once() -> None:
    call = part({"question": "Name?", "header": "Name", "type": "text"})
    outcome = play(calls=[call], answers=["", "my-app"])
    assert "Answer: \n! type your answer, or ? for help\nAnswer: my-app\n" in outcome.stderr
    assert "Review" not in outcome.stderr
    assert answers_of(outcome.stdout[0]) == {"0": "my-app"}


def test_a_single_multiselect_may_be_submitted_empty() -> None:
    call = part(choice(multiSelect=True))
    outcome = play(calls=[call], answers=["s", ""])
    assert answers_of(outcome.stdout[0]) == {}
    assert outcome.status == 0


def test_a_single_choice_cannot_be_skipped() -> None:
    outcome = play(calls=[part(choice())], answers=["s", "1"])
    assert "! this is the only question; answer it, or q to decline" in outcome.stderr
    assert answers_of(outcome.stdout[0]) == {"0": "A"}


def test_decline_after_answers_is_confirmed_and_keeps_nothing() -> None:
    outcome = play(calls=[FOUR], answers=["1", "q", "y"])
    assert "Decline all 4 questions? [y/N] y" in outcome.stderr
    assert response_of(outcome.stdout[0])["response"] == {"error": DENIED}
    assert outcome.status == 1


def test_chat_about_this_in_a_content_sends_the_words_as_a_text_part() -> None:
    outcome = play(calls=[CONTENT], answers=["1", "c", "Which ORM goes with it?"])
    assert outcome.stdout == [
        '{"role":"user","parts":[{"functionResponse":{"id":"ask_user__abc123","name":"ask_user",'
        '"response":{"error":"[Operation Cancelled] Reason: User denied execution."}}},'
        '{"text":"Which ORM goes with it?"}]}'
    ]
    assert outcome.status == 1


def test_chat_about_this_on_a_part_is_the_cancellation_with_the_words_in_the_data() -> None:
    outcome = play(calls=[PART], answers=["c Use the existing sessions"])
    assert response_of(outcome.stdout[0])["response"] == {"error": DENIED}
    (data,) = play(
        calls=[PART], answers=["c Use the existing sessions"], output=Output.ANSWERS
    ).stdout
    assert json.loads(data)["clarification"] == "Use the existing sessions"


def test_the_answers_ended() -> None:
    outcome = play(calls=[FOUR], answers=["2"])
    assert outcome.stderr.endswith("askcli: no answer (the input ended)\n")
    assert response_of(outcome.stdout[0])["response"] == {
        "error": "[Operation Cancelled] Reason: No answer from the user (the input ended). "
        'Answers given before that: {"answers":{"0":"SQLite"}}'
    }
    assert outcome.status == 3


def test_the_answers_ended_before_any() -> None:
    outcome = play(calls=[PART], answers=[])
    assert response_of(outcome.stdout[0])["response"] == {
        "error": "[Operation Cancelled] Reason: No answer from the user (the input ended)."
    }
    assert outcome.status == 3


def stopped(exc: BaseException, lines: str = "") -> tuple[dict[str, Any], int, str]:
    """Ask FOUR with ``lines`` typed, then ``exc``; the functionResponse, status, stderr."""
    reply, err = ask_stopped(FOUR, lines, exc)
    (line,) = [json_line(r) for r in reply.replies]
    return response_of(line), int(reply.status), err


def test_ctrl_c_is_the_dialogs_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals, "_received", [signal.SIGINT])
    response, status, _ = stopped(KeyboardInterrupt(), "1\n")
    assert response["response"] == {"error": DENIED}
    assert status == 130


@pytest.mark.parametrize(
    ("sig", "why"),
    [(signal.SIGHUP, "the terminal hung up"), (signal.SIGTERM, "askcli was stopped")],
)
def test_hangup_and_terminate_say_nobody_answered(
    sig: signal.Signals, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(signals, "_received", [sig])
    response, status, _ = stopped(KeyboardInterrupt(), "1\n")
    assert response["response"] == {
        "error": f"[Operation Cancelled] Reason: No answer from the user ({why}). "
        'Answers given before that: {"answers":{"0":"PostgreSQL"}}'
    }
    assert status == 130  # the exit status itself comes from the signal (cli.py)


def test_timeout() -> None:
    response, status, err = stopped(AnswerTimeout(5))
    assert response["response"] == {
        "error": "[Operation Cancelled] Reason: No answer from the user (no reply within 5 seconds)."
    }
    assert status == 3
    assert err.endswith("askcli: no answer (no reply within 5 seconds)\n")


def test_calls_after_a_declined_one_are_cancelled_in_gemini_words() -> None:
    content = {
        "role": "model",
        "parts": [
            part(choice("First?"), id="one"),
            part(choice("Second?"), id="two"),
        ],
    }
    outcome = play(calls=[content], answers=["q"])
    (line,) = outcome.stdout
    first, second = json.loads(line)["parts"]
    assert first["functionResponse"]["response"] == {"error": DENIED}
    assert second["functionResponse"] == {
        "id": "two",
        "name": "ask_user",
        "response": {"error": "[Operation Cancelled] Reason: User cancelled operation"},
    }
    assert outcome.status == 1


def test_two_calls_in_one_content_both_answered() -> None:
    content = {
        "role": "model",
        "parts": [part(choice("First?"), id="one"), part(choice("Second?"))],
    }
    outcome = play(calls=[content], answers=["1", "2"])
    parts = json.loads(outcome.stdout[0])["parts"]
    assert [p["functionResponse"].get("id") for p in parts] == ["one", "ask_user__t1"]
    assert [json.loads(p["functionResponse"]["response"]["output"]) for p in parts] == [
        {"answers": {"0": "A"}},
        {"answers": {"0": "B"}},
    ]


# ---- what the CLI does to the texts ------------------------------------------------------


def test_literal_backslash_n_becomes_a_newline_and_descriptions_are_trimmed() -> None:
    q = {
        "question": "Line1\\nLine2",
        "header": "H\\r\\nX",
        "type": "choice",
        "options": [
            {"label": "A\\nB", "description": "  d  "},
            {"label": "C", "description": "   "},
        ],
    }
    data = gemini.parse({"questions": [q]})
    (question,) = data.questions
    assert question.question == "Line1\nLine2"
    assert question.header == "H\nX"
    assert [(o.label, o.description) for o in question.options] == [("A\nB", "d"), ("C", "")]
    outcome = play(calls=[part(q)], answers=["1"])
    assert "[H\\nX] Line1\n  Line2" in outcome.stderr  # the header is one line, escaped
    assert answers_of(outcome.stdout[0]) == {"0": "A\nB"}


def test_the_same_question_twice_is_numbered_for_the_person_and_keyed_by_index() -> None:
    outcome = play(calls=[part(choice("Same?"), choice("Same?"))], answers=["1", "2", ""])
    assert "[Pick] Same? (2)   (question 2 of 2)" in outcome.stderr
    assert answers_of(outcome.stdout[0]) == {"0": "A", "1": "B"}


def test_text_and_yesno_ignore_options_and_multiselect() -> None:
    q = {
        "question": "Ok?",
        "header": "Ok",
        "type": "yesno",
        "multiSelect": True,
        "options": [{"label": "Sure", "description": ""}],
    }
    t = {"question": "Name?", "header": "N", "type": "text", "options": [], "multiSelect": True}
    data = gemini.parse({"questions": [q, t]})
    assert [o.label for o in data.questions[0].options] == ["Yes", "No"]
    assert not data.questions[0].multiSelect and data.questions[0].other
    assert data.questions[1].typed and not data.questions[1].options


def test_unknown_keys_empty_texts_and_duplicate_labels_are_accepted() -> None:
    q = {**choice("", ("Same", "Same")), "header": "", "extra": 1}
    data = gemini.parse({"questions": [q], "also": True})
    assert data.questions[0].header == ""


def test_a_lone_surrogate_is_escaped_as_json_stringify_does() -> None:
    assert gemini.stringify({"answers": {"0": "a\ud800b"}}) == '{"answers":{"0":"a\\ud800b"}}'
    assert gemini.stringify({"answers": {"0": "ü \u2028"}}) == '{"answers":{"0":"ü \u2028"}}'


def test_js_trim_is_javascripts() -> None:
    assert gemini.js_trim("\ufeff\u00a0 x \u3000") == "x"
    assert gemini.js_trim("\x1fx\x1c") == "\x1fx\x1c"  # not JS whitespace


# ---- invalid calls: Ajv's first error, then the tool's own checks ------------------------

Q = {"question": "Q?", "header": "H", "type": "text"}


def opts(n: int) -> list[dict[str, str]]:
    return [{"label": f"L{i}", "description": ""} for i in range(n)]


INVALID: list[tuple[Any, str]] = [
    ("x", "Value of params must be an object"),
    (5, "Value of params must be an object"),
    ([], "params must be object"),
    ({}, "params must have required property 'questions'"),
    (None, "params must have required property 'questions'"),  # `args || {}`
    ({"questions": "x"}, "params/questions must be array"),
    ({"questions": None}, "params/questions must be array"),
    ({"questions": []}, "params/questions must NOT have fewer than 1 items"),
    ({"questions": [Q] * 5}, "params/questions must NOT have more than 4 items"),
    ({"questions": ["Q?"]}, "params/questions/0 must be object"),
    ({"questions": [{"header": "H", "type": "text"}]}, "params/questions/0 must have required property 'question'"),
    ({"questions": [{"question": "Q?", "type": "text"}]}, "params/questions/0 must have required property 'header'"),
    ({"questions": [{"question": "Q?", "header": "H"}]}, "params/questions/0 must have required property 'type'"),
    ({"questions": [{**Q, "type": "multi"}]}, "params/questions/0/type must be equal to one of the allowed values"),
    ({"questions": [{**Q, "type": 5}]}, "params/questions/0/type must be string"),
    ({"questions": [{**Q, "question": 5}]}, "params/questions/0/question must be string"),
    ({"questions": [{**Q, "header": 5}]}, "params/questions/0/header must be string"),
    ({"questions": [{**Q, "multiSelect": "yes"}]}, "params/questions/0/multiSelect must be boolean"),
    ({"questions": [{**Q, "placeholder": 3}]}, "params/questions/0/placeholder must be string"),
    ({"questions": [{**Q, "options": "x"}]}, "params/questions/0/options must be array"),
    ({"questions": [{**Q, "options": ["A"]}]}, "params/questions/0/options/0 must be object"),
    ({"questions": [{**Q, "options": [{"description": ""}]}]}, "params/questions/0/options/0 must have required property 'label'"),
    ({"questions": [{**Q, "options": [{"label": "A"}]}]}, "params/questions/0/options/0 must have required property 'description'"),
    ({"questions": [{**Q, "options": [{"label": 1, "description": ""}]}]}, "params/questions/0/options/0/label must be string"),
    ({"questions": [{**Q, "type": "choice"}]}, "Question 1: type='choice' requires 'options' array with 2-4 items."),
    ({"questions": [{**Q, "type": "choice", "options": []}]}, "Question 1: type='choice' requires 'options' array with 2-4 items."),
    ({"questions": [{**Q, "type": "choice", "options": opts(1)}]}, "Question 1: type='choice' requires 'options' array with 2-4 items."),
    ({"questions": [{**Q, "type": "choice", "options": opts(5)}]}, "Question 1: 'options' array must have at most 4 items."),
    ({"questions": [Q, {**Q, "type": "choice", "options": opts(1)}]}, "Question 2: type='choice' requires 'options' array with 2-4 items."),
    ({"questions": [{**Q, "type": "choice", "options": [{"label": "  ", "description": ""}, *opts(1)]}]}, "Question 1, option 1: 'label' is required and must be a non-empty string."),
    ({"questions": [{**Q, "options": [*opts(1), {"label": "", "description": ""}]}]}, "Question 1, option 2: 'label' is required and must be a non-empty string."),
    ({"questions": [{"question": "Q?", "type": "bad"}]}, "params/questions/0 must have required property 'header'"),
    # Ajv runs over every question before the tool's own checks
    ({"questions": [{**Q, "type": "choice"}, {"question": "Q?"}]}, "params/questions/1 must have required property 'header'"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), INVALID, ids=[f"i{n}" for n in range(len(INVALID))])
def test_invalid_calls_get_the_clis_own_text(args: Any, message: str) -> None:
    call = {"functionCall": {"name": "ask_user", "id": "x1", "args": args}}
    outcome = play(calls=[call])
    assert outcome.stdout == [
        json_line(
            {"functionResponse": {"id": "x1", "name": "ask_user", "response": {"error": message}}}
        )
    ]
    assert outcome.status == 2
    (said,) = outcome.stderr.splitlines()
    assert said.startswith("askcli: invalid ask_user call x1: ") and said.endswith(message)


def test_accepted_by_the_cli() -> None:
    long_header = {"question": "", "header": "H" * 40, "type": "text", "options": opts(6)}
    no_mark = {"question": "Pick one", "header": "H", "type": "yesno", "options": opts(1)}
    gemini.parse({"questions": [long_header, no_mark], "extra": 1})


def test_invalid_in_a_content_keeps_the_content_shape() -> None:
    content = {"role": "model", "parts": [{"text": "hi"}, part({"question": "Q?"}, id="z")]}
    outcome = play(calls=[content])
    assert json.loads(outcome.stdout[0]) == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "z",
                    "name": "ask_user",
                    "response": {
                        "error": "params/questions/0 must have required property 'header'"
                    },
                }
            }
        ],
    }


# ---- --output answers | text | sdk -------------------------------------------------------


def test_output_answers() -> None:
    (line,) = play(calls=[FOUR], answers=["1", "s", "x", "2", ""], output=Output.ANSWERS).stdout
    assert json.loads(line) == {
        "questions": FOUR["functionCall"]["args"]["questions"],
        "answers": {"0": "PostgreSQL", "2": "x", "3": "No"},
        "status": {
            "Which database?": "answered",
            "Which docs?": "skipped",
            "Project name?": "answered",
            "Deploy now?": "answered",
        },
    }


def test_output_answers_when_declined() -> None:
    (line,) = play(calls=[FOUR], answers=["1", "q", "y"], output=Output.ANSWERS).stdout
    data = json.loads(line)
    assert data["answers"] == {"0": "PostgreSQL"}
    assert set(data["status"].values()) == {"declined"}
    assert data["error"] == DENIED


def test_output_text() -> None:
    assert play(calls=[PART], answers=["1"], output=Output.TEXT).stdout == [
        '{"answers":{"0":"OAuth 2.0"}}'
    ]
    assert play(calls=[PART], answers=["q"], output=Output.TEXT).stdout == [DENIED]


def test_output_sdk() -> None:
    (allow,) = play(calls=[PART], answers=["1"], output=Output.SDK).stdout
    assert json.loads(allow) == {
        "behavior": "allow",
        "updatedInput": {
            **PART["functionCall"]["args"],
            "answers": {"0": "OAuth 2.0"},
        },
    }
    (deny,) = play(calls=[PART], answers=["q"], output=Output.SDK).stdout
    assert json.loads(deny) == {"behavior": "deny", "message": DENIED}


# ---- hostile strings ---------------------------------------------------------------------


def hostile(text: str) -> list[tuple[dict[str, Any], list[str]]]:
    """``text`` in every field of an ask_user call a model writes, with answer lines."""
    q = choice(text, (text, "B"), header=text, placeholder=text)
    q["options"][0]["description"] = text
    multi = {**choice(text, (text, "B")), "multiSelect": True}
    typed = {"question": text, "header": text, "type": "text", "placeholder": text}
    yesno = {"question": text, "header": text, "type": "yesno"}
    return [
        (part(q, id=text), ["1"]),
        (
            part(multi, typed, yesno),
            ["1,4", text if text.strip() else "x", "a", "3", text + "x", ""],
        ),
        ({"role": "model", "parts": [{"text": text}, part(q)]}, ["c " + text + "x"]),
        (
            {"functionCall": {"name": "ask_user", "id": text, "args": {"questions": [{text: 1}]}}},
            [],
        ),
    ]


@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_no_raw_control_reaches_the_terminal_or_stdout(attack: str) -> None:
    for call, answers in hostile(attack):
        outcome = play(calls=[call], answers=answers)
        check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")
        assert len(outcome.stdout) == 1
        check_bytes(outcome.stdout[0].encode("utf-8", "surrogatepass"), "stdout")
        assert "Traceback" not in outcome.stderr
        json.loads(outcome.stdout[0])


def test_a_line_break_in_the_header_or_a_label_forges_no_line() -> None:
    for brk in ["\n", "\r", "\r\n", "\u2028", "\x85", "\\n"]:
        q = choice("Q?", (f"x{brk}FORGED label", "B"), header=f"x{brk}FORGED header")
        q["options"][0]["description"] = "d"
        outcome = play(calls=[part(q)], answers=["1"])
        for line in outcome.stderr.split("\n"):
            assert not line.lstrip().startswith("FORGED"), outcome.stderr


# ---- the declaration, check --strict, the installed binary ------------------------------


def test_the_declaration_is_gemini_clis_byte_for_byte() -> None:
    assert json.dumps(gemini.definition(), indent=2, ensure_ascii=False) == DECLARATION


@pytest.mark.process
def test_schema_format_gemini() -> None:
    proc = run_askcli("schema", "--format", "gemini")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == gemini.definition()


@pytest.mark.process
def test_check_strict_reports_the_soft_rules(tmp_path: Path) -> None:
    q = choice(
        "No mark", ("Other", "One two three four five six"), header="A header of twenty chars"
    )
    multi = {**choice("Which?", ("a, b", "c")), "multiSelect": True}
    source = tmp_path / "call.json"
    source.write_text(json.dumps(part(q, multi, id="s1")))
    proc = run_askcli("check", "--strict", str(source))
    assert proc.stdout.splitlines() == [
        "ok      s1 ask_user",
        "warning s1 ask_user: questions[0].question does not end with a question mark",
        "warning s1 ask_user: questions[0].header is longer than 16 characters "
        "(cut short on inactive tabs)",
        "warning s1 ask_user: questions[0].options[0].label is an Other option; "
        "Other is added by itself",
        "warning s1 ask_user: questions[0].options[1].label has more than 5 words",
        "warning s1 ask_user: questions[1].options[0].label holds ', ', which also joins "
        "a multi-select's answers",
        "1 valid, 0 invalid, 5 warning(s)",
    ]


@pytest.mark.process
@pytest.mark.parametrize("name", ["gemini.json", "gemini-part.json", "gemini-response.json"])
def test_the_examples_are_valid(name: str) -> None:
    proc = run_askcli("check", "--strict", str(EXAMPLES / name))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.endswith("1 valid, 0 invalid, 0 warning(s)\n"), proc.stdout


@pytest.mark.pty
def test_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "gemini.json")], tmp_path)
    term.expect("Assistant: Before I scaffold the project I need a few decisions from you.")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("  4. All of the above - Select all options")
    term.expect("Choose 1-5, several allowed (e.g. 1,3): ")
    term.type("4")
    term.expect("Answer: ")
    term.type("my-app")
    term.expect("Choose 1-3 or y/n: ")
    term.type("2")
    term.expect("       All of the above")  # the model gets the labels
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    (fr,) = reply["parts"]
    assert fr["functionResponse"]["id"] == "ask_user__abc123"
    assert json.loads(fr["functionResponse"]["response"]["output"]) == {
        "answers": {
            "0": "PostgreSQL",
            "1": "User Guide, API Reference, Changelog",
            "2": "my-app",
            "3": "No",
        }
    }


@pytest.mark.pty
def test_ctrl_c_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "gemini-part.json")], tmp_path)
    term.expect("Choose 1-4: ")
    term.child.sendintr()
    status, reply = term.finish()
    assert status == 130
    assert reply == {"functionResponse": {"name": "ask_user", "response": {"error": DENIED}}}


def test_a_content_without_role_holding_a_function_call_is_a_gemini_content() -> None:
    content = {"parts": [{"text": "One thing."}, part(choice(), id="r1")]}
    outcome = play(calls=[content], answers=["2"])
    assert outcome.stderr.startswith("\nAssistant: One thing.\n")
    assert json.loads(outcome.stdout[0]) == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "r1",
                    "name": "ask_user",
                    "response": {"output": '{"answers":{"0":"B"}}'},
                }
            }
        ],
    }


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"functionCall": "x"}, 'the "functionCall" is not an object'),
        ({"functionCall": {"name": 5}}, 'the functionCall has no string "name"'),
        ({"role": "user", "parts": []}, 'a content whose "role" is not "model"'),
        ({"candidates": []}, 'the Gemini content has no "parts" list'),
    ],
)
def test_malformed_gemini_documents_are_refused_in_one_line(
    document: dict[str, Any], said: str
) -> None:
    outcome = play(calls=[document])
    assert outcome.status == 2
    assert said in outcome.stderr.splitlines()[0]
    assert len(outcome.stdout) == 1 and "Traceback" not in outcome.stderr


def test_a_single_text_question_left_empty_is_submitted_without_it() -> None:
    call = part({"question": "Anything else?", "header": "More", "type": "text"})
    outcome = play(calls=[call], answers=["s"])
    assert "  Type your answer (optional: s skips it).\n" in outcome.stderr
    assert answers_of(outcome.stdout[0]) == {}  # as Enter on an empty input in the dialog
    assert outcome.status == 0


def test_notes_have_no_place_in_gemini() -> None:
    outcome = play(calls=[part(choice())], answers=["n prefer the first", "1"])
    assert "! this agent has no place for notes; answer with an option or Other" in outcome.stderr
    assert answers_of(outcome.stdout[0]) == {"0": "A"}


def test_output_text_of_an_invalid_call_is_the_clis_text() -> None:
    bad = part(choice(labels=("Only",)))
    assert play(calls=[bad], output=Output.TEXT).stdout == [
        "Question 1: type='choice' requires 'options' array with 2-4 items."
    ]


def test_output_answers_gives_a_multi_select_answer_as_a_list() -> None:
    answers = ["s", "3,1", "s", "s", ""]
    (line,) = play(calls=[FOUR], answers=answers, output=Output.ANSWERS).stdout
    assert json.loads(line)["answers"] == {"1": ["User Guide", "Changelog"]}  # option order
    (text,) = play(calls=[FOUR], answers=answers, output=Output.TEXT).stdout
    assert text == '{"answers":{"1":"User Guide, Changelog"}}'  # Gemini CLI's own, joined
