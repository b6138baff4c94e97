"""The MCP Inspector's CLI (``@modelcontextprotocol/inspector``, installed by ``make mcp-clients``
into .cache/, pinned) against ``askcli mcp`` over stdio and ``--http``: the tools it lists, a
question the person answers or declines in the inbox, a question that outlives one of the
Inspector's calls (2026-07-28: the ticket collected by a later run), and the Inspector's own
60 s request timeout, which docs/mcp.md states."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from askcli.hosts.mcp.server import tool_definitions
from askcli.inbox.store import QueueState, open_store
from askcli.wire.results import REJECT_MESSAGE

from tests.support.inspector import INSPECTOR, Http, Stdio, call, finish, printed, start
from tests.support.mcp import ASKED, BLUE, answer_next, next_question

pytestmark = pytest.mark.skipif(
    not INSPECTOR.exists(),
    reason="the MCP Inspector is not installed (make mcp-clients installs it with npm)",
)

TRANSPORTS = [
    pytest.param(Stdio(), id="stdio"),
    pytest.param(Http(), id="http"),
    pytest.param(Http(era="modern"), id="http-2026-07-28"),
]
ASK = ("--tool-name", "ask_user_questions", "--tool-args-json", json.dumps(ASKED))


def test_the_inspector_lists_askclis_tools(tmp_path: Path) -> None:
    outputs = []
    for transport in (Stdio(), Http(), Http(era="modern")):
        with transport.target(tmp_path) as target:
            status, out, err = finish(start(target, "--method", "tools/list"))
        assert status == 0, err
        outputs.append(out)
    stdio, http, modern = outputs
    # askcli's tools as askcli defines them, printed as the Inspector prints JSON
    assert json.loads(stdio) == {"tools": tool_definitions()}
    assert stdio == printed(json.loads(stdio))
    # byte for byte the same over HTTP, in both protocol eras (the 2026-07-28 schema's
    # keys come in another order)
    assert http == stdio
    assert json.loads(modern)["tools"] == tool_definitions()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_persons_answer_is_the_inspectors_result(
    tmp_path: Path, transport: Stdio | Http
) -> None:
    with transport.target(tmp_path) as target:
        inspector = start(target, *call(*ASK))
        question = answer_next(tmp_path / "inbox.db", "2\n", timeout=30)
        status, out, err = finish(inspector)
    assert status == 0, err
    assert question.call["input"] == ASKED
    assert question.agent.label.startswith(transport.label)
    result = {"content": [{"type": "text", "text": BLUE}], "isError": False}
    if isinstance(transport, Http) and transport.era == "modern":
        assert json.loads(out)["content"] == result["content"]  # with the server's _meta
        assert json.loads(out)["isError"] is False
    else:
        assert out == printed(result)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_declined_question_is_the_inspectors_tool_error(
    tmp_path: Path, transport: Stdio | Http
) -> None:
    with transport.target(tmp_path) as target:
        inspector = start(target, *call(*ASK))
        question = answer_next(tmp_path / "inbox.db", "q\n", timeout=30)
        status, out, err = finish(inspector)
    assert status == 5  # the Inspector's exit status for a result with isError
    assert json.loads(out)["content"] == [{"type": "text", "text": REJECT_MESSAGE}]
    assert json.loads(out)["isError"] is True
    assert '"code":"tool_is_error"' in err
    assert open_store(tmp_path / "inbox.db").state(question.id) is QueueState.ANSWERED


def test_the_inspector_of_2026_07_28_waits_on_a_task(tmp_path: Path) -> None:
    """The Inspector's modern era lists the tasks extension (its ext-tasks 0.2.2 requester):
    its call is a task, polled with tasks/get past askcli's --wait, until the person
    answers (no still-waiting ticket)."""
    inbox = tmp_path / "inbox.db"
    with Http(era="modern").target(tmp_path, "--wait", "1") as target:
        inspector = start(target, *call(*ASK))
        question = next_question(inbox, timeout=30)
        time.sleep(3)  # past --wait: a blocking call would have had its ticket by now
        assert inspector.poll() is None
        assert answer_next(inbox, "2\n").id == question.id
        status, out, err = finish(inspector)
    assert status == 0, err
    assert json.loads(out)["content"] == [{"type": "text", "text": BLUE}]
    assert open_store(inbox).state(question.id) is QueueState.ANSWERED


@pytest.mark.slow
def test_the_inspector_gives_up_on_a_call_after_60_seconds(tmp_path: Path) -> None:
    # the figure docs/mcp.md gives: the MCP TypeScript SDK's default request timeout, which
    # the Inspector's CLI neither changes nor resets (it asks for no progress notifications)
    with Stdio().target(tmp_path, "--wait", "120") as target:
        began = time.monotonic()
        status, out, err = finish(start(target, *call(*ASK)), timeout=150)
        took = time.monotonic() - began
    assert status != 0 and out == ""
    assert "Request timed out after 1m00s (tools/call)" in err
    assert 60 <= took < 110, took  # its start and askcli's on a busy machine: seconds
    # its server ended with it: the question nobody can collect is withdrawn
    (question,) = open_store(tmp_path / "inbox.db").questions(states=tuple(QueueState))
    assert open_store(tmp_path / "inbox.db").state(question.id) is QueueState.WITHDRAWN
