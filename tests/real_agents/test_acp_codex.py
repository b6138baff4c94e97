"""askcli acp with Codex through codex-acp (npm @agentclientprotocol/codex-acp 2.6.0, pinned:
built on Codex's app-server, with its own Codex), offline: its model is the stand-in Responses
API (tests/peers/responses_scripted.py: each model request takes the next scripted turn, and
every request is logged). A whole session at a terminal, the person's answers reaching the
model, recorded and replayed; Codex's request_user_input asked through codex-acp's elicitation
form; its session config options shown and set with --config.

The archived @zed-industries/codex-acp (0.16) is not tested any more: its last release was
superseded by this package, which Zed's agent registry installs now."""

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
from tests.support.codex import logged_outputs as outputs
from tests.support.processes import askcli_path
from tests.support.real_agents import CODEX_ACP, codex_env, needs_codex_acp, stand_in

pytestmark = needs_codex_acp

STANDIN = "responses_scripted.py"


def escalated(command: str, why: str) -> dict[str, Any]:
    """The model's exec_command outside the read-only sandbox: Codex asks first."""
    arguments = {"cmd": command, "sandbox_permissions": "require_escalated", "justification": why}
    return {"call": "exec_command", "arguments": arguments}


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
            ["--record", str(record), "--mode", "read-only", "--", str(CODEX_ACP)],
            work,
            codex_env(tmp_path, port),
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
    assert screen.startswith("(Codex 2.6.0 session ") or "\n(Codex 2.6.0 session " in screen
    assert "(config mode=read-only: read-only, workspace-write, agent, agent-full-access)\n" in (
        screen
    ), screen
    assert (
        "  1. Yes, proceed  (allow_once)\n"
        "  2. Yes, and don't ask again for commands that start with `echo one >\n"
        "     first.txt`  (allow_always)\n"
        "  3. No, and tell Codex what to do differently  (reject_once)\n"
        "Choose 1-3, y = 1, n = 3: y\n"
    ) in screen, screen
    assert "Agent: Wrote first.txt.\n-- turn done, T s\n> write the second file\n" in screen
    assert (
        "Choose 1-3, y = 1, n = 3: n\n"
        "  -> echo two > second.txt  (failed)\n"
        "-- turn ended: cancelled, T s\n"
        "> leave it then\n"
    ) in screen, screen
    assert "  Fine, left it.\n-- turn done, T s\n> \n" in screen, screen
    assert "Traceback" not in screen
    assert (work / "first.txt").read_text() == "one\n"
    assert not (work / "second.txt").exists()
    # what the model heard: the first command ran (exit 0), the second was refused, with the
    # person's next prompt
    assert len(said) == 2, said
    assert "Process exited with code 0" in said[0], said
    assert said[1].startswith("Wall time: ") and said[1].endswith("\naborted by user"), said
    last = json.loads(log.read_text().splitlines()[-1])["request"]["input"]
    assert last[-1]["content"] == [{"type": "input_text", "text": "leave it then"}], last[-3:]
    assert [a["outcome"]["optionId"] for a in sent_answers(record)] == ["allow_once", "cancel"]
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
    proc, log = run_config(tmp_path, "--config", "collaboration_mode=plan", "--mode", "agent")
    assert proc.returncode == 0, proc.stderr
    assert (
        "(config mode=agent: read-only, workspace-write, agent, agent-full-access)\n"
        "(config collaboration_mode=default: default, plan)\n"
    ) in proc.stderr, proc.stderr
    # --mode: Codex's modes are its config option `mode` too, set as one
    assert "(config collaboration_mode=plan: default, plan)\n" in proc.stderr, proc.stderr
    assert proc.stdout.endswith("Hello.\n"), proc.stdout
    requests = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    (request,) = [r for r in requests if r.get("tools")]  # not the title's
    # Plan mode: the model is offered request_user_input
    assert "request_user_input" in [t.get("name") for t in request["tools"]], request["tools"]


def test_codex_config_option_it_does_not_offer(tmp_path: Path) -> None:
    proc, log = run_config(tmp_path, "--config", "effort=high")
    assert proc.returncode == 2, proc.stderr
    assert (
        "askcli: the agent has no config option 'effort'; its options: mode, "
        "collaboration_mode, model\n"
    ) in proc.stderr, proc.stderr
    assert not log.exists() or log.read_text() == ""


QUESTIONS = {
    "questions": [
        {
            "id": "pkg_manager",
            "header": "Pkg mgr",
            "question": "Which package manager?",
            "options": [
                {"label": "pnpm (Recommended)", "description": "fast, strict"},
                {"label": "npm", "description": "bundled with node"},
            ],
        },
        {
            "id": "registry_token",
            "header": "Token",
            "question": "Which registry token?",
            "isSecret": True,
            "options": [
                {"label": "CI token", "description": "the one in CI"},
                {"label": "None", "description": "public packages only"},
            ],
        },
    ]
}


def test_codex_request_user_input_round_trip(tmp_path: Path, work: Path) -> None:
    """Codex's request_user_input (Plan mode) reaches the person through codex-acp's
    elicitation form, asked as Codex's own tool: Other's text and a secret answer typed
    hidden reach the model as Codex's TUI sends them."""
    turns = [
        [{"call": "request_user_input", "arguments": QUESTIONS}],
        [{"text": "Noted."}],
    ]
    record = tmp_path / "codex.json"
    args = ["--record", str(record), "--mode", "read-only", "--config", "collaboration_mode=plan"]
    with stand_in(tmp_path, turns, STANDIN) as (port, log):
        term = Terminal([*args, "--", str(CODEX_ACP)], work, codex_env(tmp_path, port))
        try:
            term.prompt()
            term.type("set up the project")
            term.expect("Choose 1-3 [1]: ")
            term.type("3")
            term.expect("type your answer: ")
            term.type("yarn, pinned")
            term.expect("Choose 1-3: ")
            term.type("3")
            term.expect("type your answer: ")
            term.type("hunter2")
            term.expect("Submit? [y]: ")
            term.type("y")
            term.expect("-- turn done")
            term.prompt()
            assert term.ctrl_d() == 0, term.screen
        finally:
            term.kill()
        said = outputs(log)
    screen = term.screen
    # byte for byte, as Codex's TUI sends it (the ids in Codex's HashMap order: either)
    pkg = '"pkg_manager":{"answers":["None of the above","user_note: yarn, pinned"]}'
    token = '"registry_token":{"answers":["None of the above","user_note: hunter2"]}'
    assert said in (
        ['{"answers":{' + pkg + "," + token + "}}"],
        ['{"answers":{' + token + "," + pkg + "}}"],
    ), said
    assert "hunter2" not in screen, screen
    assert "Agent: Noted.\n" in screen, screen
    replays_the_same(record)
