"""Issue 29, item 9, the answer side: ``p N`` where no option has a preview, a one-line answer
that replaces answers kept from before (resumed from the journal), and ``Submit?`` that
offers ``[y]`` only when submitting is possible."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import Refused
from askcli.lines import TextLineReader
from askcli.questions.answers import Default, parse_question_line, parse_review_line
from askcli.questions.state import Mode, reduce, specs, start
from askcli.runners.session import ask
from askcli.schema.inputs import parse_ask
from askcli.terminal import screens
from askcli.tools.journal import Journal, input_digest

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli

LIBRARY = EXAMPLES / "library.json"  # no option has a preview
LOGIN = EXAMPLES / "login.json"  # options 1 and 2 of question 1 have previews


def _asked(document: dict[str, Any], lines: list[str], tmp_path: Path) -> tuple[Any, str]:
    screen = io.StringIO()
    typed = TextLineReader(io.StringIO("\n".join(lines) + "\n"), interactive=False)
    reply = ask(document, input=typed, output=screen, state=tmp_path / "todos.json")
    return reply, screen.getvalue()


# -- p N -------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", ["p 9", "p 2", "p"])
def test_p_where_no_option_has_a_preview_says_so(line: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_question_line(line, count=4, multi=False, labels=("A", "B", "C"), previews=())
    assert str(refused.value) == "this question has no previews"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("p 9", "there is no option 9 to preview; options 1, 2 have previews"),
        ("p 3", "option 3 has no preview; options 1, 2 have previews"),
        ("p", "say which option to preview: p N; options 1, 2 have previews"),
    ],
)
def test_p_names_the_options_that_have_previews(line: str, reason: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_question_line(line, count=4, multi=False, labels=("A", "B", "C"), previews=(1, 2))
    assert str(refused.value) == reason


def test_p_with_one_preview_says_which() -> None:
    with pytest.raises(Refused) as refused:
        parse_question_line("p 9", count=4, multi=False, labels=("A", "B", "C"), previews=(2,))
    assert str(refused.value) == "there is no option 9 to preview; only option 2 has one"


def test_at_a_call_without_previews_p_9_is_no_range_of_options(tmp_path: Path) -> None:
    """The issue's case: ``p 9`` said "choose from 1-3"."""
    reply, shown = _asked(json.loads(LIBRARY.read_text()), ["p 9", "2"], tmp_path)
    assert "! this question has no previews\n" in shown, shown
    assert "choose from" not in shown
    assert '="dayjs"' in reply.replies[0]["content"]


# -- Submit? ---------------------------------------------------------------------------------

TWO = call(question("First?", "One", ("A", "B")), question("Second?", "Two", ("A", "B")))


def _review_with_second_skipped() -> Any:
    data = parse_ask(TWO["input"])
    state = start(specs(data))
    state = reduce(state, parse_question_line("1", count=3, multi=False))
    return reduce(state, parse_question_line("s", count=3, multi=False))


def test_submit_is_offered_only_when_it_is_possible() -> None:
    state = _review_with_second_skipped()
    assert state.mode is Mode.REVIEW
    assert screens.prompt(state) == "Answer question 2 first [2]: "
    answered = reduce(reduce(state, Default()), parse_question_line("2", count=3, multi=False))
    assert answered.mode is Mode.REVIEW
    assert screens.prompt(answered) == "Submit? [y]: "


def test_an_empty_line_at_the_review_goes_to_the_unanswered_question() -> None:
    state = _review_with_second_skipped()
    assert parse_review_line("", count=2) == Default()
    after = reduce(state, Default())
    assert (after.mode, after.at) == (Mode.QUESTION, 1)


def test_y_when_it_cannot_submit_says_why_and_what_to_do(tmp_path: Path) -> None:
    reply, shown = _asked(TWO, ["1", "s", "y", "", "2", ""], tmp_path)
    assert "Question 2 needs an answer first: Enter goes to it, q declines" in shown, shown
    assert "Answer question 2 first [2]: y\n" in shown
    assert "! question 2 has no answer yet; Enter or 2 answers it\n" in shown
    assert "Answer question 2 first [2]: \n" in shown  # Enter: to question 2
    assert "Submit? [y]: \n" in shown  # all answered: [y] again
    assert '"First?"="A", "Second?"="B"' in reply.replies[0]["content"]


# -- resumed answers replaced by a one-line answer -------------------------------------------


@pytest.mark.process
def test_a_one_line_answer_over_resumed_answers_says_what_it_replaced(tmp_path: Path) -> None:
    document = json.loads(LOGIN.read_text())
    block = document["content"][1]
    journal = Journal(tmp_path / "answers.jsonl")
    journal.record(block["id"], input_digest(block["input"]), "2")  # Session cookie
    proc = run_askcli(
        "ask", str(LOGIN), "--journal", str(journal.path), input="y\n1; 3\n\n", timeout=10
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        'Replaced the answer kept from before: question 1 (was "Session cookie").\n' in proc.stderr
    ), proc.stderr
    content = json.loads(proc.stdout)["content"][0]["content"]
    assert '="JWT (Recommended)"' in content and '="Audit log"' in content


@pytest.mark.process
def test_a_one_line_answer_that_keeps_them_says_nothing(tmp_path: Path) -> None:
    document = json.loads(LOGIN.read_text())
    block = document["content"][1]
    journal = Journal(tmp_path / "answers.jsonl")
    journal.record(block["id"], input_digest(block["input"]), "2")
    proc = run_askcli(
        "ask", str(LOGIN), "--journal", str(journal.path), input="y\n2; 3\n\n", timeout=10
    )
    assert proc.returncode == 0, proc.stderr
    assert "Replaced" not in proc.stderr
