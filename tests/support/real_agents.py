"""The real ACP agents the tests run offline, installed by `make acp-agents` into .cache/
(pinned), and what they need: Gemini CLI on canned model replies, the stand-in Anthropic API
(tests/peers/mock_anthropic.py) for Claude Code through claude-agent-acp (0.49.0, the oldest
release still in use, and 0.101.0, the current one) and OpenCode, and the stand-in Responses
API (tests/peers/responses_scripted.py) for Codex through codex-acp."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from askcli.wire.wording import texts

from tests.support.paths import PEERS, ROOT

BIN = ROOT / ".cache"
GEMINI = BIN / "gemini-cli" / "node_modules" / ".bin" / "gemini"
ADAPTER = BIN / "claude-agent-acp" / "node_modules" / ".bin" / "claude-agent-acp"
ADAPTER_CURRENT = BIN / "claude-agent-acp-0.101.0" / "node_modules" / ".bin" / "claude-agent-acp"
CODEX_ACP = BIN / "codex-acp-2.6.0" / "node_modules" / ".bin" / "codex-acp"
OPENCODE = BIN / "opencode" / "node_modules" / ".bin" / "opencode"
# a parameter that is a real agent marks its test so (make test-fast leaves them out)
REAL_AGENT = pytest.mark.real_agent

needs_gemini = pytest.mark.skipif(
    not GEMINI.exists(), reason="Gemini CLI is not installed (make test installs it with npm)"
)
needs_adapter = pytest.mark.skipif(
    not ADAPTER.exists(),
    reason="claude-agent-acp is not installed (make test installs it with npm)",
)
needs_adapter_current = pytest.mark.skipif(
    not ADAPTER_CURRENT.exists(),
    reason="claude-agent-acp 0.101.0 is not installed (make test installs it with npm)",
)
# a test of both claude-agent-acp releases: parametrize("adapter", ADAPTERS)
ADAPTERS = [
    pytest.param(ADAPTER, id="claude-agent-acp-0.49.0", marks=[needs_adapter, REAL_AGENT]),
    pytest.param(
        ADAPTER_CURRENT, id="claude-agent-acp-0.101.0", marks=[needs_adapter_current, REAL_AGENT]
    ),
]
needs_codex_acp = pytest.mark.skipif(
    not CODEX_ACP.exists(), reason="codex-acp is not installed (make test installs it with npm)"
)
needs_opencode = pytest.mark.skipif(
    not OPENCODE.exists(), reason="OpenCode is not installed (make test installs it with npm)"
)


# Claude Code: the oldest release still in use and the current one (make claude-code,
# make claude-code-current); every test of the claude_bin fixture runs on both
REAL = Path(
    os.environ.get("ASKCLI_CLAUDE_BIN", ROOT / ".cache/claude-code/node_modules/.bin/claude")
).absolute()
# the current release (make claude-code-current) beside the oldest still in use: every test of
# the `api` fixture runs on both
CURRENT = Path(
    os.environ.get(
        "ASKCLI_CLAUDE_CURRENT_BIN",
        ROOT / f".cache/claude-code-{texts.VERSION}/node_modules/.bin/claude",
    )
).absolute()
RELEASES = [
    pytest.param(REAL, id="claude-code-2.1.197", marks=REAL_AGENT),
    pytest.param(CURRENT, id=f"claude-code-{texts.VERSION}", marks=REAL_AGENT),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- Gemini CLI ---------------------------------------------------------------------------


def gemini_reply(*parts: dict[str, Any], finish: bool = True) -> dict[str, Any]:
    """One model reply for Gemini CLI's --fake-responses file (one line per model request)."""
    chunk: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        chunk["finishReason"] = "STOP"
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {
        "method": "generateContentStream",
        "response": [{"candidates": [chunk], "usageMetadata": usage}],
    }


def gemini(tmp_path: Path, replies: list[dict[str, Any]]) -> tuple[Path, dict[str, str], list[str]]:
    """(work folder, environment, agent command) for Gemini CLI answering from ``replies``,
    with its own home in ``tmp_path``."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir(parents=True, exist_ok=True)
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    fake = tmp_path / "fake.responses"
    fake.write_text("".join(json.dumps(reply) + "\n" for reply in replies))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GEMINI_API_KEY": "fake-key",
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "COLUMNS": "240",  # the long temporary paths on one line each
    }
    command = [
        str(GEMINI),
        "--acp",
        "--model",
        "gemini-2.5-flash",
        "--fake-responses-non-strict",
        str(fake),
    ]
    return Path(os.path.realpath(work)), env, command


# --- the stand-in Anthropic API -----------------------------------------------------------


def start_stand_in(
    tmp_path: Path, turns: list[Any], peer: str = "mock_anthropic.py", args: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """Start the stand-in API (``peer``: the Anthropic one, or
    ``responses_scripted.py``; ``args`` more for it) answering ``turns`` in order: (its
    process, its port, the log of the requests it got, one JSON line each), once it listens."""
    scenario, log = tmp_path / "turns.json", tmp_path / "requests.jsonl"
    scenario.write_text(json.dumps(turns))
    port = free_port()
    mock = subprocess.Popen(
        [
            sys.executable,
            str(PEERS / peer),
            *("--port", str(port), "--scenario", str(scenario), "--log", str(log)),
            *args,
        ]
    )
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    return mock, port, log


@contextmanager
def stand_in(
    tmp_path: Path, turns: list[Any], peer: str = "mock_anthropic.py"
) -> Iterator[tuple[int, Path]]:
    """The stand-in API answering ``turns`` (:func:`start_stand_in`): (its port, its log);
    ended on the way out."""
    mock, port, log = start_stand_in(tmp_path, turns, peer)
    try:
        yield port, log
    finally:
        mock.kill()
        mock.wait()


def claude_env(home: Path, port: int) -> dict[str, str]:
    """The environment of claude-agent-acp (and the Claude Code in it) on the stand-in."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # no predicted next prompt after a turn: it is a request with tools, which would take
        # the stand-in's next turn (Claude Code 2.1.318, in claude-agent-acp 0.101.0)
        "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }


# --- Codex through codex-acp, on the stand-in Responses API -----------------------------


def codex_env(tmp_path: Path, port: int) -> dict[str, str]:
    """The environment of codex-acp on the stand-in Responses API at ``port``: its own
    CODEX_HOME (config.toml) and HOME under ``tmp_path``."""
    home, codex_home = tmp_path / "home", tmp_path / "codex-home"
    home.mkdir(parents=True, exist_ok=True)
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.4"\n'  # a model Codex knows: no warning of unknown metadata
        'model_provider = "standin"\n'
        'approval_policy = "on-request"\n'
        'sandbox_mode = "read-only"\n'
        "[model_providers.standin]\n"
        'name = "Stand-in Responses API"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "STANDIN_API_KEY"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "STANDIN_API_KEY": "x",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }


# --- OpenCode -------------------------------------------------------------------------------


def opencode_config(port: int, **extra: Any) -> dict[str, Any]:
    """OpenCode's opencode.json for a work folder: its model the stand-in API at ``port``
    (the small model too: the session's title is a request without tools), nothing fetched."""
    model = {"name": "Claude mock", "tool_call": True, "limit": {"context": 200000, "output": 8192}}
    return {
        "autoupdate": False,
        "share": "disabled",
        "model": "anthropic/claude-mock",
        "small_model": "anthropic/claude-mock",
        "enabled_providers": ["anthropic"],
        "provider": {
            "anthropic": {
                "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "dummy"},
                "models": {"claude-mock": model},
            }
        },
        **extra,
        "lsp": False,
        "formatter": False,
        "snapshot": False,
    }


def opencode_env(home: Path) -> dict[str, str]:
    """OpenCode's environment offline, with its own home ``home``."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",  # its bundled model list, not models.dev
        "OPENCODE_DISABLE_SHARE": "1",
        # it installs @opencode-ai/plugin into its config folder in the background, from
        # npm: sent to a closed loopback port, it fails at once (OpenCode goes on without it)
        "npm_config_registry": f"http://127.0.0.1:{free_port()}/",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
