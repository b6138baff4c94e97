"""``askcli claude --inbox`` in process: Claude Code's requests go to the asker it was
given (the inbox) as the one can_use_tool document askcli builds, and the inbox's decision
goes back to Claude Code; what ``--allow`` and ``--deny`` decide is never queued, and a
line at askcli claude's own input never answers a question that waits in the inbox."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from askcli.inbox.asker_side import InboxAsker
from askcli.inbox.store import Agent, QueueState, open_store

from tests.support.claude import INIT_OK, QUESTIONS, RESULT, can_use_tool, hosted, responses
from tests.support.inbox import answer_queued, queued
from tests.support.processes import askcli_path

CAREFUL = {"decision_reason": "touches /etc", "default_to_no": True}


def person(path: Path, lines: str) -> threading.Thread:
    """A person at an inbox of ``path`` who answers the first question to arrive."""

    def answer() -> None:
        store = open_store(path)
        try:
            for _ in range(2000):
                if store.questions(states=(QueueState.WAITING,)):
                    answer_queued(store, lines)
                    return
                threading.Event().wait(0.01)
        finally:
            store.close()

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return thread


def inbox(path: Path, said: list[str]) -> InboxAsker:
    return InboxAsker(open_store(path), Agent("claude", None, "/work", "pid 1"), said=said.append)


def asked(path: Path) -> list[dict]:
    return [q.call for q in queued(path)]


def test_a_permission_request_is_decided_in_the_inbox(tmp_path: Path) -> None:
    path, said = tmp_path / "inbox.db", []
    request = can_use_tool("r1", "Bash", {"command": "ls /etc"})
    request["request"].update(CAREFUL, permission_suggestions=[{"type": "addRules"}])
    answering = person(path, "yes\n")
    status, _, err, sent = hosted([INIT_OK, request, RESULT], ["n"], asker=inbox(path, said))
    answering.join(10)
    assert status == 0, err
    assert responses(sent) == [{"behavior": "allow", "updatedInput": {"command": "ls /etc"}}]
    assert said == [f"question 1 is waiting in the inbox {path}"]
    assert "Allow?" not in err  # asked there, not here: the "n" here was never read
    (document,) = asked(path)
    assert document == {
        "type": "control_request",
        "request_id": "r1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "Bash",
            "input": {"command": "ls /etc"},
            "tool_use_id": "toolu_1",
            "permission_suggestions": [{"type": "addRules"}],
            **CAREFUL,
        },
    }


def test_a_question_answered_in_the_inbox_goes_back_as_updated_input(tmp_path: Path) -> None:
    path, said = tmp_path / "inbox.db", []
    answering = person(path, "2\n\n2,3\nDocs\n\n")
    lines = [INIT_OK, can_use_tool("r1", "AskUserQuestion", QUESTIONS), RESULT]
    status, _, err, sent = hosted(lines, ["1", "1"], asker=inbox(path, said))
    answering.join(10)
    assert status == 0, err
    (decision,) = responses(sent)
    assert decision["behavior"] == "allow"
    assert decision["updatedInput"]["answers"] == {
        "Which runtime?": "Bun",
        "Which extras?": "Tests, Docs",
    }
    assert "Which runtime?" not in err


def test_allow_and_deny_are_decided_here_and_never_queued(tmp_path: Path) -> None:
    path, said = tmp_path / "inbox.db", []
    lines = [
        INIT_OK,
        can_use_tool("r1", "Bash", {"command": "ls"}),
        can_use_tool("r2", "Write", {"file_path": "x"}, "toolu_2"),
        RESULT,
    ]
    asker = inbox(path, said)
    status, _, _, sent = hosted(lines, [], allow=["Bash"], deny=["Write"], asker=asker)
    assert status == 0
    assert [d["behavior"] for d in responses(sent)] == ["allow", "deny"]
    assert not path.exists() or asked(path) == []
    assert said == []


@pytest.mark.process
def test_record_and_inbox_together_are_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            str(askcli_path()),
            "claude",
            "--claude-bin",
            sys.executable,
            "--inbox",
            "--record",
            str(tmp_path / "f.json"),
            "go",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "--record keeps the answers typed here: it cannot be used with --inbox" in proc.stderr


def test_an_mcp_servers_form_is_answered_in_the_inbox(tmp_path: Path) -> None:
    path, said = tmp_path / "inbox.db", []
    form = {
        "type": "control_request",
        "request_id": "req_e1",
        "request": {
            "subtype": "elicitation",
            "mcp_server_name": "deploy",
            "message": "Where should the preview go?",
            "mode": "form",
            "requested_schema": {
                "type": "object",
                "properties": {"region": {"type": "string", "enum": ["eu", "us"]}},
                "required": ["region"],
            },
        },
    }
    answering = person(path, "2\n\n")
    status, _, err, sent = hosted([INIT_OK, form, RESULT], ["1"], asker=inbox(path, said))
    answering.join(10)
    assert status == 0, err
    assert responses(sent) == [{"action": "accept", "content": {"region": "us"}}]
    assert asked(path) == [form]
