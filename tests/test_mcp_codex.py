"""The real Codex CLI (``@openai/codex``, installed by ``make test`` into .cache/, pinned) with
``askcli mcp`` as an MCP server in its config.toml, offline: its model is a loopback stand-in of
the Responses API (tests/peers/openai_responses_standin.py), which saves every request. The
set-up is docs/mcp.md's, line by line; the person answers through the inbox's queue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.mcp import still_waiting_text
from askcli.inbox.store import QueuedQuestion, QueueState, Store

from tests.support.inbox import answer_queued
from tests.support.paths import ROOT
from tests.support.processes import askcli_path
from tests.support.real_agents import PEERS, free_port
from tests.test_mcp import listening, serve_http

CODEX = ROOT / ".cache" / "codex" / "node_modules" / ".bin" / "codex"
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
PNPM = (
    'User has answered your questions: "Which package manager should the project use?"='
    '"pnpm". You can now continue with the user\'s answers in mind.'
)


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


def config(port: int, lines: list[str]) -> str:
    """Codex's config.toml: the stand-in as its model, askcli mcp's ``lines``."""
    return (
        f"""\
model = "standin-model"
model_provider = "standin"
approval_policy = "never"
sandbox_mode = "read-only"

[model_providers.standin]
name = "Stand-in Responses API"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "STANDIN_API_KEY"
request_max_retries = 0
stream_max_retries = 0

"""
        + "\n".join(lines)
        + "\n"
    )


class Run:
    """A running ``codex exec``: its process, the stand-in's saved requests, the inbox."""

    def __init__(self, proc: subprocess.Popen[str], requests: Path, inbox: Path) -> None:
        self.proc = proc
        self.requests = requests
        self.inbox = inbox

    def question(self, timeout: float = 60) -> QueuedQuestion:
        """The question Codex's call put in the inbox (waited for, while Codex runs)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            waiting = Store(self.inbox).questions(states=(QueueState.WAITING,))
            if waiting:
                return waiting[0]
            time.sleep(0.05)
        self.proc.poll()
        raise AssertionError(f"no question (Codex: {self.proc.returncode}): {self.log()}")

    def request(self, n: int, timeout: float = 60) -> dict[str, Any]:
        """The stand-in's request ``n`` (waited for)."""
        path = self.requests / f"req-{n}.json"
        deadline = time.monotonic() + timeout
        while not path.exists() or not path.read_text().endswith("}"):
            assert time.monotonic() < deadline, f"no request {n}: {self.log()}"
            time.sleep(0.05)
        found: dict[str, Any] = json.loads(path.read_text())["body"]
        return found

    def finish(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Codex's exit: its JSON events and the stand-in's requests, in order."""
        out, _ = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, self.log()
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        count = len(list(self.requests.glob("req-*.json")))
        return events, [self.request(n) for n in range(1, count + 1)]

    def log(self) -> str:
        folder = self.requests.parent
        return "\n".join(
            f"--- {name}\n{(folder / name).read_text(errors='replace')[-3000:]}"
            for name in ("codex.err", "standin.err")
            if (folder / name).exists()
        )


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


@contextmanager
def running(
    tmp_path: Path, port: int, env: dict[str, str], inbox: Path, prompt: str, hold: Path | None
) -> Iterator[Run]:
    """The Responses API stand-in on ``port`` and ``codex exec PROMPT`` in ``env`` (its
    folders ``req`` and ``work`` under ``tmp_path``), both ended on the way out."""
    requests, work = tmp_path / "req", tmp_path / "work"
    with (
        (tmp_path / "standin.err").open("w") as standin_err,
        (tmp_path / "codex.err").open("w") as codex_err,
    ):
        stand_in = subprocess.Popen(
            [sys.executable, str(PEERS / "openai_responses_standin.py"), str(port), str(requests)]
            + ([str(hold)] if hold else []),
            stderr=standin_err,
        )
        proc: subprocess.Popen[str] | None = None
        try:
            assert listening(port)
            proc = subprocess.Popen(
                [str(CODEX), "exec", "--json", "--skip-git-repo-check", prompt],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=codex_err,
                text=True,
                env=env,
                cwd=work,
            )
            yield Run(proc, requests, inbox)
        finally:
            for process in (proc, stand_in):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.communicate()


def outputs(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in request["input"] if i.get("type") == "function_call_output"]


def wall_time(output: list[dict[str, Any]]) -> float:
    """The seconds Codex says the tool call took (its first part: "Wall time: 0.0123 seconds")."""
    return float(output[0]["text"].removeprefix("Wall time: ").split()[0])


def test_the_persons_answer_reaches_codexs_model(tmp_path: Path) -> None:
    # askcli starting 2 s late still has its tools offered on the first turn (required = true)
    with codex(tmp_path, slow_start=2) as run:
        question = run.question()
        assert answer_queued(Store(run.inbox), "1\n", question.id)
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
        assert Store(run.inbox).state(question.id) is QueueState.WAITING
        assert answer_queued(Store(run.inbox), "1\n", question.id)
        hold.touch()
        _, requests = run.finish()
    calls = [i for i in requests[-1]["input"] if i.get("type") == "function_call"]
    assert len(calls) == 2 and calls[0]["arguments"] == calls[1]["arguments"]
    last = outputs(requests[-1])[-1]
    assert last["call_id"] == calls[1]["call_id"]
    assert last["output"][1:] == [{"type": "input_text", "text": PNPM}]
    assert wall_time(last["output"]) < 2  # answered already: at once
    # the identical call was the same question: one in the inbox, answered
    assert [q.id for q in Store(run.inbox).questions(states=tuple(QueueState))] == [question.id]
    assert len(requests) == 3


def test_codex_over_http_gets_the_answer(tmp_path: Path) -> None:
    port = free_port()
    served = serve_http(tmp_path, port, ASKCLI_MCP_TOKEN=TOKEN)
    try:
        with codex(tmp_path, http=port) as run:
            question = run.question()
            assert answer_queued(Store(run.inbox), "1\n", question.id)
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
        assert answer_queued(Store(run.inbox), "1\n", question.id)
        _, requests = run.finish()
    calls = [i for i in requests[-1]["input"] if i.get("type") == "function_call"]
    assert [(c["name"], c.get("namespace")) for c in calls] == [
        ("ask_user_questions", "mcp__askcli"),
        ("get_answer", "mcp__askcli"),
    ]
    assert json.loads(calls[1]["arguments"]) == {"ticket": question.ticket}
    assert outputs(requests[-1])[-1]["output"][1:] == [{"type": "input_text", "text": PNPM}]
