"""The MCP Inspector's CLI (``@modelcontextprotocol/inspector``, installed by ``make mcp-clients``
into .cache/, pinned) driving ``askcli mcp``: over stdio (the Inspector starts askcli) or over
``--http`` (the test starts askcli, the Inspector sends the bearer token)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.mcp import serve_http
from tests.support.paths import ROOT
from tests.support.processes import askcli_path
from tests.support.real_agents import free_port

INSPECTOR = ROOT / ".cache" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"
TOKEN = "inspector-test-token-0123456789"


def printed(value: Any) -> str:
    """``value`` as the Inspector's CLI prints a result: JSON indented by two, one newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Stdio:
    """The Inspector starts ``askcli mcp`` as its stdio server (with the inbox in its
    environment: the Inspector passes a server only a few variables of its own)."""

    label: str = "inspector-cli"

    @contextmanager
    def target(self, tmp_path: Path, *mcp_args: str) -> Iterator[list[str]]:
        inbox = tmp_path / "inbox.db"
        server = [str(askcli_path()), "mcp", *mcp_args]
        yield ["-e", f"ASKCLI_INBOX={inbox}", "-e", "NO_COLOR=1", "--", *server]


@dataclass(frozen=True)
class Http:
    """``askcli mcp --http`` started by the test; the Inspector of protocol ``era``
    (``legacy``: 2025 sessions; ``modern``: 2026-07-28, stateless)."""

    era: str = "legacy"
    label: str = 'http client "inspector-cli"'

    @contextmanager
    def target(self, tmp_path: Path, *mcp_args: str) -> Iterator[list[str]]:
        port = free_port()
        served = serve_http(tmp_path, port, *mcp_args, ASKCLI_MCP_TOKEN=TOKEN)
        try:
            yield [
                "--protocol-era",
                self.era,
                "--transport",
                "http",
                "--server-url",
                f"http://127.0.0.1:{port}/mcp",
                "--header",
                f"Authorization: Bearer {TOKEN}",
            ]
        finally:
            served.terminate()
            served.communicate(timeout=10)


def start(target: list[str], *method: str) -> subprocess.Popen[str]:
    """The Inspector's CLI calling ``method`` (``--method tools/list``...) on ``target``."""
    # options before the target: after "--", everything is the server's command
    split = target.index("--") if "--" in target else len(target)
    command = [str(INSPECTOR), "--cli", *target[:split], *method, *target[split:]]
    return subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(proc: subprocess.Popen[str], timeout: float = 90) -> tuple[int, str, str]:
    """The Inspector's exit status, stdout and stderr once it ends."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the Inspector did not end in {timeout} s: {err}") from None
    return proc.returncode, out, err


def call(*tool_args: str) -> list[str]:
    """``--method tools/call`` of ``--tool-name NAME ...``."""
    return ["--method", "tools/call", *tool_args]
