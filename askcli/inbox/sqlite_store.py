"""The question queue: one SQLite file (WAL) that askers and inboxes share.

An asker (``ask --inbox``, ``askcli mcp``, ``askcli hook``) *submits* a document (any
envelope askcli reads) with a label saying who asks, and *waits* for its result. An inbox
*claims* the oldest waiting question in a transaction, asks the person, and *answers* it;
the asker *takes* the result exactly once. A question belongs to the one asker that queued
it (its process, told from a later one with its pid by its start time, see :mod:`.askers`):
only that process takes its answer, and only its own identical call, in the same
conversation and for a bounded time, is the same question again. A claim carries a lease,
renewed by its live inbox: whichever inbox held it (``askcli inbox``, ``inbox answer``), a
claim not renewed for :data:`LEASE` seconds lapses and the question waits again. An asker
that gives up *withdraws* its question; one whose process is gone is withdrawn for it.

Every operation is one short transaction on its own connection-per-process; waiting is a poll
of a few milliseconds, so arrival and delivery take well under 100 ms on one machine. The
file is created 0600 in a directory of 0700; ``$ASKCLI_INBOX`` names another file. Only a
file of the user's, that nobody else can write, and that is an askcli inbox, is opened
(:mod:`.opening`). A secret answer is erased from the file once delivered.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import InboxBusy, InboxError, InboxRefused
from ..files import lstat_or_none, state_dir
from ..wire.documents import parse_json
from . import askers, opening
from .askers import Process

LEASE = 5.0  # seconds an inbox keeps a claim without being heard of
POLL = 0.01  # seconds between looks while waiting (raised up to POLL_MAX when idle)
POLL_MAX = 0.05
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
    secret INTEGER
)""",
    "CREATE INDEX IF NOT EXISTS questions_status ON questions (status, id)",
    "CREATE INDEX IF NOT EXISTS questions_key ON questions (key, id)",
    """
CREATE TABLE IF NOT EXISTS inboxes (
    id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    seen REAL NOT NULL
)""",
)
# the columns an earlier askcli's inbox lacks, added when it is opened
ADDED = {
    "asker_start": "TEXT",
    "conversation": "TEXT",
    "claimed_until": "REAL",
    "secret": "INTEGER",
}


class QueueState(enum.Enum):
    WAITING = "waiting"
    ANSWERING = "being answered"
    ANSWERED = "answered"
    WITHDRAWN = "withdrawn"


class Agent(NamedTuple):
    """Who asks: the client's name (``claude``, ``codex``, ``ask``), its session, its
    working folder and what tells it from another asker of that folder (``pid 4242``);
    ``label`` is what the inbox shows."""

    client: str = "ask"
    session: str | None = None
    cwd: str | None = None
    tag: str | None = None

    @property
    def where(self) -> str:
        """The working folder as the inbox shows it: ``~/api`` under the home folder."""
        where = self.cwd or ""
        home = str(Path.home())
        if where == home or where.startswith(home + os.sep):
            where = "~" + where[len(home) :]
        return where

    @property
    def label(self) -> str:
        label = f"{self.client} {self.where}".strip()
        return f"{label} ({self.tag})" if self.tag else label


class QueuedQuestion(NamedTuple):
    """One queued question as the inbox and ``inbox list`` see it."""

    id: int
    ticket: str
    agent: Agent
    arrived: float
    call: Any  # the document, as submitted
    state: QueueState
    result: Any = None  # what the inbox answered (see :func:`Store.answer`)


def default_path() -> Path:
    """``$ASKCLI_INBOX``, else ``$XDG_STATE_HOME/askcli/inbox.db``."""
    named = os.environ.get("ASKCLI_INBOX")
    return Path(named) if named else state_dir() / "inbox.db"


def _named_url() -> InboxRefused | None:
    """The refusal of a URL in ``$ASKCLI_INBOX``, which is never taken for a path."""
    named = os.environ.get("ASKCLI_INBOX") or ""
    return opening.refuse_url(named) if opening.url_scheme(named) else None


def call_key(call: Any, agent: Agent, asker: Process, conversation: str | None) -> str:
    """What makes two questions the same one asked again: the call, who asks (its client
    and session), the asking process and its conversation; not the moment. A retry after
    a client's timeout, in the same conversation, finds the first one's answer."""
    canonical = json.dumps(
        [call, agent.client, agent.session, list(asker), conversation], sort_keys=True
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


MINE = "asker_host = ? AND asker_pid = ? AND asker_start IS ?"  # a question this process asked


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
        have = {row[1] for row in db.execute("PRAGMA table_info(questions)")}
        for column, kind in ADDED.items():
            if column not in have:
                db.execute(f"ALTER TABLE questions ADD COLUMN {column} {kind}")
        db.execute(f"PRAGMA application_id = {opening.APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {opening.SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _lapse(db: sqlite3.Connection, now: float) -> int:
    """Claims whose lease ran out wait again, whichever inbox held them (one of an earlier
    askcli, with no lease, lapses when its inbox is not heard of); how many."""
    cursor = db.execute(
        "UPDATE questions SET status = 'waiting', claimed_by = NULL, claimed_until = NULL"
        " WHERE status = 'being answered' AND (claimed_until < ? OR (claimed_until IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM inboxes WHERE inboxes.id = questions.claimed_by AND"
        " inboxes.seen >= ?)))",
        (now, now - LEASE),
    )
    return cursor.rowcount


class Store:
    """The queue at ``path``; each process opens its own."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_path()
        self._refused = _named_url() if path is None else None
        self._db: sqlite3.Connection | None = None

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

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``)."""
        db = self._open()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise InboxBusy(f"the inbox {self.path} is busy: {exc}") from None
            raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
        try:
            yield db
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):  # a read-only file or folder, a full disk
                raise InboxError(f"{self.path} cannot be used as an inbox: {exc}") from None
            raise

    # -- askers ----------------------------------------------------------------------

    def submit(
        self,
        call: Any,
        agent: Agent,
        *,
        conversation: str | None = None,
        reuse_for: float = 0.0,
    ) -> QueuedQuestion:
        """Queue ``call`` (a JSON document) from ``agent``, as a question of this process
        (in ``conversation``, when it holds several). With ``conversation`` and
        ``reuse_for`` seconds, the identical call this process queued in the same
        conversation, still waiting, or answered at most ``reuse_for`` seconds ago and not
        yet taken, is that one; otherwise every call is a question of its own."""
        text = json.dumps(call, ensure_ascii=False, allow_nan=False)
        asker = askers.me()
        key = call_key(call, agent, asker, conversation)
        with self._write() as db:
            if conversation is not None and reuse_for > 0:
                row = db.execute(
                    # the key holds the asking process and the conversation
                    "SELECT id FROM questions WHERE key = ? AND delivered IS NULL AND"
                    " (status IN ('waiting', 'being answered') OR (status = 'answered' AND"
                    " finished >= ?)) ORDER BY id LIMIT 1",
                    (key, time.time() - reuse_for),
                ).fetchone()
                if row is not None:
                    found = self._get(db, row[0])
                    assert found is not None
                    return found
            cursor = db.execute(
                "INSERT INTO questions (ticket, key, agent, arrived, call, status, asker_pid,"
                " asker_host, asker_start, conversation) VALUES (?, ?, ?, ?, ?, 'waiting', ?,"
                " ?, ?, ?)",
                (
                    "q_" + secrets.token_urlsafe(12),
                    key,
                    json.dumps(agent._asdict()),
                    time.time(),
                    text,
                    asker.pid,
                    asker.host,
                    asker.start,
                    conversation,
                ),
            )
            found = self._get(db, cursor.lastrowid)
            assert found is not None
            return found

    def by_ticket(self, ticket: str, conversation: str | None = None) -> QueuedQuestion | None:
        """The question with ``ticket`` that this process queued in ``conversation``; None
        for any other (a ticket does not open another asker's question)."""
        db = self._open()
        row = db.execute(
            f"SELECT id FROM questions WHERE ticket = ? AND conversation IS ? AND {MINE}",
            (ticket, conversation, *askers.me()),
        ).fetchone()
        return self._get(db, row[0]) if row else None

    def wait(self, question_id: int, timeout: float | None = None) -> QueuedQuestion | None:
        """Wait until the question is answered (or withdrawn); the question as
        it then is, or None when ``timeout`` passed first. The result is not taken."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = POLL
        db = self._open()
        while True:  # a look at the state alone: the call is read once, at the end
            if self.state(question_id) not in (QueueState.WAITING, QueueState.ANSWERING):
                return self._get(db, question_id)
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(
                pause if deadline is None else min(pause, max(0.0, deadline - time.monotonic()))
            )
            pause = min(pause * 1.5, POLL_MAX)

    def take(self, question_id: int) -> Any:
        """The answered question's result, exactly once, for the process that asked it:
        None when it was taken already (or is not answered, or is another asker's)."""
        with self._write() as db:
            row = db.execute(
                "SELECT result, secret FROM questions WHERE id = ? AND status = 'answered' AND"
                f" delivered IS NULL AND {MINE}",
                (question_id, *askers.me()),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE questions SET delivered = ?, result = CASE WHEN secret THEN NULL ELSE"
                " result END WHERE id = ?",
                (time.time(), question_id),
            )
        if row[1]:
            self._forget()
        return parse_json(row[0])

    def _forget(self) -> None:
        """Keep what was erased out of the WAL too: the erasing write (overwritten with
        zeros, ``secure_delete``) is copied into the file and the WAL emptied."""
        with contextlib.suppress(sqlite3.Error):
            self._open().execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def withdraw(self, question_id: int) -> bool:
        """The asker gave up: a question not answered yet is withdrawn (True)."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE questions SET status = 'withdrawn', finished = ? WHERE id = ? AND"
                " status IN ('waiting', 'being answered')",
                (time.time(), question_id),
            )
            return cursor.rowcount == 1

    # -- inboxes ---------------------------------------------------------------------

    def heartbeat(self, inbox: str) -> None:
        """Say that ``inbox`` is alive (it keeps its claims for :data:`LEASE` seconds)."""
        now = time.time()
        with self._write() as db:
            db.execute(
                "INSERT INTO inboxes (id, pid, host, seen) VALUES (?, ?, ?, ?) ON CONFLICT(id)"
                " DO UPDATE SET seen = excluded.seen",
                (inbox, os.getpid(), askers.me().host, now),
            )
            db.execute(
                "UPDATE questions SET claimed_until = ? WHERE claimed_by = ? AND"
                " status = 'being answered'",
                (now + LEASE, inbox),
            )

    def leave(self, inbox: str) -> None:
        """``inbox`` closes: its claims wait again."""
        with self._write() as db:
            db.execute(
                "UPDATE questions SET status = 'waiting', claimed_by = NULL, claimed_until ="
                " NULL WHERE claimed_by = ? AND status = 'being answered'",
                (inbox,),
            )
            db.execute("DELETE FROM inboxes WHERE id = ?", (inbox,))

    def tidy(self) -> list[QueuedQuestion]:
        """Release the claims of inboxes that died, withdraw the questions of askers that
        died (on this machine: a process that no longer runs, or whose pid now belongs to
        a process that started at another time); the questions withdrawn this way."""
        now = time.time()
        host = askers.me().host
        gone: list[QueuedQuestion] = []
        with self._write() as db:
            _lapse(db, now)
            for inbox_id, pid, inbox_host, seen in db.execute(
                "SELECT id, pid, host, seen FROM inboxes"
            ).fetchall():
                dead = (inbox_host == host and not askers.alive(pid)) or now - seen > LEASE
                if dead:
                    db.execute(
                        "UPDATE questions SET status = 'waiting', claimed_by = NULL,"
                        " claimed_until = NULL WHERE claimed_by = ? AND"
                        " status = 'being answered'",
                        (inbox_id,),
                    )
                    db.execute("DELETE FROM inboxes WHERE id = ?", (inbox_id,))
            rows = db.execute(
                "SELECT id, asker_pid, asker_start FROM questions WHERE status IN"
                " ('waiting', 'being answered') AND asker_host = ?",
                (host,),
            ).fetchall()
            for question_id, pid, start in rows:
                if not askers.alive(pid, start):
                    db.execute(
                        "UPDATE questions SET status = 'withdrawn', finished = ? WHERE id = ?",
                        (now, question_id),
                    )
                    found = self._get(db, question_id)
                    if found is not None:
                        gone.append(found)
        return gone

    def claim(self, inbox: str, question_id: int | None = None) -> QueuedQuestion | None:
        """Take the oldest waiting question (or ``question_id``) for ``inbox``; None when
        there is none (or that one is not waiting)."""
        now = time.time()
        with self._write() as db:
            _lapse(db, now)
            if question_id is None:
                row = db.execute(
                    "SELECT id FROM questions WHERE status = 'waiting' ORDER BY id LIMIT 1"
                ).fetchone()
            else:
                row = db.execute(
                    "SELECT id FROM questions WHERE id = ? AND status = 'waiting'", (question_id,)
                ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE questions SET status = 'being answered', claimed_by = ?,"
                " claimed_until = ? WHERE id = ?",
                (inbox, now + LEASE, row[0]),
            )
            return self._get(db, row[0])

    def release(self, inbox: str, question_id: int) -> None:
        """Give a claimed question back (the person picked another, or the inbox ends)."""
        with self._write() as db:
            db.execute(
                "UPDATE questions SET status = 'waiting', claimed_by = NULL, claimed_until = NULL"
                " WHERE id = ? AND claimed_by = ? AND status = 'being answered'",
                (question_id, inbox),
            )

    def answer(self, inbox: str, question_id: int, result: Any, *, secret: bool = False) -> bool:
        """Store the result of a question ``inbox`` holds; False when it is no longer its
        to answer (withdrawn meanwhile, or its claim was lost). A ``secret`` result is
        erased once delivered (:meth:`take`)."""
        text = json.dumps(result, ensure_ascii=False, allow_nan=False)
        with self._write() as db:
            cursor = db.execute(
                "UPDATE questions SET status = 'answered', result = ?, finished = ?,"
                " claimed_by = NULL, claimed_until = NULL, secret = ? WHERE id = ? AND"
                " claimed_by = ? AND status = 'being answered'",
                (text, time.time(), int(secret), question_id, inbox),
            )
            return cursor.rowcount == 1

    # -- reading ---------------------------------------------------------------------

    def questions(
        self, *, states: tuple[QueueState, ...] = (QueueState.WAITING, QueueState.ANSWERING)
    ) -> list[QueuedQuestion]:
        """The questions in ``states``, oldest first."""
        return [_question(row) for row in self._in(_COLUMNS, states)]

    def ids(self, *, states: tuple[QueueState, ...] = (QueueState.WAITING,)) -> list[int]:
        """The ids of the questions in ``states``, oldest first: a cheap look for an
        inbox that watches the queue (nothing is parsed)."""
        return [row[0] for row in self._in("id", states)]

    def _in(self, columns: str, states: tuple[QueueState, ...]) -> list[Any]:
        """``columns`` of the questions in ``states``, oldest first."""
        marks = ", ".join("?" for _ in states)
        query = f"SELECT {columns} FROM questions WHERE status IN ({marks}) ORDER BY id"
        return self._open().execute(query, tuple(s.value for s in states)).fetchall()

    def state(self, question_id: int) -> QueueState | None:
        """Where the question stands (None: no such question), read without its call: the
        cheap look of a waiting asker."""
        row = self._open().execute("SELECT status FROM questions WHERE id = ?", (question_id,))
        found = row.fetchone()
        return QueueState(found[0]) if found is not None else None

    def get(self, question_id: int) -> QueuedQuestion | None:
        return self._get(self._open(), question_id)

    @staticmethod
    def _get(db: sqlite3.Connection, question_id: int | None) -> QueuedQuestion | None:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM questions WHERE id = ?", (question_id,)
        ).fetchone()
        return None if row is None else _question(row)


_COLUMNS = "id, ticket, agent, arrived, call, status, result"  # a Question's, in its order


def _question(row: Any) -> QueuedQuestion:
    """The :class:`QueuedQuestion` of a row of :data:`_COLUMNS`."""
    agent = Agent(**{k: v for k, v in parse_json(row[2]).items() if k in Agent._fields})
    result = parse_json(row[6]) if row[6] is not None else None
    return QueuedQuestion(
        row[0], row[1], agent, row[3], parse_json(row[4]), QueueState(row[5]), result
    )
