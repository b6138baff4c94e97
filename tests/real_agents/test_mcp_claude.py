"""``askcli mcp`` in the real Claude Code's ``--mcp-config``, against the stand-in API: the
model calls ``mcp__askcli__ask_user_questions``, the inbox answers, and the answer typed is in
Claude Code's next request to the model, byte for byte; after Claude Code's tool timeout the
identical call gets the answer of the same question."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.mcp.asker import still_waiting_text
from askcli.inbox.store import QueueState, open_store

from tests.support.calls import COLOR
from tests.support.claude import Api, answer_once_logged, needs_claude
from tests.support.mcp import answer_next
from tests.support.processes import askcli_path

pytestmark = needs_claude

TOOL = "mcp__askcli__ask_user_questions"
# Other, then words with quotes, a backslash and characters beyond ASCII
TYPED = 'Teal — «ünïcode» "quoted" \\ back'
ANSWERED = (
    f'User has answered your questions: "Which color?"="{TYPED}". '
    "You can now continue with the user's answers in mind."
)


def turn(*blocks: dict[str, Any], stop: str = "tool_use") -> dict[str, Any]:
    return {"content": list(blocks), "stop_reason": stop}


def ask(id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": TOOL, "input": {"questions": [COLOR]}}


END = turn({"type": "text", "text": "Thanks."}, stop="end_turn")


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "work"
    folder.mkdir()
    yield folder


def claude_with_askcli(
    api: Api, work: Path, inbox: Path, *mcp_args: str, **env: str
) -> subprocess.Popen[str]:
    """``claude -p`` (stream-json) with ``askcli mcp`` as its MCP server "askcli"."""
    server = {"command": str(askcli_path()), "args": ["mcp", *mcp_args]}
    config = {"mcpServers": {"askcli": {**server, "env": {"ASKCLI_INBOX": str(inbox)}}}}
    command = [
        str(api.claude_bin),
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        json.dumps(config),
        "--allowedTools",
        f"{TOOL},mcp__askcli__get_answer",
    ]
    with (work.parent / "claude.stderr").open("w") as errors:  # the child keeps its own
        proc = subprocess.Popen(
            command,
            cwd=work,
            env={**api.env, "MCP_CONNECTION_NONBLOCKING": "0", **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
    assert proc.stdin is not None
    for message in (
        {"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize"}},
        {"type": "user", "message": {"role": "user", "content": "please ask me"}},
    ):
        proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return proc


def until_result(proc: subprocess.Popen[str], limit: float = 90) -> list[dict[str, Any]]:
    """Claude Code's stream-json lines up to its result; then it is ended."""
    killer = threading.Timer(limit, proc.kill)
    killer.start()
    lines: list[dict[str, Any]] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("{"):
                lines.append(json.loads(line))
                if lines[-1].get("type") == "result":
                    break
    finally:
        killer.cancel()
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    assert lines and lines[-1].get("type") == "result", lines[-3:]
    return lines


def texts(block: dict[str, Any]) -> str:
    content = block["content"]
    if isinstance(content, str):
        return content
    return "".join(part["text"] for part in content if part.get("type") == "text")


@pytest.mark.parametrize("api", [[turn(ask("toolu_mcp1")), END]], indirect=True)
def test_claude_code_gets_the_answer_typed_in_the_inbox(
    api: Api, work: Path, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox.db"
    asked: list[Any] = []
    proc = claude_with_askcli(api, work, inbox)
    person = threading.Thread(
        target=lambda: asked.append(answer_next(inbox, f"3\n{TYPED}\n", timeout=60))
    )
    person.start()
    lines = until_result(proc)
    person.join(timeout=10)
    init = next(m for m in lines if m.get("subtype") == "init")
    servers = [{k: s[k] for k in ("name", "status")} for s in init["mcp_servers"]]
    assert {"name": "askcli", "status": "connected"} in servers  # 2.1.332 adds "source"
    result = api.tool_results()["toolu_mcp1"]
    assert texts(result) == ANSWERED, result  # byte for byte
    assert not result.get("is_error")
    # the agent is labelled with Claude Code's clientInfo.name and the folder it runs in
    question = asked[0]
    assert question.agent.client == "claude-code" and question.agent.cwd == str(work)


@pytest.mark.parametrize(
    "api", [[turn(ask("toolu_mcp1")), turn(ask("toolu_mcp2")), END]], indirect=True
)
def test_after_claude_code_s_timeout_the_identical_call_gets_the_answer(
    api: Api, work: Path, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox.db"
    proc = claude_with_askcli(api, work, inbox, "--wait", "60", MCP_TOOL_TIMEOUT="2000")

    # answers once Claude Code has given up on the first call
    answering = answer_once_logged(api, inbox, "timed out after", f"3\n{TYPED}\n")
    until_result(proc)
    answering.join(timeout=10)
    results = api.tool_results()
    first = results["toolu_mcp1"]
    assert first.get("is_error") and 'tool "ask_user_questions" timed out after 2s' in texts(first)
    assert texts(results["toolu_mcp2"]) == ANSWERED
    asked = open_store(inbox).questions(states=tuple(QueueState))
    assert len(asked) == 1 and asked[0].state is QueueState.ANSWERED  # one question, asked twice


def test_claude_code_s_model_calls_get_answer_with_the_ticket(
    claude_bin: Path, work: Path, tmp_path: Path
) -> None:
    # the stand-in model calls get_answer with the ticket of a still-waiting result, as a
    # model told so does (mock_anthropic.py --tickets; bench/mcp_wait.py's Claude Code)
    get_answer = "mcp__askcli__get_answer"
    api = Api(tmp_path, [turn(ask("toolu_mcp1")), END], claude_bin, ("--tickets", get_answer))
    inbox = tmp_path / "inbox.db"
    try:
        proc = claude_with_askcli(api, work, inbox, "--wait", "1", MCP_TOOL_TIMEOUT="60000")

        # answers once the model has had the ticket
        still = "The user has not answered yet"
        answering = answer_once_logged(api, inbox, still, f"3\n{TYPED}\n")
        until_result(proc)
        answering.join(timeout=10)
        results = api.tool_results()
        (question,) = open_store(inbox).questions(states=tuple(QueueState))
        assert texts(results["toolu_mcp1"]) == still_waiting_text(question.ticket)
        calls = [
            block
            for line in api.log.read_text().splitlines()
            for message in json.loads(line)["request"].get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_use" and block["name"] == get_answer
        ]
        assert calls and all(c["input"] == {"ticket": question.ticket} for c in calls)
        assert texts(results[calls[-1]["id"]]) == ANSWERED
        assert question.state is QueueState.ANSWERED
    finally:
        api.stop()
