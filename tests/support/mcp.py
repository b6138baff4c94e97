"""askcli mcp against the official MCP SDK's client: the inbox answering the next question, a
connected session, the HTTP server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from askcli.inbox.store import QueuedQuestion, QueueState, open_store

from tests.support.calls import COLOR
from tests.support.inbox import answer_queued
from tests.support.processes import askcli_path
from tests.support.real_agents import free_port

ASKED = {"questions": [COLOR]}


BLUE = (
    'User has answered your questions: "Which color?"="Blue". '
    "You can now continue with the user's answers in mind."
)


def next_question(path: Path, timeout: float = 10) -> QueuedQuestion:
    """The first question waiting in the inbox at ``path`` (waited for)."""
    store = open_store(path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waiting = store.questions(states=(QueueState.WAITING,))
        if waiting:
            return waiting[0]
        time.sleep(0.02)
    raise AssertionError(f"no question arrived in {path} within {timeout} s")


def answer_next(path: Path, lines: str, timeout: float = 10) -> QueuedQuestion:
    """Claim the next waiting question and answer it with ``lines``; the question."""
    question = next_question(path, timeout)
    assert answer_queued(open_store(path), lines, question.id)
    return question


def server_env(inbox: Path | str) -> dict[str, str]:
    return {**os.environ, "ASKCLI_INBOX": str(inbox), "NO_COLOR": "1"}


@asynccontextmanager
async def connected(
    tmp_path: Path,
    *args: str,
    name: str = "test-client",
    cwd: Path | None = None,
    inbox: str | None = None,
) -> AsyncIterator[ClientSession]:
    """The SDK's client, connected over stdio to ``askcli mcp ARGS`` as its subprocess."""
    params = StdioServerParameters(
        command=str(askcli_path()),
        args=["mcp", *args],
        env=server_env(inbox or tmp_path / "inbox.db"),
        cwd=cwd or tmp_path,
    )
    with (tmp_path / "server.err").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            info = types.Implementation(name=name, version="1.0")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                yield session


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def run(main: Any) -> None:
    async def bounded() -> None:
        with anyio.fail_after(LIMIT):
            await main()

    anyio.run(bounded)


def server_log(tmp_path: Path) -> str:
    log = (tmp_path / "server.err").read_text()
    assert "Traceback" not in log, log
    return log


def listening(port: int) -> bool:
    """Whether something listens on ``port`` within 10 seconds."""
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


def serve_http(tmp_path: Path, port: int, *args: str, **env: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [str(askcli_path()), "mcp", "--http", f"127.0.0.1:{port}", *args],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**server_env(tmp_path / "inbox.db"), **env},
        cwd=tmp_path,
    )
    if listening(port):
        return proc
    proc.kill()
    raise AssertionError(f"askcli mcp --http did not listen: {proc.communicate()[1]}")


class HttpServer:
    """``askcli mcp --http`` on a free loopback port with a bearer token, its inbox in
    ``tmp_path``; :meth:`restart` starts another on the same inbox and token."""

    def __init__(self, tmp_path: Path, token: str, wait: str = "0.3") -> None:
        self.tmp_path = tmp_path
        self.token = token
        self.wait = wait
        self.inbox = tmp_path / "inbox.db"
        self.restart()

    def restart(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = serve_http(
            self.tmp_path, self.port, "--wait", self.wait, ASKCLI_MCP_TOKEN=self.token
        )

    def questions(self) -> list[QueuedQuestion]:
        return open_store(self.inbox).questions(states=tuple(QueueState))

    def state(self, question_id: int) -> QueueState | None:
        return open_store(self.inbox).state(question_id)

    def stop(self) -> str:
        """SIGTERM, and its stderr (never a traceback)."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=10)
        assert "Traceback" not in err, err
        return err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


LIMIT = 30  # seconds any one test may take, at most
