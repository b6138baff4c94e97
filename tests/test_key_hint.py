"""Keys you can see (issue 21, item 2): the first choice question of a run shows one line of
the keys it takes; a short form where the long one does not fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askcli.runners.fixtures import play
from askcli.terminal.screens import keys_hint

from .helpers import EXAMPLES, call, question
from .test_pty import Terminal

LONG = "  (keys: 1-4 choose, ? help, q decline)"


def hints(stderr: str) -> list[str]:
    return [line for line in stderr.split("\n") if "q decline)" in line]


def test_the_first_choice_question_of_a_run_shows_the_keys_once() -> None:
    first = call(question("First?", "One", ("A", "B", "C")), question("Second?"), id="t1")
    second = call(question("Third?", "Three", ("A", "B", "C")), id="t2")
    outcome = play(calls=[first, second], answers=["1", "2", "", "3", ""])
    assert hints(outcome.stderr) == [LONG]  # not at question 2, not in the next call
    assert outcome.stderr.index(LONG) < outcome.stderr.index("Choose 1-4: 1")
    assert outcome.stderr.index(LONG) > outcome.stderr.index("  4. Other - type your own answer")


def test_several_and_back_are_said_where_they_apply() -> None:
    assert keys_hint(4, multi=True, back=True) == (
        "(keys: 1-4 choose, 1,3 choose several, ? help, b back, q decline)"
    )
    assert keys_hint(4, multi=False, back=False) == "(keys: 1-4 choose, ? help, q decline)"
    outcome = play(
        calls=[{"questions": [question("Which?", "Pick", ("A", "B"), multi=True)]}],
        answers=["1,2", ""],
    )
    assert hints(outcome.stderr) == ["  (keys: 1-3 choose, 1,3 choose several, ? help, q decline)"]


@pytest.mark.parametrize("columns", [40, 30])
def test_a_narrow_terminal_gets_the_short_form(columns: int) -> None:
    assert keys_hint(4, multi=True, back=True, width=columns) == (
        "(1-4, 1,3, ? help, b back, q decline)"
    )
    outcome = play(
        calls=[call(question("Which?", "Pick", ("A", "B"), multi=True))],
        answers=["1", ""],
        columns=40,
    )
    assert hints(outcome.stderr) == ["  (1-3, 1,3, ? help, q decline)"]


def test_a_typed_question_first_leaves_the_hint_to_the_first_choice() -> None:
    typed = {"question": "Name?", "header": "Name", "type": "text"}
    choice = {
        "question": "Which?",
        "header": "Pick",
        "type": "choice",
        "options": [{"label": "A", "description": ""}, {"label": "B", "description": ""}],
    }
    part = {"functionCall": {"name": "ask_user", "args": {"questions": [typed, choice]}}}
    outcome = play(calls=[part], answers=["Ada", "1", ""])
    assert hints(outcome.stderr) == ["  (keys: 1-3 choose, ? help, b back, q decline)"]


@pytest.mark.parametrize(("columns", "shown"), [(80, LONG), (40, LONG)])
def test_the_keys_at_a_terminal(tmp_path: Path, columns: int, shown: str) -> None:
    term = Terminal(["ask", str(EXAMPLES / "library.json")], tmp_path, columns)
    term.expect("4. Other")
    term.expect(shown.strip())
    term.expect("Choose 1-4 [1]: ")
    term.type("?")
    term.expect("this help")
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    status, reply = term.finish()
    assert status == 0 and "dayjs" in reply["content"]


@pytest.mark.parametrize(
    ("columns", "shown"),
    [
        (80, "(keys: 1-4 choose, 1,3 choose several, ? help, q decline)"),
        (40, "(1-4, 1,3, ? help, q decline)"),
    ],
)
def test_several_at_a_terminal_and_only_once(tmp_path: Path, columns: int, shown: str) -> None:
    given = tmp_path / "multi.json"
    given.write_text(
        json.dumps(
            call(
                question("Which extras?", "Extras", ("Cache", "Queue", "Search"), multi=True),
                question("Which one?", "Pick", ("A", "B")),
            )
        )
    )
    term = Terminal(["ask", str(given)], tmp_path, columns)
    term.expect(shown)
    term.expect("(e.g. 1,3): ")
    term.type("1,3")
    term.expect("Choose 1-3: ")  # the second question: no keys line again
    term.type("1")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, _ = term.finish()
    assert status == 0
    assert term.log.getvalue().count("q decline)") == 1
