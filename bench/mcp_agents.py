"""The real agents of bench/mcp_wait.py: Claude Code and the Codex CLI, each with ``askcli mcp``
as its stdio MCP server (the inbox the bench's person answers), against a stand-in model that
calls ``get_answer`` with the ticket of a still-waiting result, as a real model does when the
result says so. Each runs as it is set up for real, askcli's ``--wait`` under its tool
timeout: one call, the ticket after ``--wait``, then ``get_answer`` until the answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "peers"
CACHE = ROOT / ".cache"
CLAUDE = CACHE / "claude-code-2.1.332" / "node_modules" / ".bin" / "claude"
CODEX = CACHE / "codex" / "node_modules" / ".bin" / "codex"
ANSWERED = "User has answered your questions"
# what the outer environment must not decide for the agents (a bench run inside one)
FOREIGN = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_HOME", "MCP_TOOL_TIMEOUT")


class Outcome(Protocol):
    text: str
    calls: int
    note: str


def _askcli() -> str:
    return str(Path(sys.executable).with_name("askcli"))


def _env(home: Path, **more: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in FOREIGN}
    return {**base, "HOME": str(home), "NO_COLOR": "1", **more}


def _free_port() -> int:
    from tests.support.real_agents import free_port

    return free_port()


def _listening(stand_in: subprocess.Popen[bytes], log: Path, port: int) -> None:
    import socket

    for _ in range(400):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if stand_in.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"the stand-in model did not start: {log.read_text()[-200:]}")


def _stop(*processes: subprocess.Popen[Any] | None) -> None:
    for process in processes:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def _mcp_args(wait: float | None) -> list[str]:
    return ["mcp"] if wait is None else ["mcp", "--wait", f"{wait:.0f}"]


def _found(outcome: Outcome, results: list[str], get_answers: int, wait: float | None) -> None:
    """What the model was told last, and how many calls it made."""
    outcome.calls = 1 + get_answers
    outcome.note = f"--wait {wait or 50:.0f}: one call + {get_answers} get_answer"
    if not results or ANSWERED not in results[-1]:
        said = results[-1][:80] if results else "no tool result"
        raise RuntimeError(f"the model was told last: {said}")
    outcome.text = results[-1]


def claude_code(
    folder: Path,
    inbox: Path,
    asked: dict[str, Any],
    outcome: Outcome,
    *,
    timeout_ms: int | None,
    wait: float | None,
    limit: float,
) -> None:
    """Claude Code 2.1.332 (``claude -p``, stream-json), ``askcli mcp --wait WAIT`` from
    ``--mcp-config``, ``MCP_TOOL_TIMEOUT`` ``timeout_ms`` (None: its default); its model asks
    ``asked``; ended after ``limit`` seconds."""
    port = _free_port()
    folder.mkdir()
    (folder / "home").mkdir()
    (folder / "work").mkdir()
    ask = {
        "type": "tool_use",
        "id": "toolu_bench1",
        "name": "mcp__askcli__ask_user_questions",
        "input": asked,
    }
    turns = [
        {"content": [ask], "stop_reason": "tool_use"},
        {"content": [{"type": "text", "text": "Thanks."}], "stop_reason": "end_turn"},
    ]
    (folder / "turns.json").write_text(json.dumps(turns))
    log = folder / "requests.jsonl"
    with (folder / "stand-in.err").open("w") as err:
        stand_in = subprocess.Popen(
            [
                *(sys.executable, str(PEERS / "mock_anthropic.py"), "--port", str(port)),
                *("--scenario", str(folder / "turns.json"), "--log", str(log)),
                *("--tickets", "mcp__askcli__get_answer"),
            ],
            stderr=err,
        )
    proc: subprocess.Popen[str] | None = None
    try:
        _listening(stand_in, folder / "stand-in.err", port)
        server = {
            "command": _askcli(),
            "args": _mcp_args(wait),
            "env": {"ASKCLI_INBOX": str(inbox)},
        }
        tools = "mcp__askcli__ask_user_questions,mcp__askcli__get_answer"
        env = _env(
            folder / "home",
            ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
            ANTHROPIC_API_KEY="bench-key",
            DISABLE_TELEMETRY="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            MCP_CONNECTION_NONBLOCKING="0",
        )
        if timeout_ms is not None:
            env["MCP_TOOL_TIMEOUT"] = str(timeout_ms)
        with (folder / "claude.err").open("w") as err:
            proc = subprocess.Popen(
                [
                    *(str(CLAUDE), "-p", "--input-format", "stream-json"),
                    *("--output-format", "stream-json", "--verbose"),
                    *("--mcp-config", json.dumps({"mcpServers": {"askcli": server}})),
                    *("--allowedTools", tools),
                ],
                cwd=folder / "work",
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        assert proc.stdin is not None and proc.stdout is not None
        killer = threading.Timer(limit, proc.kill)
        killer.daemon = True
        killer.start()
        init = {"subtype": "initialize"}
        for message in (
            {"type": "control_request", "request_id": "init-1", "request": init},
            {"type": "user", "message": {"role": "user", "content": "please ask me"}},
        ):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        with (folder / "claude.out").open("w") as out:  # its stream-json, kept
            for line in proc.stdout:
                out.write(line)
                if line.startswith("{") and json.loads(line).get("type") == "result":
                    break
        killer.cancel()
    finally:
        _stop(proc, stand_in)
    results, get_answers = _claude_log(log)
    _found(outcome, results, get_answers, wait)


def _claude_log(log: Path) -> tuple[list[str], int]:
    """The tool results Claude Code sent its model last, and its get_answer calls."""
    lines = log.read_text().splitlines() if log.exists() else []
    last: list[dict[str, Any]] = []
    for line in lines:
        messages = json.loads(line)["request"].get("messages") or []
        if len(messages) > len(last):
            last = messages
    results, get_answers = [], 0
    for message in last:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block["name"].endswith("__get_answer"):
                get_answers += 1
            if block.get("type") == "tool_result":
                parts = block.get("content")
                if isinstance(parts, list):
                    parts = "".join(p.get("text", "") for p in parts)
                results.append(str(parts))
    return results, get_answers


def codex(
    folder: Path,
    inbox: Path,
    outcome: Outcome,
    *,
    tool_timeout: int | None,
    wait: float | None,
    limit: float,
) -> None:
    """The Codex CLI 0.171.0 (``codex exec``), ``askcli mcp --wait WAIT`` in its config.toml,
    ``tool_timeout_sec`` ``tool_timeout`` (None: its default); its model asks the stand-in's
    question (a package manager); ended after ``limit`` seconds."""
    port = _free_port()
    requests = folder / "req"
    for sub in ("home", "codex", "work", "req"):
        (folder / sub).mkdir(parents=True)
    lines = [
        "[mcp_servers.askcli]",
        f"command = {json.dumps(_askcli())}",
        f"args = {json.dumps(_mcp_args(wait))}",
        "required = true",
        'default_tools_approval_mode = "approve"',
        f'env = {{ ASKCLI_INBOX = {json.dumps(str(inbox))}, NO_COLOR = "1" }}',
    ]
    if tool_timeout is not None:
        lines.append(f"tool_timeout_sec = {tool_timeout}")
    (folder / "codex" / "config.toml").write_text(_codex_config(port, lines))
    with (folder / "stand-in.err").open("w") as err:
        stand_in = subprocess.Popen(
            [sys.executable, str(PEERS / "openai_responses_standin.py"), str(port), str(requests)],
            stderr=err,
        )
    proc: subprocess.Popen[str] | None = None
    try:
        _listening(stand_in, folder / "stand-in.err", port)
        env = _env(folder / "home", CODEX_HOME=str(folder / "codex"), STANDIN_API_KEY="x")
        with (folder / "codex.err").open("w") as err:
            proc = subprocess.Popen(
                [str(CODEX), "exec", "--json", "--skip-git-repo-check", "please ask me"],
                cwd=folder / "work",
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                text=True,
            )
            proc.wait(timeout=limit)
    finally:
        _stop(proc, stand_in)
    results, get_answers = _codex_requests(requests)
    _found(outcome, results, get_answers, wait)


def _codex_requests(requests: Path) -> tuple[list[str], int]:
    """The tool outputs Codex sent its model last, and its get_answer calls."""
    saved = sorted(requests.glob("req-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    if not saved:
        return [], 0
    inputs = json.loads(saved[-1].read_text())["body"].get("input") or []
    results = [
        json.dumps(i.get("output")) for i in inputs if i.get("type") == "function_call_output"
    ]
    get_answers = sum(
        1 for i in inputs if i.get("type") == "function_call" and i.get("name") == "get_answer"
    )
    return results, get_answers


def _codex_config(port: int, lines: list[str]) -> str:
    """Codex's config.toml: the stand-in as its model, then ``lines``."""
    head = [
        'model = "standin-model"',
        'model_provider = "standin"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        "",
        "[model_providers.standin]",
        'name = "Stand-in Responses API"',
        f'base_url = "http://127.0.0.1:{port}/v1"',
        'wire_api = "responses"',
        'env_key = "STANDIN_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
    ]
    return "\n".join([*head, *lines]) + "\n"
