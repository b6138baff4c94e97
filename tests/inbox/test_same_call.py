"""One Claude Code permission prompt served by two askers (askcli hook's PermissionRequest and
askcli mcp's permission tool) is one question: the second to submit finds the first's and
waits for it; an identical call of another session, another tool_use id, or made again
after an answer, is a question of its own."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from askcli.inbox import same_call
from askcli.inbox.asker_identity import process_start
from askcli.inbox.asker_side import ask_inbox
from askcli.inbox.store import Agent, QueueState, Store, open_store
from askcli.wire.calls import permission_request
from askcli.wire.documents import Document

from tests.support.inbox import answer_queued, as_if_asked_by

SESSION = "5e55-10n"
BASH = {"command": "ls"}


def prompt(
    source: str, *, use_id: str | None = None, session: str | None = SESSION, tool_input: Any = BASH
) -> dict[str, Any]:
    return permission_request(source, "Bash", tool_input, tool_use_id=use_id, session_id=session)


@pytest.fixture
def store(inbox_where: str) -> Iterator[Store]:
    opened = open_store(inbox_where)
    yield opened
    opened.close()


def queued_by_another(store: Store, call: dict[str, Any]) -> int:
    """``call`` queued by another live process of this machine (this one's parent)."""
    question = store.submit(call, Agent("claude-code", SESSION))
    parent = os.getppid()
    as_if_asked_by(store, question.id, parent, process_start(parent))
    return question.id


def submitted(store: Store, call: dict[str, Any]) -> int:
    return store.submit(call, Agent("claude", SESSION), joins=same_call.joins_for(call)).id


def test_the_hook_finds_the_permission_tool_s_question(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-mcp-permission", use_id="toolu_1"))
    assert submitted(store, prompt("askcli-hook")) == first  # the hook's input has no id
    assert len(store.questions()) == 1


def test_the_permission_tool_finds_the_hook_s_question(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-hook"))
    assert submitted(store, prompt("askcli-mcp-permission", use_id="toolu_1")) == first


@pytest.mark.parametrize(
    "other",
    [
        prompt("askcli-hook", session="another-session"),
        prompt("askcli-hook", session=None),
        prompt("askcli-hook", use_id="toolu_2"),
        prompt("askcli-hook", tool_input={"command": "ls -a"}),
    ],
    ids=["other-session", "no-session", "other-call", "other-input"],
)
def test_another_call_is_a_question_of_its_own(store: Store, other: dict[str, Any]) -> None:
    first = queued_by_another(store, other)
    assert submitted(store, prompt("askcli-mcp-permission", use_id="toolu_1")) != first
    assert len(store.questions()) == 2


def test_two_hooks_of_identical_calls_ask_twice(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-hook"))
    assert submitted(store, prompt("askcli-hook")) != first


def test_a_question_of_this_process_is_never_joined(store: Store) -> None:
    first = store.submit(prompt("askcli-hook"), Agent("claude", SESSION)).id
    assert submitted(store, prompt("askcli-mcp-permission", use_id="toolu_1")) != first


def test_an_answered_call_is_joined_only_by_its_own_tool_use_id(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-mcp-permission", use_id="toolu_1"))
    assert answer_queued(store, "1\n", first)
    # the hook of that very call, late: its decision is handed on at once
    assert submitted(store, prompt("askcli-hook", use_id="toolu_1")) == first
    # an identical call made again, or one that cannot say which it is: asked again
    assert submitted(store, prompt("askcli-hook", use_id="toolu_2")) != first
    assert submitted(store, prompt("askcli-hook")) != first


def ask_hook_style(store: Store, got: list[Any]) -> threading.Event:
    """ask_inbox as askcli hook asks a PermissionRequest, in a thread, its reply put in
    ``got``; the event is set once it waits for another asker's question."""
    joined = threading.Event()

    def said(line: str) -> None:
        if "is waited for" in line:
            joined.set()

    def run() -> None:
        mine = open_store(store.where) if store.pushes else store.reopen()
        document = Document(prompt("askcli-hook"))
        got.append(ask_inbox(mine, document, Agent("claude", SESSION), said=said, one_call=True))

    threading.Thread(target=run, daemon=True).start()
    assert joined.wait(30)
    return joined


def replied(got: list[Any]) -> Any:
    for _ in range(1500):
        if got:
            return got[0]
        threading.Event().wait(0.02)
    pytest.fail("the joined asker got no reply")


def test_the_joined_asker_gets_the_person_s_decision(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-mcp-permission", use_id="toolu_1"))
    got: list[Any] = []
    ask_hook_style(store, got)
    assert answer_queued(store, "3\nnot now\n", first)
    (result,) = replied(got).results
    assert not result.allowed and result.decision()["message"].endswith("not now")
    assert [q.state for q in store.questions(states=tuple(QueueState))] == [QueueState.ANSWERED]


def test_a_joined_question_withdrawn_by_its_asker_is_asked_again(store: Store) -> None:
    first = queued_by_another(store, prompt("askcli-mcp-permission", use_id="toolu_1"))
    got: list[Any] = []
    ask_hook_style(store, got)
    assert store.withdraw(first)
    second = None
    for _ in range(1500):
        waiting = store.questions()
        if waiting:
            second = waiting[0]
            break
        threading.Event().wait(0.02)
    assert second is not None and second.id != first and second.call["request_id"] == "askcli-hook"
    assert answer_queued(store, "1\n", second.id)
    assert replied(got).results[0].allowed
