"""--output result|answers|sdk|text, on each envelope, answered and not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from askcli.runners.recordings import play
from askcli.wire.envelopes import Output
from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import call, question

QUESTION = question("Which library?", "Library", ("date-fns", "dayjs"), multi=False)
BARE = {"questions": [QUESTION]}
TOOL_USE = call(QUESTION, id="toolu_01Mode")
MESSAGE = {
    "role": "assistant",
    "content": [{"type": "text", "text": "One question."}, call(QUESTION, id="toolu_01InMsg")],
}
ENVELOPES = {"bare": BARE, "tool_use": TOOL_USE, "message": MESSAGE}
TEXT = (
    'User has answered your questions: "Which library?"="dayjs". '
    "You can now continue with the user's answers in mind."
)


def lines(envelope: dict[str, Any], answers: list[str], output: Output) -> list[str]:
    outcome = play(calls=[envelope], answers=answers, output=output)
    return outcome.stdout


@pytest.mark.parametrize("name", ENVELOPES)
def test_result_mode_is_the_reply_envelope(name: str) -> None:
    (line,) = lines(ENVELOPES[name], ["2"], Output.RESULT)
    reply = json.loads(line)
    if name == "message":
        assert reply["role"] == "user"
        (block,) = reply["content"]
    else:
        block = reply
    assert block["type"] == "tool_result" and block["content"] == TEXT
    assert "is_error" not in block


@pytest.mark.parametrize("name", ENVELOPES)
def test_answers_mode_is_the_data_for_jq(name: str) -> None:
    (line,) = lines(ENVELOPES[name], ["2"], Output.ANSWERS)
    assert json.loads(line) == {
        "questions": [QUESTION],
        "answers": {"Which library?": "dayjs"},
        "annotations": {},
        "status": {"Which library?": "answered"},
    }


@pytest.mark.parametrize("name", ENVELOPES)
def test_answers_mode_when_declined_has_an_error(name: str) -> None:
    (line,) = lines(ENVELOPES[name], ["q"], Output.ANSWERS)
    data = json.loads(line)
    assert data["answers"] == {} and data["error"] == REJECT_MESSAGE
    assert data["status"] == {"Which library?": "declined"}


@pytest.mark.parametrize("name", ENVELOPES)
def test_sdk_mode_allows_with_the_answers_in_updated_input(name: str) -> None:
    (line,) = lines(ENVELOPES[name], ["n small", "2"], Output.SDK)
    assert json.loads(line) == {
        "behavior": "allow",
        "updatedInput": {
            "questions": [QUESTION],
            "answers": {"Which library?": "dayjs"},
            "annotations": {"Which library?": {"notes": "small"}},
        },
    }


@pytest.mark.parametrize("name", ENVELOPES)
def test_sdk_mode_denies_with_the_message(name: str) -> None:
    (line,) = lines(ENVELOPES[name], ["q"], Output.SDK)
    assert json.loads(line) == {"behavior": "deny", "message": REJECT_MESSAGE}


@pytest.mark.parametrize("name", ENVELOPES)
def test_text_mode_is_the_result_text(name: str) -> None:
    assert lines(ENVELOPES[name], ["2"], Output.TEXT) == [TEXT]


def test_text_mode_keeps_line_breaks_but_escapes_controls() -> None:
    doc = call(
        {
            "question": "Q?",
            "header": "h",
            "options": [
                {"label": "a\x1b[2J", "description": "", "preview": "l1\nl2"},
                {"label": "b", "description": ""},
            ],
        }
    )
    out = lines(doc, ["1"], Output.TEXT)
    assert out == [
        'User has answered your questions: "Q?"="a\\x1b[2J" selected preview:',
        "l1",
        "l2. You can now continue with the user's answers in mind.",
    ]


def test_a_message_with_two_calls_gives_one_line_per_call_in_the_other_modes() -> None:
    message = {"role": "assistant", "content": [call(id="toolu_a"), call(id="toolu_b")]}
    assert len(lines(message, ["1", "2"], Output.RESULT)) == 1
    for mode in (Output.ANSWERS, Output.SDK, Output.TEXT):
        assert len(lines(message, ["1", "2"], mode)) == 2


def test_unreadable_input_in_each_mode() -> None:
    assert json.loads(lines("{oops}", [], Output.ANSWERS)[0])["error"].startswith(  # type: ignore[arg-type]
        "<tool_use_error>InputValidationError: document 1, line 1: the input is not valid JSON"
    )
    deny = json.loads(lines("{oops}", [], Output.SDK)[0])  # type: ignore[arg-type]
    assert deny["behavior"] == "deny"


def test_no_answer_in_sdk_mode() -> None:
    (line,) = lines(TOOL_USE, [], Output.SDK)
    assert json.loads(line) == {
        "behavior": "deny",
        "message": "No answer from the user (the input ended).",
    }


# a multi-select whose labels hold ", ": joined, they cannot be split back
EXTRAS = question("Which extras?", "Extras", ("Docs, guides", "Lint", "Tests"), multi=True)
PICKED = call(QUESTION, EXTRAS, id="toolu_01Multi")
TYPED = ["2", "3,1,4", "own, words", ""]  # Tests, then Docs, guides, then Other's text


def test_answers_mode_gives_a_multi_select_answer_as_its_labels_in_the_order_typed() -> None:
    (line,) = lines(PICKED, TYPED, Output.ANSWERS)
    assert json.loads(line)["answers"] == {
        "Which library?": "dayjs",  # single-select: a string, as before
        "Which extras?": ["Tests", "Docs, guides", "own, words"],  # Other's text one element
    }


def test_the_agents_shapes_keep_a_multi_select_answer_joined() -> None:
    joined = "Tests, Docs, guides, own, words"  # Claude Code's own shape, unchanged
    (text,) = lines(PICKED, TYPED, Output.TEXT)
    assert f'"Which extras?"="{joined}"' in text
    (sdk,) = lines(PICKED, TYPED, Output.SDK)
    assert json.loads(sdk)["updatedInput"]["answers"]["Which extras?"] == joined
    (result,) = lines(PICKED, TYPED, Output.RESULT)
    assert f'\\"Which extras?\\"=\\"{joined}\\"' in result


def test_answers_mode_of_claude_code_s_current_wording_lists_the_labels_too() -> None:
    from askcli.wire.wording.current import CLAUDE_CODE

    outcome = play(calls=[PICKED], answers=TYPED, output=Output.ANSWERS, wording=CLAUDE_CODE)
    (line,) = outcome.stdout
    assert json.loads(line)["answers"]["Which extras?"] == ["Tests", "Docs, guides", "own, words"]
