"""``askcli mcp`` against the official MCP SDK's own client (stdio and Streamable HTTP),
with the inbox answering through the queue (:func:`tests.support.inbox.answer_queued`): the
tools, the answer's text, the still-waiting ticket and ``get_answer``, a client's timeout
and the identical call again, progress, invalid calls, signals, the bearer token."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, types
from mcp.shared.exceptions import MCPError

from askcli.hosts.mcp import asker as queue_side
from askcli.hosts.mcp import server as host
from askcli.inbox.store import QueuedQuestion, QueueState, open_store
from askcli.tools.todos import RESULT_TEXT as TODO_RESULT
from askcli.wire.definitions import input_schema
from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import COLOR
from tests.support.inbox import answer_queued
from tests.support.mcp import (
    ASKED,
    BLUE,
    answer_next,
    connected,
    listening,
    next_question,
    run,
    serve_http,
    server_env,
    server_log,
    text_of,
)
from tests.support.processes import askcli_path
from tests.support.real_agents import free_port

# -- the person: answers the next question in the queue, as askcli inbox does --------------


# -- the client ---------------------------------------------------------------------------


# -- tests --------------------------------------------------------------------------------


@pytest.mark.process
def test_the_tools_and_their_schemas(tmp_path: Path) -> None:
    async def main() -> None:
        async with connected(tmp_path) as session:
            listed = {t.name: t for t in (await session.list_tools()).tools}
        assert sorted(listed) == [
            "ask_user_questions",
            "get_answer",
            "permission_prompt",
            "todo_write",
        ]
        want = input_schema()
        want.pop("$schema")
        assert listed["ask_user_questions"].input_schema == want  # AskUserQuestion's
        todo = listed["todo_write"].input_schema
        item = {"content": "Write tests", "activeForm": "Writing tests", "status": "pending"}
        jsonschema.validate({"todos": [item]}, todo)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"todos": [{**item, "status": "later"}]}, todo)
        assert listed["get_answer"].input_schema["required"] == ["ticket"]
        # Claude Code's --permission-prompt-tool input: {tool_name, input, tool_use_id}
        assert listed["permission_prompt"].input_schema["required"] == ["tool_name", "input"]
        for tool in listed.values():  # a plain text result: no structured output
            assert tool.output_schema is None

    run(main)


@pytest.mark.process
def test_a_question_is_answered_in_the_inbox(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    asked: list[QueuedQuestion] = []

    async def main() -> None:
        async with (
            connected(tmp_path, name="my-editor", cwd=project) as session,
            anyio.create_task_group() as group,
        ):

            async def person() -> None:
                asked.append(await anyio.to_thread.run_sync(answer_next, inbox, "2\n"))

            group.start_soon(person)
            result = await session.call_tool("ask_user_questions", ASKED)
        assert text_of(result) == BLUE and not result.is_error

    inbox = tmp_path / "inbox.db"
    run(main)
    # the agent is labelled with the client's clientInfo.name and the server's folder
    assert asked[0].agent.client == "my-editor"
    assert asked[0].agent.cwd == str(project)
    assert asked[0].call["name"] == "AskUserQuestion" and asked[0].call["input"] == ASKED
    assert open_store(inbox).get(asked[0].id).state is QueueState.ANSWERED  # type: ignore[union-attr]
    assert "question 1" in server_log(tmp_path)


@pytest.mark.process
def test_a_late_answer_comes_with_get_answer(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"
    progress: list[tuple[float, str | None]] = []

    async def main() -> None:
        async with connected(tmp_path, "--wait", "1", "--progress-every", "0.2") as session:

            async def seen(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, message))

            start = time.monotonic()
            first = await session.call_tool(
                "ask_user_questions", ASKED, read_timeout_seconds=10, progress_callback=seen
            )
            assert 0.9 < time.monotonic() - start < 5
            said = text_of(first)
            assert not first.is_error
            ticket = open_store(inbox).questions()[0].ticket
            assert f"ticket {ticket}" in said and "get_answer" in said
            assert json.dumps({"ticket": ticket}) in said
            await anyio.to_thread.run_sync(answer_next, inbox, "2\n")
            start = time.monotonic()
            late = await session.call_tool("get_answer", {"ticket": ticket})
            assert text_of(late) == BLUE and not late.is_error
            assert time.monotonic() - start < 1  # answered already: at once
            # the ticket keeps its answer: asked again, it gives it again
            again = await session.call_tool("get_answer", {"ticket": ticket})
            assert text_of(again) == BLUE

    run(main)
    assert len(progress) >= 3, progress  # every 0.2 s for a second
    assert all(done > 0 for done, _ in progress)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    assert "waits in the askcli inbox" in (progress[0][1] or "")


@pytest.mark.process
def test_get_answer_waits_for_the_person(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"

    async def main() -> None:
        async with connected(tmp_path, "--wait", "0.5") as session:
            first = await session.call_tool("ask_user_questions", ASKED)
            ticket = open_store(inbox).questions()[0].ticket
            assert ticket in text_of(first)
            async with anyio.create_task_group() as group:

                async def person() -> None:
                    await anyio.sleep(0.2)  # while get_answer waits
                    await anyio.to_thread.run_sync(answer_next, inbox, "1\n")

                group.start_soon(person)
                late = await session.call_tool("get_answer", {"ticket": ticket})
            assert '"Which color?"="Red"' in text_of(late)

    run(main)


@pytest.mark.process
def test_after_a_client_timeout_the_identical_call_gets_the_answer_at_once(
    tmp_path: Path,
) -> None:
    inbox = tmp_path / "inbox.db"

    async def main() -> None:
        async with connected(tmp_path, "--wait", "60") as session:
            with pytest.raises(MCPError, match="timed out"):  # the client gives up
                await session.call_tool("ask_user_questions", ASKED, read_timeout_seconds=0.5)
            # the question still waits, and is answered meanwhile
            await anyio.to_thread.run_sync(answer_next, inbox, "2\n")
            start = time.monotonic()
            again = await session.call_tool("ask_user_questions", ASKED, read_timeout_seconds=5)
            assert time.monotonic() - start < 1
            assert text_of(again) == BLUE

    run(main)
    store = open_store(inbox)
    everything = store.questions(states=tuple(QueueState))
    assert len(everything) == 1  # one question, asked twice, answered once
    assert "stopped waiting" in server_log(tmp_path)


@pytest.mark.process
def test_a_restarted_client_is_never_given_an_answer_it_did_not_collect(tmp_path: Path) -> None:
    """The answer of a conversation that ended is not handed to the next one, nor is its
    ticket good there: the identical call is a question of its own."""
    inbox = tmp_path / "inbox.db"
    tickets: list[str] = []

    async def first() -> None:
        async with connected(tmp_path, "--wait", "0.3") as session:
            await session.call_tool("ask_user_questions", ASKED)
            tickets.append(open_store(inbox).questions()[0].ticket)
            await anyio.to_thread.run_sync(answer_next, inbox, "2\n")
        # the client ended before it called get_answer

    async def second() -> None:
        async with connected(tmp_path, "--wait", "0.3") as session:
            result = await session.call_tool("ask_user_questions", ASKED)
            assert "has not answered yet" in text_of(result) and tickets[0] not in text_of(result)
            other = await session.call_tool("get_answer", {"ticket": tickets[0]})
            assert other.is_error
            assert text_of(other) == (
                "No question this conversation asked in the user's askcli inbox has the "
                f"ticket {tickets[0]}."
            )

    run(first)
    run(second)
    old, new = open_store(inbox).questions(states=tuple(QueueState))
    assert (
        old.state is QueueState.ANSWERED and new.state is QueueState.WITHDRAWN
    )  # its server ended


@pytest.mark.process
def test_an_answer_is_reused_only_within_reuse_for(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"

    async def main() -> None:
        async with connected(tmp_path, "--wait", "0.3", "--reuse-for", "0.5") as session:
            await session.call_tool("ask_user_questions", ASKED)
            await anyio.to_thread.run_sync(answer_next, inbox, "2\n")
            await anyio.sleep(1)  # the answer is older than --reuse-for
            again = await session.call_tool("ask_user_questions", ASKED)
            assert "has not answered yet" in text_of(again)

    run(main)
    first, later = open_store(inbox).questions(states=tuple(QueueState))
    assert first.state is QueueState.ANSWERED and later.id != first.id


@pytest.mark.process
def test_two_calls_at_once_are_answered_out_of_order(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"
    other = {"questions": [{**COLOR, "question": "Which shade?", "header": "Shade"}]}
    got: dict[str, str] = {}

    async def main() -> None:
        async with connected(tmp_path) as session, anyio.create_task_group() as group:

            async def asking(arguments: dict[str, Any], key: str) -> None:
                got[key] = text_of(await session.call_tool("ask_user_questions", arguments))

            group.start_soon(asking, ASKED, "color")
            await anyio.to_thread.run_sync(next_question, inbox)
            group.start_soon(asking, other, "shade")

            def person() -> None:  # the later question first
                deadline = time.monotonic() + 10
                while len(open_store(inbox).questions()) < 2 and time.monotonic() < deadline:
                    time.sleep(0.02)
                store = open_store(inbox)
                later = store.questions()[1]
                for question, lines in ((later, "1\n"), (store.questions()[0], "2\n")):
                    assert answer_queued(store, lines, question.id)

            await anyio.to_thread.run_sync(person)

    run(main)
    assert got == {
        "color": BLUE,
        "shade": BLUE.replace("Which color?", "Which shade?").replace("Blue", "Red"),
    }


@pytest.mark.process
def test_a_declined_question_is_an_error_result(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"

    async def main() -> None:
        async with connected(tmp_path) as session, anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, answer_next, inbox, "q\n")
            result = await session.call_tool("ask_user_questions", ASKED)
        assert result.is_error and text_of(result) == REJECT_MESSAGE

    run(main)


@pytest.mark.process
def test_todo_write_is_shown_in_the_inbox(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"
    todos = {
        "todos": [
            {"content": "Read the code", "activeForm": "Reading the code", "status": "completed"},
            {"content": "Fix the bug", "activeForm": "Fixing the bug", "status": "in_progress"},
        ]
    }
    asked: list[QueuedQuestion] = []

    async def main() -> None:
        async with connected(tmp_path) as session, anyio.create_task_group() as group:

            async def person() -> None:
                asked.append(await anyio.to_thread.run_sync(answer_next, inbox, ""))

            group.start_soon(person)
            result = await session.call_tool("todo_write", todos)
        assert text_of(result) == TODO_RESULT and not result.is_error

    run(main)
    assert asked[0].call["name"] == "TodoWrite" and asked[0].call["input"] == todos


@pytest.mark.process
def test_bad_calls_are_answered_at_once_and_never_queued(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"

    async def main() -> None:
        async with connected(tmp_path) as session:
            one_option = {"questions": [{**COLOR, "options": COLOR["options"][:1]}]}
            bad = await session.call_tool("ask_user_questions", one_option)
            assert bad.is_error
            assert text_of(bad).startswith("<tool_use_error>InputValidationError: ")
            assert "Array must contain at least 2 element(s)" in text_of(bad)
            extra = await session.call_tool("ask_user_questions", {**ASKED, "x": 1})
            assert extra.is_error and "Unrecognized key(s) in object: 'x'" in text_of(extra)
            todo = await session.call_tool("todo_write", {"todos": [{"content": ""}]})
            assert todo.is_error and "InputValidationError" in text_of(todo)
            deep: Any = "x"
            for _ in range(80):
                deep = [deep]
            nested = await session.call_tool("ask_user_questions", {"questions": deep})
            assert nested.is_error and "nests deeper than 64 levels" in text_of(nested)
            unknown = await session.call_tool("get_answer", {"ticket": "q_nothing"})
            assert unknown.is_error and "q_nothing" in text_of(unknown)
            for wrong in ({}, {"ticket": 3}, {"ticket": "q" * 500}):
                no = await session.call_tool("get_answer", wrong)
                assert no.is_error and "InputValidationError" in text_of(no)
            with pytest.raises(MCPError) as unknown_tool:  # a JSON-RPC error, not a result
                await session.call_tool("run_shell", {})
            assert unknown_tool.value.code == -32602
            assert unknown_tool.value.message == "Unknown tool: run_shell"

    run(main)
    assert open_store(inbox).questions(states=tuple(QueueState)) == []
    log = server_log(tmp_path)
    assert re.search(r"invalid AskUserQuestion call toolu_\w+: questions\[0\]\.options", log)


@pytest.mark.process
def test_hostile_text_in_the_server_log_is_escaped(tmp_path: Path) -> None:
    async def main() -> None:
        async with connected(tmp_path) as session:
            bad = {"questions": [{**COLOR, "header": 5, "question": "\x1b]0;pwned\x07?"}]}
            await session.call_tool("ask_user_questions", bad)

    run(main)
    log = server_log(tmp_path)
    assert "\x1b" not in log and "\x07" not in log


# -- the server's life: the client closes, signals ------------------------------------------


def rpc(method: str, params: dict[str, Any], id: int | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id is not None:
        message["id"] = id
    return (json.dumps(message) + "\n").encode()


def start_asking(tmp_path: Path) -> subprocess.Popen[bytes]:
    """``askcli mcp`` with a call waiting in the inbox (JSON-RPC written by hand)."""
    proc = subprocess.Popen(
        [str(askcli_path()), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(tmp_path / "inbox.db"),
        cwd=tmp_path,
    )
    assert proc.stdin is not None
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "by-hand", "version": "1"},
    }
    proc.stdin.write(rpc("initialize", hello, 1))
    proc.stdin.write(rpc("notifications/initialized", {}))
    proc.stdin.write(rpc("tools/call", {"name": "ask_user_questions", "arguments": ASKED}, 2))
    proc.stdin.flush()
    next_question(tmp_path / "inbox.db")
    return proc


def ended(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("askcli mcp did not end") from None
    text = err.decode()
    assert "Traceback" not in text, text
    return proc.returncode, text


@pytest.mark.process
def test_the_client_closing_ends_the_server_and_withdraws_its_question(tmp_path: Path) -> None:
    proc = start_asking(tmp_path)
    assert proc.stdin is not None
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() has nothing to flush
    status, err = ended(proc)
    assert status == 0
    assert "question 1 was withdrawn: this server ends" in err
    question = open_store(tmp_path / "inbox.db").get(1)
    assert question is not None and question.state is QueueState.WITHDRAWN
    assert question.agent.client == "by-hand"


@pytest.mark.process
@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_signal_ends_the_server_and_withdraws_its_question(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    proc = start_asking(tmp_path)
    proc.send_signal(sig)
    got, err = ended(proc)
    assert got == status, err
    assert f"stopped ({sig.name})" in err
    question = open_store(tmp_path / "inbox.db").get(1)
    assert question is not None and question.state is QueueState.WITHDRAWN


@pytest.mark.process
def test_a_client_that_closes_its_end_mid_call_ends_the_server_without_a_traceback(
    tmp_path: Path,
) -> None:
    proc = start_asking(tmp_path)
    assert proc.stdout is not None and proc.stdin is not None
    proc.stdout.readline()  # the initialize result
    proc.stdout.close()  # the client goes: its end of stdout first,
    proc.stdin.write(rpc("ping", {}, 3))  # so that the reply is written into nothing,
    proc.stdin.flush()
    time.sleep(0.5)
    proc.stdin.close()  # then stdin
    proc.stdin = proc.stdout = None
    status, err = ended(proc)
    assert status == 141, err  # as --help says: the client went away
    assert "the client went away (its end of the connection is closed)" in err
    assert "question 1 was withdrawn: this server ends" in err
    assert open_store(tmp_path / "inbox.db").get(1).state is QueueState.WITHDRAWN  # type: ignore[union-attr]


@pytest.mark.process
@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_signal_ends_a_server_whose_client_reads_nothing(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    proc = start_asking(tmp_path)
    assert proc.stdin is not None
    for n in range(200):  # replies (2 kB each) pile up in the pipe nobody reads: a write blocks
        proc.stdin.write(rpc("tools/list", {}, 100 + n))
    proc.stdin.flush()
    time.sleep(1)
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("askcli mcp did not end after the signal") from None
    assert time.monotonic() - sent < 5  # the grace of 1 s, and start-up noise
    assert proc.returncode == status
    assert proc.stderr is not None and proc.stdout is not None and proc.stdin is not None
    err = proc.stderr.read().decode()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        pipe.close()
    assert "Traceback" not in err, err
    assert "the client reads nothing: ended without waiting for it" in err
    assert open_store(tmp_path / "inbox.db").get(1).state is QueueState.WITHDRAWN  # type: ignore[union-attr]


def test_only_a_closed_client_end_counts_as_the_client_gone() -> None:
    import errno as codes

    from askcli.hosts.mcp.shutdown import client_gone

    pipe = BrokenPipeError(codes.EPIPE, "Broken pipe")
    reset = ConnectionResetError(codes.ECONNRESET, "reset")
    assert client_gone(pipe) and client_gone(reset)

    class Group(Exception):  # as anyio's task groups raise them (on 3.10 too)
        def __init__(self, *leaves: BaseException) -> None:
            self.exceptions = leaves

    assert client_gone(Group(pipe, Group(reset)))
    assert not client_gone(Group(pipe, ValueError("bug")))
    assert not client_gone(OSError(codes.ENOSPC, "full"))
    assert not client_gone(KeyboardInterrupt())


@pytest.mark.process
def test_an_answered_question_outlives_its_server(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox.db"
    proc = start_asking(tmp_path)
    answer_next(inbox, "2\n")
    assert proc.stdout is not None
    line = json.loads(proc.stdout.readline())  # the initialize result
    assert line["id"] == 1
    result = json.loads(proc.stdout.readline())
    assert result["id"] == 2 and result["result"]["content"][0]["text"] == BLUE
    proc.send_signal(signal.SIGTERM)
    assert ended(proc)[0] == 143
    assert open_store(inbox).get(1).state is QueueState.ANSWERED  # type: ignore[union-attr]


# -- usage ----------------------------------------------------------------------------------


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def mcp_run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(askcli_path()), "mcp", *args],
        capture_output=True,
        text=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
        env={**server_env(tmp_path / "inbox.db"), **env},
        cwd=tmp_path,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.process
def test_without_the_sdk_one_line_says_how_to_get_it(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    for name in ("mcp", "anyio"):  # the SDK and what it brings
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(f"raise ImportError('No module named {name}')\n")
    proc = mcp_run(tmp_path, PYTHONPATH=str(fake))
    assert "pip install 'askcli[mcp]'" in one_line_error(proc)


@pytest.mark.process
def test_the_core_never_imports_the_sdk() -> None:
    code = (
        "import sys, askcli.cli, askcli.runners.session, askcli.inbox.asker_side;"
        "print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--http", "localhost:port"), "give HOST:PORT"),
        (("--http", "127.0.0.1:70000"), "1-65535"),
        (("--token", "abc"), "--token is for --http"),
        (("--wait", "0"), "out of range"),
        (("--wait", "nan"), "out of range"),
        (("--reuse-for", "-1"), "from 0 to 604800"),
        (("--reuse-for", "inf"), "out of range"),
    ],
)
def test_usage_errors(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    assert said in one_line_error(mcp_run(tmp_path, *args))


@pytest.mark.process
def test_a_file_that_is_no_inbox_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    proc = mcp_run(tmp_path, ASKCLI_INBOX=str(tmp_path / "folder"))
    assert "is a directory, not an inbox file" in one_line_error(proc)
    (tmp_path / "junk.db").write_text("not sqlite " * 100)
    proc = mcp_run(tmp_path, ASKCLI_INBOX=str(tmp_path / "junk.db"))
    assert "cannot be used as an inbox" in one_line_error(proc)


@pytest.mark.process
def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = mcp_run(tmp_path, "--http", f"127.0.0.1:{port}")
    assert proc.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr


def test_parse_http() -> None:
    assert host.parse_http("8765") == ("127.0.0.1", 8765)
    assert host.parse_http(":8765") == ("127.0.0.1", 8765)
    assert host.parse_http("0.0.0.0:1") == ("0.0.0.0", 1)
    assert host.parse_http("[::1]:8765") == ("::1", 8765)


def test_client_label() -> None:
    assert queue_side.client_label("claude-code") == "claude-code"
    assert queue_side.client_label("  a\n b ") == "a b"
    assert queue_side.client_label(None) == "mcp" and queue_side.client_label("") == "mcp"
    assert len(queue_side.client_label("x" * 500)) == queue_side.MAX_CLIENT_NAME


def test_an_http_clients_label_says_so_and_quotes_its_name() -> None:
    assert queue_side.client_label("claude ~/api", http=True) == 'http client "claude ~/api"'
    said = queue_side.client_label('a "b"\\ \x1b[2J\n  c', http=True)
    assert said == 'http client "a \\"b\\"\\\\ \\u001b[2J c"'
    assert queue_side.client_label(None, http=True) == queue_side.client_label(" ", http=True)
    assert queue_side.client_label(None, http=True) == "http client"
    longest = queue_side.client_label("x" * 500, http=True)
    assert longest == f'http client "{"x" * (queue_side.MAX_CLIENT_NAME - 1)}…"'
    store = open_store(Path("unused.db"))
    asker = queue_side.QueueSide(store, http=True)
    pid = os.getpid()
    assert asker.agent("claude").label == f'http client "claude" (pid {pid}, conversation 1)'
    assert queue_side.QueueSide(store, cwd="/w").agent("claude").label == f"claude /w (pid {pid})"


# -- Streamable HTTP ------------------------------------------------------------------------


def post(port: int, headers: dict[str, str]) -> int:
    body = rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}, 1)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


FAR = "claude ~/api"  # what a hook's question is labelled with, in ~/api


@pytest.mark.process
def test_http_needs_the_bearer_token_and_answers_through_the_inbox(tmp_path: Path) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    token = "s3cret-token-for-the-test"
    proc = serve_http(tmp_path, port, ASKCLI_MCP_TOKEN=token)
    inbox = tmp_path / "inbox.db"
    try:
        assert post(port, {}) == 401
        assert post(port, {"authorization": "Bearer wrong"}) == 401
        assert post(port, {"authorization": token}) == 401

        async def main() -> None:
            headers = {"authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (
                    read,
                    write,
                ),
                ClientSession(
                    read, write, client_info=types.Implementation(name=FAR, version="1")
                ) as session,
            ):
                await session.initialize()
                async with anyio.create_task_group() as group:
                    group.start_soon(anyio.to_thread.run_sync, answer_next, inbox, "2\n")
                    result = await session.call_tool("ask_user_questions", ASKED)
                assert text_of(result) == BLUE
                with pytest.raises(MCPError) as unknown:  # as over stdio: a JSON-RPC error
                    await session.call_tool("run_shell", {})
                assert (unknown.value.code, unknown.value.message) == (
                    -32602,
                    "Unknown tool: run_shell",
                )

        run(main)
        question = open_store(inbox).questions(states=tuple(QueueState))[0]
        # the name a hook's question has (claude ~/api) is quoted, after "http client"
        assert (
            question.agent.label == f'http client "claude ~/api" (pid {proc.pid}, conversation 1)'
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and token not in err  # a token given is never printed


WEAK_TOKENS = [
    ("Z", "is shorter than 16 characters"),
    ("0123456789abcde", "is shorter than 16 characters"),
    (" \t" * 10, "is blank"),
    ("0123456789 abcdef", "has a space, a control character or a non-ASCII character"),
    ("0123456789abcdef\u00e9", "has a space, a control character or a non-ASCII character"),
]


@pytest.mark.process
@pytest.mark.parametrize(
    ("given", "token", "why"),
    [("--token", token, why) for token, why in [*WEAK_TOKENS, ("", "is blank")]]
    # an empty variable is no variable (click): a new token is made then
    + [("$ASKCLI_MCP_TOKEN", token, why) for token, why in WEAK_TOKENS],
)
def test_a_weak_token_is_a_usage_error(tmp_path: Path, given: str, token: str, why: str) -> None:
    http = ("--http", str(free_port()))
    if given == "--token":
        proc = mcp_run(tmp_path, *http, "--token", token)
    else:
        proc = mcp_run(tmp_path, *http, ASKCLI_MCP_TOKEN=token)
    said = one_line_error(proc)
    assert said.startswith(f"askcli: {given}: the bearer token {why}; "), said
    assert not token.strip() or token not in said  # the token is never printed
    assert not (tmp_path / "inbox.db").exists()


@pytest.mark.process
def test_a_token_of_16_characters_is_taken(tmp_path: Path) -> None:
    port = free_port()
    token = "0123456789abcdef"
    proc = serve_http(tmp_path, port, ASKCLI_MCP_TOKEN=token)
    try:
        assert post(port, {"authorization": f"Bearer {token}x"}) == 401
        assert post(port, {"authorization": f"Bearer {token}"}) == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 143, err
    assert token not in err


@pytest.mark.process
def test_http_makes_a_token_and_prints_it(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ASKCLI_MCP_TOKEN"}
    proc = subprocess.Popen(
        [str(askcli_path()), "mcp", "--http", str(port)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
        cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline(), proc.stderr.readline()]
        assert f"at http://127.0.0.1:{port}/mcp" in lines[0]
        token = lines[1].rsplit("Authorization: Bearer ", 1)[1].strip()
        assert len(token) >= 40
        assert listening(port)
        assert post(port, {}) == 401
        assert post(port, {"authorization": f"Bearer {token}"}) == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    assert proc.returncode == 130


@pytest.mark.process
def test_http_conversations_are_apart(tmp_path: Path) -> None:
    """Two MCP sessions of one server over HTTP: the identical call is two questions, told
    apart in the inbox; a ticket is good only in the session that asked."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    token = "s3cret-token-for-the-test"
    proc = serve_http(tmp_path, port, "--wait", "0.3", ASKCLI_MCP_TOKEN=token)
    inbox = tmp_path / "inbox.db"

    @asynccontextmanager
    async def client() -> AsyncIterator[ClientSession]:
        headers = {"authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (
                read,
                write,
            ),
            ClientSession(
                read, write, client_info=types.Implementation(name="far-agent", version="1")
            ) as session,
        ):
            await session.initialize()
            yield session

    try:

        async def main() -> None:
            async with client() as one, client() as two:
                await one.call_tool("ask_user_questions", ASKED)
                await two.call_tool("ask_user_questions", ASKED)
                first, second = open_store(inbox).questions()
                assert first.id != second.id
                label = f'http client "far-agent" (pid {proc.pid}, conversation'
                assert first.agent.label == f"{label} 1)"
                assert second.agent.label == f"{label} 2)"
                await anyio.to_thread.run_sync(answer_next, inbox, "2\n")
                stolen = await two.call_tool("get_answer", {"ticket": first.ticket})
                assert stolen.is_error and "No question this conversation asked" in text_of(stolen)
                mine = await one.call_tool("get_answer", {"ticket": first.ticket})
                assert text_of(mine) == BLUE

        run(main)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err
