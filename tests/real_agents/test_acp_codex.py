"""askcli acp with Codex through codex-acp (npm @zed-industries/codex-acp, pinned), offline: its
model is the stand-in Responses API (tests/peers/responses_scripted.py: each model
request takes the next scripted turn, and every request is logged). A whole session at a
terminal, the person's answers reaching the model, recorded and replayed; its session config
options shown and set with --config."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp_sessions import Terminal, replays_the_same, sent_answers
from tests.support.processes import askcli_path
from tests.support.real_agents import CODEX_ACP, codex_env, needs_codex_acp, stand_in

pytestmark = needs_codex_acp

STANDIN = "responses_scripted.py"


def escalated(command: str, why: str) -> dict[str, Any]:
    """The model's exec_command outside the read-only sandbox: Codex asks first."""
    arguments = {"cmd": command, "sandbox_permissions": "require_escalated", "justification": why}
    return {"call": "exec_command", "arguments": arguments}


def outputs(log: Path) -> list[str]:
    """The function_call_output items Codex sent its model, in order, each once."""
    seen: dict[str, str] = {}
    for line in log.read_text().splitlines():
        for item in json.loads(line)["request"].get("input", []):
            if item.get("type") == "function_call_output":
                seen.setdefault(item["call_id"], str(item.get("output")))
    return list(seen.values())


@pytest.fixture
def work() -> Iterator[Path]:
    """A short folder (the permission screen names it)."""
    path = Path(os.path.realpath(tempfile.mkdtemp(prefix="w", dir="/tmp")))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_codex_session_allowed_then_rejected_recorded_and_replayed(
    tmp_path: Path, work: Path
) -> None:
    turns = [
        [escalated("echo one > first.txt", "Write the first file")],
        [{"text": "Wrote first.txt."}],
        [escalated("echo two > second.txt", "Write the second file")],
        [{"text": "Fine, left it."}],
    ]
    record = tmp_path / "codex.json"
    with stand_in(tmp_path, turns, STANDIN) as (port, log):
        term = Terminal(
            ["--record", str(record), "--mode", "read-only", "--", str(CODEX_ACP)], work, codex_env(tmp_path, port)
        )
        term.child.setwinsize(200, 80)  # the permission screen (Codex's input) unpaged
        try:
            term.prompt()
            term.type("write the first file")
            term.expect("y = 1, n = 3: ")
            term.type("y")
            term.expect("-- turn done")
            term.prompt()
            term.type("write the second file")
            term.expect("y = 1, n = 3: ")
            term.type("n")  # Codex ends the turn, for the person to say what instead
            term.expect("-- turn ended: cancelled")
            term.prompt()
            term.type("leave it then")
            term.expect("-- turn done")
            term.prompt()
            assert term.ctrl_d() == 0, term.screen
        finally:
            term.kill()
        said = outputs(log)
    screen = term.screen
    assert screen.startswith("(Codex 0.16.0 session ") or "\n(Codex 0.16.0 session " in screen
    assert "(config mode=read-only: read-only, auto, full-access)\n" in screen, screen
    assert (
        "  1. Yes, proceed  (allow_once)\n"
        "  2. Yes, and don't ask again for commands that start with `/bin/bash -lc echo\n"
        "     one > first.txt`  (allow_always)\n"
        "  3. No, and tell Codex what to do differently  (reject_once)\n"
        "Choose 1-3, y = 1, n = 3: y\n"
    ) in screen, screen
    assert "Agent: Wrote first.txt.\n-- turn done, T s\n> write the second file\n" in screen
    assert (
        "Choose 1-3, y = 1, n = 3: n\n"
        "-- turn ended: cancelled, T s\n"
        "> leave it then\n"
        "Agent: Fine, left it.\n-- turn done, T s\n> \n"
    ) in screen, screen
    assert "Traceback" not in screen
    assert (work / "first.txt").read_text() == "one\n"
    assert not (work / "second.txt").exists()
    # what the model heard: the first command ran (exit 0), the second was refused, with the
    # person's next prompt
    assert len(said) == 2, said
    assert "Process exited with code 0" in said[0], said
    assert said[1].startswith("aborted by user after "), said  # and the seconds it took
    last = json.loads(log.read_text().splitlines()[-1])["request"]["input"]
    assert last[-1]["content"] == [{"type": "input_text", "text": "leave it then"}], last[-3:]
    assert [a["outcome"]["optionId"] for a in sent_answers(record)] == ["approved", "abort"]
    replays_the_same(record)


def run_config(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    with stand_in(tmp_path, [[{"text": "Hello."}]], STANDIN) as (port, log):
        (tmp_path / "work").mkdir()
        proc = subprocess.run(
            [str(askcli_path()), "acp", "--prompt", "hi", *options, "--", str(CODEX_ACP)],
            capture_output=True,
            text=True,
            timeout=90,
            cwd=tmp_path / "work",
            env=codex_env(tmp_path, port),
        )
    return proc, log


def test_codex_config_options_set_reach_the_model(tmp_path: Path) -> None:
    proc, log = run_config(tmp_path, "--config", "reasoning_effort=high", "--mode", "auto")
    assert proc.returncode == 0, proc.stderr
    assert (
        "(config mode=read-only: read-only, auto, full-access)\n"
        "(config model=gpt-5.4: gpt-5.5, gpt-5.4, gpt-5.4-mini, gpt-5.3-codex, gpt-5.2)\n"
        "(config reasoning_effort=medium: low, medium, high, xhigh)\n"
    ) in proc.stderr, proc.stderr
    # --mode: Codex's modes are its config option `mode` too, set as one
    assert "(config mode=auto: read-only, auto, full-access)\n" in proc.stderr, proc.stderr
    assert "(config reasoning_effort=high: low, medium, high, xhigh)\n" in proc.stderr
    assert proc.stdout == "Hello.\n"
    (request,) = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    assert request["reasoning"]["effort"] == "high", request.get("reasoning")


def test_codex_config_option_it_does_not_offer(tmp_path: Path) -> None:
    proc, log = run_config(tmp_path, "--config", "effort=high")
    assert proc.returncode == 2, proc.stderr
    assert (
        "askcli: the agent has no config option 'effort'; its options: mode, model, "
        "reasoning_effort\n"
    ) in proc.stderr, proc.stderr
    assert not log.exists() or log.read_text() == ""
