"""What only the PostgreSQL store has: reaching a server (and saying in one line why not),
its schema (made, migrated, refused when not askcli's), leases across machines, pushed
changes, and a server restarted while askers and inboxes wait. The rest of the inbox suite
runs on both stores (``inbox_where`` in conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.errors import InboxError, InboxRefused
from askcli.inbox.store import Agent, QueueState, Store, open_store, postgres, postgres_schema

from tests.support.calls import COLOR, call, question
from tests.support.inbox import (
    COMMANDS,
    Queue,
    labelled,
    leave,
    result,
    run_command,
    tamper,
)
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, Cluster
from tests.support.processes import askcli_path, poll

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

AGENT = Agent("claude", "s1", "/work/api")
LIBRARY = call(question("Which library?", "Library", ["date-fns", "Day.js"]))


@pytest.fixture
def store(postgres_url: str) -> Iterator[Store]:
    opened = open_store(postgres_url)
    yield opened
    opened.close()


def _asking(tmp_path: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """``askcli ask --inbox`` asking :data:`LIBRARY` in ``env``."""
    source = tmp_path / "call.json"
    source.write_text(json.dumps(LIBRARY))
    return subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _owned_by_password_role(cluster: Cluster) -> str:
    """A fresh database the password role owns (and so may make a schema in)."""
    return cluster.new_database(owner=PASSWORD_ROLE)


# -- reaching the server ---------------------------------------------------------------


@pytest.mark.parametrize(("args", "stdin", "status"), COMMANDS, ids=lambda v: str(v)[:20])
def test_a_wrong_password_is_one_line_that_never_repeats_it(
    postgres_cluster: Cluster, tmp_path: Path, args: list[str], stdin: str, status: int
) -> None:
    name = _owned_by_password_role(postgres_cluster)
    url = postgres_cluster.url(name, PASSWORD_ROLE, "not-the-password")
    code, err = run_command(args, stdin, {"ASKCLI_INBOX": url}, tmp_path)
    assert code == status
    port = postgres_cluster.port
    assert err.splitlines() == [
        f"askcli: the inbox postgresql://{PASSWORD_ROLE}@127.0.0.1:{port}/{name} cannot be"
        f' reached: password authentication failed for user "{PASSWORD_ROLE}"'
    ]
    assert "not-the-password" not in err


def test_the_password_comes_from_pgpass_not_the_command_line(
    postgres_cluster: Cluster, tmp_path: Path
) -> None:
    """The URL names no password: libpq finds it in PGPASSFILE, so no process's command line
    nor environment shows it; the answer goes round."""
    name = _owned_by_password_role(postgres_cluster)
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{postgres_cluster.port}:{name}:{PASSWORD_ROLE}:{PASSWORD}\n")
    passfile.chmod(0o600)
    url = postgres_cluster.url(name, PASSWORD_ROLE)
    env = {**os.environ, "ASKCLI_INBOX": url, "PGPASSFILE": str(passfile), "NO_COLOR": "1"}
    asker = _asking(tmp_path, env)
    os.environ["PGPASSFILE"], before = str(passfile), os.environ.get("PGPASSFILE")
    try:
        inbox = open_store(url)
        poll(lambda: bool(inbox.ids()), "the question in the PostgreSQL inbox")
        answered = subprocess.run(
            [str(askcli_path()), "inbox", "answer", str(inbox.ids()[0])],
            input="2\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        inbox.close()
    finally:
        if before is None:
            del os.environ["PGPASSFILE"]
        else:
            os.environ["PGPASSFILE"] = before
    assert answered.returncode == 0, answered.stderr
    out, err = asker.communicate(timeout=20)
    assert asker.returncode == 0, err
    assert '"Which library?"="Day.js"' in json.loads(out)["content"]


def test_sslmode_is_honoured(postgres_url: str, tmp_path: Path) -> None:
    code, err = run_command(
        ["inbox", "list"], "", {"ASKCLI_INBOX": postgres_url + "?sslmode=require"}, tmp_path
    )
    assert code == 2
    assert err.startswith("askcli: the inbox postgresql://")
    assert err.rstrip().endswith("server does not support SSL, but SSL was required")
    assert len(err.splitlines()) == 1


def test_without_the_extra_a_postgresql_inbox_says_what_to_install(
    postgres_url: str, tmp_path: Path
) -> None:
    shadow = tmp_path / "shadow" / "psycopg"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no psycopg here')\n")
    env = {"ASKCLI_INBOX": postgres_url, "PYTHONPATH": str(shadow.parent)}
    code, err = run_command(["inbox", "list"], "", env, tmp_path)
    assert code == 2
    assert err.splitlines() == [
        "askcli: a PostgreSQL inbox needs psycopg, askcli's postgres extra:"
        " pip install 'askcli[postgres]'"
    ]


# -- the schema ------------------------------------------------------------------------


def test_the_schema_is_made_once_and_says_its_version(postgres_url: str) -> None:
    def make() -> None:
        opened = open_store(postgres_url)
        opened.ids()
        opened.close()

    threads = [threading.Thread(target=make) for _ in range(6)]  # all at once: one makes it
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with psycopg.connect(postgres_url) as db:
        rows = db.execute("SELECT app, version FROM askcli.version").fetchall()
        tables = {
            r[0]
            for r in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'askcli'"
            ).fetchall()
        }
        public = db.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert public.fetchone() == (0,)  # nothing of askcli's among the database's own
    assert rows == [("askcli inbox", postgres_schema.VERSION)]
    assert tables == set(postgres_schema.TABLES)


def test_a_schema_askcli_did_not_make_is_refused_and_left_alone(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("CREATE SCHEMA askcli")
        db.execute("CREATE TABLE askcli.questions (mine TEXT)")
        db.execute("INSERT INTO askcli.questions VALUES ('keep me')")
    with pytest.raises(InboxRefused) as refused:
        open_store(postgres_url).submit(LIBRARY, AGENT)
    assert str(refused.value) == (
        f"the inbox {postgres_url} cannot be used: its schema askcli holds tables askcli did"
        " not make (questions); askcli leaves them unchanged"
    )
    with psycopg.connect(postgres_url) as db:
        assert db.execute("SELECT * FROM askcli.questions").fetchall() == [("keep me",)]
        found = db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'askcli'")
        assert found.fetchall() == [("questions",)]


def test_a_newer_askcli_s_schema_is_refused(store: Store, postgres_url: str) -> None:
    store.ids()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("UPDATE askcli.version SET version = 99")
    with pytest.raises(InboxRefused, match=r"was made by a newer askcli \(schema 99; this one"):
        open_store(postgres_url).ids()


# -- leases across machines ------------------------------------------------------------


def test_an_asker_elsewhere_is_withdrawn_when_its_lease_lapses(store: Store) -> None:
    """No pid of another machine is looked at: its lease alone says whether it lives."""
    quiet = store.submit(LIBRARY, AGENT)
    beating = store.submit(call(question("Still there?"), id="toolu_2"), AGENT)
    now = time.time()
    for qid, asker, seen in ((quiet.id, "far/1/", now - 60), (beating.id, "far/2/", now)):
        tamper(
            store,
            "UPDATE questions SET asker = ?, asker_pid = 1, arrived = ? WHERE id = ?",
            (asker, now - 60, qid),
        )
        tamper(
            store,
            "INSERT INTO askers (id, host, seen, place, pid) VALUES (?, 'far', ?, 'elsewhere', 1)",
            (asker, seen),
        )
    assert [q.id for q in store.tidy()] == [quiet.id]
    assert store.state(beating.id) is QueueState.WAITING


def test_a_question_just_asked_is_not_withdrawn_before_its_first_heartbeat(store: Store) -> None:
    asked = store.submit(LIBRARY, AGENT)
    tamper(store, "DELETE FROM askers")  # as if its first heartbeat were still on its way
    assert store.tidy() == []
    assert store.state(asked.id) is QueueState.WAITING


def test_an_asker_renews_its_lease_while_it_waits(store: Store) -> None:
    store.submit(LIBRARY, AGENT)
    first = tamper(store, "SELECT seen FROM askers")[0][0]
    poll(
        lambda: tamper(store, "SELECT seen FROM askers")[0][0] > first,
        "a second heartbeat",
        timeout=postgres.BEAT * 5,
    )


# -- pushes ----------------------------------------------------------------------------


def test_a_waiting_asker_is_woken_by_the_answer_not_by_polling(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While nothing changes, a waiter looks about once a second (in case a push was lost),
    not every few milliseconds; an answer's NOTIFY wakes it at once."""
    asked = store.submit(LIBRARY, AGENT)
    looks: list[float] = []
    real = Store.state

    def counted(self: Store, question_id: int) -> QueueState | None:
        looks.append(time.monotonic())
        return real(self, question_id)

    monkeypatch.setattr(Store, "state", counted)
    assert store.wait(asked.id, 2.0) is None
    assert 2 <= len(looks) <= 4  # at the start, then about one a second
    answering = open_store(store.url)  # type: ignore[attr-defined]
    answering.heartbeat("inbox-1")
    assert answering.claim("inbox-1") is not None
    looks.clear()

    def later() -> None:
        time.sleep(0.3)
        answering.answer("inbox-1", asked.id, {"replies": [], "status": 0, "results": []})

    threading.Thread(target=later).start()
    found = store.wait(asked.id, 30.0)
    assert found is not None and found.state is QueueState.ANSWERED
    assert len(looks) <= 3  # woken by the push, not by a second's look
    answering.close()


# -- the server restarted while everyone waits -----------------------------------------


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this test alone: restarting it leaves the session's one as it was."""
    from tests.support.postgres import ClusterUnavailable

    try:
        cluster = Cluster()
        cluster.start()
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL cluster: {exc}")
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.mark.pty
def test_a_server_restarted_mid_wait_loses_nothing(own_cluster: Cluster, tmp_path: Path) -> None:
    """An asker waiting and an inbox waiting for questions both outlive a restart of the
    server: the inbox is told of a question asked after it, the asker gets its answer."""
    url = own_cluster.url(own_cluster.new_database())
    queue = Queue(tmp_path, url)
    try:
        before = queue.ask(labelled("Deploy now?", "Deploy", "Yes", "No", id="toolu_d"), "d")
        own_cluster.restart()
        term = queue.inbox()
        term.expect("[1 waiting] #1 ")
        term.expect("[y]: ")
        term.type("")
        term.expect("Choose 1-3: ")
        term.type("1")
        term.expect("#1 answered")
        assert '"Deploy now?"="Yes"' in result(before)[1][0]["content"]
        term.expect("Waiting for questions")
        own_cluster.restart()  # the inbox waits through it
        after = queue.ask(labelled("Roll back?", "Rollback", "Yes", "No", id="toolu_r"), "r")
        term.expect("new #2: Roll back?  ask ")
        term.expect("[y]: ")
        term.type("")
        term.expect("Choose 1-3: ")
        term.type("2")
        term.expect("#2 answered")
        assert '"Roll back?"="No"' in result(after)[1][0]["content"]
        assert leave(term) == 0
    finally:
        queue.close()


@pytest.mark.pty
def test_an_asker_outlasts_a_server_that_is_down_for_a_while(
    own_cluster: Cluster, tmp_path: Path
) -> None:
    url = own_cluster.url(own_cluster.new_database())
    queue = Queue(tmp_path, url)
    try:
        asker = queue.ask(call(COLOR, id="toolu_c"), "c")
        own_cluster.stop()
        time.sleep(3)  # longer than one reconnection, shorter than a lease
        assert asker.poll() is None  # still waiting
        own_cluster.start()
        store = open_store(url)
        store.heartbeat("inbox-1")
        held = store.claim("inbox-1")
        assert held is not None
        reply = {"replies": [{"type": "tool_result", "content": "fine"}], "status": 0}
        assert store.answer("inbox-1", held.id, {**reply, "results": []})
        store.close()
        code, replies, err = result(asker)
        assert code == 0, err
        assert replies == [{"type": "tool_result", "content": "fine"}]
    finally:
        queue.close()


@pytest.mark.process
def test_an_operation_gives_up_when_the_server_stays_away(
    own_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = own_cluster.url(own_cluster.new_database())
    store = open_store(url)
    store.ids()
    own_cluster.stop()
    monkeypatch.setattr(postgres, "RECONNECT", 0.5)
    with pytest.raises(InboxError, match=r"^the inbox postgresql://\S+ was lost: "):
        store.submit(LIBRARY, AGENT)
    store.close()


# -- machines and people apart ---------------------------------------------------------


def _home(tmp_path: Path, name: str, url: str) -> dict[str, str]:
    """The environment of a process on a machine of its own: its own home and state."""
    home = tmp_path / name
    (home / "state").mkdir(parents=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "ASKCLI_INBOX": url,
        "NO_COLOR": "1",
    }


def test_doctor_says_whether_the_postgresql_inbox_answers(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path
) -> None:
    from tests.support.processes import run_askcli

    home = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    good = run_askcli("doctor", env={**home, "ASKCLI_INBOX": postgres_url})
    assert good.returncode == 0
    assert f"inbox: {postgres_url} ($ASKCLI_INBOX): usable (PostgreSQL; no askcli schema" in (
        good.stdout
    )
    assert "postgres installed" in good.stdout
    wrong = postgres_cluster.url("nope", PASSWORD_ROLE, "s3cret-pw")
    bad = run_askcli("doctor", env={**home, "ASKCLI_INBOX": wrong})
    assert bad.returncode == 0
    shown = wrong.replace(":s3cret-pw", "")
    assert f"inbox: {shown} ($ASKCLI_INBOX): not usable: the inbox {shown} cannot be reached:" in (
        bad.stdout
    )
    assert "s3cret-pw" not in bad.stdout + bad.stderr


def test_an_asker_hears_only_of_its_own_questions(store: Store, postgres_url: str) -> None:
    """Each asker listens on a channel of its own: another asker's questions coming and going
    never wake it (50 askers are not each woken by the 49 others), an inbox hears of all."""
    mine = store.submit(LIBRARY, AGENT)
    store.wait(mine.id, 0.01)  # listening from now on
    asker_hub = postgres._hub(store, postgres.asker_channel())  # type: ignore[arg-type]
    inbox_hub = postgres._hub(store, postgres.CHANNEL)  # type: ignore[arg-type]
    assert asker_hub is not None and inbox_hub is not None
    heard, inbox_heard = asker_hub.generation, inbox_hub.generation
    code = (
        "import sys; from askcli.inbox.store import open_store, Agent\n"
        "s = open_store(sys.argv[1])\n"
        "for n in range(5): s.withdraw(s.submit({'n': n}, Agent()).id)\n"
        "s.close()"
    )
    subprocess.run([sys.executable, "-c", code, postgres_url], check=True, timeout=30)
    poll(lambda: inbox_hub.generation >= inbox_heard + 10, "the inbox hearing of all ten changes")
    assert asker_hub.generation == heard
    store.withdraw(mine.id)
    poll(lambda: asker_hub.generation > heard, "the asker hearing of its own question")


def test_the_schema_of_the_askcli_before_is_brought_to_this_one(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        for statements in postgres_schema.MIGRATIONS[:2]:  # schema 2, with a question in it
            for statement in statements:
                db.execute(statement)
        db.execute("INSERT INTO askcli.version (app, version) VALUES ('askcli inbox', 2)")
        db.execute(
            "INSERT INTO askcli.questions (ticket, key, agent, arrived, call, status, claimed_by)"
            " VALUES ('q_old', 'k', '{}', 1.0, '{}', 'waiting', NULL)"
        )
    store = open_store(postgres_url)
    try:
        (old,) = store.questions()
        assert old.ticket == "q_old" and old.held_since is None
        store.heartbeat("an-inbox")
        assert store.claim("an-inbox", old.id) is not None
        held = store.get(old.id)
        assert held is not None and held.held_since is not None
    finally:
        store.close()
    with psycopg.connect(postgres_url) as db:
        found = db.execute("SELECT version FROM askcli.version").fetchall()
    assert found == [(postgres_schema.VERSION,)] == [(4,)]
