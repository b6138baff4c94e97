"""Resuming a deferred question's session is a claim (``askcli resume``): one process's at a
time, the same for a retry of its own, released by it alone, lapsing when its process is gone
(dead here, or unheard of elsewhere); on each store."""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.inbox import asker_identity
from askcli.inbox.asker_identity import Process, process_start
from askcli.inbox.store import Agent, QueuedQuestion, Store, asker_id, deferred, open_store
from askcli.inbox.store.base import LEASE

from tests.support.calls import example
from tests.support.inbox import tamper

AGENT = Agent("claude", "5e55-1011", "/tmp/work")
KEY = "5e55-1011/toolu_a1"


@pytest.fixture
def store(inbox_where: str) -> Iterator[Store]:
    opened = open_store(inbox_where)
    yield opened
    opened.close()


def deferred_question(store: Store) -> QueuedQuestion:
    asked = store.submit(example("library.json"), AGENT)
    assert deferred.defer(store, asked.id, KEY)
    return asked


ME = asker_identity.me()
# another resumer that runs (this process's parent), and one that no longer does (this pid
# with another start: a process that had it before)
LIVE = Process(socket.gethostname(), os.getppid(), process_start(os.getppid()))
DEAD = Process(socket.gethostname(), os.getpid(), "another-boot/1")


def as_process(mp: pytest.MonkeyPatch, who: Process) -> None:
    """From here on this process is ``who``."""
    mp.setattr(asker_identity, "me", lambda: who)


def claimed_by(store: Store, mp: pytest.MonkeyPatch, who: Process, question: int) -> None:
    with mp.context() as inner:
        as_process(inner, who)
        holder = deferred.claim_resume(store, question)
        assert holder is not None and holder.mine


def test_one_process_resumes_a_session_at_a_time(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = deferred_question(store)
    claimed_by(store, monkeypatch, LIVE, asked.id)
    holder = deferred.claim_resume(store, asked.id)
    assert holder is not None and not holder.mine
    assert (holder.by, holder.pid) == (asker_id(LIVE), LIVE.pid)
    assert abs(holder.since - time.time()) < 3600
    with monkeypatch.context() as mp:  # it ends without the session taking its answer
        as_process(mp, LIVE)
        deferred.release_resume(store, asked.id)
    mine = deferred.claim_resume(store, asked.id)
    assert mine is not None and mine.mine and mine.by == asker_id(ME)


def test_a_claim_asked_for_again_is_the_same_claim(store: Store) -> None:
    """A retry after a lost acknowledgement: the same outcome, the same since."""
    asked = deferred_question(store)
    first = deferred.claim_resume(store, asked.id)
    again = deferred.claim_resume(store, asked.id)
    assert first is not None and first.mine and again == first


def test_a_dead_resumer_s_claim_lapses(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = deferred_question(store)
    claimed_by(store, monkeypatch, DEAD, asked.id)
    holder = deferred.claim_resume(store, asked.id)
    assert holder is not None and holder.mine


def test_a_resumer_holds_its_claim_while_it_renews_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another machine's resumer: its pid says nothing here, its lease does."""
    asked = deferred_question(store)
    other = Process("elsewhere", 4_000_000, "other-boot/1")  # no such pid here
    claimed_by(store, monkeypatch, other, asked.id)
    holder = deferred.claim_resume(store, asked.id)
    assert holder is not None and (holder.mine, holder.host, holder.pid) == (
        False,
        "elsewhere",
        4_000_000,
    )
    ((until,),) = tamper(store, "SELECT resumed_until FROM questions WHERE id = ?", (asked.id,))
    assert time.time() < until <= time.time() + LEASE
    tamper(store, "UPDATE questions SET resumed_until = ? WHERE id = ?", (until - LEASE, asked.id))
    with monkeypatch.context() as mp:
        as_process(mp, other)
        assert deferred.still_resuming(store, asked.id)  # renewed, before anyone saw it lapse
    held = deferred.claim_resume(store, asked.id)
    assert held is not None and not held.mine
    tamper(
        store, "UPDATE questions SET resumed_until = ? WHERE id = ?", (time.time() - 1, asked.id)
    )
    taken = deferred.claim_resume(store, asked.id)  # not renewed in time: lapsed
    assert taken is not None and taken.mine
    with monkeypatch.context() as mp:
        as_process(mp, other)
        assert not deferred.still_resuming(store, asked.id)  # it lost it


def test_a_lost_claim_is_not_released_by_its_former_holder(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = deferred_question(store)
    claimed_by(store, monkeypatch, DEAD, asked.id)
    taken = deferred.claim_resume(store, asked.id)  # lapsed: this process takes it
    assert taken is not None and taken.mine
    with monkeypatch.context() as mp:  # the former holder, ending late, releases its own
        as_process(mp, DEAD)
        deferred.release_resume(store, asked.id)
        holder = deferred.claim_resume(store, asked.id)
        assert holder is not None and holder.by == asker_id(ME)  # still this process's
    assert deferred.claim_resume(store, asked.id) == taken


def test_a_question_taken_back_has_no_session_to_resume(store: Store) -> None:
    asked = deferred_question(store)
    assert deferred.adopt(store, KEY) is not None
    assert deferred.claim_resume(store, asked.id) is None
    assert deferred.claim_resume(store, asked.id + 1) is None  # no such question


def test_an_inbox_file_of_the_askcli_before_gets_the_resume_columns(tmp_path: Path) -> None:
    path = tmp_path / "four.db"
    made = open_store(path)
    asked = deferred_question(made)
    made.close()
    old = sqlite3.connect(path)  # as schema 4 left it: no resumed_by, resumed_at
    old.execute("ALTER TABLE questions DROP COLUMN resumed_by")
    old.execute("ALTER TABLE questions DROP COLUMN resumed_at")
    old.execute("PRAGMA user_version = 4")
    old.commit()
    old.close()
    store = open_store(path)
    try:
        holder = deferred.claim_resume(store, asked.id)
        assert holder is not None and holder.mine
    finally:
        store.close()
