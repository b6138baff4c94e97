"""askcli acp against real agents, offline: Gemini CLI (--fake-responses-non-strict) and
Claude Code through claude-agent-acp (the stand-in API of tests/peers/). `make test`
installs both into .cache/ (pinned); without npm these tests skip, saying why."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, askcli_path

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

GEMINI = ROOT / ".cache" / "gemini-cli" / "node_modules" / ".bin" / "gemini"
ADAPTER = ROOT / ".cache" / "claude-agent-acp" / "node_modules" / ".bin" / "claude-agent-acp"
PEERS = Path(__file__).parent / "peers"
needs_gemini = pytest.mark.skipif(
    not GEMINI.exists(), reason="Gemini CLI is not installed (make test installs it with npm)"
)
needs_adapter = pytest.mark.skipif(
    not ADAPTER.exists(),
    reason="claude-agent-acp is not installed (make test installs it with npm)",
)


def _stream(*parts: dict[str, Any], finish: bool = True) -> dict[str, Any]:
    chunk: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        chunk["finishReason"] = "STOP"
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {
        "method": "generateContentStream",
        "response": [{"candidates": [chunk], "usageMetadata": usage}],
    }


def gemini(
    tmp_path: Path, answers: str, *, probe: bool = False, record: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    (home / ".gemini").mkdir(parents=True)
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    call = {
        "functionCall": {
            "name": "run_shell_command",
            "args": {
                "command": "echo tool-ran > shell_out.txt",
                "description": "write a marker file",
            },
        }
    }
    lines = [_stream(call)]
    if not probe:
        lines.append(_stream({"text": "All done, final answer."}))
    fake = tmp_path / "fake.responses"
    fake.write_text("".join(json.dumps(line) + "\n" for line in lines))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GEMINI_API_KEY": "fake-key",
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    command = [
        str(GEMINI),
        "--acp",
        "--model",
        "gemini-2.5-flash",
        "--fake-responses-non-strict",
        str(fake),
    ]
    proc = subprocess.run(
        [
            str(askcli_path()),
            "acp",
            "--prompt",
            "make the marker",
            *(["--record", str(record)] if record is not None else []),
            "--",
            *command,
        ],
        input=answers,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=work,
        env=env,
    )
    return proc, work


@needs_gemini
def test_gemini_permission_allowed(tmp_path: Path) -> None:
    proc, work = gemini(tmp_path, "y\n")
    assert proc.returncode == 0, proc.stderr
    assert "The agent asks to run: echo tool-ran > shell_out.txt" in proc.stderr
    assert "(write a marker file)" in proc.stderr
    assert "1. Allow for this session  (allow_always)" in proc.stderr
    assert "(done)" in proc.stderr
    assert proc.stdout == "All done, final answer.\n"
    assert (work / "shell_out.txt").read_text() == "tool-ran\n"


@needs_gemini
def test_gemini_session_recorded_replays(tmp_path: Path) -> None:
    from askcli.runners import fixtures

    path = tmp_path / "gemini.json"
    proc, _ = gemini(tmp_path, "y\n", record=path)
    assert proc.returncode == 0, proc.stderr
    assert "does not give what it did" not in proc.stderr
    fixture = fixtures.load(path)
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    assert fixture["stdout"] == ["All done, final answer."]
    allowed = {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
    assert [e["result"] for e in fixture["acp"]["sent"] if "id" in e] == [allowed]


@needs_gemini
def test_gemini_permission_denied_reaches_the_model(tmp_path: Path) -> None:
    # without the closing turn, Gemini CLI's error carries the next model request whole
    proc, work = gemini(tmp_path, "n\n", probe=True)
    assert not (work / "shell_out.txt").exists()
    assert "was canceled by the user" in proc.stderr, proc.stderr
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr


@needs_gemini
def test_gemini_answers_running_out_is_never_allowed(tmp_path: Path) -> None:
    proc, work = gemini(tmp_path, "")
    assert proc.returncode == 3, proc.stderr
    assert not (work / "shell_out.txt").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "multiSelect": False,
            "options": [
                {"label": "Postgres", "description": "server"},
                {"label": "SQLite", "description": "file"},
            ],
        }
    ]
}


@needs_adapter
@pytest.mark.parametrize(
    ("answers", "sent"),
    [
        ("2\n", '"Which database?"="SQLite"'),
        ("3\nMongo, maybe: 'v7' \u00e9\n", '"Which database?"="Mongo, maybe: \'v7\' \u00e9"'),
    ],
)
def test_claude_askuserquestion_through_the_elicitation_form(  # the answer reaches the model
    tmp_path: Path, answers: str, sent: str
) -> None:
    turns = [
        {
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_ask_1", "name": "AskUserQuestion", "input": ASK},
            ],
            "stop_reason": "tool_use",
        },
        {
            "content": [{"type": "text", "text": "All done, final answer."}],
            "stop_reason": "end_turn",
        },
    ]
    scenario, log = tmp_path / "turns.json", tmp_path / "requests.jsonl"
    scenario.write_text(json.dumps(turns))
    port = _free_port()
    mock = subprocess.Popen(
        [
            sys.executable,
            str(PEERS / "mock_anthropic.py"),
            "--port",
            str(port),
            "--scenario",
            str(scenario),
            "--log",
            str(log),
        ]
    )
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        work, home = tmp_path / "work", tmp_path / "home"
        work.mkdir()
        home.mkdir()
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "NO_COLOR": "1",
        }
        proc = subprocess.run(
            [str(askcli_path()), "acp", "--prompt", "pick a database", "--", str(ADAPTER)],
            input=answers,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=work,
            env=env,
        )
    finally:
        mock.kill()
        mock.wait()
    assert proc.returncode == 0, proc.stderr
    assert "[DB] Which database?" in proc.stderr
    assert "  1. Postgres - server\n  2. SQLite - file" in proc.stderr
    assert proc.stdout.strip().endswith("All done, final answer.")
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    results = [
        block
        for request in requests
        for message in request.get("request", request).get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results, requests
    text = json.dumps(results[-1]["content"], ensure_ascii=False)
    assert sent.replace('"', '\\"') in text, text
