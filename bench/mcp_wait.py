"""How long a question asked through ``askcli mcp`` can wait for the person, client by client
(issue 31; docs/mcp.md's waiting table): the clients below each ask one question side by
side over ``askcli mcp --http``, with a 60 s request timeout where they have one; the
person answers them all after WAIT seconds (``$ASKCLI_BENCH_MCP_WAIT``, 600 by default);
a client whose call then returns the answer let its question wait that long.

- the official Python SDK (2.3.0) of MCP 2026-07-28 with the tasks extension (its
  ``ResultClaim``, tests/support/mcp_tasks.py): the call is a task, polled with tasks/get;
- the MCP Inspector's CLI (2.12.0, its 2026-07-28 era, the ext-tasks 0.2.2 requester);
- the MCP TypeScript SDK (1.32.2) of 2025-11-25 with ``resetTimeoutOnProgress``: one
  call, kept alive by askcli's progress notifications (bench/mcp_progress_client.mjs),
  against a server whose ``--wait`` is longer than WAIT;
- the Python SDK of 2025-11-25 (no reset on progress): askcli's ``--wait`` (50 s) returns
  the still-waiting ticket, and the client calls ``get_answer`` again, as a model does;
- the real Claude Code (2.1.332) and Codex CLI (0.171.0), each with ``askcli mcp`` as its
  stdio server, against a stand-in model that calls ``get_answer`` with the ticket, as a
  real model does (bench/mcp_agents.py): each with a 60 s tool timeout (Claude Code's
  ``MCP_TOOL_TIMEOUT=60000``, Codex's ``tool_timeout_sec = 60``) and the default ``--wait
  50``, and each with its default timeout (Claude Code's, about 27.8 hours, with a
  ``--wait`` longer than WAIT; Codex's 300 s with ``--wait 290``).

Run by ``make bench``; alone: ``python bench/mcp_wait.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_agents

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WAIT = float(os.environ.get("ASKCLI_BENCH_MCP_WAIT", "600"))
TARGET = 600.0  # seconds every client with tasks or progress must let a question wait
TIMEOUT = 60.0  # the request timeout of the clients that have one
TOKEN = "bench-mcp-wait-token-0123456789"
CACHE = ROOT / ".cache"
NODE = CACHE / "mcp-conformance" / "node_modules" / ".bin" / "node"
TS_SDK = CACHE / "mcp-conformance" / "node_modules" / "@modelcontextprotocol" / "sdk"
INSPECTOR = CACHE / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"
CLAUDE, CODEX = mcp_agents.CLAUDE, mcp_agents.CODEX
STILL = "The user has not answered yet"
ANSWERED = "User has answered your questions"


def question(who: str) -> dict[str, Any]:
    """One question of its own for each client (the header names it)."""
    return {
        "questions": [
            {
                "question": f"Which color for {who}?",
                "header": who[:12],
                "multiSelect": False,
                "options": [
                    {"label": "Red", "description": "Warm"},
                    {"label": "Blue", "description": "Cool"},
                ],
            }
        ]
    }


class Where:
    """Where a client asks: the bench's server's URL, or (the agents, whose own askcli mcp
    is their stdio server) the inbox, in a folder of its own."""

    def __init__(self, url: str, inbox: Path, folder: Path) -> None:
        self.url = url
        self.inbox = inbox
        self.folder = folder


class Outcome:
    """What one client got: its answer's text (or its error) and when."""

    def __init__(self) -> None:
        self.text = ""
        self.error = ""
        self.took = 0.0
        self.calls = 0
        self.note = ""  # what it took: its requests, or notifications


def _serve(port: int, inbox: Path, wait: float, log: Path) -> subprocess.Popen[bytes]:
    askcli = str(Path(sys.executable).with_name("askcli"))
    env = {**os.environ, "ASKCLI_INBOX": str(inbox), "ASKCLI_MCP_TOKEN": TOKEN, "NO_COLOR": "1"}
    with log.open("ab") as err:
        return subprocess.Popen(
            [askcli, "mcp", "--http", f"127.0.0.1:{port}", "--wait", str(wait)],
            stdin=subprocess.DEVNULL,
            stderr=err,
            env=env,
            cwd=inbox.parent,
        )


def sdk_tasks(where: Where, outcome: Outcome) -> None:
    """The Python SDK of 2026-07-28 with the tasks extension."""
    import anyio
    import httpx2
    from mcp import Client, types
    from mcp.client.streamable_http import streamable_http_client

    from tests.support.mcp_tasks import Tasks

    tasks = Tasks()

    async def main() -> None:
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
            Client(
                streamable_http_client(where.url, http_client=http),
                mode="2026-07-28",
                extensions=[tasks],
                client_info=types.Implementation(name="sdk-tasks", version="1"),
            ) as client,
        ):
            result = await client.call_tool(
                "ask_user_questions", question("sdk-tasks"), read_timeout_seconds=TIMEOUT
            )
            block = result.content[0]
            outcome.text = block.text if isinstance(block, types.TextContent) else str(block)

    anyio.run(main)
    outcome.note = f"tools/call + {len(tasks.statuses)} tasks/get"


def sdk_tickets(where: Where, outcome: Outcome) -> None:
    """The Python SDK of 2025-11-25: the ticket, then get_answer until the answer."""
    import anyio
    import httpx2
    from mcp import ClientSession, types
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> None:
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
            streamable_http_client(where.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            arguments = question("sdk-tickets")
            name = "ask_user_questions"
            while True:
                outcome.calls += 1
                result = await session.call_tool(name, arguments, read_timeout_seconds=TIMEOUT)
                block = result.content[0]
                text = block.text if isinstance(block, types.TextContent) else str(block)
                if not text.startswith(STILL):
                    outcome.text = text
                    outcome.note = f"tools/call + {outcome.calls - 1} get_answer"
                    return
                name = "get_answer"
                arguments = {"ticket": text.split("(ticket ", 1)[1].split(")", 1)[0]}

    anyio.run(main)


def inspector(where: Where, outcome: Outcome) -> None:
    """The MCP Inspector's CLI, 2026-07-28 era."""
    done = subprocess.run(
        [
            *(str(INSPECTOR), "--cli", "--protocol-era", "modern", "--transport", "http"),
            *("--server-url", where.url, "--header", f"Authorization: Bearer {TOKEN}"),
            *("--method", "tools/call", "--tool-name", "ask_user_questions"),
            *("--tool-args-json", json.dumps(question("inspector"))),
        ],
        capture_output=True,
        text=True,
        timeout=WAIT + 300,
        stdin=subprocess.DEVNULL,
    )
    outcome.note = "one CLI run"
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    outcome.text = json.loads(done.stdout)["content"][0]["text"]


def ts_progress(where: Where, outcome: Outcome) -> None:
    """The TypeScript SDK of 2025-11-25, resetTimeoutOnProgress."""
    done = subprocess.run(
        [
            *(str(NODE), str(ROOT / "bench" / "mcp_progress_client.mjs"), str(TS_SDK), where.url),
            *(TOKEN, "ask_user_questions", json.dumps(question("ts-progress"))),
            str(int(TIMEOUT * 1000)),
        ],
        capture_output=True,
        text=True,
        timeout=WAIT + 300,
        stdin=subprocess.DEVNULL,
    )
    said = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    outcome.note = f"one tools/call, {said.get('progress', 0)} progress notifications"
    if "error" in said or done.returncode != 0:
        raise RuntimeError(said.get("error") or done.stderr.strip())
    outcome.text = said["result"]["content"][0]["text"]


def claude_60s(where: Where, outcome: Outcome) -> None:
    """Claude Code 2.1.332, askcli mcp over stdio, MCP_TOOL_TIMEOUT 60 s, --wait 50."""
    asked = question("claude-60s")
    mcp_agents.claude_code(
        where.folder, where.inbox, asked, outcome, timeout_ms=60_000, wait=None, limit=WAIT + 300
    )


def claude_default(where: Where, outcome: Outcome) -> None:
    """Claude Code 2.1.332, askcli mcp over stdio, its default timeout, --wait past WAIT."""
    asked = question("claude-deflt")
    mcp_agents.claude_code(
        where.folder,
        where.inbox,
        asked,
        outcome,
        timeout_ms=None,
        wait=WAIT + 120,
        limit=WAIT + 300,
    )


def codex_60s(where: Where, outcome: Outcome) -> None:
    """The Codex CLI 0.171.0, askcli mcp over stdio, tool_timeout_sec 60, --wait 50."""
    mcp_agents.codex(
        where.folder, where.inbox, outcome, tool_timeout=60, wait=None, limit=WAIT + 300
    )


def codex_default(where: Where, outcome: Outcome) -> None:
    """The Codex CLI 0.171.0, askcli mcp over stdio, its default 300 s, --wait 290."""
    mcp_agents.codex(
        where.folder, where.inbox, outcome, tool_timeout=None, wait=290, limit=WAIT + 300
    )


CLIENTS: list[tuple[str, str, Callable[[Where, Outcome], None], Path | None, bool]] = [
    # name, revision, how, what it needs, whether its server's --wait outlasts WAIT
    ("Python SDK 2.3.0, tasks (polls tasks/get)", "2026-07-28", sdk_tasks, None, False),
    ("MCP Inspector 2.12.0 CLI, tasks (ext-tasks)", "2026-07-28", inspector, INSPECTOR, False),
    ("TypeScript SDK 1.32.2, resetTimeoutOnProgress", "2025-11-25", ts_progress, NODE, True),
    ("Python SDK 2.3.0, ticket + get_answer", "2025-11-25", sdk_tickets, None, False),
    ("Claude Code 2.1.332, MCP_TOOL_TIMEOUT=60000", "2026-07-28", claude_60s, CLAUDE, False),
    ("Claude Code 2.1.332, its default timeout", "2026-07-28", claude_default, CLAUDE, False),
    ("Codex CLI 0.171.0, tool_timeout_sec = 60", "2025-06-18", codex_60s, CODEX, False),
    ("Codex CLI 0.171.0, its default 300 s", "2025-06-18", codex_default, CODEX, False),
]


def answer_all(inbox: Path, count: int) -> int:
    """The person answers every question waiting (Blue); how many."""
    from askcli.inbox.store import QueueState, open_store

    from tests.support.inbox import answer_queued

    store = open_store(inbox)
    answered = 0
    for waiting in store.questions(states=(QueueState.WAITING,))[:count]:
        answered += bool(answer_queued(store, "2\n", waiting.id))
    return answered


def main() -> int:
    from tests.support.real_agents import free_port

    print(f"askcli mcp: how long a question can wait (answered after {WAIT:.0f} s)")
    clients = [c for c in CLIENTS if c[3] is None or c[3].exists()]
    for name, _, _, needs, _ in CLIENTS:
        if needs is not None and not needs.exists():
            how = "make claude-code-current" if needs == CLAUDE else "make mcp-clients"
            print(f"  {name}: not measured: {needs} is not installed ({how})")
    with tempfile.TemporaryDirectory() as tmp:
        inbox = Path(tmp) / "inbox.db"
        log = Path(tmp) / "server.err"
        ports = (free_port(), free_port())
        servers = [_serve(ports[0], inbox, 50, log), _serve(ports[1], inbox, WAIT + 120, log)]
        try:
            time.sleep(2)
            outcomes = [Outcome() for _ in clients]
            began = time.monotonic()

            def run(index: int) -> None:
                _, _, how, _, long_wait = clients[index]
                url = f"http://127.0.0.1:{ports[1 if long_wait else 0]}/mcp"
                where = Where(url, inbox, Path(tmp) / f"client-{index}")
                start = time.monotonic()
                try:
                    how(where, outcomes[index])
                except Exception as exc:
                    outcomes[index].error = f"{type(exc).__name__}: {exc}"[:120]
                outcomes[index].took = time.monotonic() - start

            threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
            for thread in threads:
                thread.start()
            time.sleep(max(0.0, WAIT - (time.monotonic() - began)))
            answered = answer_all(inbox, len(clients))
            for thread in threads:
                thread.join(timeout=120)
        finally:
            for server in servers:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=10)
    print(f"  the person answered {answered} question(s) after {WAIT:.0f} s")
    ok = True
    for (name, revision, *_), got in zip(clients, outcomes, strict=True):
        waited = not got.error and ANSWERED in got.text and got.took >= WAIT
        line = (
            f"waited {got.took:.0f} s, answered ({got.note})"
            if waited
            else f"gave up after {got.took:.0f} s: {got.error or got.text[:60]}"
        )
        verdict = ("ok" if WAIT >= TARGET else "(a short run)") if waited else "MISSED"
        ok = ok and waited
        target = f">= {TARGET:.0f} s"
        print(f"  {name:<46} {revision}  target {target:<9} {line}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
