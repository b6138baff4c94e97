"""Leases that survive real networks: heartbeats on their own thread and connection, a claim
that its inbox gets back when nobody else took it, an asker out of reach kept for a grace,
one lock order and deadlocks tried again, ``--timeout`` kept while the server does not
answer, an answer kept while the server is away, and pids looked at only where they mean
the same as here. A slow or broken link is a relay on loopback (tests/support/relay.py)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import InboxError
from askcli.inbox import asker_identity
from askcli.inbox.person_side import commands, watch
from askcli.inbox.store import Agent, QueueState, Store, open_store
from askcli.inbox.store import base as module
from askcli.inbox.store.kept import TASK_TTL

from tests.support.calls import call, question
from tests.support.inbox import Queue, exit_status, labelled, leave, result, tamper
from tests.support.postgres import PASSWORD, Cluster
from tests.support.processes import askcli_path, poll
from tests.support.relay import Relay

AGENT = Agent("claude", "s1", "/work/api")
LIBRARY = call(question("Which library?", "Library", ["date-fns", "Day.js"]))
REPLY = {"replies": [{"type": "tool_result", "content": "fine"}], "status": 0, "results": []}


@pytest.fixture
def store(inbox_where: str) -> Iterator[Store]:
    opened = open_store(inbox_where)
    yield opened
    opened.close()


@pytest.fixture
def pg(postgres_url: str) -> Iterator[Store]:
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    opened = open_store(postgres_url)
    yield opened
    opened.close()


@pytest.fixture
def relay(postgres_cluster: Cluster, postgres_url: str) -> Iterator[tuple[Relay, str]]:
    """A relay to the test's database, and the database's URL through it."""
    assert postgres_cluster.port is not None
    between = Relay(postgres_cluster.port)
    yield between, between.url(postgres_url, postgres_cluster.port)
    between.close()


def _lapse(store: Store, question_id: int) -> None:
    """The claim's lease ran out (its inbox was stopped, or out of reach), and a tidy saw it."""
    tamper(store, "UPDATE questions SET claimed_until = 0 WHERE id = ?", (question_id,))
    store.tidy()
    assert store.state(question_id) is QueueState.WAITING


# -- a claim its inbox gets back --------------------------------------------------------


def test_a_lapsed_claim_nobody_took_is_still_its_inbox_s_to_answer(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    store.heartbeat("away", "alice")
    assert store.claim("away", asked.id) is not None
    _lapse(store, asked.id)
    assert store.answer("away", asked.id, REPLY, decision="fine")
    found = store.get(asked.id)
    assert found is not None and found.state is QueueState.ANSWERED
    assert found.answered_by is not None and found.answered_by != "alice"  # the store's word
    assert store.take(asked.id) == REPLY
    # one that another inbox took meanwhile is not: neither answered nor taken back
    later = store.submit(call(question("Later?"), id="toolu_2"), AGENT)
    store.claim("away", later.id)
    _lapse(store, later.id)
    store.heartbeat("other", "bob")
    assert store.claim("other", later.id) is not None
    store.heartbeat("away", "alice")  # back: the question is bob's now
    assert not store.answer("away", later.id, REPLY)
    holder = store.get(later.id)
    assert holder is not None and holder.holder  # who holds it: the store's word, not "bob"
    assert commands.not_waiting(store, later.id).startswith(  # the same person's, here
        f"question #{later.id} is held by your other inbox (pid {os.getpid()}, since "
    )
    assert store.answer("other", later.id, REPLY)


def test_a_returning_inbox_takes_its_lapsed_claim_back_with_its_heartbeat(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    store.heartbeat("away")
    store.claim("away", asked.id)
    _lapse(store, asked.id)
    store.heartbeat("away")
    found = store.get(asked.id)
    assert found is not None and found.state is QueueState.ANSWERING
    assert store.claim("other", asked.id) is None
    store.leave("away")  # leaving gives it to anyone, for good
    store.heartbeat("away")
    assert store.state(asked.id) is QueueState.WAITING


@pytest.mark.pty
def test_an_inbox_stopped_longer_than_its_lease_still_sends_the_typed_answer(
    queue: Queue,
) -> None:
    """Ctrl-Z of the inbox (SIGSTOP) past its lease: the question waited again meanwhile,
    nobody took it, and the answer typed after SIGCONT is sent, not thrown away."""
    asker = queue.ask(labelled("Deploy now?", "Deploy", "Yes", "No", id="toolu_d"), "d")
    term = queue.inbox(ASKCLI_LEASE="1")
    term.expect("[y]: ")
    term.type("")
    term.expect("Choose 1-3: ")
    os.kill(term.child.pid, signal.SIGSTOP)
    try:
        time.sleep(1.5)
        listed = subprocess.run(
            [str(askcli_path()), "inbox", "list", "--json"],
            capture_output=True,
            text=True,
            env={**queue.env, "ASKCLI_LEASE": "1"},
            timeout=30,
        )
        assert json.loads(listed.stdout)["status"] == "waiting", listed
    finally:
        os.kill(term.child.pid, signal.SIGCONT)
    term.type("1")
    term.expect("#1 answered: sent to ")
    code, replies, err = result(asker)
    assert code == 0, err
    assert '"Deploy now?"="Yes"' in replies[0]["content"]
    assert leave(term) == 0


# -- heartbeats that wait behind nothing --------------------------------------------------


def test_heartbeats_keep_their_time_over_a_slow_link(pg: Store, relay: tuple[Relay, str]) -> None:
    """200 ms round trips: the watch's tidies and looks take seconds a round, and the
    heartbeat, on its own thread and connection, still beats about every second."""
    between, url = relay
    asked = pg.submit(LIBRARY, AGENT)
    pg.heartbeat("slow")
    assert pg.claim("slow", asked.id) is not None
    between.delay = 0.1
    far = open_store(url)
    seen = watch.Watch(far, "slow", period=0.01)
    seen.start(timeout=30)
    beats: list[float] = []
    try:
        ends = time.monotonic() + 7
        while time.monotonic() < ends:
            (row,) = tamper(pg, "SELECT seen FROM inboxes WHERE id = 'slow'")
            if not beats or row[0] != beats[-1]:
                beats.append(row[0])
            time.sleep(0.05)
        assert pg.state(asked.id) is QueueState.ANSWERING
    finally:
        seen.stop()
        far.close()
    gaps = [later - sooner for sooner, later in itertools.pairwise(beats[1:])]
    assert len(gaps) >= 4, beats
    assert max(gaps) < 2.0, gaps  # behind the watch: 2.6 s and more


# -- askers out of reach ----------------------------------------------------------------


def test_an_asker_out_of_reach_keeps_its_question_for_a_grace(pg: Store) -> None:
    asked = pg.submit(LIBRARY, AGENT)
    now = time.time()
    tamper(pg, "UPDATE questions SET arrived = ?", (now - 600,))
    tamper(pg, "UPDATE askers SET seen = ?", (now - 2 * module.LEASE,))  # a partition
    assert pg.tidy() == []
    assert pg.state(asked.id) is QueueState.WAITING
    tamper(pg, "UPDATE askers SET seen = ?", (now - module.ASKER_GRACE - 1,))
    assert [q.id for q in pg.tidy()] == [asked.id]


def test_machines_without_proc_never_take_each_other_s_pids(
    pg: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two machines without /proc and the same name have the same place: their leases
    alone say whether their askers and inboxes live, never a pid."""
    monkeypatch.setattr(asker_identity, "_places", ["host twin"])
    asked = pg.submit(LIBRARY, AGENT)
    held = pg.submit(call(question("Held?"), id="toolu_2"), AGENT)
    pg.heartbeat("twin-inbox")
    pg.claim("twin-inbox", held.id)
    gone = 2**22 + 12345  # no such pid here: the other machine's
    tamper(pg, "UPDATE askers SET pid = ?, start = NULL", (gone,))
    tamper(pg, "UPDATE inboxes SET pid = ?", (gone,))
    assert pg.tidy() == []
    assert pg.state(asked.id) is QueueState.WAITING
    assert pg.state(held.id) is QueueState.ANSWERING


def test_a_task_outlives_its_asker_for_a_day_and_is_taken_over(store: Store) -> None:
    """A question asked as a task (an MCP task: its conversation starts with ``task:``)
    is spared by the tidying when its asker is gone, for TASK_TTL from its arrival; the
    next asker of that conversation takes it over (``by_task``), no other one."""
    task = store.submit(LIBRARY, AGENT, conversation="task:ours")
    stale = store.submit(call(question("Stale?"), id="toolu_2"), AGENT, conversation="task:ours")
    plain = store.submit(call(question("Plain?"), id="toolu_3"), AGENT, conversation="c1")
    now = time.time()
    gone = f"{asker_identity.me().host}/999999/"
    for qid, arrived in ((task.id, now - 600), (stale.id, now - TASK_TTL - 60)):
        tamper(
            store,
            "UPDATE questions SET asker = ?, asker_pid = 999999, asker_start = NULL,"
            " arrived = ? WHERE id = ?",
            (gone, arrived, qid),
        )
    tamper(
        store,
        "UPDATE questions SET asker = ?, asker_pid = 999999, asker_start = NULL, arrived = ?"
        " WHERE id = ?",
        (gone, now - 600, plain.id),
    )
    tamper(
        store,
        "INSERT INTO askers (id, host, seen, place, pid) VALUES (?, ?, ?, ?, 999999)",
        (gone, asker_identity.me().host, now - 600, asker_identity.place()),
    )
    assert sorted(q.id for q in store.tidy()) == [stale.id, plain.id]
    assert store.state(task.id) is QueueState.WAITING
    assert store.by_task(task.ticket, "task:theirs") is None
    assert store.by_task(plain.ticket, "c1") is None  # no task: never taken over
    taken = store.by_task(task.ticket, "task:ours")
    assert taken is not None and taken.asker_pid == os.getpid()
    assert store.by_ticket(task.ticket, "task:ours") == taken  # this process's now


@pytest.mark.pty
def test_an_asker_in_another_pid_namespace_is_not_taken_for_dead(queue: Queue) -> None:
    """Same machine, same name, same file, another pid namespace (unshare -p, as bwrap and
    firejail do): its pid means nothing here, so its lease says whether it lives."""
    unshare = shutil.which("unshare")
    if (
        unshare is None
        or subprocess.run(
            [unshare, "-Urpf", "--mount-proc", "true"], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip("unshare -Urpf --mount-proc cannot be run here")
    source = queue.tmp / "call.json"
    source.write_text(json.dumps(LIBRARY))
    asker = subprocess.Popen(
        [unshare, "-Urpf", "--mount-proc", str(askcli_path()), "ask", "--inbox", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=queue.env,
    )
    queue.askers.append(asker)
    store = queue.store()
    poll(lambda: bool(store.ids()), "the question in the inbox", timeout=15)
    assert store.tidy() == []
    assert store.state(1) is QueueState.WAITING
    store.heartbeat("here")
    assert store.claim("here", 1) is not None
    assert store.answer("here", 1, REPLY)
    code, replies, err = result(asker)
    assert code == 0, err
    assert replies == REPLY["replies"]


def test_an_asker_that_cannot_open_its_listening_connection_says_so(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path
) -> None:
    """A role with one connection: the asker's second one (listening, renewing its lease)
    is refused; the asker says so in one line instead of waiting to be withdrawn unseen."""
    opened = open_store(postgres_url)
    opened.ids()  # the schema made
    opened.close()
    with postgres_cluster.connect(postgres_url.rsplit("/", 1)[1]) as db:
        db.execute(f"CREATE ROLE askcli_one LOGIN CONNECTION LIMIT 1 PASSWORD '{PASSWORD}'")
        db.execute("GRANT USAGE ON SCHEMA askcli TO askcli_one")
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA askcli TO askcli_one")
        db.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA askcli TO askcli_one")
    try:
        url = postgres_url.replace("askcli_test@", f"askcli_one:{PASSWORD}@")
        source = tmp_path / "call.json"
        source.write_text(json.dumps(LIBRARY))
        done = subprocess.run(
            [str(askcli_path()), "ask", "--inbox", "--timeout", "10", str(source)],
            capture_output=True,
            text=True,
            env={**os.environ, "ASKCLI_INBOX": url, "XDG_STATE_HOME": str(tmp_path)},
            timeout=20,
        )
        assert done.returncode == 2, done
        (line,) = done.stderr.splitlines()
        assert "cannot be opened" in line and "too many connections" in line, line
        assert open_store(postgres_url).ids() == []  # nothing queued to be withdrawn unseen
    finally:
        _drop_role(postgres_cluster, postgres_url, "askcli_one")


def _drop_role(cluster: Cluster, url: str, role: str) -> None:
    with cluster.connect(url.rsplit("/", 1)[1]) as db:
        db.execute(f"DROP OWNED BY {role}")
        db.execute(f"DROP ROLE {role}")


# -- one lock order; deadlocks tried again ---------------------------------------------


def test_every_transaction_writes_questions_before_inboxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path / "inbox.db")
    asked = store.submit(LIBRARY, AGENT)
    store.heartbeat("gone")
    store.claim("gone", asked.id)
    tamper(store, "UPDATE inboxes SET pid = ?", (2**22 + 12345,))  # its process died
    store.heartbeat("here")
    store.claim("here", store.submit(call(question("Two?"), id="toolu_2"), AGENT).id)
    writes: list[list[str]] = []
    real = Store._x

    def logged(self: Store, db: Any, text: str, params: tuple[Any, ...] = ()) -> Any:
        verb = text.split()[0].upper()
        if verb in ("UPDATE", "INSERT", "DELETE"):
            table = text.split()[{"UPDATE": 1, "INSERT": 2, "DELETE": 2}[verb]]
            writes[-1].append(table)
        return real(self, db, text, params)

    monkeypatch.setattr(Store, "_x", logged)
    for work in (
        lambda: store.heartbeat("here"),
        store.tidy,
        lambda: store.leave("here"),
    ):
        writes.append([])
        work()
    for tables in writes:
        assert "inboxes" in tables, writes
        first = tables.index("inboxes")
        assert "questions" not in tables[first:], writes


def test_a_deadlocked_transaction_is_tried_again(pg: Store, postgres_url: str) -> None:
    """Another transaction locks the rows crosswise; PostgreSQL ends this one
    (deadlock_detected), which is done again instead of failing."""
    import psycopg

    first = pg.submit(LIBRARY, AGENT)
    second = pg.submit(call(question("Two?"), id="toolu_2"), AGENT)
    other = psycopg.connect(postgres_url, autocommit=True)
    other.execute("SET deadlock_timeout = '20s'")  # this one waits: the store's is ended
    locked, crossed = threading.Event(), threading.Event()
    tries: list[int] = []

    def cross() -> None:
        locked.wait(10)
        with other.transaction():
            other.execute("UPDATE askcli.questions SET decision = 'x' WHERE id = %s", (second.id,))
            crossed.set()
            other.execute("UPDATE askcli.questions SET decision = 'x' WHERE id = %s", (first.id,))

    def work(db: Any) -> None:
        tries.append(1)
        pg._x(db, "UPDATE questions SET decision = 'y' WHERE id = ?", (first.id,))
        if len(tries) == 1:
            locked.set()
            crossed.wait(10)
            time.sleep(0.1)
        pg._x(db, "UPDATE questions SET decision = 'y' WHERE id = ?", (second.id,))

    crossing = threading.Thread(target=cross)
    crossing.start()
    try:
        pg._run(work)
    finally:
        crossing.join(30)
        other.close()
    assert len(tries) == 2
    assert tamper(pg, "SELECT decision FROM questions ORDER BY id") == [("y",), ("y",)]


# -- --timeout while the server does not answer ----------------------------------------


def test_the_timeout_is_kept_while_the_server_does_not_answer(
    relay: tuple[Relay, str], pg: Store, tmp_path: Path
) -> None:
    between, url = relay
    source = tmp_path / "call.json"
    source.write_text(json.dumps(LIBRARY))
    asker = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", "--timeout", "4", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ASKCLI_INBOX": url, "XDG_STATE_HOME": str(tmp_path)},
    )
    try:
        poll(lambda: bool(pg.ids()), "the question in the inbox")
        # from here: askcli's start (psycopg's import, a busy machine's) is not its timeout's
        began = time.monotonic()
        between.partition()  # every packet dropped, both ways, from now on
        out, err = asker.communicate(timeout=15)
    finally:
        if asker.poll() is None:
            asker.kill()
            asker.communicate()
    took = time.monotonic() - began
    assert asker.returncode == 3, err
    assert "no reply within 4 seconds" in json.loads(out)["content"]
    assert took < 4 + 2.5, took


# -- an answer the server cannot take yet ----------------------------------------------


def test_an_answer_the_server_cannot_take_is_kept_said_and_sent_when_it_is_back(
    pg: Store, relay: tuple[Relay, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    between, url = relay
    monkeypatch.setattr(commands, "UNREACHABLE", 0.5)
    monkeypatch.setattr(commands, "RETRY", 0.1)
    asked = pg.submit(LIBRARY, AGENT)
    far = open_store(url)
    far.heartbeat("far")
    held = far.claim("far", asked.id)
    assert held is not None
    between.cut()
    told: list[float] = []
    threading.Timer(2.0, between.heal).start()
    began = time.monotonic()
    sent = commands.send(
        far,
        "far",
        held,
        REPLY,
        secret=False,
        decision="fine",
        person=None,
        away=lambda: told.append(time.monotonic() - began),
    )
    far.close()
    assert sent
    assert len(told) == 1 and 0.5 <= told[0] < 2.0, told
    assert pg.take(asked.id) == REPLY


def test_ctrl_c_while_the_server_is_away_keeps_the_answer_for_resume(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path
) -> None:
    """The answer typed, the server gone before it was sent: Ctrl-C leaves saying so, and
    the next inbox offers to resume it."""
    assert postgres_cluster.port is not None
    between = Relay(postgres_cluster.port)
    queue = Queue(tmp_path, postgres_url)
    try:
        queue.ask(labelled("Deploy now?", "Deploy", "Yes", "No", id="toolu_d"), "d")
        queue.where = between.url(postgres_url, postgres_cluster.port)
        term = queue.inbox()
        queue.where = postgres_url
        term.expect("[y]: ")
        term.type("")
        term.expect("Choose 1-3: ")
        between.cut()
        term.type("1")
        time.sleep(1.0)  # trying to send it
        term.child.sendintr()
        term.expect("your answer to #1 was not sent (kept for Resume)")
        assert exit_status(term) == 130
        between.heal()
        again = queue.inbox(name="b")
        again.expect("[y]: ")
        again.type("")
        again.expect("Resume? [Y/n]")
    finally:
        queue.close()
        between.close()


def test_a_store_out_of_reach_fails_an_operation_at_its_deadline(
    pg: Store, relay: tuple[Relay, str]
) -> None:
    between, url = relay
    far = open_store(url)
    far.ids()
    between.partition()
    far.deadline = time.monotonic() + 1.0
    failed: list[BaseException] = []

    def look() -> None:
        try:
            far.ids()
        except InboxError as exc:
            failed.append(exc)

    looking = threading.Thread(target=look, daemon=True)  # a hang fails, never hangs the test
    looking.start()
    looking.join(3.0)
    between.heal()
    looking.join(5.0)
    assert failed, "the look outlasted its deadline"
    far.close()


def test_each_kind_kept_past_its_asker_knows_its_own_questions() -> None:
    from askcli.inbox.store.kept import DEFERRED, TASK, spared

    assert DEFERRED.key_of(DEFERRED.conversation("s1/toolu_1")) == "s1/toolu_1"
    assert TASK.key_of(DEFERRED.conversation("s1/toolu_1")) is None
    assert DEFERRED.key_of(TASK.conversation("abc")) is None
    assert DEFERRED.key_of(None) is None and DEFERRED.key_of("c1") is None
    condition, params = spared(1000.0 + TASK_TTL)
    assert params == (1000.0,)  # a deferred question has no age limit, a task has a day
    assert DEFERRED.condition in condition and TASK.condition in condition
