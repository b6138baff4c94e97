"""Question, review and preview screens are never paged: a typed answer is always an answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.calls import call, option
from tests.support.terminals import Terminal

LONG = "a description long enough to wrap onto several lines at any width of terminal " * 2
TALL = call(
    {
        "question": "Which of these four rather verbosely described options do you want?",
        "header": "Tall",
        "options": [option(f"Option {n}", f"{LONG}({n})") for n in range(1, 5)],
    },
    {
        "question": "And one more, so that there is a review?",
        "header": "More",
        "options": [option("Yes", LONG), option("No", LONG)],
    },
)


@pytest.mark.parametrize("columns", [80, 40])
def test_a_tall_question_is_shown_whole_and_2_is_the_answer(tmp_path: Path, columns: int) -> None:
    path = tmp_path / "tall.json"
    path.write_text(json.dumps(TALL))
    term = Terminal(["ask", str(path)], tmp_path, columns, LINES="10")
    term.expect("(question 1 of 2)")
    term.expect("5. Other")
    term.expect("Choose 1-5: ")
    term.type("2")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("Review your answers:")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    shown = term.log.getvalue()
    assert shown.count("\n") > 20  # taller than the terminal's 10 lines
    assert "--more--" not in shown and "not shown" not in shown
    content = reply["content"]
    assert '"Which of these four rather verbosely described options do you want?"="Option 2"' in (
        content
    )
    assert '"And one more, so that there is a review?"="Yes"' in content


@pytest.mark.parametrize("columns", [80, 40])
def test_q_on_a_tall_review_never_hides_answers(tmp_path: Path, columns: int) -> None:
    path = tmp_path / "tall.json"
    path.write_text(json.dumps(TALL))
    term = Terminal(["ask", str(path)], tmp_path, columns, LINES="10")
    term.expect("Choose 1-5: ")
    term.type("3")
    term.expect("Choose 1-3: ")
    term.type("2")
    term.expect("Submit? [y]: ")
    term.type("q")  # once a paging key; now a decline, asked to confirm
    term.expect("Decline all 2 questions? [y/N] ")
    term.type("n")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, reply = term.finish()
    assert status == 0
    assert "--more--" not in term.log.getvalue()
    assert '="Option 3"' in reply["content"] and '="No"' in reply["content"]
