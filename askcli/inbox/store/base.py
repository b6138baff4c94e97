"""The question queue askers and inboxes share, whichever database keeps it.

An asker (``ask --inbox``, ``askcli mcp``, ``askcli hook``) *submits* a document (any
envelope askcli reads) with a label saying who asks, and *waits* for its result. An inbox
*claims* the oldest waiting question in a transaction, asks the person, and *answers* it;
the asker *takes* the result exactly once. A question belongs to the one asker that queued
it (its process, told from a later one with its pid by its start time, see
:mod:`askcli.inbox.asker_identity`): only that process takes its answer, and only its own
identical call, in the same conversation and for a bounded time, is the same question again.
A claim carries a lease,
renewed by its live inbox: a claim not renewed for :data:`LEASE` seconds lapses and the
question waits again. An asker that gives up *withdraws* its question; one whose process is
gone is withdrawn for it, unless it is of a kind kept past its asker (:mod:`.kept`): a task,
or a question it *deferred* (Claude Code's ``defer``): a deferred
question waits under its key (Claude Code's session and the call's tool_use id), and the
asker that comes back with that key, the resumed call's hook, *adopts* it and its answer.

A question may be addressed *to* a person or a team; an inbox answers *as* a person, and sees
the questions for everyone, for that person and for that person's teams. Every answer keeps
who answered, where and when (the audit trail of ``askcli inbox log``, read by
:mod:`.audit_log`); the teams are the store's ``teams`` (:mod:`.team_members`).

:class:`Store` is the one interface, and :func:`askcli.inbox.store.open_store` opens the
store ``where`` names: an SQLite file (:mod:`.sqlite`, the default) or a ``postgresql://`` URL
(:mod:`.postgres`). The queue's SQL is written once here, with ``?`` for parameters; each
store says how its database runs it.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ...files import state_dir
from ...wire.documents import parse_json
from .. import asker_identity, location
from ..asker_identity import Process, unix_user
from .kept import DEFERRED, TASK
from .team_members import Teams

# seconds the queue's clock is ahead of the machine's: set only by the tests, so that an hour
# passes between a deferral and its answer without waiting an hour
CLOCK_SKEW = "ASKCLI_TEST_CLOCK_SKEW"


def _lease(default: float = 15.0) -> float:
    """``$ASKCLI_LEASE``: seconds an inbox keeps a claim unheard of (a number from 0.1 to
    3600; anything else is the default, 15)."""
    try:
        found = float(os.environ.get("ASKCLI_LEASE") or default)
    except ValueError:
        return default
    return found if 0.1 <= found <= 3600 else default


LEASE = _lease()  # seconds an inbox keeps a claim unheard of ($ASKCLI_LEASE)
ASKER_GRACE = 4 * LEASE  # seconds an asker out of reach (not dead) keeps its questions
FORGET = 4 * LEASE  # seconds an inbox unheard of is remembered (its claims lapse after LEASE)
JOIN_ANSWERED = 120.0  # seconds an answered question may still be joined (Store.submit)
POLL = 0.01  # seconds between looks while waiting (raised up to POLL_MAX when idle)
POLL_MAX = 0.05
T = TypeVar("T")


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
    to: str | None = None  # the person or team it is addressed to (None: anyone)
    answered_by: str | None = None  # who answered it
    answered_host: str | None = None  # on which machine
    finished: float | None = None  # when it was answered or withdrawn
    holder: str | None = None  # who is answering it now
    asker_host: str | None = None  # the machine it was asked on
    asker_pid: int | None = None  # the asking process (on that machine)
    asker_start: str | None = None  # and when it started (see :mod:`askcli.inbox.asker_identity`)
    answered_from: str | None = None  # the address it was answered from, as the server saw it
    holder_inbox: str | None = None  # the inbox answering it now (its id)
    held_since: float | None = None  # and since when it holds it
    deferred: str | None = None  # the key of a deferred call (see :meth:`Store.defer`)


def default_path() -> Path:
    """``$ASKCLI_INBOX`` when it is a path, else ``$XDG_STATE_HOME/askcli/inbox.db``."""
    named = os.environ.get("ASKCLI_INBOX")
    if named and location.url_scheme(named) is None:
        return Path(named)
    return default_file()


def default_file() -> Path:
    """The inbox's own file, in askcli's state folder."""
    return state_dir() / "inbox.db"


def call_key(call: Any, agent: Agent, asker: Process, conversation: str | None) -> str:
    """What makes two questions the same one asked again: the call, who asks (its client
    and session), the asking process and its conversation; not the moment. A retry after
    a client's timeout, in the same conversation, finds the first one's answer."""
    canonical = json.dumps(
        [call, agent.client, agent.session, list(asker), conversation], sort_keys=True
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def asker_id(asker: Process) -> str:
    """The asking process as the queue names it: ``HOST/PID/START``."""
    return f"{asker.host}/{asker.pid}/{asker.start or ''}"


# the questions a person sees: for anyone, for them, for one of their teams
AUDIENCE = (
    "(addressed_to IS NULL OR addressed_to = ? OR addressed_to IN"
    " (SELECT team FROM teams WHERE member = ?))"
)
SETTLE = "status = 'waiting', claimed_by = NULL, claimed_until = NULL"  # waits again
# a claim that lapsed waits again for anyone, but keeps who held it: while nobody else
# claims it, that inbox may still answer it (and its heartbeat takes it back quietly)
LAPSE = "status = 'waiting', claimed_until = NULL"


class Changes:
    """A waiter's view of the queue's changes: :meth:`wait` returns when something may have
    changed (True) or after a while. This one knows nothing and looks again every few
    milliseconds, a little less often the longer nothing happens."""

    def __init__(self) -> None:
        self._pause = POLL

    def wait(self, timeout: float | None) -> bool:
        pause = self._pause if timeout is None else min(self._pause, max(0.0, timeout))
        time.sleep(pause)
        self._pause = min(self._pause * 1.5, POLL_MAX)
        return True

    def pending(self) -> bool:
        """Without waiting: whether a look may find something new."""
        return True


class Store:
    """The queue; each process (each thread that uses it) opens its own.

    :func:`askcli.inbox.store.open_store` opens one: a :class:`~.sqlite.SQLiteStore` or a
    :class:`~.postgres.PostgresStore`, by what the location names."""

    where: str  # the file or URL, as it may be shown (no password)
    pushes = False  # whether changes are pushed (PostgreSQL's LISTEN/NOTIFY)

    def reopen(self) -> Store:
        """The same queue, through a connection of its own (for another thread)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    @property
    def teams(self) -> Teams:
        """The teams, kept as this database keeps them (who answers a question for one)."""
        raise NotImplementedError

    # -- what each database does its own way -----------------------------------------

    def _now(self) -> float:
        """The queue's clock, in seconds since the epoch."""
        return time.time() + self._skew

    @functools.cached_property
    def _skew(self) -> float:
        """Seconds the queue's clock is ahead (``$ASKCLI_TEST_CLOCK_SKEW``, which only the
        tests set), read once per store, at its first look at the clock."""
        try:
            return float(os.environ.get(CLOCK_SKEW) or 0)
        except ValueError:
            return 0.0

    def _run(self, work: Callable[[Any], T], *, write: bool = True) -> T:
        """``work(db)`` in one transaction (a write one, taken at once, or a read)."""
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        """``text`` (``?`` parameters) as this database takes it."""
        return text

    # when (time.monotonic()) an operation stops trying to reach a store that went away
    # (None: after the store's own while); one begun after it is tried once, briefly
    deadline: float | None = None

    locking = ""  # what a claim's SELECT adds to lock the row it takes
    skip_locked = ""  # and to pass rows another inbox is taking
    claimable = ""  # and to take only what this store's identity may answer

    def refusal(self) -> str | None:
        """Why whoever uses this store may not answer here (None: they may)."""
        return None

    def check_addressee(self, to: str | None) -> None:
        """Refuse (InboxRefused) a question addressed ``to`` a name this store cannot serve."""

    def changes(self, question_id: int | None = None) -> Changes:
        """A fresh view of the queue's changes (of one question's alone, with its id),
        taken before the first look."""
        return Changes()

    def _grace(self, now: float) -> bool:
        """Whether leases hold whatever their time (the store just came back: everyone may
        still be coming back to renew theirs)."""
        return False

    def _lapse(self, db: Any, now: float) -> None:
        """Claims whose lease ran out wait again (their holder kept: see :data:`LAPSE`)."""
        self._x(  # one of an earlier askcli, with no lease, when its inbox is not heard of
            db,
            f"UPDATE questions SET {LAPSE} WHERE status = 'being answered' AND"
            " (claimed_until < ? OR (claimed_until IS NULL AND NOT EXISTS (SELECT 1 FROM"
            " inboxes WHERE inboxes.id = questions.claimed_by AND inboxes.seen >= ?)))",
            (now, now - LEASE),
        )

    def _dead_askers(self, db: Any, now: float) -> list[int]:
        """The ids of waiting questions whose asker is gone."""
        raise NotImplementedError

    def _x(self, db: Any, text: str, params: tuple[Any, ...] = ()) -> Any:
        return db.execute(self._sql(text), params)

    # -- askers ----------------------------------------------------------------------

    def submit(
        self,
        call: Any,
        agent: Agent,
        *,
        conversation: str | None = None,
        reuse_for: float = 0.0,
        to: str | None = None,
        joins: Callable[[QueuedQuestion], bool] | None = None,
    ) -> QueuedQuestion:
        """Queue ``call`` (a JSON document) from ``agent``, as a question of this process
        (in ``conversation``, when it holds several), addressed ``to`` a person or team
        (None: anyone). With ``conversation`` and ``reuse_for`` seconds, the identical call
        this process queued in the same conversation, still waiting, or answered at most
        ``reuse_for`` seconds ago and not yet taken, is that one; otherwise every call is a
        question of its own. With ``joins``: the oldest question of another asker, waiting,
        being answered or answered at most :data:`JOIN_ANSWERED` seconds ago, that ``joins``
        accepts is returned instead of queueing one (looked for and queued in one
        transaction that no other such submission runs beside: of two askers of one call,
        one queues it and the other finds it)."""
        text = json.dumps(call, ensure_ascii=False, allow_nan=False)
        self.check_addressee(to)
        asker = asker_identity.me()
        key = call_key(call, agent, asker, conversation)
        ticket = "q_" + secrets.token_urlsafe(12)
        self._asking()

        def work(db: Any) -> QueuedQuestion:
            if joins is not None:
                found = self._joined(db, joins, asker)
                if found is not None:
                    return found
            if conversation is not None and reuse_for > 0:
                row = self._x(
                    db,
                    # the key holds the asking process and the conversation
                    "SELECT id FROM questions WHERE key = ? AND delivered IS NULL AND"
                    " (status IN ('waiting', 'being answered') OR (status = 'answered' AND"
                    " finished >= ?)) ORDER BY id LIMIT 1",
                    (key, self._now() - reuse_for),
                ).fetchone()
                if row is not None:
                    return self._must(db, row[0])
            # a ticket already there is this very insert, made before a lost connection
            self._x(
                db,
                "INSERT INTO questions (ticket, key, agent, arrived, call, status, asker_pid,"
                " asker_host, asker_start, conversation, asker, addressed_to) VALUES (?, ?,"
                " ?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?) ON CONFLICT (ticket) DO NOTHING",
                (
                    ticket,
                    key,
                    json.dumps(agent._asdict()),
                    self._now(),
                    text,
                    asker.pid,
                    asker.host,
                    asker.start,
                    conversation,
                    asker_id(asker),
                    to,
                ),
            )
            row = self._x(db, "SELECT id FROM questions WHERE ticket = ?", (ticket,)).fetchone()
            return self._must(db, row[0])

        return self._run(work)

    serialize = ""  # what makes a joining submission the only one running (see submit)

    def _joined(
        self, db: Any, joins: Callable[[QueuedQuestion], bool], asker: Process
    ) -> QueuedQuestion | None:
        """The oldest unsettled question of another asker that ``joins`` accepts."""
        if self.serialize:
            self._x(db, self.serialize)
        rows = self._x(
            db,
            f"SELECT {COLUMNS} FROM questions WHERE (status IN ('waiting', 'being answered')"
            " OR (status = 'answered' AND finished >= ?)) AND asker <> ? ORDER BY id",
            (self._now() - JOIN_ANSWERED, asker_id(asker)),
        ).fetchall()
        return next((q for q in map(question_of, rows) if joins(q)), None)

    def _asking(self) -> None:
        """This process asks: what keeps its questions alive starts (nothing, here)."""

    def by_ticket(self, ticket: str, conversation: str | None = None) -> QueuedQuestion | None:
        """The question with ``ticket`` that this process queued in ``conversation``; None
        for any other (a ticket does not open another asker's question)."""

        def work(db: Any) -> QueuedQuestion | None:
            row = self._x(
                db,
                "SELECT id, conversation FROM questions WHERE ticket = ? AND asker = ?",
                (ticket, asker_id(asker_identity.me())),
            ).fetchone()
            return self._get(db, row[0]) if row and row[1] == conversation else None

        return self._run(work, write=False)

    def by_task(self, ticket: str, conversation: str) -> QueuedQuestion | None:
        """The question with ``ticket`` asked as a task in ``conversation`` (it starts with
        :data:`.kept.TASK`), by this process or an earlier one (a server restarted); one that
        still waits becomes this process's (its asker gone, it would be withdrawn)."""
        if TASK.key_of(conversation) is None:
            return None
        me = asker_identity.me()
        self._asking()

        def work(db: Any) -> QueuedQuestion | None:
            row = self._x(
                db,
                "SELECT id FROM questions WHERE ticket = ? AND conversation = ?",
                (ticket, conversation),
            ).fetchone()
            if row is None:
                return None
            self._x(
                db,
                "UPDATE questions SET asker = ?, asker_pid = ?, asker_host = ?, asker_start = ?"
                " WHERE id = ? AND asker <> ? AND status IN ('waiting', 'being answered')",
                (asker_id(me), me.pid, me.host, me.start, row[0], asker_id(me)),
            )
            return self._get(db, row[0])

        return self._run(work)

    def wait(self, question_id: int, timeout: float | None = None) -> QueuedQuestion | None:
        """Wait until the question is answered (or withdrawn); the question as
        it then is, or None when ``timeout`` passed first. The result is not taken."""
        deadline = None if timeout is None else time.monotonic() + timeout
        changes = self.changes(question_id)
        before, self.deadline = self.deadline, deadline  # no look outlasts the timeout
        try:
            while True:  # a look at the state alone: the call is read once, at the end
                if self._state_while_waiting(question_id) not in (
                    QueueState.WAITING,
                    QueueState.ANSWERING,
                ):
                    return self.get(question_id)
                if deadline is None:
                    changes.wait(None)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                changes.wait(left)
        finally:
            self.deadline = before

    def _state_while_waiting(self, question_id: int) -> QueueState | None:
        return self.state(question_id)

    def take(self, question_id: int) -> Any:
        """The answered question's result, exactly once, for the process that asked it:
        None when it was taken already (or is not answered, or is another asker's)."""

        token = new_token()

        def work(db: Any) -> Any:
            row = self._x(
                db,
                "SELECT result, secret, delivered, take_token FROM questions WHERE id = ? AND"
                f" status = 'answered' AND asker = ?{self.locking}",
                (question_id, asker_id(asker_identity.me())),
            ).fetchone()
            if row is None or row[0] is None:
                return None
            if row[2] is not None:  # taken: by this very take, before a lost acknowledgement
                return row if row[3] == token else None
            self._x(
                db,
                "UPDATE questions SET delivered = ?, take_token = ? WHERE id = ?",
                (self._now(), token, question_id),
            )
            return row

        row = self._run(work)
        if row is None:
            return None
        if row[1]:  # erased once this asker holds it: a retry above still finds it until then
            self._run(
                lambda db: self._x(
                    db,
                    "UPDATE questions SET result = NULL WHERE id = ? AND take_token = ?",
                    (question_id, token),
                )
            )
            self._forget()
        return parse_json(row[0])

    def _forget(self) -> None:
        """Keep an erased secret out of whatever the database keeps beside its tables."""

    def withdraw(self, question_id: int) -> bool:
        """The asker gave up: a question not answered yet is withdrawn (True; also for a
        retry of this very withdrawal after a lost acknowledgement)."""
        token = new_token()

        def work(db: Any) -> bool:
            if self._x(
                db,
                "UPDATE questions SET status = 'withdrawn', finished = ?, withdraw_token = ?"
                " WHERE id = ? AND status IN ('waiting', 'being answered')",
                (self._now(), token, question_id),
            ).rowcount:
                return True
            row = self._x(
                db, "SELECT withdraw_token FROM questions WHERE id = ?", (question_id,)
            ).fetchone()
            return row is not None and row[0] == token

        return self._run(work)

    # -- inboxes ---------------------------------------------------------------------

    # Every transaction that writes both tables writes questions first, then inboxes (the
    # heartbeat, leave, tidy): two of them never wait for each other's rows crosswise.

    def heartbeat(self, inbox: str, person: str | None = None) -> None:
        """Say that ``inbox`` is alive: it keeps its claims for :data:`LEASE` seconds, and
        takes back those that lapsed while nobody else claimed them (it was out of reach, or
        stopped, for longer than a lease). Who answers there is the store's word
        (:meth:`_answerer`), whatever ``person`` the inbox shows the questions of."""

        def work(db: Any) -> None:
            now = self._now()
            self._x(
                db,
                "UPDATE questions SET claimed_until = ? WHERE claimed_by = ? AND"
                " status = 'being answered'",
                (now + LEASE, inbox),
            )
            self._x(  # status set apart: each change of it is pushed to every inbox
                db,
                "UPDATE questions SET status = 'being answered', claimed_until = ? WHERE"
                " claimed_by = ? AND status = 'waiting'",
                (now + LEASE, inbox),
            )
            self._x(
                db,
                "INSERT INTO inboxes (id, pid, host, seen, person, place) VALUES (?, ?, ?, ?,"
                " ?, ?) ON CONFLICT (id) DO UPDATE SET seen = excluded.seen, person ="
                " COALESCE(excluded.person, inboxes.person)",
                (
                    inbox,
                    os.getpid(),
                    asker_identity.me().host,
                    now,
                    self._answerer(),
                    asker_identity.place(),
                ),
            )

        self._run(work)

    def leave(self, inbox: str) -> None:
        """``inbox`` closes: its claims (and those that lapsed) wait again for anyone."""

        def work(db: Any) -> None:
            self._x(
                db,
                f"UPDATE questions SET {SETTLE} WHERE claimed_by = ? AND status IN"
                " ('being answered', 'waiting')",
                (inbox,),
            )
            self._x(db, "DELETE FROM inboxes WHERE id = ?", (inbox,))

        self._run(work)

    def tidy(self) -> list[QueuedQuestion]:
        """Let the claims of inboxes that fell silent lapse, release those of inboxes that
        died, withdraw the questions of askers that are gone; the questions withdrawn this
        way. An inbox unheard of for :data:`FORGET` seconds is forgotten."""

        def work(db: Any) -> list[QueuedQuestion]:
            now = self._now()
            self._lapse(db, now)
            dead = self._dead_inboxes_here(db)
            for inbox_id in dead:
                self._x(
                    db,
                    f"UPDATE questions SET {SETTLE} WHERE claimed_by = ? AND status IN"
                    " ('being answered', 'waiting')",
                    (inbox_id,),
                )
            gone: list[QueuedQuestion] = []
            for question_id in self._dead_askers(db, now):
                self._x(
                    db,
                    "UPDATE questions SET status = 'withdrawn', finished = ? WHERE id = ?",
                    (now, question_id),
                )
                gone.append(self._must(db, question_id))
            # the inboxes last (questions first, everywhere)
            for inbox_id in dead:
                self._x(db, "DELETE FROM inboxes WHERE id = ?", (inbox_id,))
            self._x(db, "DELETE FROM inboxes WHERE seen < ?", (now - FORGET,))
            return gone

        return self._run(work)

    def _dead_inboxes_here(self, db: Any) -> list[str]:
        """Inboxes whose pid means the same as here (:func:`.askers.place`) and whose
        process is gone: known before their lease ends. Where the place is only a machine's
        name (no ``/proc``), two machines may share it: their leases alone say."""
        if not asker_identity.pids_meaningful():
            return []
        rows = self._x(
            db, "SELECT id, pid FROM inboxes WHERE place = ?", (asker_identity.place(),)
        ).fetchall()
        return [inbox_id for inbox_id, pid in rows if not asker_identity.alive(pid)]

    def claim(
        self,
        inbox: str,
        question_id: int | None = None,
        *,
        person: str | None = None,
        skip: Collection[int] = (),
    ) -> QueuedQuestion | None:
        """Take the oldest waiting question ``person`` may answer (or ``question_id``) for
        ``inbox``, passing the ids in ``skip``; None when there is none (or that one is not
        waiting). Two inboxes never take the same one; a retry of this very claim after a
        lost acknowledgement gets the question it took."""
        token = new_token()

        def work(db: Any) -> QueuedQuestion | None:
            taken = self._x(  # this claim, made before a lost acknowledgement
                db,
                "SELECT id FROM questions WHERE claim_token = ? AND claimed_by = ? AND"
                " status = 'being answered'",
                (token, inbox),
            ).fetchone()
            if taken is not None:
                return self._get(db, taken[0])
            now = self._now()
            self._lapse(db, now)
            audience, params = self._audience(person)
            passed = "".join(f" AND id <> {int(i)}" for i in sorted(skip))
            if question_id is None:
                row = self._x(
                    db,
                    f"SELECT id FROM questions WHERE status = 'waiting' AND {audience}{passed}"
                    f"{self.claimable}"
                    f" ORDER BY id LIMIT 1{self.locking}{self.skip_locked}",
                    params,
                ).fetchone()
            else:
                row = self._x(
                    db,
                    f"SELECT id FROM questions WHERE id = ? AND status = 'waiting' AND"
                    f" {audience}{self.claimable}{self.locking}{self.skip_locked}",
                    (question_id, *params),
                ).fetchone()
            if row is None:
                return None
            self._x(
                db,
                "UPDATE questions SET status = 'being answered', claimed_by = ?,"
                " claimed_until = ?, claim_token = ?, claimed_at = ? WHERE id = ? AND"
                " status = 'waiting'",
                (inbox, now + LEASE, token, now, row[0]),
            )
            return self._get(db, row[0])

        return self._run(work)

    def release(self, inbox: str, question_id: int) -> None:
        """Give a claimed question back (the person picked another, or the inbox ends)."""
        self._run(
            lambda db: self._x(
                db,
                f"UPDATE questions SET {SETTLE} WHERE id = ? AND claimed_by = ? AND"
                " status IN ('being answered', 'waiting')",
                (question_id, inbox),
            )
        )

    def answer(
        self,
        inbox: str,
        question_id: int,
        result: Any,
        *,
        secret: bool = False,
        decision: str | None = None,
        rules: Sequence[str] = (),
        token: str | None = None,
    ) -> bool:
        """Store the result of a question ``inbox`` holds, with who answered (the store's
        word: the Unix user, or the PostgreSQL role), where and when, ``decision`` (a few
        words for the audit trail) and ``rules``, the lasting permission rules the answer
        grants (``Bash(rm:*)``); False when it is no longer its to answer (withdrawn
        meanwhile, its claim was lost, or its asker is gone: then it is withdrawn). A retry
        of this very answer after a lost acknowledgement is True. A ``secret`` result is
        erased once delivered (:meth:`take`)."""
        text = json.dumps(result, ensure_ascii=False, allow_nan=False)
        kept_rules = json.dumps(list(rules)) if rules else None
        token = token or new_token()

        def work(db: Any) -> bool:
            now = self._now()
            row = self._x(
                db,
                "SELECT status, answer_token FROM questions WHERE id = ? AND claimed_by = ?",
                (question_id, inbox),
            ).fetchone()
            if row is not None and row[0] == "answered":  # before a lost acknowledgement
                return bool(row[1] == token)
            if row is None or row[0] not in ("being answered", "waiting"):
                return False
            if self._asker_gone(db, question_id, now):
                self._x(
                    db,
                    "UPDATE questions SET status = 'withdrawn', finished = ? WHERE id = ?",
                    (now, question_id),
                )
                return False
            cursor = self._x(
                db,
                "UPDATE questions SET status = 'answered', result = ?, finished = ?,"
                " secret = ?, answered_host = ?, decision = ?, rules = ?, answered_by = ?,"
                " answer_token = ? WHERE id = ? AND claimed_by = ? AND"
                " status IN ('being answered', 'waiting')",
                (  # 'waiting': a claim that lapsed, still this inbox's (nobody claimed it)
                    text,
                    now,
                    int(secret),
                    asker_identity.me().host,
                    decision,
                    kept_rules,
                    self._answerer(),
                    token,
                    question_id,
                    inbox,
                ),
            )
            return bool(cursor.rowcount == 1)

        return self._run(work)

    def _answerer(self) -> str | None:
        """Who answers through this store, as the store knows it (not as anyone says)."""
        return unix_user()

    def own_inbox_condition(self) -> tuple[str, tuple[Any, ...]]:
        """The condition (and its parameters) on ``inboxes`` of the inboxes of whoever uses
        this store, as the store knows them: the Unix user's, on one machine."""
        return "inboxes.person = ?", (unix_user(),)

    def _asker_gone(self, db: Any, question_id: int, now: float) -> bool:
        """The question's asker is known to be gone: an answer would reach nobody."""
        return question_id in self._dead_askers(db, now)

    def _audience(self, person: str | None) -> tuple[str, tuple[Any, ...]]:
        """The condition (and its parameters) of the questions ``person`` may see."""
        return ("1 = 1", ()) if person is None else (AUDIENCE, (person, person))

    # -- reading ---------------------------------------------------------------------

    def questions(
        self,
        *,
        states: tuple[QueueState, ...] = (QueueState.WAITING, QueueState.ANSWERING),
        person: str | None = None,
    ) -> list[QueuedQuestion]:
        """The questions in ``states`` (those ``person`` may answer; every one for None),
        oldest first."""
        return [question_of(row) for row in self._in(COLUMNS, states, person)]

    def ids(
        self, *, states: tuple[QueueState, ...] = (QueueState.WAITING,), person: str | None = None
    ) -> list[int]:
        """The ids of the questions in ``states``, oldest first: a cheap look for an
        inbox that watches the queue (nothing is parsed)."""
        return [row[0] for row in self._in("id", states, person)]

    def _in(self, columns: str, states: tuple[QueueState, ...], person: str | None) -> list[Any]:
        marks = ", ".join("?" for _ in states)
        audience, params = self._audience(person)
        query = (
            f"SELECT {columns} FROM questions WHERE status IN ({marks}) AND {audience} ORDER BY id"
        )
        return self._run(
            lambda db: self._x(db, query, (*(s.value for s in states), *params)).fetchall(),
            write=False,
        )

    def state(self, question_id: int) -> QueueState | None:
        """Where the question stands (None: no such question), read without its call: the
        cheap look of a waiting asker."""
        found = self._run(
            lambda db: self._x(
                db, "SELECT status FROM questions WHERE id = ?", (question_id,)
            ).fetchone(),
            write=False,
        )
        return QueueState(found[0]) if found is not None else None

    def get(self, question_id: int) -> QueuedQuestion | None:
        return self._run(lambda db: self._get(db, question_id), write=False)

    def _get(self, db: Any, question_id: int | None) -> QueuedQuestion | None:
        row = self._x(db, f"SELECT {COLUMNS} FROM questions WHERE id = ?", (question_id,))
        found = row.fetchone()
        return None if found is None else question_of(found)

    def _must(self, db: Any, question_id: int) -> QueuedQuestion:
        found = self._get(db, question_id)
        assert found is not None
        return found


def new_token() -> str:
    """What marks one state change, so that its retry knows it was made."""
    return secrets.token_urlsafe(12)


# a Question's columns, in its order
COLUMNS = (
    "id, ticket, agent, arrived, call, status, result, addressed_to, answered_by,"
    " answered_host, finished, (SELECT person FROM inboxes WHERE inboxes.id ="
    " questions.claimed_by), asker_host, asker_pid, asker_start, answered_from, claimed_by,"
    " claimed_at, conversation"
)


def question_of(row: Any) -> QueuedQuestion:
    """The :class:`QueuedQuestion` of a row of :data:`COLUMNS`."""
    agent = Agent(**{k: v for k, v in parse_json(row[2]).items() if k in Agent._fields})
    result = parse_json(row[6]) if row[6] is not None else None
    state = QueueState(row[5])
    # who holds it (its person, its inbox, since when): said only while one does
    held = (row[11], row[16], row[17]) if state is QueueState.ANSWERING else (None, None, None)
    fields = (row[0], row[1], agent, row[3], parse_json(row[4]), state, result, *row[7:11])
    conversation = row[18]
    deferred = DEFERRED.key_of(conversation)
    return QueuedQuestion._make((*fields, held[0], *row[12:16], *held[1:], deferred))
