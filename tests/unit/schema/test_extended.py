"""AskUserQuestion's extended questions (Claude Code 2.1.332): text and number kinds, a
title, per-question descriptions, Claude Code's own validation messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from askcli.errors import InvalidCall
from askcli.runners.recordings import play
from askcli.schema.extended_questions import is_extended, parse_extended
from askcli.schema.inputs import parse_ask
from askcli.schema.shapes import UNIQUENESS_MESSAGE
from askcli.wire.wording.texts import EXTENDED_STEER, STEER

DECK: dict[str, Any] = {
    "title": "Before I build your deck",
    "questions": [
        {
            "question": "Which color?",
            "header": "Color",
            "options": [{"label": "Red"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": False,
            "kind": "choice",
        },
        {
            "question": "What should the deck be called?",
            "header": "Title",
            "kind": "text",
            "options": [],
            "multiSelect": False,
            "placeholder": "e.g. Q3 review",
            "description": "Shown on the first slide.",
        },
        {
            "question": "How many slides?",
            "header": "Slides",
            "kind": "number",
            "options": [],
            "multiSelect": False,
            "min": 1,
            "max": 20,
            "step": 1,
            "defaultValue": 8,
            "unit": "slides",
        },
    ],
}
CALL = {"type": "tool_use", "id": "toolu_x", "name": "AskUserQuestion", "input": DECK}


def test_the_deck_is_asked_whole() -> None:
    outcome = play(calls=[CALL], answers=["1", "Roadmap", "40", "", ""], wording="claude-code")
    assert outcome.stderr.split("\n") == [
        "",
        "Before I build your deck",
        "",
        "[Color] Which color?   (question 1 of 3)",
        "  1. Red",
        "  2. Blue - cool",
        "  3. Other - type your own answer",
        "  (optional: s skips it)",
        "  (keys: 1-3 choose, ? help, q decline)",
        "Choose 1-3: 1",
        "",
        "[Title] What should the deck be called?   (question 2 of 3)",
        "  Shown on the first slide.",
        "  Type your answer (optional: s skips it).",
        "  e.g. Q3 review",
        "  (a command word alone is the command: b back, s skip, q decline; =q types q)",
        "Answer: Roadmap",
        "",
        "[Slides] How many slides?   (question 3 of 3)",
        "  Type a number from 1 to 20, in steps of 1 (slides) (optional: s skips it).",
        "  (a command word alone is the command: b back, s skip, q decline; =q types q)",
        "Answer [8]: 40",
        "! the answer must be at most 20",
        "Answer [8]: ",
        "",
        "Review your answers:",
        "  1. [Color] Which color?",
        "       Red",
        "  2. [Title] What should the deck be called?",
        "       Roadmap",
        "  3. [Slides] How many slides?",
        "       8",
        "Enter or y submits, 1-3 changes an answer, b goes back, q declines, ? for help.",
        "Submit? [y]: ",
        "",
    ]
    reply = json.loads(outcome.stdout[0])
    assert reply["content"] == (
        'The user answered: "Which color?"="Red", "What should the deck be called?"="Roadmap", '
        '"How many slides?"="8". Read the answers carefully \u2014 they may request '
        "clarification, changes, or that you not proceed \u2014 and follow what they actually say."
    )


def test_a_number_within_bounds_alone_is_a_clean_answer() -> None:
    only = {"questions": [DECK["questions"][0], DECK["questions"][2]]}
    call = {**CALL, "input": only}
    outcome = play(calls=[call], answers=["2", "12", ""], wording="claude-code")
    assert json.loads(outcome.stdout[0])["content"] == (
        'Your questions have been answered: "Which color?"="Blue", "How many slides?"="12". '
        "You can now continue with these answers in mind."
    )


def test_a_host_gets_the_typed_values_as_strings() -> None:
    control = {
        "type": "control_request",
        "request_id": "r1",
        "request": {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "input": DECK},
    }
    outcome = play(calls=[control], answers=["1", "Roadmap", "12", ""], wording="claude-code")
    allow = json.loads(outcome.stdout[0])["response"]["response"]
    assert allow["updatedInput"]["answers"] == {
        "Which color?": "Red",
        "What should the deck be called?": "Roadmap",
        "How many slides?": "12",
    }
    assert allow["updatedInput"]["title"] == "Before I build your deck"


def q(**fields: Any) -> dict[str, Any]:
    return {"question": "Q?", "header": "H", **fields}


@pytest.mark.parametrize(
    ("question", "path", "message"),
    [
        (
            q(options=[{"label": "a"}]),
            ["questions", 0, "options"],
            'A choice question needs 2-4 options; use kind "text" for an open-ended question.',
        ),
        (
            q(kind="text", options=[{"label": "a"}]),
            ["questions", 0, "options"],
            'A "text" question takes no options; remove them or omit kind to ask a choice '
            "question.",
        ),
        (
            q(kind="number", min=1, max=9, multiSelect=True),
            ["questions", 0, "multiSelect"],
            'multiSelect applies only to choice questions, not "number".',
        ),
        (
            q(kind="number", min=5, max=5),
            ["questions", 0, "min"],
            "A number question needs numeric min and max with min < max.",
        ),
        (
            q(kind="number", min=1, max=5, defaultValue=9),
            ["questions", 0, "defaultValue"],
            "defaultValue must lie within min..max.",
        ),
        (
            q(kind="text", unit="px"),
            ["questions", 0, "unit"],
            'unit applies only to "number" questions.',
        ),
        (
            q(kind="number", min=1, max=5, step=0),
            ["questions", 0, "step"],
            "Too small: expected number to be >0",
        ),
        (
            q(kind="date"),
            ["questions", 0, "kind"],
            'Invalid option: expected one of "choice"|"text"|"number"',
        ),
        (
            q(kind="text", question=5),
            ["questions", 0, "question"],
            "Invalid input: expected string, received number",
        ),
    ],
)
def test_claude_code_s_rules_and_messages(
    question: dict[str, Any], path: list[Any], message: str
) -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_extended({"questions": [question]})
    assert [(i["path"], i["message"]) for i in caught.value.issues] == [(path, message)]


def test_counts_keys_and_uniqueness() -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_extended({"title": "t", "questions": [], "extra": 1})
    messages = [i["message"] for i in caught.value.issues]
    assert messages == ['Unrecognized key: "extra"', "Too small: expected array to have >=1 items"]
    twice = q(kind="text")
    with pytest.raises(InvalidCall) as caught:
        parse_extended({"questions": [twice, twice]})
    assert caught.value.issues[0]["message"].startswith("Question texts must be unique")
    same_labels = q(options=[{"label": "a"}, {"label": "a"}])
    with pytest.raises(InvalidCall) as caught:
        parse_extended({"title": "t", "questions": [same_labels]})
    assert [i["message"] for i in caught.value.issues] == [UNIQUENESS_MESSAGE]


def test_which_calls_are_extended() -> None:
    assert is_extended({"title": "x", "questions": []})
    assert is_extended({"questions": [q(kind="text")]})
    assert not is_extended({"questions": [q(options=[])]})
    plain = {
        "questions": [
            q(options=[{"label": "a", "description": ""}, {"label": "b", "description": ""}])
        ]
    }
    assert not is_extended(plain) and parse_ask(plain).questions[0].kind == "choice"


def test_claude_code_s_advice_comes_first_with_its_wording() -> None:
    one = {**CALL, "input": {"questions": [q(options=[{"label": "a", "description": ""}])]}}
    text = json.loads(play(calls=[one], wording="claude-code").stdout[0])["content"]
    assert text.startswith(f"<tool_use_error>InputValidationError: {STEER}\n\n[")
    seed = json.loads(play(calls=[one]).stdout[0])["content"]
    assert STEER not in seed
    ext = {**CALL, "input": {"title": "t", "questions": [q(options=[{"label": "a"}])]}}
    text = json.loads(play(calls=[ext], wording="claude-code").stdout[0])["content"]
    assert text.startswith(f"<tool_use_error>InputValidationError: {EXTENDED_STEER}\n\n[")
