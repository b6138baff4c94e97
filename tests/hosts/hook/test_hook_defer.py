"""askcli hook --defer-after: when it defers (claude -p, a call alone in its message), what it
prints (Claude Code's ``defer``), the question left in the inbox, deferred, across its asker's
end and an hour, and the resumed call taking it back with its answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from askcli.hosts.hook.command import DEFER, Hook, deferral, parse_hook
from askcli.hosts.hook.transcript import calls_beside
from askcli.inbox.store import QueueState, deferred, open_store

from tests.support.hook import (
    PRINT_MODE,
    _where,
    hook_input,
    inbox_env,
    print_mode_input,
    transcript,
)
from tests.support.inbox import answer_queued
from tests.support.processes import run_askcli

KEY = "5e55-1011/toolu_a1"


@pytest.fixture
def on_each_store(tmp_path: Path, inbox_where: str) -> str:
    """The hook's inbox for this test: each store in turn."""
    (tmp_path / "inbox.where").write_text(inbox_where)
    return inbox_where


def queued(tmp_path: Path) -> list[Any]:
    """Every question of the test's inbox, in any state."""
    store = open_store(_where(tmp_path))
    try:
        return store.questions(states=tuple(QueueState))
    finally:
        store.close()


def parsed(value: dict[str, Any]) -> Hook:
    return parse_hook(json.dumps(value).encode())


def hook(tmp_path: Path, value: dict[str, Any], *args: str, **env: str) -> Any:
    """``askcli hook ARGS`` given ``value``, in claude -p unless ``env`` says otherwise."""
    return run_askcli(
        "hook",
        *args,
        input=json.dumps(value),
        env={**inbox_env(tmp_path), **PRINT_MODE, **env},
        timeout=30,
    )


def test_deferred_only_in_print_mode_for_a_call_alone(tmp_path: Path) -> None:
    alone = parsed(print_mode_input(tmp_path))
    assert deferral(alone, 5.0, PRINT_MODE) == (KEY, 5.0)
    # the interactive interface (Claude Code ignores defer there) or an older Claude Code
    # that does not say: the key finds a deferred question, nothing is deferred
    assert deferral(alone, 5.0, {"CLAUDE_CODE_SESSION_ATTENDED": "1"}) == (KEY, None)
    assert deferral(alone, 5.0, {}) == (KEY, None)
    beside = parsed(print_mode_input(tmp_path / "..", "toolu_a2"))
    assert deferral(beside, 5.0, PRINT_MODE) == (KEY, None)
    unread = parsed({**print_mode_input(tmp_path), "transcript_path": str(tmp_path / "gone")})
    assert deferral(unread, 5.0, PRINT_MODE) == (KEY, None)
    assert deferral(alone, None, PRINT_MODE) is None
    assert deferral(parsed(hook_input("PermissionRequest", "Bash")), 5.0, PRINT_MODE) is None
    no_id = {k: v for k, v in print_mode_input(tmp_path).items() if k != "tool_use_id"}
    assert deferral(parsed(no_id), 5.0, PRINT_MODE) is None


def test_calls_beside_counts_the_tool_calls_of_the_calls_message(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", "toolu_a1", "toolu_a2", "toolu_a3")
    assert calls_beside(str(path), "toolu_a2") == 3
    transcript(path, "toolu_a1")
    with path.open("a") as f:  # a later message's calls are not this one's
        f.write(
            json.dumps({"message": {"id": "msg_2", "content": [{"type": "tool_use", "id": "b"}]}})
        )
        f.write("\nnot json\n")
    assert calls_beside(str(path), "toolu_a1") == 1
    assert calls_beside(str(path), "toolu_zz") is None
    assert calls_beside(str(tmp_path / "missing.jsonl"), "toolu_a1") is None


@pytest.mark.process
def test_unanswered_call_is_deferred_and_the_resumed_call_takes_its_answer(
    tmp_path: Path, on_each_store: str
) -> None:
    value = print_mode_input(tmp_path)
    first = hook(tmp_path, value, "--defer-after", "0.3")
    assert (first.returncode, json.loads(first.stdout)) == (0, DEFER)
    assert "question 1 stays in the inbox, deferred" in first.stderr
    store = open_store(on_each_store)
    try:
        now = store._now()  # a store reads its skew once, at its first look at the clock
        # its asker is gone, and an hour passes: the question is still there, deferred
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("ASKCLI_TEST_CLOCK_SKEW", "3600")
            later = open_store(on_each_store)
            try:
                assert later._now() - now > 3590
                assert later.tidy() == []
                (question,) = deferred.waiting(later)
            finally:
                later.close()
        assert (question.state, question.deferred) == (QueueState.WAITING, KEY)
        again = hook(tmp_path, value, "--defer-after", "0.3")  # resumed before the answer
        assert (again.returncode, json.loads(again.stdout)) == (0, DEFER)
        assert [q.id for q in queued(tmp_path)] == [1]  # the same question, deferred again
        assert answer_queued(store, "2\n", 1)
    finally:
        store.close()
    resumed = hook(tmp_path, value, "--defer-after", "0.3")
    output = json.loads(resumed.stdout)["hookSpecificOutput"]
    assert (output["permissionDecision"], output["updatedInput"]["answers"]) == (
        "allow",
        {"Which color?": "Blue"},
    )
    assert "question 1, deferred, was answered meanwhile" in resumed.stderr
    (done,) = queued(tmp_path)
    assert (done.state, done.deferred) == (QueueState.ANSWERED, None)
    assert hook(tmp_path, value, "--defer-after", "0.3", "--timeout", "0.2").stdout  # asked anew
    assert len(queued(tmp_path)) == 2


@pytest.mark.process
@pytest.mark.parametrize(
    ("siblings", "env"),
    [((), {"CLAUDE_CODE_SESSION_ATTENDED": "1"}), (("toolu_a2",), PRINT_MODE)],
    ids=["interactive", "sibling"],
)
def test_never_deferred_where_claude_code_would_not_defer(
    tmp_path: Path, siblings: tuple[str, ...], env: dict[str, str]
) -> None:
    value = print_mode_input(tmp_path, *siblings)
    done = hook(tmp_path, value, "--defer-after", "0.2", "--timeout", "1", **env)
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"  # --timeout: nobody answered
    assert "no reply within 1 second" in output["permissionDecisionReason"]
    (question,) = queued(tmp_path)
    assert (question.state, question.deferred) == (QueueState.WITHDRAWN, None)


@pytest.mark.process
def test_timeout_before_the_deferral_denies(tmp_path: Path) -> None:
    value = print_mode_input(tmp_path)
    done = hook(tmp_path, value, "--defer-after", "5", "--timeout", "0.3")
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert [q.deferred for q in queued(tmp_path)] == [None]


@pytest.mark.process
def test_inbox_list_says_deferred(tmp_path: Path) -> None:
    hook(tmp_path, print_mode_input(tmp_path), "--defer-after", "0.1")
    listed = run_askcli("inbox", "list", env=inbox_env(tmp_path))
    assert "deferred: its agent stopped, and takes the answer when resumed" in listed.stdout
