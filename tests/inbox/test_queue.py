"""The inbox's queue: submitted, claimed once, answered, taken once; dead askers and inboxes
tidied; a file that is not an inbox refused in one line; ``ask --inbox`` end to end."""

from __future__ import annotations

import io
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.errors import InboxError
from askcli.inbox.asker_identity import alive, process_start
from askcli.inbox.asker_side import ask_inbox, reply_from_json, reply_to_json
from askcli.inbox.person_side.commands import inbox_id
from askcli.inbox.person_side.holding import own_inboxes, take_over
from askcli.inbox.store import Agent, QueuedQuestion, QueueState, Store, open_store
from askcli.lines import TextLineReader
from askcli.status import ExitStatus
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.wire.documents import Document

from tests.support.calls import example
from tests.support.inbox import answer_one, answer_queued, as_if_asked_by, opened_at, tamper
from tests.support.paths import ROOT
from tests.support.processes import askcli_path

LIBRARY = example("library.json")
AGENT = Agent("ask", "s1", "/tmp/work")


@pytest.fixture
def store(inbox_where: str) -> Iterator[Store]:
    """The queue of one test, on each store."""
    opened = open_store(inbox_where)
    yield opened
    opened.close()


def test_a_question_goes_round_once(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    assert asked.state is QueueState.WAITING and asked.ticket.startswith("q_")
    assert answer_queued(store, "2\n")
    found = store.wait(asked.id, 1)
    assert found is not None and found.state is QueueState.ANSWERED
    reply = reply_from_json(store.take(asked.id))
    assert '"dayjs"' in reply.replies[0]["content"] and reply.status is ExitStatus.ANSWERED
    assert store.take(asked.id) is None  # exactly once


def test_the_same_call_is_the_same_question_only_in_its_conversation(store: Store) -> None:
    first = store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600)
    assert store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600).id == first.id
    assert store.submit(LIBRARY, AGENT, conversation="c2", reuse_for=600).id != first.id
    assert store.submit(LIBRARY, AGENT).id != first.id  # no conversation: its own question
    other = AGENT._replace(session="s2")
    assert store.submit(LIBRARY, other, conversation="c1", reuse_for=600).id != first.id
    assert answer_queued(store, "1\n", first.id)
    again = store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600)
    assert again.id == first.id  # answered, not yet taken: at once
    store.take(first.id)
    assert store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600).id != first.id


def test_an_answer_not_collected_is_reused_for_a_bounded_time(store: Store) -> None:
    first = store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600)
    assert answer_queued(store, "1\n", first.id)
    # answered 11 minutes ago
    tamper(store, "UPDATE questions SET finished = ? WHERE id = ?", (time.time() - 660, first.id))
    later = store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600)
    assert later.id != first.id and later.state is QueueState.WAITING
    assert store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=700).id == first.id


@pytest.mark.process
def test_another_process_never_gets_this_one_s_question(store: Store) -> None:
    """The identical call from another process, even in the same conversation, is a
    question of its own; a ticket or an id of this one gives it nothing."""
    mine = store.submit(LIBRARY, AGENT, conversation="c1", reuse_for=600)
    assert answer_queued(store, "1\n", mine.id)
    code = (
        "import sys, json; from askcli.inbox.store import open_store, Agent\n"
        "s = open_store(sys.argv[1]); call = json.loads(sys.argv[2])\n"
        "agent = Agent('ask', 's1', '/tmp/work')\n"
        "q = s.submit(call, agent, conversation='c1', reuse_for=600)\n"
        "print(json.dumps([q.id, s.take(int(sys.argv[3])), s.by_ticket(sys.argv[4], 'c1')]))"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            opened_at(store),
            json.dumps(LIBRARY),
            str(mine.id),
            mine.ticket,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    other, taken, by_ticket = json.loads(out.stdout)
    assert other != mine.id and taken is None and by_ticket is None
    assert store.by_ticket(mine.ticket, "c1") is not None
    assert store.by_ticket(mine.ticket, "c2") is None
    assert store.take(mine.id) is not None  # still there for its own asker


def test_a_claim_is_one_inbox_s(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    assert store.claim("inbox-a") is not None
    assert store.claim("inbox-b") is None
    assert not store.answer("inbox-b", asked.id, {"replies": [], "status": 0})
    store.release("inbox-a", asked.id)
    assert store.claim("inbox-b") is not None


def test_a_withdrawn_question_takes_no_answer(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    me = inbox_id()
    store.heartbeat(me)
    claimed = store.claim(me)
    assert claimed is not None and store.withdraw(asked.id)
    conv = Conversation(TextLineReader(io.StringIO("2\n")), io.StringIO(), Style())
    assert not answer_one(store, me, claimed, conv)
    assert store.get(asked.id).state is QueueState.WITHDRAWN  # type: ignore[union-attr]


@pytest.mark.process
def test_a_dead_asker_s_question_is_withdrawn(store: Store) -> None:
    code = (
        "import sys; from pathlib import Path; from askcli.inbox.store import open_store, Agent;"
        "print(open_store(sys.argv[1]).submit({'questions': []}, Agent()).id)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, opened_at(store)], capture_output=True, text=True, check=True
    )
    question_id = int(out.stdout)
    gone = store.tidy()
    assert [q.id for q in gone] == [question_id]
    assert store.get(question_id).state is QueueState.WITHDRAWN  # type: ignore[union-attr]


@pytest.mark.process
def test_a_dead_inbox_s_claim_waits_again(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    code = (
        "import sys; from pathlib import Path; from askcli.inbox.store import Store, open_store;"
        "s = open_store(sys.argv[1]); s.heartbeat('dead'); print(s.claim('dead').id)"
    )
    subprocess.run([sys.executable, "-c", code, opened_at(store)], check=True, capture_output=True)
    assert store.get(asked.id).state is QueueState.ANSWERING  # type: ignore[union-attr]
    store.tidy()
    assert store.get(asked.id).state is QueueState.WAITING  # type: ignore[union-attr]


def test_a_silent_inbox_loses_its_claim_after_the_lease(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from askcli.inbox.store import base as module

    monkeypatch.setattr(module, "LEASE", 0.0)
    asked = store.submit(LIBRARY, AGENT)
    store.heartbeat("quiet")
    store.claim("quiet")
    time.sleep(0.01)
    store.tidy()
    assert store.get(asked.id).state is QueueState.WAITING  # type: ignore[union-attr]


@pytest.mark.process
def test_two_processes_claiming_share_the_questions_out(store: Store) -> None:
    ids = [store.submit({"n": n, **LIBRARY}, AGENT).id for n in range(40)]
    code = (
        "import sys, json; from pathlib import Path; from askcli.inbox.store import open_store\n"
        "s = open_store(sys.argv[1]); got = []\n"
        "while (q := s.claim(sys.argv[2])) is not None: got.append(q.id)\n"
        "print(json.dumps(got))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, opened_at(store), f"inbox-{i}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    claimed = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    together = sorted(i for got in claimed for i in got)
    assert together == ids  # each claimed once, none lost


def test_the_file_is_the_owner_s_alone(tmp_path: Path) -> None:
    store = open_store(tmp_path / "inbox.db")
    store.submit(LIBRARY, AGENT)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


def test_a_path_that_is_no_inbox_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(InboxError, match="is a directory, not an inbox file"):
        open_store(tmp_path / "dir").submit(LIBRARY, AGENT)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere.db")
    with pytest.raises(InboxError, match="is a symbolic link"):
        open_store(tmp_path / "link").submit(LIBRARY, AGENT)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(InboxError, match="cannot be used as an inbox"):
        open_store(junk).submit(LIBRARY, AGENT)


def test_replies_keep_everything_output_needs() -> None:
    from askcli.runners.session import ask

    reply = ask(LIBRARY, input=io.StringIO("2\n"), output=io.StringIO())
    again = reply_from_json(json.loads(json.dumps(reply_to_json(reply))))
    assert again == reply


def test_a_kept_result_is_its_exit_status_as_before() -> None:
    """The queue keeps a result's outcome as the number askcli always kept (an inbox and its
    askers may run different versions); read back, it is the first outcome of that status."""
    from askcli.inbox.asker_side import unanswered
    from askcli.questions.outcome import Outcome

    reply = unanswered(LIBRARY, "No answer from the user (no reply).", Outcome.TIMED_OUT)
    kept = reply_to_json(reply)
    assert list(kept["results"][0]) == [
        "tool_use_id",
        "content",
        "status",
        "is_error",
        "data",
        "updated_input",
        "deferred",
        "updated_permissions",
        "reply",
    ]
    assert kept["results"][0]["status"] == 3 and kept["status"] == 3
    (again,) = reply_from_json(json.loads(json.dumps(kept))).results
    assert again == reply.results[0]._replace(outcome=Outcome.ENDED)
    assert again.status is ExitStatus.NO_ANSWER


def test_ask_inbox_waits_for_the_answer(store: Store) -> None:
    said: list[str] = []
    answering = threading.Thread(target=lambda: _answer_when_there(store, "3\n"))
    answering.start()
    reply = ask_inbox(store, Document(LIBRARY), AGENT, timeout=20, said=said.append)
    answering.join()
    assert '"Temporal"' in reply.replies[0]["content"]
    assert said == [f"question 1 is waiting in the inbox {store.where}"]


def _answer_when_there(store: Store, lines: str) -> None:
    mine = open_store(opened_at(store))
    for _ in range(2000):
        if mine.questions():
            answer_queued(mine, lines)
            return
        time.sleep(0.01)


def test_ask_inbox_gives_up_at_its_timeout_and_withdraws(store: Store) -> None:
    reply = ask_inbox(store, Document(LIBRARY), AGENT, timeout=0.2)
    assert reply.status is ExitStatus.NO_ANSWER
    assert reply.replies[0]["content"] == ("No answer from the user (no reply within 0.2 seconds).")
    assert [q.state for q in store.questions(states=tuple(QueueState))] == [QueueState.WITHDRAWN]


@pytest.mark.process
def test_the_cli_queues_and_prints_the_reply(tmp_path: Path) -> None:
    env = {**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")}
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", "--timeout", "30", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(LIBRARY) + "\n")
    proc.stdin.close()
    _answer_when_there(open_store(tmp_path / "inbox.db"), "2\n")
    assert proc.stdout is not None and proc.stderr is not None
    proc.wait(timeout=30)
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == 0, err
    assert '"dayjs"' in json.loads(out)["content"]
    assert "is waiting in the inbox" in err


@pytest.mark.process
def test_the_cli_says_a_bad_inbox_file_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    env = {**os.environ, "ASKCLI_INBOX": str(tmp_path / "dir")}
    proc = subprocess.run(
        [str(askcli_path()), "ask", "--inbox", "-"],
        input=json.dumps(LIBRARY) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"askcli: {tmp_path / 'dir'} is a directory, not an inbox file"
    ]
    assert "Traceback" not in proc.stderr


@pytest.mark.process
@pytest.mark.parametrize(("sig", "status"), [(15, 143), (1, 129), (2, 130)])
def test_a_signal_while_waiting_withdraws_the_question(
    tmp_path: Path, sig: int, status: int
) -> None:
    env = {**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")}
    proc = subprocess.Popen(
        [
            str(askcli_path()),
            "ask",
            "--inbox",
            str(ROOT / "examples/library.json"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    store = open_store(tmp_path / "inbox.db")
    for _ in range(2000):
        if tmp_path.joinpath("inbox.db").exists() and store.questions():
            break
        time.sleep(0.01)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == status, err
    reply = json.loads(out)
    assert reply["is_error"] is True
    assert [q.state for q in store.questions(states=tuple(QueueState))] == [QueueState.WITHDRAWN]
    assert "Traceback" not in err


@pytest.mark.process
def test_an_asker_killed_and_not_yet_reaped_counts_as_gone(store: Store) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        asked = store.submit(LIBRARY, AGENT)
        as_if_asked_by(store, asked.id, child.pid, process_start(child.pid))
        assert store.tidy() == []
        child.kill()
        for _ in range(500):  # a zombie until reaped: wait until it is one
            info = Path(f"/proc/{child.pid}/stat").read_text()
            if info.rsplit(")", 1)[1].split()[0] == "Z":
                break
            time.sleep(0.01)
        assert [q.id for q in store.tidy()] == [asked.id]
    finally:
        child.kill()
        child.wait()


@pytest.mark.process
def test_a_pid_given_to_another_process_is_not_the_asker(store: Store) -> None:
    """The asker died and its pid went to another process: the start time tells them apart."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = process_start(child.pid)
        assert started is not None and started == process_start(child.pid)
        assert alive(child.pid, started) and not alive(child.pid, started + "0")
        asked = store.submit(LIBRARY, AGENT)
        kept = store.submit(LIBRARY, AGENT)
        # as if a process started at another time had asked
        as_if_asked_by(store, asked.id, child.pid, "another-boot/1")
        assert [q.id for q in store.tidy()] == [asked.id]
        assert store.get(kept.id).state is QueueState.WAITING  # type: ignore[union-attr]
    finally:
        child.kill()
        child.wait()


def test_an_inbox_file_of_an_older_askcli_gets_the_new_columns(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE questions (id INTEGER PRIMARY KEY AUTOINCREMENT, ticket TEXT NOT NULL"
        " UNIQUE, key TEXT NOT NULL, agent TEXT NOT NULL, arrived REAL NOT NULL, call TEXT"
        " NOT NULL, status TEXT NOT NULL, claimed_by TEXT, result TEXT, delivered REAL,"
        " asker_pid INTEGER, asker_host TEXT, finished REAL);"
        "CREATE TABLE inboxes (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL,"
        " seen REAL NOT NULL);"
        "INSERT INTO questions (ticket, key, agent, arrived, call, status, asker_pid,"
        " asker_host) VALUES ('q_old', 'k', '{\"client\": \"ask\"}', 1.0, '{}', 'waiting',"
        f" {os.getpid()}, '{socket.gethostname()}');"
    )
    old.close()
    store = open_store(path)
    assert [q.ticket for q in store.questions()] == ["q_old"]  # an old row, still alive
    assert store.tidy() == []
    asked = store.submit(LIBRARY, AGENT)
    assert store.get(asked.id).agent == AGENT  # type: ignore[union-attr]
    columns = {row[1] for row in store._open().execute("PRAGMA table_info(questions)")}
    assert {"asker_start", "conversation"} <= columns


def test_a_waiting_asker_reads_the_state_not_the_call(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call may be a megabyte: waiting on it polls its state, and reads it once."""
    asked = store.submit(LIBRARY, AGENT)
    reads: list[int] = []
    real = Store._get

    def counted(self: Store, db: object, question_id: int | None) -> object:
        reads.append(question_id or 0)
        return real(self, db, question_id)

    monkeypatch.setattr(Store, "_get", counted)
    assert store.wait(asked.id, 0.2) is None  # about 10 looks, nothing read
    assert reads == []
    store.withdraw(asked.id)
    assert store.wait(asked.id, 1) is not None
    assert reads == [asked.id]


def test_askers_opening_a_new_inbox_at_once_all_get_in(tmp_path: Path) -> None:
    """Switching a new file to WAL does not wait for another connection doing the same;
    opening tries again rather than failing with "database is locked"."""
    for round_ in range(20):
        path = tmp_path / f"inbox-{round_}.db"
        start = threading.Barrier(8)
        got: list[int] = []
        failed: list[BaseException] = []

        threads = [
            threading.Thread(target=_ask_at_once, args=(path, n, start, got, failed))
            for n in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert failed == [] and sorted(got) == list(range(1, 9))


def _ask_at_once(
    path: Path, n: int, start: threading.Barrier, got: list[int], failed: list[BaseException]
) -> None:
    start.wait()
    try:
        got.append(open_store(path).submit({"n": n}, AGENT).id)
    except InboxError as exc:  # reported by the test
        failed.append(exc)


def _asker(tmp_path: Path, folder: Path) -> subprocess.Popen[str]:
    """``askcli ask --inbox`` asking LIBRARY from ``folder``."""
    folder.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", "--timeout", "60", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
        cwd=folder,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(LIBRARY) + "\n")
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() has nothing to flush
    return proc


def _queued(store: Store, count: int) -> list[QueuedQuestion]:
    for _ in range(2000):
        found = store.questions()
        if len(found) >= count:
            return found
        time.sleep(0.01)
    raise AssertionError(f"{count} questions never waited in {store.path}")


@pytest.mark.process
def test_two_askers_with_the_same_call_get_a_question_and_an_answer_each(tmp_path: Path) -> None:
    store = open_store(tmp_path / "inbox.db")
    first = _asker(tmp_path, tmp_path / "api")
    one = _queued(store, 1)[0]  # in this order
    second = _asker(tmp_path, tmp_path / "web")
    try:
        two = _queued(store, 2)[1]
        assert one.call == two.call and one.id != two.id
        assert one.agent.label == f"ask {tmp_path / 'api'} (pid {first.pid})"
        assert two.agent.label == f"ask {tmp_path / 'web'} (pid {second.pid})"
        assert answer_queued(store, "3\n", two.id)  # the second asker's first
        assert answer_queued(store, "2\n", one.id)
        out_one, err_one = first.communicate(timeout=30)
        out_two, err_two = second.communicate(timeout=30)
    finally:
        for proc in (first, second):
            proc.kill()
            proc.wait()
    assert first.returncode == 0 and second.returncode == 0, err_one + err_two
    assert '"dayjs"' in json.loads(out_one)["content"]
    assert '"Temporal"' in json.loads(out_two)["content"]
    assert "taken by another asker" not in err_one + err_two


@pytest.mark.process
def test_killing_one_asker_leaves_the_other_s_identical_question(tmp_path: Path) -> None:
    store = open_store(tmp_path / "inbox.db")
    first = _asker(tmp_path, tmp_path / "api")
    _queued(store, 1)
    second = _asker(tmp_path, tmp_path / "web")
    try:
        one, two = _queued(store, 2)
        first.kill()  # no time to withdraw its question itself
        first.wait()
        assert [q.id for q in store.tidy()] == [one.id]
        assert [q.id for q in store.questions()] == [two.id]
        assert answer_queued(store, "2\n", two.id)
        out, err = second.communicate(timeout=30)
        assert second.returncode == 0, err
        assert '"dayjs"' in json.loads(out)["content"]
    finally:
        for proc in (first, second):
            proc.kill()
            proc.wait()
        for proc in (first, second):
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.mark.process
def test_a_second_store_in_a_process_loses_nothing_the_first_one_writes(
    tmp_path: Path,
) -> None:
    """Closing any descriptor of a file drops all of a process's POSIX locks on it. The
    check that a file is askcli's must not do that behind an open connection: the next
    process to close the file took itself for its last user, checkpointed and deleted the
    -wal and -shm files, and the first connection went on writing to a WAL nobody else
    read (an inbox's heartbeats and answers lost, arrivals never shown to it)."""
    path = tmp_path / "inbox.db"
    first = open_store(path)
    assert first.ids() == []  # its connection is open
    second = open_store(path)  # as the inbox's watch thread opens its own
    assert second.ids() == []
    code = (
        "import sys; from pathlib import Path; from askcli.inbox.store import Agent, open_store; "
        "s = open_store(sys.argv[1]); s.submit({'questions': []}, Agent('ask', None, '/')); "
        "print(len(s._open().execute('SELECT id FROM inboxes').fetchall())); s.close()"
    )

    def elsewhere() -> str:
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert elsewhere() == "0"
    first.heartbeat("inbox-1")
    assert elsewhere() == "1"  # the heartbeat reached the file
    assert first.ids(states=tuple(QueueState)) == [1, 2]
    assert second.ids(states=tuple(QueueState)) == [1, 2]
    first.close()
    second.close()


# -- one person's two inboxes: a question taken over (issue 29, item 6) ---------------------


def test_a_question_held_by_another_inbox_of_the_same_person_is_taken_over(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    first, second = inbox_id(), inbox_id() + "-b"
    for inbox in (first, second):
        store.heartbeat(inbox)
    before = time.time()
    assert store.claim(first) is not None
    held = store.get(asked.id)
    assert held is not None and held.holder_inbox == first
    assert held.held_since is not None and before - 1 <= held.held_since <= time.time() + 1
    own = own_inboxes(store)
    assert set(own) == {first, second}
    assert own[first].pid == os.getpid() and own[first].host == socket.gethostname()
    taken = take_over(store, second, asked.id, first)
    assert taken is not None and taken.holder_inbox == second
    assert taken.state is QueueState.ANSWERING
    assert not store.answer(first, asked.id, {"replies": ["first"], "status": 0})  # not its
    store.heartbeat(first)  # its heartbeat does not take it back
    assert store.get(asked.id).holder_inbox == second  # type: ignore[union-attr]
    store.release(first, asked.id)  # nor does its release give it away
    assert store.get(asked.id).holder_inbox == second  # type: ignore[union-attr]
    assert store.answer(second, asked.id, {"replies": ["second"], "status": 0})
    assert store.take(asked.id) == {"replies": ["second"], "status": 0}  # once, the second's
    assert store.take(asked.id) is None


def test_only_the_holder_shown_is_taken_over_and_only_while_it_holds(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    first, second, third = (inbox_id() + f"-{n}" for n in range(3))
    for inbox in (first, second, third):
        store.heartbeat(inbox)
    assert take_over(store, second, asked.id, first) is None  # waiting: claimed, not taken
    assert store.claim(first) is not None
    assert take_over(store, third, asked.id, first) is not None
    assert take_over(store, second, asked.id, first) is None  # the third holds it now
    assert store.get(asked.id).holder_inbox == third  # type: ignore[union-attr]
    assert store.answer(third, asked.id, {"replies": [], "status": 0})
    assert take_over(store, second, asked.id, third) is None  # answered: nobody takes it
    assert take_over(store, second, 999, first) is None  # no such question


def test_a_question_held_by_an_inbox_unheard_of_is_not_taken_over(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    mine = inbox_id()
    store.heartbeat(mine)
    assert store.claim("an-inbox-with-no-heartbeat") is not None  # nobody's: no person
    assert take_over(store, mine, asked.id, "an-inbox-with-no-heartbeat") is None


def test_an_inbox_file_of_the_askcli_before_gets_the_claims_times(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "three.db"
    made = open_store(path)
    asked = made.submit(LIBRARY, AGENT)
    made.heartbeat("an-inbox")
    assert made.claim("an-inbox") is not None
    made.close()
    old = sqlite3.connect(path)  # as schema 3 left it: no claimed_at
    old.execute("ALTER TABLE questions DROP COLUMN claimed_at")
    old.execute("PRAGMA user_version = 3")
    old.commit()
    old.close()
    store = open_store(path)
    held = store.get(asked.id)
    assert held is not None and held.holder_inbox == "an-inbox" and held.held_since is None
    store.release("an-inbox", asked.id)
    store.heartbeat("another")
    assert store.claim("another") is not None
    assert store.get(asked.id).held_since is not None  # type: ignore[union-attr]


def test_a_result_taken_unanswered_is_kept_as_such() -> None:
    from askcli.questions.outcome import Outcome
    from askcli.runners.session import Reply
    from askcli.wire.results import ToolResult

    taken = ToolResult("toolu_1", "", Outcome.ENDED, updated_input={"answers": {}}, taken=True)
    kept = reply_to_json(Reply([], taken.status, [taken]))
    assert kept["results"][0]["taken"] is True
    (again,) = reply_from_json(json.loads(json.dumps(kept))).results
    assert again.allowed and again.decision()["behavior"] == "allow"
