"""At 40 columns nothing breaks mid-word (issue 29, item 5): every screen askcli draws is
swept for a row whose first or last word is not a whole word of the same screen drawn
wide; the inbox prompt keeps its keys for long ids; a multi-select prompt says several may
be chosen; ``?`` help fits the screen or is paged."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli import fixtures
from askcli.escaping import visible
from askcli.hosts.child import AgentStderr
from askcli.inbox.person_side import queue_screens as inbox_screens
from askcli.inbox.store import Agent, QueuedQuestion, QueueState
from askcli.lines import TextLineReader
from askcli.runners.recordings import source_text, typed_answers
from askcli.runners.session import run
from askcli.schema.inputs import parse_ask
from askcli.terminal import screens
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style, display_width
from askcli.tools.todo_store import TodoStore

from tests.support.calls import call, option, question
from tests.support.paths import ROOT
from tests.support.processes import askcli_path
from tests.support.terminals import Terminal, TerminalText, pty_shell, split_words

NARROW = 40
WIDE = 1000  # nothing wraps
LONG = "Which database should the new reporting service use for its nightly exports?"


def drawn(calls: Sequence[Any], answers: Sequence[str], width: int, stdin: bool = False) -> str:
    """What a terminal ``width`` columns wide shows of a session (in process)."""
    err = TerminalText()
    with tempfile.TemporaryDirectory() as scratch:
        if stdin:
            source = TextLineReader(io.StringIO("".join(f"{line}\n" for line in calls)))
            reader = source
        else:
            source = TextLineReader(io.StringIO(source_text(calls)))
            reader = typed_answers(answers)
        options = RunOptions(calls_follow=stdin, todos=TodoStore(Path(scratch) / "todos.json"))
        run(source, Conversation(reader, err, Style(width=width), options), io.StringIO())
    return err.getvalue()


def typed_off(text: str, typed: Sequence[str]) -> str:
    """``text`` without the answer lines echoed after the prompts: what a person types
    wraps as the terminal wraps it, and is not askcli's to fold."""
    long = sorted({visible(t) for t in typed if len(t.strip()) > 3}, key=len, reverse=True)
    rows = []
    for line in text.split("\n"):
        for answer in long:
            if line.endswith(answer):
                line = line[: -len(answer)]
                break
        rows.append(line)
    return "\n".join(rows)


def unsplit(calls: Sequence[Any], answers: Sequence[str], stdin: bool = False) -> list[str]:
    """The words a 40-column screen splits in a session (nothing, when all is well)."""
    typed = [line for line in calls if stdin and not str(line).startswith("{")] or answers
    narrow = typed_off(drawn(calls, answers, NARROW, stdin), typed)
    wide = drawn(calls, answers, WIDE, stdin)
    return split_words(narrow, NARROW, wide)


FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))


def hosted(fixture: dict[str, Any], width: int) -> str:
    """What a hosted session (askcli claude, askcli acp) shows at ``width`` columns."""
    _, now = fixtures.replay({**fixture, "columns": width})
    return now.stderr


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_no_word_is_split_at_40_columns_in_any_recorded_session(path: Path) -> None:
    fixture = fixtures.load(path)
    if "stdin" in fixture:
        assert unsplit(fixture["stdin"], (), stdin=True) == []
    elif "calls" in fixture:
        assert unsplit(fixture["calls"], fixture["answers"]) == []
    else:  # off a terminal a program's stderr lines stay one line each (folded below)
        shown = typed_off(hosted(fixture, NARROW), fixture["answers"]).split("\n")
        narrow = "\n".join(row for row in shown if not re.match(r"\(\w[\w ]* stderr\) ", row))
        assert split_words(narrow, NARROW, hosted(fixture, WIDE)) == []


@pytest.mark.parametrize("screen", [TerminalText, io.StringIO])
def test_a_program_s_stderr_line_folds_at_a_terminal_and_stays_one_line_elsewhere(
    screen: type[io.StringIO],
) -> None:
    out = screen()
    conv = Conversation(TextLineReader(io.StringIO("")), out, Style(width=NARROW))
    said = "Skipping project agents due to untrusted folder. To enable, ensure it is trusted."
    AgentStderr(conv, "agent")(said, 0)
    conv.error(f"the agent failed: {said}")
    if screen is TerminalText:
        assert (
            split_words(out.getvalue(), NARROW, said + " (agent stderr) askcli: the agent failed")
            == []
        )
        assert "\n  ensure it is trusted.\n" in out.getvalue()
        assert all(display_width(row) <= NARROW for row in out.getvalue().split("\n"))
    else:
        assert out.getvalue() == f"(agent stderr) {said}\naskcli: the agent failed: {said}\n"


BASH = {
    "type": "tool_use",
    "id": "toolu_bash",
    "name": "Bash",
    "input": {
        "command": "curl -fsSL https://example.com/install.sh | sh && npm run migrate",
        "description": "Install the tool and run the database migrations for production",
    },
}
MULTI = question(LONG, "Database", ("PostgreSQL", "SQLite", "MySQL"), multi=True)
SESSIONS: dict[str, tuple[list[Any], list[str]]] = {
    "permission help, a stray line, words": (
        [BASH],
        ["?", "sure thing", "3", "run only the migrations please"],
    ),
    "multi-select: help, a wrong line, skip, review": (
        [call(MULTI, question("Which cache layer should we put in front of it?"))],
        ["?", "7", "s", "1", "?", "1", "1,3", ""],
    ),
    "an invalid call in a stream": (
        [call(question(labels=("only one",)), id="toolu_01invalid_with_a_long_identifier")],
        [],
    ),
    "a call without an id": ([{"type": "tool_use", "name": "AskUserQuestion"}], []),
    "a preview": (
        [
            call(
                {
                    "question": LONG,
                    "header": "Database",
                    "options": [
                        option("PostgreSQL", "relational", preview="SELECT * FROM reports"),
                        option("SQLite", "a file"),
                    ],
                }
            )
        ],
        ["p 1", "p 2", "1"],
    ),
}


@pytest.mark.parametrize("name", SESSIONS)
def test_no_word_is_split_at_40_columns_in_these_sessions(name: str) -> None:
    calls, answers = SESSIONS[name]
    assert unsplit(calls, answers) == []


def held(
    number: int,
    text: str = LONG,
    state: QueueState = QueueState.WAITING,
    to: str | None = None,
) -> QueuedQuestion:
    agent = Agent("claude", "8a7391e2", "/srv/src/reporting/services/exports", "session 8a7391e2")
    document = call(question(text, "Database", ("PostgreSQL", "SQLite")))
    holder = "alice" if state is QueueState.ANSWERING else None
    return QueuedQuestion(number, "q", agent, 1000.0, document, state, to=to, holder=holder)


def inbox_screens_at(width: int) -> str:
    style = Style(width=width)
    shown = []
    for number in (1, 10, 100, 1000):
        for state in (QueueState.WAITING, QueueState.ANSWERING, QueueState.ANSWERED):
            for text in (LONG, "Which database?", "Which database should we use?"):
                for to in (None, "bob", "platform"):
                    q = held(number, text, state, to)
                    shown += [
                        inbox_screens.line(q, 12, style),
                        inbox_screens.arrival(q, style),
                        inbox_screens.withdrew(q, style),
                        inbox_screens.list_line(q, style, now=1120.0),
                        inbox_screens.list_line(q, style, now=1120.0, mine=number),
                        inbox_screens.about(q, style, f"#{number} answered: sent to ", after=True),
                    ]
    shown.append(inbox_screens.help_text(width))
    return "\n".join(shown)


def test_no_word_is_split_at_40_columns_in_the_inbox_s_lines() -> None:
    assert split_words(inbox_screens_at(NARROW), NARROW, inbox_screens_at(WIDE)) == []


def kept_screen(width: int) -> str:
    data = parse_ask(call(question(LONG, "Database"), question("Which cache layer?"))["input"])
    from askcli.questions.state import specs, start

    state = start(specs(data), {LONG: "PostgreSQL"})
    return screens.resumed(data, state, Style(width=width)) + screens.skipped(1, width)


def test_no_word_is_split_at_40_columns_where_answers_were_kept() -> None:
    assert split_words(kept_screen(NARROW), NARROW, kept_screen(WIDE)) == []


# ---- the prompts keep what they must say


@pytest.mark.parametrize("number", [1, 10, 100, 1000])
def test_the_inbox_prompt_keeps_its_keys_at_40_columns(number: int) -> None:
    shown = inbox_screens.prompt(held(number), NARROW)
    assert "Enter" in shown and "l" in shown and "?" in shown and "[y]" in shown, shown
    assert display_width(shown) + inbox_screens.ROOM_TO_TYPE <= NARROW


@pytest.mark.parametrize("width", [80, 40, 30, 20])
@pytest.mark.parametrize("default", [None, "1,2"])
def test_a_multi_select_prompt_always_says_several_may_be_chosen(
    width: int, default: str | None
) -> None:
    from askcli.questions.state import specs, start

    data = parse_ask(call(MULTI)["input"])
    given = {LONG: "PostgreSQL, SQLite"} if default else None
    state = start(specs(data), given)
    shown = screens.prompt(state, width)
    assert "several" in shown.lower(), shown
    if width >= 40:
        assert display_width(shown) + 12 <= width


# ---- at a terminal: help paged, lines after a prompt, the hook's line


@pytest.mark.pty
def test_question_help_at_40x20_is_paged_and_q_stops_it(tmp_path: Path) -> None:
    term = Terminal(["ask", str(ROOT / "examples" / "login.json")], tmp_path, 40, LINES="20")
    term.expect("Choose 1-4 [1]: ")
    term.type("?")
    term.expect("--more-- (18 of ")
    term.type("")
    term.expect("--more-- (")
    term.type("q")
    term.expect("Choose 1-4 [1]: ")  # q stopped the help; it declined nothing
    term.type("2")
    term.expect("Several of 1-4 (e.g. 1,3): ")
    term.type("q")
    term.expect("[y/N] ")
    term.type("y")
    status, reply = term.finish()
    assert status == 1 and '"is_error": true' in json.dumps(reply)
    rows = term.log.getvalue().replace("\r\n", "\n").split("\n")
    assert all(display_width(row) <= NARROW for row in rows)
    start = max(n for n, row in enumerate(rows) if row.startswith("Choose 1-4 [1]: ?"))
    pages = [n for n, row in enumerate(rows) if row.startswith("--more--")]
    assert pages[0] - start <= 19  # a page and its prompt fit 20 rows


def asking(tmp_path: Path, text: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``askcli ask --inbox`` with one question (``text``), in the inbox ``env`` names."""
    source = tmp_path / "q.json"
    source.write_text(json.dumps(call(question(text))))
    return subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", str(source)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.pty
def test_inbox_help_at_40x20_is_paged_with_the_question_shown(tmp_path: Path) -> None:
    env = {"ASKCLI_INBOX": str(tmp_path / "inbox.db"), "XDG_STATE_HOME": str(tmp_path / "s")}
    asker = asking(tmp_path, LONG, env)
    try:
        term = Terminal(["inbox"], tmp_path, 40, LINES="20", **env)
        term.expect("[y]: ")
        term.type("?")
        term.expect("--more-- (")  # 19 rows of help, and the question's 2 and its prompt
        term.type("")
        term.expect("[y]: ")
        rows = term.log.getvalue().replace("\r\n", "\n").split("\n")
        assert all(display_width(row) <= NARROW for row in rows)
        term.child.sendeof()
        term.expect_end()
    finally:
        asker.kill()
        asker.wait()


@pytest.mark.pty
def test_a_question_given_back_starts_its_own_line(tmp_path: Path) -> None:
    env = {"ASKCLI_INBOX": str(tmp_path / "inbox.db"), "XDG_STATE_HOME": str(tmp_path / "s")}
    asker = asking(tmp_path, "Which database?", env)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:
        first = Terminal(["inbox"], tmp_path / "a", 40, **env)
        first.expect("[y]: ")  # it holds the question
        second = Terminal(["inbox"], tmp_path / "b", 40, **env)
        second.expect("Take #1 over? [n]: ")  # the person's other inbox holds it
        second.type("")  # left there
        second.expect("Waiting (? help, Ctrl-D leaves): ")
        first.child.sendeof()  # gives it back
        first.expect_end()
        second.expect("[1 waiting] #1 Which database?")
        shown = second.log.getvalue()
        assert "leaves): \r\n[1 waiting] #1" in shown, shown
        second.child.sendeof()
        second.expect_end()
    finally:
        asker.kill()
        asker.wait()


def hook_screen(tmp_path: Path, columns: int) -> str:
    """What the terminal shows of ``askcli hook`` queueing a permission request in an
    inbox with a long path, until it is stopped (SIGTERM) while it waits."""
    inbox = tmp_path / f"a folder with a rather long name {columns}" / "inbox.db"
    inbox.parent.mkdir()
    given = tmp_path / "hook.json"
    given.write_text(
        json.dumps(
            {
                "session_id": "8a7391e2-0000",
                "cwd": str(tmp_path),
                "hook_event_name": "PermissionRequest",
                "tool_name": "Bash",
                "tool_input": {"command": "npm test"},
            }
        )
    )
    command = f"exec {shlex.quote(str(askcli_path()))} hook < {shlex.quote(str(given))}"
    env = {"ASKCLI_INBOX": str(inbox), "COLUMNS": str(columns)}
    child, log = pty_shell(command, tmp_path, 40, env)
    try:
        child.expect_exact("inbox")
        child.expect_exact("db")
        child.kill(signal.SIGTERM)
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"no waiting line; the terminal showed:\n{log.getvalue()}")
    return log.getvalue().replace("\r\n", "\n").replace(f" {columns}/", " N/")


@pytest.mark.pty
def test_the_hook_s_lines_fold_at_40_columns(tmp_path: Path) -> None:
    narrow = hook_screen(tmp_path, NARROW)
    assert "waiting in" in narrow
    assert all(display_width(row) <= NARROW for row in narrow.split("\n")), narrow
    assert split_words(narrow, NARROW, hook_screen(tmp_path, WIDE)) == []


@pytest.mark.pty
def test_a_long_message_folds_at_a_terminal_and_stays_one_line_elsewhere(
    tmp_path: Path,
) -> None:
    path = tmp_path / "call.json"
    path.write_text(json.dumps(call(question(labels=("only one",)))))
    term = Terminal(["ask", str(path)], tmp_path, 40)
    status, _ = term.finish()
    assert status == 2
    shown = term.log.getvalue().replace("\r\n", "\n")
    assert all(display_width(row) <= NARROW for row in shown.split("\n")), shown
    assert "\n  " in shown.strip()  # folded, going on under two spaces
    piped = subprocess.run(
        [str(askcli_path()), "ask", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "40"},
    )
    (line,) = piped.stderr.splitlines()
    assert line.startswith("askcli: invalid AskUserQuestion call")
