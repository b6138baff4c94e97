"""Exactly once under a lost acknowledgement (SPEC §7): the server commits a state change and
the connection drops before the client hears it (tests/support/pgproxy.py cuts it right there). The
client makes the connection again and tries once more; every change is idempotent for the
one who made it, so the retry learns its own change went through: the asker gets the answer
it already took (never "taken by another asker", never a deny for an allow), the person is
told their answer was sent, the inbox holds the question it claimed."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from askcli.inbox.person_side.commands import inbox_id
from askcli.inbox.person_side.holding import take_over
from askcli.inbox.store import Agent, QueueState, Store, open_store

from tests.support.calls import call, question
from tests.support.pgproxy import CutProxy
from tests.support.processes import askcli_path

pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

AGENT = Agent("claude", "s1", "/work/api")
LIBRARY = call(question("Which library?", "Library", ["date-fns", "Day.js"]))
REPLY = {"replies": [], "status": 0, "results": []}


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[CutProxy]:
    port = urlsplit(postgres_url).port
    assert port is not None
    cutting = CutProxy(port)
    yield cutting
    cutting.close()


@pytest.fixture
def direct(postgres_url: str) -> Iterator[Store]:
    opened = open_store(postgres_url)
    yield opened
    opened.close()


@pytest.fixture
def cut(proxy: CutProxy, postgres_url: str, direct: Store) -> Iterator[Store]:
    """The same queue through the proxy (the schema made first, directly)."""
    direct.ids()
    opened = open_store(proxy.url(postgres_url))
    opened.ids()
    yield opened
    opened.close()


def _answered(direct: Store, reply: object = REPLY, *, secret: bool = False) -> int:
    asked = direct.submit(LIBRARY, AGENT)
    inbox = inbox_id()
    direct.heartbeat(inbox)
    assert direct.claim(inbox, asked.id) is not None
    assert direct.answer(inbox, asked.id, reply, secret=secret, decision="Library: date-fns")
    return asked.id


def test_take_after_a_lost_acknowledgement_gets_the_answer_it_took(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    qid = _answered(direct)
    proxy.cut_after_commits()
    assert cut.take(qid) == REPLY
    assert proxy.cuts == 1
    assert cut.take(qid) is None  # once: a second take of the same question is not another


def test_a_secret_taken_across_a_lost_acknowledgement_is_still_erased(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    qid = _answered(direct, {**REPLY, "replies": ["hunter2"]}, secret=True)
    proxy.cut_after_commits()
    assert cut.take(qid) == {**REPLY, "replies": ["hunter2"]}
    assert proxy.cuts == 1
    found = direct.get(qid)
    assert found is not None and found.result is None


def test_answer_after_a_lost_acknowledgement_is_told_sent(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    asked = direct.submit(LIBRARY, AGENT)
    inbox = inbox_id()
    cut.heartbeat(inbox)
    assert cut.claim(inbox, asked.id) is not None
    proxy.cut_after_commits()
    assert cut.answer(inbox, asked.id, REPLY, decision="Library: date-fns") is True
    assert proxy.cuts == 1
    assert direct.take(asked.id) == REPLY  # and the asker gets exactly that


def test_claim_after_a_lost_acknowledgement_holds_the_question(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    asked = direct.submit(LIBRARY, AGENT)
    inbox = inbox_id()
    cut.heartbeat(inbox)
    proxy.cut_after_commits()
    held = cut.claim(inbox)
    assert proxy.cuts == 1
    assert held is not None and held.id == asked.id  # not "nothing waits"
    assert held.state is QueueState.ANSWERING
    assert cut.answer(inbox, asked.id, REPLY)


def test_claim_by_id_after_a_lost_acknowledgement_holds_it(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    asked = direct.submit(LIBRARY, AGENT)
    inbox = inbox_id()
    cut.heartbeat(inbox)
    proxy.cut_after_commits()
    held = cut.claim(inbox, asked.id)
    assert proxy.cuts == 1
    assert held is not None and held.id == asked.id


def test_withdraw_after_a_lost_acknowledgement_is_told_withdrawn(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    asked = cut.submit(LIBRARY, AGENT)
    proxy.cut_after_commits()
    assert cut.withdraw(asked.id) is True
    assert proxy.cuts == 1
    found = direct.get(asked.id)
    assert found is not None and found.state is QueueState.WITHDRAWN


def test_submit_after_a_lost_acknowledgement_queues_one_question(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    proxy.cut_after_commits()
    asked = cut.submit(LIBRARY, AGENT)
    assert proxy.cuts == 1
    assert [q.id for q in direct.questions()] == [asked.id]


def test_an_answer_to_an_asker_that_died_is_not_told_sent(direct: Store) -> None:
    """The asker was killed just before the person answered: its question is withdrawn,
    and the person is told their answer reached nobody."""
    from tests.support.inbox import as_if_asked_by

    child = subprocess.Popen(["sleep", "60"])
    asked = direct.submit(LIBRARY, AGENT)
    from askcli.inbox.asker_identity import process_start

    as_if_asked_by(direct, asked.id, child.pid, process_start(child.pid))
    inbox = inbox_id()
    direct.heartbeat(inbox)
    assert direct.claim(inbox, asked.id) is not None
    child.kill()
    child.wait()
    assert direct.answer(inbox, asked.id, REPLY) is False
    found = direct.get(asked.id)
    assert found is not None and found.state is QueueState.WITHDRAWN


def test_the_hook_allows_what_the_person_allowed_across_a_lost_acknowledgement(
    tmp_path: Path, postgres_url: str, direct: Store, proxy: CutProxy
) -> None:
    """``askcli hook`` through the proxy: the person allows; the commit of the hook's take
    is cut; Claude Code is still told allow (the old code told it deny)."""
    direct.ids()
    hook_input = {
        "session_id": "s1",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "ls", "description": "list"},
    }
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ASKCLI_INBOX": proxy.url(postgres_url),
    }
    hook = subprocess.Popen(
        [str(askcli_path()), "hook"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert hook.stdin is not None
    hook.stdin.write(json.dumps(hook_input))
    hook.stdin.close()
    try:
        deadline = time.monotonic() + 10
        while not direct.ids() and time.monotonic() < deadline:
            time.sleep(0.05)
        (qid,) = direct.ids()
        proxy.cut_after_commits()  # the hook's take: its next commit through the proxy
        answering = subprocess.run(
            [str(askcli_path()), "inbox", "answer", str(qid)],
            input="1\n",
            capture_output=True,
            text=True,
            env={**env, "ASKCLI_INBOX": postgres_url},
            timeout=20,
            check=False,
        )
        assert answering.returncode == 0, answering.stderr
        hook.wait(timeout=40)
        assert hook.stdout is not None and hook.stderr is not None
        out, err = hook.stdout.read(), hook.stderr.read()
    finally:
        hook.kill()
        hook.wait()
        for stream in (hook.stdout, hook.stderr):
            if stream is not None:
                stream.close()
    assert proxy.cuts == 1, err
    decision = json.loads(out)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "allow", (out, err)


def test_take_over_after_a_lost_acknowledgement_holds_the_question(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    asked = direct.submit(LIBRARY, AGENT)
    first, second = inbox_id(), inbox_id() + "-b"
    direct.heartbeat(first)
    cut.heartbeat(second)
    assert direct.claim(first, asked.id) is not None
    proxy.cut_after_commits()
    taken = take_over(cut, second, asked.id, first)
    assert proxy.cuts == 1
    assert taken is not None and taken.holder_inbox == second  # not "another inbox holds it"
    assert not direct.answer(first, asked.id, REPLY)
    assert cut.answer(second, asked.id, REPLY)


def test_a_resume_claim_after_a_lost_acknowledgement_is_this_resume_s(
    direct: Store, cut: Store, proxy: CutProxy
) -> None:
    """askcli resume claims a deferred question's session; the claim commits, the
    acknowledgement is lost: the retry finds its own claim, not another resume's."""
    from askcli.inbox.store import deferred

    asked = direct.submit(LIBRARY, AGENT)
    assert deferred.defer(direct, asked.id, "s1/toolu_1")
    proxy.cut_after_commits()
    held = deferred.claim_resume(cut, asked.id)
    assert proxy.cuts == 1
    assert held is not None and held.mine
    again = deferred.claim_resume(direct, asked.id)
    assert again == held  # the same claim, the same since
