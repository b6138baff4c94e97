"""The queue in one SQLite file (WAL) on this machine: the default store.

Every operation is one short transaction on its own connection-per-process; waiting is a poll
of a few milliseconds, so arrival and delivery take well under 100 ms on one machine. The
file is created 0600 in a directory of 0700; ``$ASKCLI_INBOX`` names another file. Only a
file of the user's, that nobody else can write, and that is an askcli inbox, is opened
(:mod:`.opening`). An asker is alive while its process runs (its pid and start time, see
:mod:`askcli.inbox.asker_identity`). A secret answer is erased from the file once delivered.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...errors import InboxBusy, InboxError, InboxRefused
from ...files import lstat_or_none
from .. import asker_identity, location
from . import base, opening
from .base import POLL, QueueState, Store, asker_id, default_file, default_path
from .kept import spared
from .team_members import Teams

T = TypeVar("T")
BUSY_MS = 10_000  # how long a write waits for another process's transaction
SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS questions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ticket TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    agent TEXT NOT NULL,
    arrived REAL NOT NULL,
    call TEXT NOT NULL,
    status TEXT NOT NULL,
    claimed_by TEXT,
    result TEXT,
    delivered REAL,
    asker_pid INTEGER,
    asker_host TEXT,
    finished REAL,
    asker_start TEXT,
    conversation TEXT,
    claimed_until REAL,
    secret INTEGER,
    asker TEXT,
    addressed_to TEXT,
    answered_by TEXT,
    answered_host TEXT,
    decision TEXT,
    rules TEXT,
    answered_from TEXT,
    claim_token TEXT,
    answer_token TEXT,
    take_token TEXT,
    withdraw_token TEXT,
    claimed_at REAL,
    resumed_by TEXT,
    resumed_at REAL,
    resumed_until REAL
)""",
    "CREATE INDEX IF NOT EXISTS questions_status ON questions (status, id)",
    "CREATE INDEX IF NOT EXISTS questions_key ON questions (key, id)",
    """
CREATE TABLE IF NOT EXISTS inboxes (
    id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    seen REAL NOT NULL,
    person TEXT,
    place TEXT
)""",
    # where each asker runs (its pid means something only there) and when it was last
    # heard of; an asker of another place (a container, bwrap, firejail) is alive while
    # it renews this lease
    """
CREATE TABLE IF NOT EXISTS askers (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    seen REAL NOT NULL,
    place TEXT,
    pid INTEGER,
    start TEXT
)""",
    """
CREATE TABLE IF NOT EXISTS teams (
    team TEXT NOT NULL,
    member TEXT NOT NULL,
    PRIMARY KEY (team, member)
)""",
)
# the columns an earlier askcli's inbox lacks, added when it is opened
ADDED = {
    ("questions", "asker_start"): "TEXT",
    ("questions", "conversation"): "TEXT",
    ("questions", "claimed_until"): "REAL",
    ("questions", "secret"): "INTEGER",
    ("questions", "asker"): "TEXT",
    ("questions", "addressed_to"): "TEXT",
    ("questions", "answered_by"): "TEXT",
    ("questions", "answered_host"): "TEXT",
    ("questions", "decision"): "TEXT",
    ("questions", "rules"): "TEXT",
    ("questions", "answered_from"): "TEXT",
    ("questions", "claim_token"): "TEXT",
    ("questions", "answer_token"): "TEXT",
    ("questions", "take_token"): "TEXT",
    ("questions", "withdraw_token"): "TEXT",
    ("questions", "claimed_at"): "REAL",
    ("questions", "resumed_by"): "TEXT",
    ("questions", "resumed_at"): "REAL",
    ("questions", "resumed_until"): "REAL",
    ("inboxes", "person"): "TEXT",
    ("inboxes", "place"): "TEXT",
}


def _named_url(where: Path | str | None) -> InboxRefused | None:
    """The refusal of a URL that is no PostgreSQL one, named by ``where`` (a location, as
    ``--inbox-url`` gives it) or, without it, by ``$ASKCLI_INBOX``; never of a path."""
    if isinstance(where, Path):
        return None
    named = where if where is not None else os.environ.get("ASKCLI_INBOX") or ""
    return location.refuse_url(named) if location.url_scheme(named) else None


def _prepare(db: sqlite3.Connection) -> None:
    """Make the file an inbox of this askcli: its tables, the columns an earlier askcli's
    lacked, and the header that says it is askcli's, in one transaction before the switch
    to WAL, so that a new file is never seen half made."""
    header = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if header == opening.APPLICATION_ID and version >= opening.SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA:
            db.execute(statement)
        have: dict[str, set[str]] = {}
        for (table, column), kind in ADDED.items():
            if table not in have:
                have[table] = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in have[table]:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        db.execute(f"PRAGMA application_id = {opening.APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {opening.SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class SQLiteStore(Store):
    """The queue in the file at ``path``; each process opens its own."""

    def __init__(self, where: Path | str | None = None) -> None:
        self._refused = _named_url(where)
        if where is None:
            self.path = default_path()
        else:  # a URL refused is no file: the default one is where it is said to be
            self.path = Path(where) if self._refused is None else default_file()
        self.where = str(self.path)
        self._db: sqlite3.Connection | None = None
        self._renewed: float | None = None  # when this asker's lease was last renewed

    def reopen(self) -> SQLiteStore:
        return SQLiteStore(self.path)

    @property
    def teams(self) -> SQLiteTeams:
        return SQLiteTeams(self)

    # -- the file --------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        if self._refused is not None:
            raise self._refused
        try:
            found = lstat_or_none(self.path)
        except OSError as exc:  # a parent that is a file, a folder that cannot be searched
            raise InboxError(f"{self.path} cannot be used as an inbox: {exc.strerror}") from None
        if found is None:
            self._create_folder()
        opening.check_folder(self.path.parent)
        checked = opening.check_file(self.path)
        if checked is None:
            self._create_file()
            checked = opening.check_file(self.path)
        if checked is None:  # removed again meanwhile
            raise InboxError(f"{self.path} cannot be used as an inbox: it was removed")
        opening.check_askcli(self.path, checked)  # any other file refused before SQLite writes
        db = self._connect()
        for extra in ("-wal", "-shm"):  # SQLite makes them with the umask's mode
            with contextlib.suppress(OSError):
                os.chmod(f"{self.path}{extra}", 0o600)
        self._db = db
        return db

    def _create_folder(self) -> None:
        """The inbox's folder, made 0700 if need be; InboxError naming the folder that
        cannot be made."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            made = exc.filename if exc.filename is not None else self.path.parent
            why = f"cannot create the folder {made}: {exc.strerror}"
            raise InboxError(f"{self.path} cannot be used as an inbox: {why}") from None

    def _create_file(self) -> None:
        """A new empty inbox file (0600); InboxError naming the folder it cannot be made in."""
        try:
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except OSError as exc:
            why = f"cannot create it in {self.path.parent}: {exc.strerror}"
            raise InboxError(f"{self.path} cannot be used as an inbox: {why}") from None

    def _connect(self) -> sqlite3.Connection:
        """Open the file and make it an inbox. Two processes opening a new file at once
        contend for it: switching to WAL does not wait for the other (SQLite reports
        "locked" at once), so that is tried again for up to :data:`BUSY_MS`."""
        deadline = time.monotonic() + BUSY_MS / 1000
        while True:
            db: sqlite3.Connection | None = None
            try:
                db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
                db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
                db.execute("PRAGMA secure_delete = ON")  # what is erased is overwritten
                _prepare(db)
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                return db
            except sqlite3.OperationalError as exc:
                if db is not None:
                    db.close()
                if "locked" not in str(exc):
                    raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
                if time.monotonic() >= deadline:
                    raise InboxBusy(f"the inbox {self.path} is busy: {exc}") from None
                time.sleep(POLL)
            except sqlite3.DatabaseError as exc:
                if db is not None:
                    db.close()
                raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _run(self, work: Callable[[Any], T], *, write: bool = True) -> T:
        """``work(db)`` in one write transaction taken at once (``BEGIN IMMEDIATE``), or,
        to read, as it comes."""
        db = self._open()
        if not write:
            try:
                return work(db)
            except sqlite3.Error as exc:
                raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise InboxBusy(f"the inbox {self.path} is busy: {exc}") from None
            raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
        try:
            done = work(db)
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):  # a read-only file or folder, a full disk
                raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
            raise
        return done

    def _forget(self) -> None:
        """Keep what was erased out of the WAL too: the erasing write (overwritten with
        zeros, ``secure_delete``) is copied into the file and the WAL emptied."""
        with contextlib.suppress(sqlite3.Error):
            self._open().execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _asking(self) -> None:
        """This process asks: its place and its lease (renewed while it waits)."""
        if self._renewed is None:
            self._renew()

    def _renew(self) -> None:
        me = asker_identity.me()
        self._run(
            lambda db: db.execute(
                "INSERT INTO askers (id, host, seen, place, pid, start) VALUES (?, ?, ?, ?,"
                " ?, ?) ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
                (asker_id(me), me.host, self._now(), asker_identity.place(), me.pid, me.start),
            )
        )
        self._renewed = time.monotonic()

    def _state_while_waiting(self, question_id: int) -> QueueState | None:
        if self._renewed is not None and time.monotonic() - self._renewed >= base.LEASE:
            self._renew()
        return self.state(question_id)

    def _dead_askers(self, db: Any, now: float) -> list[int]:
        """Questions of askers that are gone. Where the asker's pid means the same as here
        (its place: this boot and pid namespace, :func:`.askers.place`), a process that no
        longer runs, or whose pid now belongs to a process that started at another time;
        elsewhere (another container or sandbox sharing the file, another machine), an
        asker not heard of for :data:`~.store.ASKER_GRACE` seconds. A question of an
        earlier askcli, whose place is not known: by its pid, on this machine."""
        kept, params = spared(now)
        rows = db.execute(
            "SELECT questions.id, asker_pid, asker_start, asker_host, askers.place,"
            " askers.seen FROM questions LEFT JOIN askers ON askers.id = questions.asker"
            f" WHERE status IN ('waiting', 'being answered') AND NOT {kept}",
            params,
        ).fetchall()
        here, host = asker_identity.place(), asker_identity.me().host
        gone = []
        for qid, pid, start, asker_host, place, seen in rows:
            if place is None:
                dead = asker_host == host and not asker_identity.alive(pid, start)
            elif place == here:  # (a file is one machine's: even without /proc)
                dead = not asker_identity.alive(pid, start)
            else:
                dead = seen < now - base.ASKER_GRACE
            if dead:
                gone.append(qid)
        return gone


class SQLiteTeams(Teams):
    """The teams in the file's table ``teams``: a row per team and member."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def all(self) -> dict[str, list[str]]:
        store = self.store
        rows = store._run(
            lambda db: store._x(
                db, "SELECT team, member FROM teams ORDER BY team, member"
            ).fetchall(),
            write=False,
        )
        found: dict[str, list[str]] = {}
        for team, member in rows:
            found.setdefault(team, []).append(member)
        return found

    def add(self, team: str, members: list[str]) -> None:
        store = self.store

        def work(db: Any) -> None:
            for member in members:
                store._x(
                    db,
                    "INSERT INTO teams (team, member) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (team, member),
                )

        store._run(work)

    def remove(self, team: str, members: list[str]) -> int:
        store = self.store

        def work(db: Any) -> int:
            if not members:
                return int(store._x(db, "DELETE FROM teams WHERE team = ?", (team,)).rowcount)
            return sum(
                int(
                    store._x(
                        db, "DELETE FROM teams WHERE team = ? AND member = ?", (team, member)
                    ).rowcount
                )
                for member in members
            )

        return store._run(work)
