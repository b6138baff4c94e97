"""The real Codex CLI (``@openai/codex``, installed by ``make test`` into .cache/, pinned) with
``askcli mcp`` as an MCP server in its config.toml, offline: its model is a loopback stand-in of
the Responses API (tests/peers/openai_responses_standin.py), which saves every request. The
set-up is docs/mcp.md's, line by line; the person answers through the inbox's queue."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.mcp.asker import still_waiting_text
from askcli.inbox.store import QueueState, open_store

from tests.support.codex import CODEX, PNPM, Run, config, outputs, running
from tests.support.inbox import answer_queued
from tests.support.mcp import serve_http
from tests.support.paths import ROOT
from tests.support.processes import askcli_path
from tests.support.real_agents import free_port

pytestmark = pytest.mark.skipif(
    not CODEX.exists(), reason="Codex CLI is not installed (make test installs it with npm)"
)

ASKED = {
    "questions": [
        {
            "question": "Which package manager should the project use?",
            "header": "Pkg mgr",
            "options": [
                {"label": "pnpm", "description": "fast, strict"},
                {"label": "npm", "description": "bundled with node"},
            ],
            "multiSelect": False,
        }
    ]
}
TOKEN = "codex-test-token-0123456789"


def documented(first: str) -> list[str]:
    """The lines of docs/mcp.md's Codex set-up whose ``[mcp_servers.askcli]`` starts with the
    key ``first`` (``command``: stdio; ``url``: HTTP)."""
    text = (ROOT / "docs" / "mcp.md").read_text()
    block = text[text.index(f"```toml\n[mcp_servers.askcli]\n{first} = ") + len("```toml\n") :]
    return block[: block.index("```")].splitlines()


def server(first: str, **ours: str) -> list[str]:
    """docs/mcp.md's lines (:func:`documented`) with the values of ``ours`` (each given)."""
    lines = []
    for line in documented(first):
        key = line.partition(" = ")[0]
        lines.append(f"{key} = {ours.pop(key)}" if key in ours else line)
    assert not ours, f"docs/mcp.md's Codex set-up has no {sorted(ours)}"
    return lines


def stdio(inbox: Path, command: Path, args: list[str], tool_timeout: int) -> list[str]:
    """askcli mcp set up as docs/mcp.md says, run by ``command`` with ``args``."""
    found = server(
        "command",
        command=json.dumps(str(command)),
        args=json.dumps(args),
        tool_timeout_sec=str(tool_timeout),
    )
    return [*found, f'env = {{ ASKCLI_INBOX = {json.dumps(str(inbox))}, NO_COLOR = "1" }}']


@contextmanager
def codex(
    tmp_path: Path,
    args: tuple[str, ...] = ("mcp",),
    tool_timeout: int = 120,
    hold: Path | None = None,
    slow_start: float = 0,
    http: int = 0,
) -> Iterator[Run]:
    """``codex exec`` asking for a package manager, with askcli mcp ``args`` as its MCP server
    (started ``slow_start`` seconds late, as on a loaded machine), or the ``askcli mcp --http``
    on the port ``http``, which the test started."""
    port = free_port()
    home, codex_home, requests, work = (tmp_path / n for n in ("home", "codex", "req", "work"))
    for folder in (home, codex_home, requests, work):
        folder.mkdir()
    inbox = tmp_path / "inbox.db"
    command = askcli_path()
    if slow_start:
        command = tmp_path / "slow-askcli"
        command.write_text(f'#!/bin/sh\nsleep {slow_start}\nexec "{askcli_path()}" "$@"\n')
        command.chmod(0o755)
    url = json.dumps(f"http://127.0.0.1:{http}/mcp")
    lines = server("url", url=url) if http else stdio(inbox, command, list(args), tool_timeout)
    (codex_home / "config.toml").write_text(config(port, lines))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "STANDIN_API_KEY": "x",
        "NO_COLOR": "1",
        "ASKCLI_MCP_TOKEN": TOKEN,  # for an askcli mcp --http
    }
    with running(tmp_path, port, env, inbox, "ask me which package manager", hold) as run:
        yield run


def wall_time(output: list[dict[str, Any]]) -> float:
    """The seconds Codex says the tool call took (its first part: "Wall time: 0.0123 seconds")."""
    return float(output[0]["text"].removeprefix("Wall time: ").split()[0])


def test_the_persons_answer_reaches_codexs_model(tmp_path: Path) -> None:
    # askcli starting 2 s late still has its tools offered on the first turn (required = true)
    with codex(tmp_path, slow_start=2) as run:
        question = run.question()
        assert answer_queued(open_store(run.inbox), "1\n", question.id)
        events, requests = run.finish()
    # the model called askcli's tool (Codex names the server's tools in a namespace)
    first = requests[0]
    assert not outputs(first)
    asked = [i for i in requests[1]["input"] if i.get("type") == "function_call"]
    assert [(c["name"], c.get("namespace")) for c in asked] == [
        ("ask_user_questions", "mcp__askcli")
    ]
    # the inbox asked it as the model wrote it, under Codex's MCP client name
    assert question.agent.client == "codex-mcp-client"
    assert question.call["input"] == ASKED
    # the answer is the model's next request's tool output, byte for byte
    (output,) = outputs(requests[-1])
    assert output["call_id"] == asked[0]["call_id"]
    assert output["output"][1:] == [{"type": "input_text", "text": PNPM}]
    assert output["output"][0]["text"].startswith("Wall time: ")
    # and Codex's own record of the call has it as askcli's result
    (called,) = [
        e["item"]
        for e in events
        if e.get("type") == "item.completed" and e["item"]["type"] == "mcp_tool_call"
    ]
    assert called["result"]["content"] == [{"type": "text", "text": PNPM}]
    assert len(requests) == 2


def test_after_codexs_tool_timeout_the_identical_call_gets_the_answer(tmp_path: Path) -> None:
    hold = tmp_path / "go"  # the stand-in calls again once the person has answered
    args = ("mcp", "--wait", "60", "--reuse-for", "300")  # --wait over Codex's timeout
    with codex(tmp_path, args, tool_timeout=3, hold=hold) as run:
        question = run.question()
        timed_out = run.request(2)  # Codex gave up on the call: the model is told so
        (output,) = outputs(timed_out)
        assert "timed out awaiting tools/call" in json.dumps(output["output"])
        # the question still waits in the inbox; the person answers it now
        assert open_store(run.inbox).state(question.id) is QueueState.WAITING
        assert answer_queued(open_store(run.inbox), "1\n", question.id)
        hold.touch()
        _, requests = run.finish()
    calls = [i for i in requests[-1]["input"] if i.get("type") == "function_call"]
    assert len(calls) == 2 and calls[0]["arguments"] == calls[1]["arguments"]
    last = outputs(requests[-1])[-1]
    assert last["call_id"] == calls[1]["call_id"]
    assert last["output"][1:] == [{"type": "input_text", "text": PNPM}]
    assert wall_time(last["output"]) < 2  # answered already: at once
    # the identical call was the same question: one in the inbox, answered
    assert [q.id for q in open_store(run.inbox).questions(states=tuple(QueueState))] == [
        question.id
    ]
    assert len(requests) == 3


def test_codex_over_http_gets_the_answer(tmp_path: Path) -> None:
    port = free_port()
    served = serve_http(tmp_path, port, ASKCLI_MCP_TOKEN=TOKEN)
    try:
        with codex(tmp_path, http=port) as run:
            question = run.question()
            assert answer_queued(open_store(run.inbox), "1\n", question.id)
            _, requests = run.finish()
    finally:
        served.terminate()
        served.communicate(timeout=10)
    assert question.agent.client == 'http client "codex-mcp-client"'
    assert outputs(requests[-1])[-1]["output"][1:] == [{"type": "input_text", "text": PNPM}]


def test_a_call_past_wait_gets_a_ticket_and_get_answer_the_answer(tmp_path: Path) -> None:
    with codex(tmp_path, ("mcp", "--wait", "1")) as run:
        question = run.question()
        (output,) = outputs(run.request(2))  # --wait passed: the model has the ticket
        assert output["output"][1:] == [
            {"type": "input_text", "text": still_waiting_text(question.ticket)}
        ]
        assert answer_queued(open_store(run.inbox), "1\n", question.id)
        _, requests = run.finish()
    calls = [i for i in requests[-1]["input"] if i.get("type") == "function_call"]
    assert [(c["name"], c.get("namespace")) for c in calls] == [
        ("ask_user_questions", "mcp__askcli"),
        ("get_answer", "mcp__askcli"),
    ]
    assert json.loads(calls[1]["arguments"]) == {"ticket": question.ticket}
    assert outputs(requests[-1])[-1]["output"][1:] == [{"type": "input_text", "text": PNPM}]
