"""askcli mcp's permission tool (Claude Code's ``--permission-prompt-tool``) in process: the
request is queued as askcli hook queues it, the person's decision comes back as the JSON
Claude Code reads, a request that cannot be one is denied at once, a call Claude Code
withdraws takes its question back, and a question askcli hook queued for the same call is
waited for rather than asked again."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from askcli.hosts.mcp import permission_tool as permission
from askcli.hosts.mcp.asker import STDIO, QueueSide
from askcli.inbox.asker_identity import process_start
from askcli.inbox.store import Agent, QueueState, Store, open_store
from askcli.wire import results
from askcli.wire.calls import permission_request

from tests.support.inbox import answer_queued, as_if_asked_by

SESSION = "0f1e2d3c-session"
BASH = {"command": 'python3 -c "print(6*7)"', "description": "compute"}
REQUEST = {"tool_name": "Bash", "input": BASH, "tool_use_id": "toolu_p1"}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.setenv(permission.SESSION_ENV, SESSION)
    opened = open_store(tmp_path / "inbox.db")
    yield opened
    opened.close()


async def no_progress(done: float, message: str) -> None:
    pass


def decide(
    store: Store, arguments: Any, lines: str | None = None, after: str = "waits in the inbox"
) -> tuple[Any, list[str]]:
    """The tool's result for ``arguments`` (its JSON) while a person answers the first
    question that waits with ``lines``, once the server said ``after``; the server's log."""
    log: list[str] = []
    side = QueueSide(store.reopen(), say=log.append)

    def person() -> None:
        for _ in range(1500):
            if any(after in line for line in log):
                answer_first(store, lines or "")
                return
            threading.Event().wait(0.02)

    person_thread = threading.Thread(target=person, daemon=True)
    if lines is not None:
        person_thread.start()
    outcome = anyio.run(permission.call, side, arguments, "claude-code", no_progress, STDIO)
    if lines is not None:
        person_thread.join(timeout=30)
    assert not outcome.is_error
    return json.loads(outcome.text), log


def answer_first(store: Store, lines: str) -> None:
    mine = store.reopen()
    for _ in range(1500):
        waiting = mine.questions(states=(QueueState.WAITING,))
        if waiting:
            assert answer_queued(mine, lines, waiting[0].id)
            return
        threading.Event().wait(0.02)


def test_the_person_allows_and_claude_code_gets_the_input_to_run(store: Store) -> None:
    decision, _ = decide(store, REQUEST, "1\n")
    assert decision == {"behavior": "allow", "updatedInput": BASH}
    (asked,) = store.questions(states=tuple(QueueState))
    assert asked.call == permission_request(
        permission.REQUEST_ID, "Bash", BASH, tool_use_id="toolu_p1", session_id=SESSION
    )
    assert asked.agent.client == "claude-code" and asked.agent.session == SESSION


def test_the_person_denies_with_words(store: Store) -> None:
    decision, _ = decide(store, REQUEST, "3\nrun « the tests » first\n")
    message = results.REJECT_WITH_WORDS_PREFIX + "run « the tests » first"
    assert decision == {"behavior": "deny", "message": message}


@pytest.mark.parametrize(
    "arguments",
    [{}, {"tool_name": "", "input": {}}, {"tool_name": "Bash", "input": "ls"}, None],
    ids=["nothing", "no-tool", "input-not-object", "none"],
)
def test_a_request_that_is_not_one_is_denied_at_once(store: Store, arguments: Any) -> None:
    decision, log = decide(store, arguments)
    assert decision["behavior"] == "deny"
    assert decision["message"].startswith("askcli: the permission request is not valid: ")
    assert store.questions(states=tuple(QueueState)) == [] and log


def test_an_invalid_ask_user_question_is_denied_with_why(store: Store) -> None:
    request = {"tool_name": "AskUserQuestion", "input": {"questions": "which?"}}
    decision, _ = decide(store, request)
    assert decision["behavior"] == "deny" and "questions" in decision["message"]
    assert store.questions(states=tuple(QueueState)) == []


def test_a_question_askcli_hook_queued_for_the_call_is_waited_for(store: Store) -> None:
    hooks = permission_request("askcli-hook", "Bash", BASH, session_id=SESSION)
    first = store.submit(hooks, Agent("claude", SESSION)).id
    as_if_asked_by(store, first, os.getppid(), process_start(os.getppid()))
    decision, log = decide(store, REQUEST, "3\nnot now\n", after="is waited for")
    assert decision == {"behavior": "deny", "message": results.REJECT_WITH_WORDS_PREFIX + "not now"}
    assert [q.id for q in store.questions(states=tuple(QueueState))] == [first]
    assert "permission prompt 1, queued by askcli hook, is waited for" in log


def test_claude_code_withdrawing_the_call_withdraws_its_question(store: Store) -> None:
    side = QueueSide(store.reopen())

    async def called_then_cancelled() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(permission.call, side, REQUEST, "claude-code", no_progress, STDIO)
            while not store.questions():
                await anyio.sleep(0.02)
            group.cancel_scope.cancel()  # as notifications/cancelled does

    anyio.run(called_then_cancelled)
    assert [q.state for q in store.questions(states=tuple(QueueState))] == [QueueState.WITHDRAWN]
    assert side.mine == set()
