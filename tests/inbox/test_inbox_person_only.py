"""The inbox's quick path (``y`` or Enter at its prompt, then a key at ``Allow?``) never
approves a request Claude Code 2.1.332 marks ``requires_user_interaction``, and ``inbox
answer ID`` with answers that are not typed at a terminal approves neither that nor one
carrying ``matched_ask_rule``: the question waits again (issue 31, item 5)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.person_side.commands import answer_by_id
from askcli.inbox.store import Agent, QueueState, open_store
from askcli.lines import TextLineReader
from askcli.status import ExitStatus
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.tools.permission import SCRIPTED, STRAY

from tests.support.claude import ASK_RULE_REQUEST as ASK_RULE
from tests.support.claude import CONNECTOR_REQUEST as CONNECTOR
from tests.support.inbox import Queue, result

AGENT = Agent("ask", "s1", "/tmp/work")


def document(request: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_request", "request_id": "r1", "request": request}


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    found = Queue(tmp_path)
    yield found
    found.close()


@pytest.mark.parametrize("request_", [CONNECTOR, ASK_RULE], ids=["person-only", "ask-rule"])
@pytest.mark.parametrize("lines", ["yes\n", "y\n"])
def test_inbox_answer_with_piped_lines_does_not_approve(
    tmp_path: Path, request_: dict[str, Any], lines: str
) -> None:
    path = tmp_path / "inbox.db"
    asker = open_store(path)
    asked = asker.submit(document(request_), AGENT)
    screen, out = io.StringIO(), io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), screen, Style())
    status = answer_by_id(open_store(path), asked.id, conv, out)
    assert status == ExitStatus.NO_ANSWER, screen.getvalue()
    assert '"allow"' not in out.getvalue()
    found = asker.get(asked.id)
    assert found is not None and found.state is QueueState.WAITING  # for a person
    if lines == "yes\n" or request_ is ASK_RULE:
        assert SCRIPTED in screen.getvalue()


@pytest.mark.pty
def test_the_quick_path_does_not_approve_a_person_only_request(queue: Queue) -> None:
    asker = queue.ask(document(CONNECTOR), "a")
    term = queue.inbox()
    term.expect("[y]: ")
    term.type("y")
    term.expect("Tool use: mcp__claude_ai_probe__ping (MCP server claude_ai_probe, source user)")
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("y")
    term.expect(STRAY)
    term.expect("Allow? Type yes to allow, Enter to deny: ")
    term.type("yes")
    term.expect("#1 answered")
    status, (reply,), _ = result(asker)
    assert status == 0
    assert reply["response"]["response"] == {"behavior": "allow", "updatedInput": {"text": "a"}}
