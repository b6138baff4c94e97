"""``askcli mcp --http`` and whose a question is (issue 28), with the official MCP SDK's
clients: an MCP session that is closed withdraws its questions that still wait; clients of
the stateless revision (2026-07-28, no ``Mcp-Session-Id``) never get each other's answers
nor redeem each other's tickets."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession, types
from mcp.client.streamable_http import streamable_http_client

from askcli.inbox.store import QueuedQuestion, QueueState

from tests.support.calls import COLOR
from tests.support.mcp import ASKED, BLUE, HttpServer, answer_next, run, text_of

TOKEN = "s3cret-token-for-the-test"
OTHER = {"questions": [{**COLOR, "question": "Which other color?", "header": "Other"}]}
STILL = "The user has not answered yet"
NOT_HERE = "No question this conversation asked"


@contextmanager
def serving(tmp_path: Path, wait: str) -> Iterator[HttpServer]:
    started = HttpServer(tmp_path, TOKEN, wait)
    try:
        yield started
    finally:
        started.kill()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[HttpServer]:
    """A server whose calls return their ticket after 0.3 s."""
    with serving(tmp_path, "0.3") as started:
        yield started


@pytest.fixture
def patient(tmp_path: Path) -> Iterator[HttpServer]:
    """A server whose calls wait 30 s before their ticket is sent."""
    with serving(tmp_path, "30") as started:
        yield started


@asynccontextmanager
async def session_client(
    server: HttpServer, seen: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """A client of the 2025-11-25 revision: one MCP session (``seen`` gets its id)."""

    async def look(response: Any) -> None:
        if seen is not None and "mcp-session-id" in response.headers:
            seen["id"] = response.headers["mcp-session-id"]

    headers = {"authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, event_hooks={"response": [look]}) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(
            read, write, client_info=types.Implementation(name="far-agent", version="1")
        ) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def stateless_client(
    server: HttpServer, headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A client of the 2026-07-28 revision: no session; every request on its own."""
    sent = {"authorization": f"Bearer {TOKEN}", **(headers or {})}
    async with (
        httpx2.AsyncClient(headers=sent) as http,
        Client(
            streamable_http_client(server.url, http_client=http),
            mode="2026-07-28",
            client_info=types.Implementation(name="far-agent", version="1"),
        ) as client,
    ):
        yield client


def ticket_in(text: str) -> str:
    assert text.startswith(STILL), text
    return text.split("(ticket ", 1)[1].split(")", 1)[0]


def poll(what: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("not in time")
        time.sleep(0.05)


async def given_up(call: Any, server: HttpServer) -> QueuedQuestion:
    """Make ``call``, and give up on it (the client cancels) once its question waits."""
    from tests.support.mcp import next_question

    async with anyio.create_task_group() as group:

        async def calling() -> None:
            await call

        group.start_soon(calling)
        question = await anyio.to_thread.run_sync(next_question, server.inbox)
        group.cancel_scope.cancel()
    return question


# -- a closed MCP session withdraws its questions ----------------------------------------


@pytest.mark.process
def test_a_closed_session_withdraws_its_waiting_questions(server: HttpServer) -> None:
    async def main() -> None:
        async with session_client(server) as other:
            async with session_client(server) as closing:
                first = await closing.call_tool("ask_user_questions", OTHER)
                await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")
                answered = await closing.call_tool(
                    "get_answer", {"ticket": ticket_in(text_of(first))}
                )
                assert "Blue" in text_of(answered)
                waiting = await closing.call_tool("ask_user_questions", ASKED)
                ticket = ticket_in(text_of(waiting))
                kept = await other.call_tool("ask_user_questions", ASKED)
                assert text_of(kept).startswith(STILL)
            # the client closed its session (DELETE): its waiting question is withdrawn
            (mine,) = [q for q in server.questions() if q.ticket == ticket]
            await anyio.to_thread.run_sync(
                poll, lambda: server.state(mine.id) is QueueState.WITHDRAWN
            )
            states = {q.ticket: q.state for q in server.questions()}
            assert states[ticket] is QueueState.WITHDRAWN
            assert states[ticket_in(text_of(first))] is QueueState.ANSWERED  # stays answered
            assert states[ticket_in(text_of(kept))] is QueueState.WAITING  # another session's

    run(main)
    err = server.stop()
    assert "was withdrawn: its MCP session ended" in err


@pytest.mark.process
def test_a_call_given_up_then_its_session_closed_withdraws_it(server: HttpServer) -> None:
    """A client that stops waiting leaves its question waiting (the identical call in its
    session finds it again); the session closed, it is withdrawn."""

    async def main() -> None:
        async with session_client(server) as closing:
            question = await given_up(closing.call_tool("ask_user_questions", ASKED), server)
            await anyio.sleep(0.5)
            assert server.state(question.id) is QueueState.WAITING
        await anyio.to_thread.run_sync(
            poll, lambda: server.state(question.id) is QueueState.WITHDRAWN
        )

    run(main)
    server.stop()


# -- stateless clients (2026-07-28) ------------------------------------------------------


@pytest.mark.process
def test_stateless_clients_never_get_each_other_s_answers(server: HttpServer) -> None:
    """Two stateless agents of one name and one token: the identical call is two
    questions, each told apart in the inbox; an answer goes only to the one asked."""

    async def main() -> None:
        async with stateless_client(server) as one, stateless_client(server) as two:
            first = await one.call_tool("ask_user_questions", ASKED)
            ticket = ticket_in(text_of(first))
            assert "Asking the identical question again" not in text_of(first)
            await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")
            second = await two.call_tool("ask_user_questions", ASKED)  # not one's answer
            other = ticket_in(text_of(second))
            assert other != ticket
            labels = sorted(q.agent.label for q in server.questions())
            pid = server.proc.pid
            assert labels == [
                f'http client "far-agent" (pid {pid}, call 1)',
                f'http client "far-agent" (pid {pid}, call 2)',
            ]
            waits = await two.call_tool("get_answer", {"ticket": other})
            assert "Asking the identical question again" not in text_of(waits)
            mine = await one.call_tool("get_answer", {"ticket": ticket})
            assert text_of(mine) == BLUE
            again = await one.call_tool("ask_user_questions", ASKED)  # a new question
            assert text_of(again).startswith(STILL)

    run(main)
    server.stop()


@pytest.mark.process
def test_a_named_conversation_s_ticket_is_good_in_it_alone(server: HttpServer) -> None:
    """A stateless client that names its conversation (``_meta``, a secret it chose) has
    it: the identical call finds its question again, its ticket works there, and nowhere
    else: not in another named conversation, nor unnamed, nor in an MCP session."""
    ours = {"askcli/conversation": "0f9c2a5e-ours-7d41b8e6"}
    theirs = {"askcli/conversation": "5b7e1d3c-theirs-9a2f4c80"}

    async def main() -> None:
        async with (
            stateless_client(server) as named,
            stateless_client(server) as unnamed,
            session_client(server) as session,
        ):
            asked = await named.call_tool("ask_user_questions", ASKED, meta=ours)
            ticket = ticket_in(text_of(asked))
            (question,) = server.questions()
            await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")
            for meta in (theirs, None):
                stolen = await named.call_tool("get_answer", {"ticket": ticket}, meta=meta)
                assert stolen.is_error and NOT_HERE in text_of(stolen), meta
            stolen = await unnamed.call_tool("get_answer", {"ticket": ticket})
            assert stolen.is_error and NOT_HERE in text_of(stolen)
            stolen = await session.call_tool("get_answer", {"ticket": ticket})
            assert stolen.is_error and NOT_HERE in text_of(stolen)
            # their identical call is a question of theirs, not our answer
            them = await named.call_tool("ask_user_questions", ASKED, meta=theirs)
            assert text_of(them).startswith(STILL)
            # ours: the identical call again is our question, answered
            again = await named.call_tool("ask_user_questions", ASKED, meta=ours)
            assert text_of(again) == BLUE
            assert server.state(question.id) is QueueState.ANSWERED

    run(main)
    server.stop()


@pytest.mark.process
def test_no_stateless_client_redeems_a_session_s_ticket(server: HttpServer) -> None:
    """An MCP session's ticket is good in that session alone: a stateless request that
    sends the session's id as a header of its own is no part of it; an unnamed stateless
    call's ticket is no session's either."""
    seen: dict[str, str] = {}

    async def main() -> None:
        async with session_client(server, seen) as session:
            asked = await session.call_tool("ask_user_questions", ASKED)
            ticket = ticket_in(text_of(asked))
            await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")
            forged = {"mcp-session-id": seen["id"]}
            async with stateless_client(server, forged) as intruder:
                stolen = await intruder.call_tool("get_answer", {"ticket": ticket})
                assert stolen.is_error and NOT_HERE in text_of(stolen)
                same = await intruder.call_tool("ask_user_questions", ASKED)
                assert text_of(same).startswith(STILL)  # not the session's answer
                theirs = ticket_in(text_of(same))
            stolen = await session.call_tool("get_answer", {"ticket": theirs})
            assert stolen.is_error and NOT_HERE in text_of(stolen)
            mine = await session.call_tool("get_answer", {"ticket": ticket})
            assert text_of(mine) == BLUE

    run(main)
    server.stop()


@pytest.mark.process
def test_an_unnamed_call_that_ends_before_its_ticket_is_withdrawn(patient: HttpServer) -> None:
    """Nobody could ever collect its answer: the person is not left answering nobody."""

    async def main() -> None:
        async with stateless_client(patient) as client:
            question = await given_up(client.call_tool("ask_user_questions", OTHER), patient)
        await anyio.to_thread.run_sync(
            poll, lambda: patient.state(question.id) is QueueState.WITHDRAWN
        )

    run(main)
    assert "was withdrawn: its call ended unanswered" in patient.stop()


def test_a_conversation_name_must_be_a_secret_s_length() -> None:
    from askcli.hosts.mcp import server as host

    def named(value: Any) -> str | None:
        return host._conversation_named({"_meta": {host.CONVERSATION: value}})

    assert named("x" * 16) == "x" * 16
    assert named("x" * 15) is None and named("x" * 201) is None
    assert named("a b c d e f g h i j") is None and named(42) is None
    assert host._conversation_named({}) is None and host._conversation_named(None) is None
