"""askcli ask answering the real Codex app-server (Codex CLI 0.171.0, ``codex app-server`` on
stdio), offline on the scripted stand-in Responses API: the app-server's request to its client
is given to ``askcli ask`` at a terminal, its JSON-RPC response goes back to Codex, and the
model's next request shows what Codex made of it, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.codex import CODEX
from tests.support.codex import logged_outputs as outputs
from tests.support.codex_app_server import AppServer
from tests.support.real_agents import codex_env, stand_in
from tests.support.terminals import Terminal

pytestmark = [
    pytest.mark.skipif(
        not CODEX.exists(), reason="Codex CLI is not installed (make test installs it with npm)"
    ),
    pytest.mark.pty,
]

STANDIN = "responses_scripted.py"
AMENDMENT = ["/bin/bash", "-lc", "echo one > first.txt"]
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
        }
    ]
}


def asked(tmp_path: Path, request: dict[str, Any], answers: list[tuple[str, str | None]]) -> Any:
    """``askcli ask`` at a terminal for the app-server's ``request``: each (shown, typed)
    pair (None: nothing typed); its JSON-RPC response."""
    call = tmp_path / "request.json"
    call.write_text(json.dumps(request))
    term = Terminal(["ask", str(call)], tmp_path)
    for shown, typed in answers:
        term.expect(shown)
        if typed is not None:
            term.type(typed)
    _, reply = term.finish()
    assert "hunter2" not in term.log.getvalue()
    return reply


def test_request_user_input_answered_through_askcli_ask(tmp_path: Path) -> None:
    turns = [[{"call": "request_user_input", "arguments": QUESTIONS}], [{"text": "Noted."}]]
    work = tmp_path / "work"
    work.mkdir()
    with stand_in(tmp_path, turns, STANDIN) as (port, log):
        server = AppServer(codex_env(tmp_path, port), work, tmp_path / "codex.err")
        try:
            server.start_turn(work, "set up the project", mode="plan")
            request = server.server_request("item/tool/requestUserInput")
            (question,) = request["params"]["questions"]
            assert question["isOther"] is True  # Codex adds Other to every question
            reply = asked(
                tmp_path,
                request,
                [("Choose 1-3 [1]: ", "3"), ("type your answer: ", "yarn, pinned")],
            )
            assert reply["id"] == request["id"]
            server.send(reply)
            server.notification("turn/completed")
        finally:
            server.close()
        said = outputs(log)
    assert said == [
        '{"answers":{"pkg_manager":{"answers":["None of the above","user_note: yarn, pinned"]}}}'
    ], said


def test_command_approval_answered_through_askcli_ask(tmp_path: Path) -> None:
    arguments = {
        "cmd": "echo one > first.txt",
        "sandbox_permissions": "require_escalated",
        "justification": "Write the first file",
    }
    turns = [[{"call": "exec_command", "arguments": arguments}], [{"text": "Left it."}]]
    work = tmp_path / "work"
    work.mkdir()
    with stand_in(tmp_path, turns, STANDIN) as (port, log):
        server = AppServer(codex_env(tmp_path, port), work, tmp_path / "codex.err")
        try:
            server.start_turn(work, "write the first file")
            request = server.server_request("item/commandExecution/requestApproval")
            params = request["params"]
            assert params["reason"] == "Write the first file", params
            # Codex 0.171.0 offers no "decline" here: accept, its amendment, cancel
            assert params["availableDecisions"] == [
                "accept",
                {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": AMENDMENT}},
                "cancel",
            ], params
            reply = asked(
                tmp_path,
                request,
                [
                    ("don't ask again for commands that start with `/bin/bash -lc 'echo", None),
                    ("Choose 1-3: ", "1"),
                ],
            )
            assert reply == {
                "jsonrpc": "2.0",
                "id": request["id"],
                "result": {"decision": "accept"},
            }
            server.send(reply)
            server.notification("turn/completed")
        finally:
            server.close()
        said = outputs(log)
    assert (work / "first.txt").read_text() == "one\n"
    (output,) = said
    assert "Process exited with code 0" in output, said
