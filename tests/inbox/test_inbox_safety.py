"""The inbox is the person's: only a file of the user's that nobody else can write and that
is an askcli inbox is used (a foreign file is left byte for byte as it was, a URL is never a
path), a claim whose inbox died lapses, a secret answer is erased once delivered, a locked
inbox is no answer for each call, and every inbox line fits the terminal."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import InboxRefused
from askcli.inbox.asker_side import ask_inbox
from askcli.inbox.person_side import queue_screens
from askcli.inbox.person_side.commands import answer_by_id, list_questions
from askcli.inbox.store import Agent, QueuedQuestion, QueueState, open_store, sqlite
from askcli.inbox.store import base as module
from askcli.lines import TextLineReader
from askcli.status import ExitStatus
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style, display_width
from askcli.wire.documents import Document

from tests.support.calls import call, question
from tests.support.inbox import (
    COMMANDS,
    LIBRARY,
    PIN,
    Queue,
    another_asker,
    codex_secret,
    exit_status,
    form_secret,
    pin_secret,
    run_command,
)
from tests.support.processes import askcli_path, poll

AGENT = Agent("ask", "s1", "/tmp/work")
SECRET = "hunter2-Zq8xV-secret"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def made_inbox(tmp_path: Path) -> Path:
    path = tmp_path / "inbox.db"
    store = open_store(path)
    store.submit(LIBRARY, AGENT)
    store.close()
    return path


def foreign_db(path: Path, *, wal: bool = False) -> None:
    """An SQLite database of another program (the journal mode it chose kept)."""
    db = sqlite3.connect(path, isolation_level=None)
    if wal:
        db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes (text) VALUES ('mine, not askcli''s')")
    db.close()


# -- every command that opens the inbox --------------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize(("args", "stdin", "status"), COMMANDS, ids=lambda v: str(v)[:20])
def test_an_inbox_others_can_write_is_refused_by_every_command(
    tmp_path: Path, args: list[str], stdin: str, status: int
) -> None:
    path = made_inbox(tmp_path)
    path.chmod(0o666)
    before = digest(path)
    code, err = run_command(args, stdin, {"ASKCLI_INBOX": str(path)}, tmp_path)
    assert code == status
    assert err.splitlines() == [
        f"askcli: {path} can be written by other users (mode 0666); askcli uses only an "
        "inbox that only you can write (chmod go-w)"
    ]
    assert digest(path) == before


@pytest.mark.process
@pytest.mark.parametrize(("args", "stdin", "status"), COMMANDS, ids=lambda v: str(v)[:20])
def test_a_url_in_askcli_inbox_is_never_a_path(
    tmp_path: Path, args: list[str], stdin: str, status: int
) -> None:
    """A PostgreSQL URL is a server to reach (here none answers), never a file."""
    url = "postgresql://alice:s3cret-pw@127.0.0.1:1/askcli?sslmode=disable"
    code, err = run_command(args, stdin, {"ASKCLI_INBOX": url}, tmp_path)
    assert code == status
    assert err.splitlines() == [
        "askcli: the inbox postgresql://alice@127.0.0.1:1/askcli cannot be reached: Connection"
        " refused"
    ]
    assert "s3cret-pw" not in err  # its credentials are not repeated
    assert list(tmp_path.iterdir()) == []  # no folder named postgresql:


def test_any_url_is_refused_without_touching_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASKCLI_INBOX", "https://user:pw@example.com/inbox")
    with pytest.raises(
        InboxRefused,
        match=r"^ASKCLI_INBOX is a https:// URL: askcli keeps an inbox in a file or in PostgreSQL",
    ):
        open_store().submit(LIBRARY, AGENT)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.process
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_an_inbox_of_another_user_is_refused(tmp_path: Path) -> None:
    path = made_inbox(tmp_path)
    os.chown(path, 65534, 65534)
    before = digest(path)
    code, err = run_command(["inbox", "list"], "", {"ASKCLI_INBOX": str(path)}, tmp_path)
    assert code == 2
    assert err.splitlines() == [
        f"askcli: {path} belongs to another user (uid 65534); askcli uses only an inbox of yours"
    ]
    assert digest(path) == before


def test_an_inbox_of_another_user_is_refused_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = made_inbox(tmp_path)
    someone = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: someone + 4242)
    with pytest.raises(InboxRefused, match="belongs to another user"):
        open_store(path).questions()


def test_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    path = made_inbox(folder)
    folder.chmod(0o1777)  # as /tmp: another user could put a -wal file beside it
    with pytest.raises(InboxRefused, match=r"folder .*shared can be written by other users"):
        open_store(path).questions()
    with pytest.raises(InboxRefused, match="can be written by other users"):
        open_store(folder / "new.db").questions()
    assert not (folder / "new.db").exists()


def test_a_side_file_others_can_write_is_refused(tmp_path: Path) -> None:
    path = made_inbox(tmp_path)
    wal = Path(f"{path}-wal")
    wal.write_bytes(b"")
    wal.chmod(0o646)
    with pytest.raises(InboxRefused, match=r"inbox\.db-wal can be written by other users"):
        open_store(path).questions()


@pytest.mark.process
@pytest.mark.parametrize("wal", [False, True])
def test_an_sqlite_file_that_is_no_inbox_is_left_unchanged(tmp_path: Path, wal: bool) -> None:
    path = tmp_path / "notes.db"
    foreign_db(path, wal=wal)
    names = sorted(p.name for p in tmp_path.iterdir())
    before = digest(path)
    with pytest.raises(InboxRefused, match="an SQLite database of something else"):
        open_store(path).submit(LIBRARY, AGENT)
    code, err = run_command(["inbox", "list"], "", {"ASKCLI_INBOX": str(path)}, tmp_path)
    assert code == 2
    assert err.splitlines() == [
        f"askcli: {path} cannot be used as an inbox: it is an SQLite database of something "
        "else, not an askcli inbox; askcli leaves it unchanged"
    ]
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == names  # no -wal, no -shm
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == ("wal" if wal else "delete")
    db.close()


def test_any_other_file_is_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n" * 50)
    before = digest(path)
    with pytest.raises(InboxRefused, match="it is not an SQLite database"):
        open_store(path).submit(LIBRARY, AGENT)
    assert digest(path) == before


OLD_SCHEMA = """
CREATE TABLE questions (id INTEGER PRIMARY KEY AUTOINCREMENT, ticket TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL, agent TEXT NOT NULL, arrived REAL NOT NULL, call TEXT NOT NULL,
    status TEXT NOT NULL, claimed_by TEXT, result TEXT, delivered REAL, asker_pid INTEGER,
    asker_host TEXT, finished REAL);
CREATE TABLE inboxes (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL,
    seen REAL NOT NULL);
"""


def test_an_inbox_an_earlier_askcli_made_is_still_used(tmp_path: Path) -> None:
    path = tmp_path / "inbox.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(OLD_SCHEMA)
    db.close()
    store = open_store(path)
    asked = store.submit(LIBRARY, AGENT)
    store.heartbeat("i")
    assert store.claim("i") is not None
    assert store.answer("i", asked.id, {"replies": []})
    assert store.take(asked.id) == {"replies": []}
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == 0x61736B63
    db.close()


def test_a_new_inbox_says_it_is_askcli_s(tmp_path: Path) -> None:
    path = made_inbox(tmp_path)
    header = path.read_bytes()[:100]
    assert header[68:72] == b"askc"


# -- a claim lapses when its inbox is gone (item 10) -------------------------------------


def test_a_claim_not_renewed_lapses_for_any_inbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path / "inbox.db")
    asked = store.submit(LIBRARY, AGENT)
    monkeypatch.setattr(module, "LEASE", 1.0)
    store.heartbeat("gone")  # as inbox answer did, then it was killed
    assert store.claim("gone", asked.id) is not None
    assert store.claim("other", asked.id) is None  # held, while its lease lasts
    time.sleep(1.1)
    lines: list[str] = []
    list_questions(open_store(store.path), lines.append)
    assert "waiting" in lines[0] and "being answered" not in lines[0]
    assert open_store(store.path).claim("other", asked.id) is not None


def test_a_renewed_claim_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(tmp_path / "inbox.db")
    asked = store.submit(LIBRARY, AGENT)
    monkeypatch.setattr(module, "LEASE", 1.0)
    store.heartbeat("alive")
    store.claim("alive", asked.id)
    for _ in range(5):
        time.sleep(0.3)
        store.heartbeat("alive")
        store.tidy()
    assert store.get(asked.id).state is QueueState.ANSWERING  # type: ignore[union-attr]


def _listed(queue: Queue) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "list", "--json"],
        capture_output=True,
        text=True,
        env=queue.env,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.pty
@pytest.mark.parametrize("kind", [["inbox", "answer", "1"], ["inbox"]], ids=" ".join)
def test_a_killed_inbox_gives_its_question_back_within_the_lease(
    queue: Queue, kind: list[str]
) -> None:
    asked = queue.store().submit(
        call(question("Which database?", "DB", ["Postgres", "SQLite"])), AGENT
    )
    asker = another_asker(queue.store(), asked.id)
    term = queue.inbox(*kind[1:])
    if kind == ["inbox"]:
        term.expect("Answer #1?")
        term.type("")
    term.expect("Choose 1-")  # in the middle of the question
    assert _listed(queue)[0]["status"] == "being answered"
    term.child.kill(signal.SIGKILL)
    assert exit_status(term) == 128 + signal.SIGKILL
    killed = time.monotonic()
    poll(lambda: _listed(queue)[0]["status"] == "waiting", "the question waiting again", 10.0)
    assert time.monotonic() - killed < module.LEASE + 4
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "answer", str(asked.id)],
        input="2\n",
        capture_output=True,
        text=True,
        env=queue.env,
        timeout=30,
    )
    asker.kill()
    asker.wait()
    assert proc.returncode == 0, proc.stderr


# -- a secret answer is erased once delivered (item 11) ----------------------------------


def on_disk(path: Path) -> bytes:
    return b"".join(
        Path(f"{path}{side}").read_bytes()
        for side in ("", "-wal", "-journal")
        if Path(f"{path}{side}").exists()
    )


@pytest.mark.parametrize(
    ("document", "lines", "secret"),
    [
        (codex_secret, f"2\n{SECRET}\n", SECRET),
        (form_secret, f"{SECRET}\ny\n", SECRET),
        (pin_secret, f"{PIN}\ny\n", PIN),
    ],
    ids=["codex", "form", "integer"],
)
def test_a_secret_answer_is_erased_once_delivered(
    tmp_path: Path, document: Any, lines: str, secret: str
) -> None:
    path = tmp_path / "inbox.db"
    asker = open_store(path)
    asked = asker.submit(document(), AGENT)
    screen = io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), screen, Style())
    status = answer_by_id(open_store(path), asked.id, conv, io.StringIO())
    assert status == 0, screen.getvalue()
    assert secret.encode() in on_disk(path)  # kept until its asker takes it
    kept = asker.take(asked.id)
    assert secret in json.dumps(kept)
    assert secret.encode() not in on_disk(path)
    found = asker.get(asked.id)
    assert found is not None and found.state is QueueState.ANSWERED
    # askcli mcp's get_answer for the same ticket again: said, not the secret, not a failure
    from askcli.hosts.mcp import asker as mcp

    again = mcp.QueueSide(asker).settled(found)
    assert again.is_error and secret not in again.text
    assert "the answer held a secret and was given once; ask again" in again.text


def test_an_answer_that_is_no_secret_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "inbox.db"
    asker = open_store(path)
    asked = asker.submit(call(question("Which port?", "Port", ["80", "8080"])), AGENT)
    conv = Conversation(TextLineReader(io.StringIO("2\n")), io.StringIO(), Style())
    assert answer_by_id(open_store(path), asked.id, conv, io.StringIO()) == 0
    assert asker.take(asked.id) is not None
    assert b"8080" in on_disk(path)


# -- a locked inbox is no answer for each call (item 12) ---------------------------------


def _locked(path: Path) -> sqlite3.Connection:
    made_inbox(path.parent)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    return db


def test_each_call_through_a_locked_inbox_gets_no_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = _locked(tmp_path / "inbox.db")
    monkeypatch.setattr(sqlite, "BUSY_MS", 200)
    store = open_store(tmp_path / "inbox.db")
    said: list[str] = []
    try:
        for _ in range(2):
            reply = ask_inbox(
                store, Document(LIBRARY), AGENT, said=said.append, locked_is_no_answer=True
            )
            assert reply.status is ExitStatus.NO_ANSWER
            assert "No answer from the user (the inbox is locked" in reply.results[0].content
    finally:
        lock.close()
    assert len(said) == 2 and "is busy" in said[0]


@pytest.mark.process
def test_ask_inbox_on_a_locked_inbox_prints_the_no_answer_result(tmp_path: Path) -> None:
    lock = _locked(tmp_path / "inbox.db")
    try:
        proc = subprocess.run(
            [str(askcli_path()), "ask", "--inbox", "-"],
            input=json.dumps(LIBRARY) + "\n",
            capture_output=True,
            text=True,
            env={**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
            timeout=60,
        )
    finally:
        lock.close()
    assert proc.returncode == 3, proc.stderr
    result = json.loads(proc.stdout)
    assert "No answer from the user (the inbox is locked by another process)" in json.dumps(result)
    assert "Traceback" not in proc.stderr


# -- every inbox line fits the terminal (item 13) ----------------------------------------

LONG = "Which database? " + "x" * 200_000


def long_question(label: str = "/tmp/work") -> QueuedQuestion:
    return QueuedQuestion(
        7,
        "q_1",
        Agent("claude", None, label),
        time.time(),
        call(question(LONG, "DB", ["Postgres", "SQLite"])),
        QueueState.WAITING,
    )


@pytest.mark.parametrize("where", ["/tmp/work", "/" + "w" * 100_000, "/" + "界" * 50_000])
def test_every_inbox_line_is_cut_to_the_width(where: str) -> None:
    style = Style(width=80)
    held = long_question(where)
    lines = [
        queue_screens.line(held, 3, style),
        queue_screens.arrival(held, style),
        queue_screens.withdrew(held, style),
        queue_screens.list_line(held, style),
        queue_screens.about(held, style, f"#{held.id} answered: sent to ", after=True),
        queue_screens.about(
            held, style, f" withdrew #{held.id} while you answered; nothing was sent"
        ),
    ]
    for text in lines:
        for row in text.split("\n"):
            assert display_width(row) <= 80, row[:200]
    assert lines[2].startswith("#7 withdrawn, nothing was sent: Which database?…")  # a word


def test_a_short_line_is_as_it_was() -> None:
    held = QueuedQuestion(
        3,
        "q_1",
        Agent("claude", None, "/srv/api"),
        time.time(),
        call(question("Which database?", "DB", ["Postgres", "SQLite"])),
        QueueState.WAITING,
    )
    style = Style(width=80)
    assert queue_screens.withdrew(held, style) == (
        "#3 withdrawn, nothing was sent: Which database?  claude /srv/api"
    )
    assert queue_screens.arrival(held, style) == "new #3: Which database?  claude /srv/api"
    assert queue_screens.line(held, 2, style) == "[2 waiting] #3 Which database?  claude /srv/api"


@pytest.mark.pty
def test_the_withdrew_line_of_a_long_question_fits_the_terminal(queue: Queue) -> None:
    term = queue.inbox()
    term.expect("Waiting for questions")
    asker = queue.ask(call(question(LONG, "DB", ["Postgres", "SQLite"]), id="toolu_l"), "long")
    term.expect("Answer #1?")
    asker.kill()
    asker.communicate(timeout=10)
    term.expect("nothing was sent")
    term.expect("Waiting for questions")
    term.child.sendeof()
    exit_status(term)
    shown = term.log.getvalue().replace("\r", "")
    assert max(display_width(line) for line in shown.split("\n")) <= 80, shown[:2000]
