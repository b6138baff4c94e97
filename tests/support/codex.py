"""The real Codex CLI with askcli mcp in its config.toml, against the stand-in Responses API."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from askcli.inbox.store import QueuedQuestion, QueueState, open_store

from tests.support.mcp import listening
from tests.support.paths import ROOT
from tests.support.real_agents import PEERS

CODEX = ROOT / ".cache" / "codex" / "node_modules" / ".bin" / "codex"


PNPM = (
    'User has answered your questions: "Which package manager should the project use?"='
    '"pnpm". You can now continue with the user\'s answers in mind.'
)


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
            waiting = open_store(self.inbox).questions(states=(QueueState.WAITING,))
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


def logged_outputs(log: Path) -> list[str]:
    """The function_call_output items Codex sent its model (the stand-in's log, a request a
    line), in order, each once."""
    seen: dict[str, str] = {}
    for line in log.read_text().splitlines():
        for item in json.loads(line)["request"].get("input", []):
            if item.get("type") == "function_call_output":
                seen.setdefault(item["call_id"], str(item.get("output")))
    return list(seen.values())
