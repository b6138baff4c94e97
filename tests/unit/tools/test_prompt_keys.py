"""Keys you can see (issue 21, item 2): the first choice question of a run shows one line of
the keys it takes; a short form where the long one does not fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askcli.runners.recordings import play
from askcli.terminal.screens import keys_hint

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.terminals import Terminal

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


@pytest.mark.pty
@pytest.mark.parametrize(("columns", "shown"), [(80, LONG), (40, LONG)])
def test_the_keys_at_a_terminal(tmp_path: Path, columns: int, shown: str) -> None:
    term = Terminal(["ask", str(EXAMPLES / "library.json")], tmp_path, columns)
    term.expect("4. Other")
    term.expect(shown.strip())
    term.expect("Choose 1-4 [1]: ")
    term.type("?")
    while term.child.expect_exact(["--more--", "this help"]) == 0:  # 40x24: paged
        term.type("")
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    status, reply = term.finish()
    assert status == 0 and "dayjs" in reply["content"]


@pytest.mark.pty
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
    term.expect("1,3): ")
    term.type("1,3")
    term.expect("Choose 1-3: ")  # the second question: no keys line again
    term.type("1")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, _ = term.finish()
    assert status == 0
    assert term.log.getvalue().count("q decline)") == 1


# --- the `> ` of askcli claude and askcli acp ---------------------------------------------


def test_the_message_prompt_says_its_keys_in_one_line() -> None:
    from askcli.terminal.screens import message_hint

    assert message_hint("Claude Code") == (
        "(type a message to Claude Code, then Enter; Ctrl-C stops a turn, Ctrl-D ends)"
    )
    assert message_hint("the agent", 40) == "(a message, then Enter; Ctrl-D ends)"
    assert all(len(message_hint(to, w)) <= w - 2 for to in ("Claude Code", "x") for w in (40, 80))


@pytest.mark.pty
@pytest.mark.parametrize(("columns", "shown"), [(80, "Claude Code, then Enter;"), (40, "(a m")])
def test_the_first_message_prompt_of_askcli_claude_says_its_keys(
    tmp_path: Path, columns: int, shown: str
) -> None:
    from tests.support.paths import ROOT

    fake = ROOT / "tests" / "peers" / "fake-claude"
    term = Terminal(["claude", "--claude-bin", str(fake)], tmp_path, columns)
    term.expect(shown)
    term.expect("> ")
    term.type("hello")
    term.expect("> ")  # the next prompt: no hint again
    term.child.sendeof()
    term.expect_end()
    log = term.log.getvalue()
    assert log.count("Ctrl-D ends)") == 1, log
    assert all(len(row) <= columns for row in log.replace("\r\n", "\n").split("\n")), log


@pytest.mark.process
def test_a_piped_session_gets_no_hint(tmp_path: Path) -> None:
    import subprocess

    from tests.support.paths import ROOT
    from tests.support.processes import askcli_path

    fake = ROOT / "tests" / "peers" / "fake-claude"
    proc = subprocess.run(
        [str(askcli_path()), "claude", "--claude-bin", str(fake)],
        input="hello\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Ctrl-D ends" not in proc.stderr


@pytest.mark.pty
@pytest.mark.parametrize("columns", [80, 40])
def test_the_first_message_prompt_of_askcli_acp_says_its_keys(tmp_path: Path, columns: int) -> None:
    from tests.support.acp import setup

    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi."}}
    agent, _ = setup(tmp_path, [[{"update": update}], [{"update": update}]])
    term = Terminal(["acp", "--", *agent], tmp_path, columns)
    term.expect("(type a message to the agent, then Enter;" if columns == 80 else "(a message")
    term.expect("> ")
    term.type("hello")
    term.expect("Hi.")
    term.expect("> ")
    term.child.sendeof()
    term.expect_end()
    assert term.log.getvalue().count("Ctrl-D ends)") == 1, term.log.getvalue()
