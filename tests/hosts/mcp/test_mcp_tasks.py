"""``askcli mcp``'s tasks extension (``io.modelcontextprotocol/tasks``, MCP 2026-07-28; issue
31) with the official SDK's client (2.3.0, its ``ResultClaim`` for ``resultType: "task"``,
tests/support/mcp_tasks.py): a call returns a task at once, ``tasks/get`` says ``working``
until the person answers and then ``completed`` with the blocking call's result;
``tasks/cancel`` withdraws the question; a task is its conversation's alone and survives
the client reconnecting; clients that do not ask for tasks keep the blocking call."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from askcli.inbox.store import QueueState, open_store

from tests.support.calls import COLOR
from tests.support.mcp import (
    ASKED,
    BLUE,
    HttpServer,
    answer_next,
    next_question,
    run,
    server_env,
    server_log,
    text_of,
)
from tests.support.mcp_tasks import CreatedTask, Tasks, TaskState, task_request
from tests.support.processes import askcli_path

TOKEN = "s3cret-token-for-the-tasks-test"
OURS = {"askcli/conversation": "0f9c2a5e-ours-7d41b8e6"}
THEIRS = {"askcli/conversation": "5b7e1d3c-theirs-9a2f4c80"}
STILL = "The user has not answered yet"
OTHER = {"questions": [{**COLOR, "question": "Which other color?", "header": "Other"}]}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[HttpServer]:
    started = HttpServer(tmp_path, TOKEN)
    try:
        yield started
    finally:
        started.kill()


@asynccontextmanager
async def modern(server: HttpServer, *extensions: Any) -> AsyncIterator[Client]:
    """A client of MCP 2026-07-28 (stateless) with ``extensions``."""
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(
            streamable_http_client(server.url, http_client=http),
            mode="2026-07-28",
            extensions=list(extensions),
            client_info=types.Implementation(name="tasks-agent", version="1"),
        ) as client,
    ):
        yield client


async def created(
    client: Client, meta: dict[str, str] | None = None, asked: dict[str, Any] = ASKED
) -> CreatedTask:
    """A task made by a call that the client resolves itself (``allow_claimed``)."""
    made = await client.session.call_tool(
        "ask_user_questions", asked, meta=meta, allow_claimed=True
    )
    assert isinstance(made, CreatedTask), made
    return made


async def get(client: Client, task_id: str, meta: dict[str, str] | None = None) -> TaskState:
    found = await task_request(client.session, "tasks/get", task_id, meta)
    assert isinstance(found, TaskState)
    return found


@pytest.mark.process
def test_a_task_works_until_the_person_answers_then_completes(server: HttpServer) -> None:
    tasks = Tasks(poll=0.1)

    async def main() -> None:
        async with modern(server, tasks) as client, anyio.create_task_group() as group:

            async def answer() -> None:
                await anyio.to_thread.run_sync(next_question, server.inbox)
                await anyio.sleep(1.0)  # longer than the server's --wait
                await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")

            group.start_soon(answer)
            result = await client.call_tool("ask_user_questions", ASKED)
        assert text_of(result) == BLUE and not result.is_error

    run(main)
    (task,) = tasks.created
    assert task.status == "working" and task.task_id.startswith("q_")
    dumped = task.model_dump(by_alias=True)
    assert dumped["ttlMs"] == 86_400_000 and dumped["pollIntervalMs"] == 2000
    assert tasks.statuses[0] == "working" and tasks.statuses[-1] == "completed"
    assert "waits in the inbox" in server.stop()


@pytest.mark.process
def test_tasks_cancel_withdraws_the_question(server: HttpServer) -> None:
    async def main() -> None:
        async with modern(server, Tasks()) as client:
            task = await created(client)
            question = await anyio.to_thread.run_sync(next_question, server.inbox)
            assert question.ticket == task.task_id
            await task_request(client.session, "tasks/cancel", task.task_id)
            assert server.state(question.id) is QueueState.WITHDRAWN
            assert (await get(client, task.task_id)).status == "cancelled"

    run(main)
    assert "its task was cancelled" in server.stop()


@pytest.mark.process
def test_a_task_is_its_conversation_s_alone_and_outlives_a_reconnect(server: HttpServer) -> None:
    """Another conversation (named otherwise, or unnamed) is told the task is unknown; the
    same conversation from a new connection (the client restarted) polls it on."""

    async def main() -> None:
        async with modern(server, Tasks()) as first:
            task = await created(first, OURS)
            assert (await get(first, task.task_id, OURS)).status == "working"
        async with modern(server, Tasks()) as other:
            for meta in (THEIRS, None):
                with pytest.raises(MCPError) as refused:
                    await get(other, task.task_id, meta)
                assert refused.value.code == -32602
                with pytest.raises(MCPError):
                    await task_request(other.session, "tasks/cancel", task.task_id, meta)
        await anyio.to_thread.run_sync(answer_next, server.inbox, "2\n")
        async with modern(server, Tasks()) as again:
            done = await get(again, task.task_id, OURS)
            assert done.status == "completed"
            assert done.result == {"content": [{"type": "text", "text": BLUE}], "isError": False}

    run(main)
    server.stop()


@pytest.mark.process
def test_a_task_outlives_a_restart_of_askcli_mcp(server: HttpServer) -> None:
    """The server stopped, its tasks stay in the inbox (an inbox's tidying spares them):
    the person may answer one meanwhile; the next server of that inbox and token gives
    the answer, and takes over the one still waiting."""
    made: list[CreatedTask] = []

    async def ask() -> None:
        async with modern(server, Tasks()) as client:
            made.append(await created(client, OURS))
            made.append(await created(client, OURS, OTHER))

    run(ask)
    first, second = (open_store(server.inbox).by_task(t.task_id, "x") for t in made)
    assert first is None and second is None  # not a task conversation: nothing
    err = server.stop()
    assert "withdrawn" not in err
    store = open_store(server.inbox)
    assert store.tidy() == []  # their asker is gone, yet they wait on
    waiting = store.questions(states=(QueueState.WAITING,))
    assert [q.ticket for q in waiting] == [t.task_id for t in made]
    answer_next(server.inbox, "2\n")  # the first, while no server runs
    server.restart()

    async def poll() -> None:
        async with modern(server, Tasks()) as client:
            done = await get(client, made[0].task_id, OURS)
            assert done.status == "completed" and done.result is not None
            assert done.result["content"] == [{"type": "text", "text": BLUE}]
            assert (await get(client, made[1].task_id, OURS)).status == "working"
            with pytest.raises(MCPError):  # another conversation still has none
                await get(client, made[1].task_id, THEIRS)

    run(poll)
    (taken,) = open_store(server.inbox).questions(states=(QueueState.WAITING,))
    assert taken.asker_pid == server.proc.pid  # the new server's now
    server.stop()
    # that server ended: the question it took over still waits for the next one
    assert open_store(server.inbox).state(taken.id) is QueueState.WAITING


@pytest.mark.process
def test_tasks_need_the_extension_listed_and_a_known_id(server: HttpServer) -> None:
    async def main() -> None:
        async with modern(server, Tasks()) as client:
            task = await created(client)
            with pytest.raises(MCPError) as unknown:
                await get(client, "q_not-a-task-of-anyone")
            assert unknown.value.code == -32602
        async with modern(server) as plain:  # lists no tasks extension
            with pytest.raises(MCPError) as missing:
                await get(plain, task.task_id)
            assert missing.value.code == -32021
            assert missing.value.data == {
                "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
            }
            # its call blocks as before: the still-waiting result with a ticket
            waited = await plain.call_tool("ask_user_questions", {"questions": ASKED["questions"]})
            assert text_of(waited).startswith(STILL)

    run(main)
    server.stop()


@pytest.mark.process
def test_a_legacy_session_has_no_tasks_and_keeps_progress(server: HttpServer) -> None:
    """A 2025-11-25 client (an MCP session): tasks/get is no method of its revision."""

    async def main() -> None:
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(server.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            with pytest.raises(MCPError) as refused:
                await task_request(session, "tasks/get", "q_whatever")
            assert refused.value.code == -32601
            result = await session.call_tool("ask_user_questions", ASKED)
            assert text_of(result).startswith(STILL)

    run(main)
    server.stop()


@pytest.mark.process
def test_a_task_over_stdio(tmp_path: Path) -> None:
    """A 2026-07-28 client of ``askcli mcp`` on stdio: the same task, its one conversation."""
    tasks = Tasks(poll=0.1)
    inbox = tmp_path / "inbox.db"
    params = StdioServerParameters(
        command=str(askcli_path()),
        args=["mcp", "--wait", "0.3"],
        env=server_env(inbox),
        cwd=tmp_path,
    )

    async def main() -> None:
        with (tmp_path / "server.err").open("a") as errlog:
            async with (
                Client(
                    stdio_client(params, errlog=errlog), mode="2026-07-28", extensions=[tasks]
                ) as client,
                anyio.create_task_group() as group,
            ):

                async def answer() -> None:
                    await anyio.to_thread.run_sync(next_question, inbox)
                    await anyio.sleep(1.0)  # longer than the server's --wait
                    await anyio.to_thread.run_sync(answer_next, inbox, "2\n")

                group.start_soon(answer)
                result = await client.call_tool("ask_user_questions", ASKED)
        assert text_of(result) == BLUE

    run(main)
    assert len(tasks.created) == 1 and tasks.statuses[-1] == "completed"
    assert "is a task: the client polls tasks/get" in server_log(tmp_path)


@pytest.mark.process
def test_a_tasks_request_s_mcp_name_header_must_be_its_task_id(server: HttpServer) -> None:
    """The extension's routing header: ``Mcp-Name`` is the ``taskId`` (else -32020)."""

    async def main() -> None:
        async with modern(server, Tasks()) as client:
            task = await created(client)
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
        }
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tasks/get",
            "params": {"taskId": task.task_id, "_meta": meta},
        }
        headers = {
            "authorization": f"Bearer {TOKEN}",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tasks/get",
        }
        async with httpx2.AsyncClient(headers=headers) as http:
            for name, code in ((None, -32020), ("q_another", -32020), (task.task_id, 0)):
                sent = {} if name is None else {"mcp-name": name}
                answer = (await http.post(server.url, json=body, headers=sent)).json()
                assert answer.get("error", {}).get("code", 0) == code, answer
                assert code or answer["result"]["status"] == "working"

    run(main)
    server.stop()
