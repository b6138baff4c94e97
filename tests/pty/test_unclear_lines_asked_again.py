"""At a terminal, 80 and 40 columns: the permission prompt never guesses, and ``n`` at the
review does not submit (issue 21, items 3 and 4).

A line that is no answer at ``Allow?`` (``ok``, ``Yes.``, words) is asked again with a
one-line hint of the keys; words reach the agent only after ``3`` or as ``n: TEXT``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askcli.wire.results import REJECT_WITH_WORDS_PREFIX

from tests.support.calls import call, question
from tests.support.terminals import Terminal

BASH = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "git push --force"}}
HINT = "! type 1 or 3 (y/n), or n: TEXT"
WORDS_PROMPT = {
    80: "Tell the agent what to do instead (Enter: just deny): ",
    40: "Instead (Enter: just deny): ",
}


PROMPTS = ("Allow? ", "Submit? ", "Choose ", *WORDS_PROMPT.values())


def fits(term: Terminal, columns: int) -> None:
    """Every line askcli wrote fits the width (no line left for the terminal to break);
    a prompt leaves room to type on its line."""
    lines = term.log.getvalue().replace("\r\n", "\n").split("\n")
    for line in lines:
        prompt = next((p for p in PROMPTS if line.startswith(p)), None)
        if prompt is not None:
            assert len(prompt) + 12 <= columns, line
        else:
            assert len(line) <= columns, term.log.getvalue()


def terminal(tmp_path: Path, document: dict, columns: int) -> Terminal:
    path = tmp_path / "call.json"
    path.write_text(json.dumps(document))
    return Terminal(["ask", str(path)], tmp_path, columns)


@pytest.mark.parametrize("columns", [80, 40])
def test_words_alone_are_asked_again_then_3_takes_them(tmp_path: Path, columns: int) -> None:
    term = terminal(tmp_path, BASH, columns)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("open a pull request")
    term.expect(HINT)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("ok")
    term.expect(HINT)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("3")
    term.expect(WORDS_PROMPT[columns])
    term.type("open a pull request")
    status, reply = term.finish()
    assert status == 1
    assert reply["content"] == REJECT_WITH_WORDS_PREFIX + "open a pull request"
    fits(term, columns)


@pytest.mark.parametrize("columns", [80, 40])
def test_n_colon_on_one_line_and_1_dot_allows(tmp_path: Path, columns: int) -> None:
    term = terminal(tmp_path, BASH, columns)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("n: push to a branch")
    status, reply = term.finish()
    assert status == 1
    assert reply["content"] == REJECT_WITH_WORDS_PREFIX + "push to a branch"
    term = terminal(tmp_path, BASH, columns)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("Yes.")
    term.expect(HINT)
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type("1.")
    status, reply = term.finish()
    assert status == 0 and reply["behavior"] == "allow"
    fits(term, columns)


TWO = call(
    question("Which runtime?", "Runtime", ("Node", "Bun")),
    question("Which database?", "Database", ("Postgres", "SQLite")),
)


@pytest.mark.parametrize("columns", [80, 40])
def test_n_at_the_review_does_not_submit(tmp_path: Path, columns: int) -> None:
    term = terminal(tmp_path, TWO, columns)
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("Submit? [y]: ")
    term.type("n")
    term.expect("Not submitted: 1-2 changes an answer, b")
    term.expect("goes back, q declines.")
    term.expect("Submit? [y]: ")
    term.type("2")
    term.expect("Choose 1-3 [1]: ")  # its answer shown, Enter keeps it
    term.type("2")
    term.expect("Submit? [y]: ")
    term.type("no")
    term.expect("Not submitted: ")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert '"Which database?"="SQLite"' in reply["content"]
    assert "! " not in term.log.getvalue()  # no error line
    fits(term, columns)
