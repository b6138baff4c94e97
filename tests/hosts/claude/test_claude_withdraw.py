"""``askcli claude``: a ``control_cancel_request`` withdraws the question being answered;
askcli stops asking, says so in one line, sends nothing for it, and goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.claude import FAKE
from tests.support.terminals import Terminal


@pytest.mark.pty
@pytest.mark.parametrize(
    ("tool", "asked", "what"),
    [
        ("AskUserQuestion", "Choose 1-3: ", "the question"),
        ("Bash", "touch pwned", "its request to use Bash"),
    ],
)
def test_a_withdrawn_request_stops_the_prompt(
    tmp_path: Path, tool: str, asked: str, what: str
) -> None:
    log = tmp_path / "received.jsonl"
    term = Terminal(
        ["claude", "--claude-bin", str(FAKE), "go"],
        tmp_path,
        FAKE_CLAUDE_MODE="withdraw",
        FAKE_CLAUDE_TOOL=tool,
        FAKE_CLAUDE_WITHDRAW="0.5",
        FAKE_CLAUDE_LOG=str(log),
    )
    term.expect(asked)
    term.expect(f"askcli: Claude Code withdrew {what} (control_cancel_request);")
    term.expect("-- turn done")
    said = " ".join(term.log.getvalue().split())  # folded at the terminal's width
    assert f"withdrew {what} (control_cancel_request); nothing was sent" in said
    term.expect_end()
    term.child.close()
    assert term.child.exitstatus == 0, term.log.getvalue()
    assert term.out.read_text() == "echo: withdrawn: go\n"
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m["type"] for m in received] == ["control_request", "user"]  # no response


def test_in_one_stream_a_cancel_where_an_answer_is_read_withdraws_the_request() -> None:
    """``askcli ask`` reading Claude Code's control requests and the answers from stdin: the
    control_cancel_request for the request being answered takes it back: one line on
    stderr, no response for it, and the next request is asked."""
    from askcli.runners.recordings import play

    questions = {
        "questions": [
            {
                "question": "Which runtime?",
                "header": "Runtime",
                "options": [
                    {"label": "Node", "description": "n"},
                    {"label": "Bun", "description": "b"},
                ],
            },
            {
                "question": "Which db?",
                "header": "DB",
                "options": [
                    {"label": "PG", "description": "p"},
                    {"label": "SQLite", "description": "s"},
                ],
            },
        ]
    }

    def request(rid: str) -> str:
        inner = {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "input": questions}
        return json.dumps({"type": "control_request", "request_id": rid, "request": inner})

    cancel = json.dumps({"type": "control_cancel_request", "request_id": "req_1"})
    other = json.dumps({"type": "control_cancel_request", "request_id": "req_9"})
    outcome = play(stdin=[request("req_1"), "1", cancel, request("req_2"), "2", "1", ""])
    assert "askcli: the request was withdrawn (control_cancel_request); nothing was sent" in (
        outcome.stderr
    )
    (line,) = outcome.stdout
    response = json.loads(line)["response"]
    assert response["request_id"] == "req_2" and response["response"]["behavior"] == "allow"
    assert outcome.status == 0
    # a cancel for another request is a line that ends this call's answers, as before
    outcome = play(stdin=[request("req_1"), "1", other])
    assert json.loads(outcome.stdout[0])["response"]["request_id"] == "req_1"
    assert outcome.status == 3
