"""The SDK's client asks ``askcli mcp`` while a pexpect-driven ``askcli inbox`` answers: a call
still waiting after ``--wait`` gets a ticket and ``get_answer`` then returns the answer typed;
a call the client itself gave up on (its read timeout) is answered all the same, and the
identical call asked again returns that answer at once."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from askcli.inbox.store import QueueState, open_store

from tests.support.calls import COLOR
from tests.support.mcp import ASKED, BLUE, connected, run, server_log, text_of
from tests.support.terminals import Terminal

PORT = {
    "questions": [
        {
            "question": "Which port?",
            "header": "Port",
            "multiSelect": False,
            "options": [
                {"label": "80", "description": "http"},
                {"label": "8080", "description": "alt"},
            ],
        }
    ]
}


@pytest.mark.pty
def test_an_inbox_in_a_terminal_answers_an_mcp_client_across_its_timeout(
    tmp_path: Path, inbox_where: str
) -> None:
    inbox = inbox_where
    project = tmp_path / "project"
    project.mkdir()
    term: list[Terminal] = []

    def person() -> None:
        """askcli inbox in a pty: both questions, in the order they came."""
        where = tmp_path / "inbox-terminal"
        where.mkdir()
        shown = Terminal(["inbox"], where, 200, ASKCLI_INBOX=inbox, NO_COLOR="1")
        term.append(shown)
        shown.expect(f"[2 waiting] #1 {COLOR['question']}  test-client ")
        shown.expect("project (pid ")  # the server's: two agents of one folder are apart
        shown.expect("q declines [y]: ")
        shown.type("")
        shown.expect("Choose 1-3")
        shown.type("2")
        shown.expect("#2 Which port?  test-client ")
        shown.expect("q declines [y]: ")
        shown.type("")
        shown.expect("Choose 1-3")
        shown.type("3")
        shown.expect("Other")
        shown.type("8443 (TLS)")
        shown.expect("nothing waits")

    async def main() -> None:
        async with connected(tmp_path, "--wait", "1", cwd=project, inbox=inbox) as session:
            first = await session.call_tool("ask_user_questions", ASKED, read_timeout_seconds=10)
            ticket = open_store(inbox).questions()[0].ticket
            assert ticket in text_of(first) and not first.is_error
            with pytest.raises(MCPError, match="timed out"):  # the client gives up first
                await session.call_tool("ask_user_questions", PORT, read_timeout_seconds=0.3)
            await anyio.to_thread.run_sync(person)
            late = await session.call_tool("get_answer", {"ticket": ticket})
            assert text_of(late) == BLUE
            start = time.monotonic()
            again = await session.call_tool("ask_user_questions", PORT, read_timeout_seconds=5)
            assert time.monotonic() - start < 1
            assert text_of(again) == (
                'User has answered your questions: "Which port?"="8443 (TLS)". '
                "You can now continue with the user's answers in mind."
            )

    try:
        run(main)
    finally:
        for shown in term:
            shown.child.sendeof()
            shown.expect_end()
            shown.child.close()
    asked = open_store(inbox).questions(states=tuple(QueueState))
    assert [q.state for q in asked] == [QueueState.ANSWERED, QueueState.ANSWERED]
    server_log(tmp_path)


@pytest.mark.process
def test_askcli_mcp_to_addresses_its_questions(tmp_path: Path) -> None:
    async def main() -> None:
        async with connected(tmp_path, "--wait", "0.5", "--to", "ops") as session:
            first = await session.call_tool("ask_user_questions", PORT, read_timeout_seconds=10)
            (asked,) = open_store(tmp_path / "inbox.db").questions()
            assert asked.ticket in text_of(first) and asked.to == "ops"

    run(main)
