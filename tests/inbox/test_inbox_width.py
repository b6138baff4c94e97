"""The inbox at any width (issue 21, item 5): every line laid out to the terminal's width,
the question first, its asker after with the folder shortened from the left and what tells
two askers of one folder apart kept; help, prompts and the pager footer wrapped at spaces;
``inbox list`` says when nothing waits and shows declined answers as declined."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.hook.command import asker_tag
from askcli.hosts.mcp import asker as host
from askcli.inbox.asker_side import reply_to_json
from askcli.inbox.person_side import queue_screens
from askcli.inbox.person_side.commands import decline_reply, list_questions
from askcli.inbox.store import Agent, QueuedQuestion, QueueState, Store, open_store
from askcli.lines import TextLineReader
from askcli.runners.session import answer_document
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style, display_width, truncate, wrap_prompt
from askcli.wire.documents import Document

from tests.support.calls import call, question
from tests.support.inbox import Queue, exit_status, labelled
from tests.support.processes import askcli_path

LONG_QUESTION = (
    "Which authentication method should the new API gateway use for service-to-service calls?"
)
FOLDER = "/srv/src/website-redesign/services/api"


def queued(agent: Agent, text: str = LONG_QUESTION, id: int = 3) -> QueuedQuestion:
    document = call(question(text, "Auth", ["mTLS", "JWT"]))
    return QueuedQuestion(id, "q_1", agent, 1000.0, document, QueueState.WAITING)


ASK = Agent("ask", None, FOLDER, "pid 4242")


def every_line(held: QueuedQuestion, style: Style) -> dict[str, list[str]]:
    return {
        "line": queue_screens.line(held, 2, style).split("\n"),
        "arrival": queue_screens.arrival(held, style).split("\n"),
        "withdrew": queue_screens.withdrew(held, style).split("\n"),
        "list": queue_screens.list_line(held, style, now=1120.0).split("\n"),
        "sent": queue_screens.about(held, style, "#3 answered: sent to ", after=True).split("\n"),
    }


EXPECTED = {
    80: {
        "line": [
            "[2 waiting] #3 Which authentication method should the new…  ask …/api (pid 4242)"
        ],
        "arrival": [
            "new #3: Which authentication method should the new API…  ask …/api (pid 4242)"
        ],
        "withdrew": ["#3 withdrawn, nothing was sent: Which authentication…  ask …/api (pid 4242)"],
        "list": ["  #3    waiting          2m  Which authentication method…  ask …/api (pid 4242)"],
        "sent": ["#3 answered: sent to ask /srv/src/website-redesign/services/api (pid 4242)"],
    },
    40: {
        "line": ["[2 waiting] #3 Which authentication…", "  ask …/services/api (pid 4242)"],
        "arrival": ["new #3: Which authentication method…", "  ask …/services/api (pid 4242)"],
        "withdrew": [
            "#3 withdrawn, nothing was sent:",
            "  Which authentication method should…",
            "  ask …/services/api (pid 4242)",
        ],
        "list": ["#3 waiting 2m  Which authentication…", "  ask …/services/api (pid 4242)"],
        "sent": ["#3 answered: sent to", "  ask …/services/api (pid 4242)"],
    },
    20: {  # cut after a whole word, never inside one (issue 29)
        "line": ["[2 waiting] #3", "  Which…", "  ask (pid 4242)"],
        "arrival": ["new #3: Which…", "  ask (pid 4242)"],
        "withdrew": [
            "#3 withdrawn,",
            "  nothing was sent:",
            "  Which…",
            "  ask (pid 4242)",
        ],
        "list": ["#3 waiting 2m", "  Which…", "  ask (pid 4242)"],
        "sent": ["#3 answered: sent to", "  ask (pid 4242)"],
    },
}


@pytest.mark.parametrize("width", [80, 40, 20])
def test_every_line_about_a_long_question_from_a_long_folder(width: int) -> None:
    lines = every_line(queued(ASK), Style(width=width))
    assert lines == EXPECTED[width]
    for rows in lines.values():
        assert all(display_width(row) <= width for row in rows)


def test_a_short_question_and_folder_keep_one_line() -> None:
    held = queued(Agent("claude", None, "/srv/api", "pid 4242"), "Which database?")
    lines = every_line(held, Style(width=80))
    assert lines["line"] == ["[2 waiting] #3 Which database?  claude /srv/api (pid 4242)"]
    assert lines["arrival"] == ["new #3: Which database?  claude /srv/api (pid 4242)"]
    assert lines["list"] == [
        "  #3    waiting          2m  Which database?  claude /srv/api (pid 4242)"
    ]
    narrow = every_line(held, Style(width=40))
    assert narrow["arrival"] == ["new #3: Which database?", "  claude /srv/api (pid 4242)"]


def test_the_folder_is_shortened_from_the_left() -> None:
    assert queue_screens.folder(FOLDER, 80) == FOLDER
    assert queue_screens.folder(FOLDER, 20) == "…/services/api"
    assert queue_screens.folder(FOLDER, 10) == "…/api"
    assert queue_screens.folder("/srv/authentication-gateway", 10) == "…n-gateway"
    assert queue_screens.who(ASK, 30) == "ask …/services/api (pid 4242)"
    assert queue_screens.who(ASK, 16) == "ask (pid 4242)"  # the folder goes before the pid


def test_a_long_question_is_cut_at_a_word() -> None:
    assert truncate(LONG_QUESTION, 30, words=True) == "Which authentication method…"
    assert truncate(LONG_QUESTION, 30) == "Which authentication method s…"  # as it was
    assert truncate("x" * 50, 10, words=True) == "x" * 9 + "…"  # no space: cut in the word
    assert truncate("Which database?", 30, words=True) == "Which database?"


def _pairs() -> list[tuple[str, Agent, Agent]]:
    store = open_store(Path("unused.db"))
    http = host.QueueSide(store, http=True, cwd=FOLDER)
    return [
        ("two askcli ask", ASK, ASK._replace(tag="pid 4343")),
        (
            "two Claude Code sessions",
            Agent("claude", "1a2b3c4d-0000", FOLDER, asker_tag("1a2b3c4d-0000")),
            Agent("claude", "9f8e7d6c-0000", FOLDER, asker_tag("9f8e7d6c-0000")),
        ),
        (
            "two MCP clients on stdio",
            Agent(host.client_label("claude-code"), None, FOLDER, "pid 4242"),
            Agent(host.client_label("claude-code"), None, FOLDER, "pid 4343"),
        ),
        (
            "two MCP clients over HTTP",
            http.agent("claude-code", host.Session("a", 1)),
            http.agent("claude-code", host.Session("b", 2)),
        ),
    ]


@pytest.mark.parametrize(
    ("what", "one", "two"), _pairs(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_two_askers_of_one_folder_are_told_apart_at_40_columns(
    what: str, one: Agent, two: Agent
) -> None:
    style = Style(width=40)
    first, second = every_line(queued(one), style), every_line(queued(two), style)
    for kind in first:
        assert first[kind] != second[kind], (what, kind, first[kind])
        for row in first[kind] + second[kind]:
            assert display_width(row) <= 40, row
        if kind != "sent":  # the question's start is on screen
            assert any("Which authentication" in row for row in first[kind]), first[kind]


@pytest.mark.parametrize("width", [80, 40, 20])
def test_the_help_and_the_prompts_fit_and_break_at_spaces(width: int) -> None:
    text = queue_screens.help_text(width)
    rows = text.rstrip("\n").split("\n")
    assert all(display_width(row) <= width for row in rows), text
    for _keys, words in queue_screens.HELP_ROWS:  # every word whole on some line
        for word in words.split():
            assert any(word in row.split() for row in rows), (word, text)
    for prompt in (queue_screens.prompt(None, width), queue_screens.prompt(queued(ASK), width)):
        assert display_width(prompt) <= width
    assert queue_screens.prompt(queued(ASK), 80) == (
        "Answer #3? Enter answers, N picks another, l lists, q declines [y]: "
    )


def test_the_help_at_80_columns() -> None:
    assert queue_screens.help_text(80) == (
        "At the inbox prompt:\n"
        "  Enter, y    answer the question shown (its screens and answer grammar are\n"
        "              those of askcli ask; q there declines it too)\n"
        "  N, #N       show question #N instead (the one shown waits again)\n"
        "  l           list the questions waiting and being answered\n"
        "  t N         take question #N over from your other inbox that holds it\n"
        "  q           decline the question shown (the agent gets the decline, as after q\n"
        "              in its screens) and go on\n"
        "  ?           this help\n"
        "  Ctrl-D      leave the inbox (the question shown waits again); Ctrl-C too\n"
    )
    assert queue_screens.prompt(queued(ASK), 40) == "Answer #3? Enter, N, l, q, ? [y]: "
    assert queue_screens.prompt(None, 40) == "Waiting (? help, Ctrl-D leaves): "


def test_a_prompt_wider_than_the_terminal_wraps_at_spaces() -> None:
    more = "--more-- (8 of 35 lines; Enter for more, n to deny) "
    assert wrap_prompt(more, 80) == more
    assert wrap_prompt(more, 40) == "--more-- (8 of 35 lines; Enter for more,\nn to deny) "
    assert wrap_prompt(more, 30) == "--more-- (8 of 35 lines; Enter\nfor more, n to deny) "


def test_the_pager_footer_wraps_at_40_columns() -> None:
    script = "\n".join(f"echo {n}" for n in range(30))
    document = {
        "type": "tool_use",
        "id": "toolu_p",
        "name": "Bash",
        "input": {"command": script},
    }
    reader = TextLineReader(io.StringIO("\n\n\n\ny\n"), interactive=True)
    out = io.StringIO()
    conv = Conversation(reader, out, Style(width=40, height=10))
    answer_document(Document(document), conv)
    screen = out.getvalue()
    footers = re.findall(r"--more--[^)]*\) ", screen)
    assert len(footers) == 4, screen
    for footer in footers:  # broken at a space, each part within the width
        rows = footer.split("\n")
        assert len(rows) == 2 and all(display_width(row) <= 40 for row in rows), footer
        assert re.fullmatch(
            r"--more-- \(\d+ of 36 lines; Enter for more, n to deny\) ", " ".join(rows)
        )


# -- inbox list: nothing waits, declined ---------------------------------------------------


def run_list(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASKCLI_INBOX": str(path), "NO_COLOR": "1", "COLUMNS": "80"}
    return subprocess.run(
        [str(askcli_path()), "inbox", "list", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )


@pytest.mark.process
@pytest.mark.parametrize("args", [(), ("--json",), ("--all",), ("--all", "--json")])
def test_inbox_list_of_an_empty_inbox_says_nothing_waits(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    path = tmp_path / "inbox.db"
    open_store(path).close()
    done = run_list(path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    said = "the inbox holds no questions" if "--all" in args else "nothing waits in the inbox"
    assert done.stderr == f"askcli: {said}\n"


def _answer(store: Store, document: dict[str, Any], agent: Agent, *, decline: bool) -> int:
    held = store.submit(document, agent)
    assert store.claim("inbox-1", held.id) is not None
    if decline:
        reply = decline_reply(held)
    else:
        conv = Conversation(TextLineReader(io.StringIO("1\n"), interactive=False), io.StringIO())
        reply = answer_document(Document(document), conv, held.id)
    assert store.answer("inbox-1", held.id, reply_to_json(reply))
    return held.id


@pytest.mark.process
def test_inbox_list_all_shows_a_declined_question_as_declined(tmp_path: Path) -> None:
    path = tmp_path / "inbox.db"
    store = open_store(path)
    agent = Agent("claude", None, "/srv/api")
    said_no = _answer(store, call(question("Deploy?"), id="toolu_1"), agent, decline=True)
    said_yes = _answer(store, call(question("Test?"), id="toolu_2"), agent, decline=False)
    store.submit(call(question("Waiting?"), id="toolu_3"), agent)
    store.close()
    done = run_list(path, "--all")
    assert done.returncode == 0 and done.stderr == ""
    rows = done.stdout.splitlines()
    assert rows[0].startswith(f"  #{said_no:<4} declined ")
    assert rows[0].endswith("Deploy?  claude /srv/api")
    assert rows[1].startswith(f"  #{said_yes:<4} answered ")
    assert rows[2].startswith("  #3    waiting ")
    shown = [json.loads(row) for row in run_list(path, "--all", "--json").stdout.splitlines()]
    assert [(q["status"], q["declined"]) for q in shown] == [
        ("answered", True),  # the status stays what it was: the question was answered
        ("answered", False),
        ("waiting", False),
    ]
    lines: list[str] = []
    list_questions(open_store(path), lines.append, every=True, width=40)
    assert lines[0].split("\n")[0].startswith(f"#{said_no} declined ")


# -- askcli inbox in a terminal of 40 and 80 columns ---------------------------------------


@pytest.mark.pty
@pytest.mark.parametrize("columns", [40, 80])
def test_the_inbox_in_a_terminal_fits_its_width(queue: Queue, columns: int) -> None:
    where = queue.tmp / "home" / "src" / "website-redesign-project" / "services" / "api"
    where.mkdir(parents=True)
    document = labelled(LONG_QUESTION, "Auth", "mTLS", "JWT", id="toolu_w")
    queue.ask(document, "one", cwd=where)
    queue.ask(document, "two", cwd=where)
    term = queue.inbox(columns=columns)
    term.expect("[2 waiting] #1 Which authentication")
    term.expect("[y]: ")
    term.type("l")
    term.expect("#2")
    term.expect("[y]: ")
    term.type("?")
    term.expect("Ctrl-C too")
    term.expect("[y]: ")
    term.type("q")
    term.expect("#1 declined: sent to")
    term.expect("[1 waiting] #2 Which authentication")
    term.expect("[y]: ")
    term.child.sendeof()
    assert exit_status(term) == 0
    shown = term.log.getvalue().replace("\r", "")
    rows = shown.split("\n")
    assert max(display_width(row) for row in rows) <= columns, shown
    pids = {asker.pid for asker in queue.askers}
    for pid in pids:  # both askers named, apart
        assert f"(pid {pid})" in shown, shown
    assert "…/api" in shown or "services/api" in shown, shown
