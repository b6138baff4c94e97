"""The queue in PostgreSQL: one database that askers and inboxes on many machines share.

``ASKCLI_INBOX=postgresql://USER@HOST/DB`` (any libpq URL: ``sslmode``, ``service``, a
password from ``~/.pgpass``) selects it; the driver is psycopg 3, the ``postgres`` extra,
imported only here. askcli keeps its tables in the schema ``askcli`` of that database, made
and migrated by askcli (the ``askcli.version`` table says which schema it is); a schema of
that name askcli did not make is refused, and left as it is.

Across machines there are no pids to look at: an asker's process renews its lease (a row of
``askers``) every second from a thread of its own, an inbox its own (``inboxes``), and a
question whose asker is not heard of for :data:`~.store.LEASE` seconds is withdrawn, a claim
not renewed waits again. After the server restarts, everyone is given two leases to come
back before anything lapses. Arrivals, answers and withdrawals are pushed (a trigger's
``NOTIFY``, a listening thread per process): nothing polls the server while waiting. A lost
connection is made again; an operation keeps trying for :data:`RECONNECT` seconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ...errors import InboxError, InboxRefused
from .. import asker_identity, location
from . import base
from .base import LEASE, Changes, QueueState, Store, asker_id
from .kept import spared
from .postgres_schema import (
    AGENTS,
    ASKER_CHANNEL,
    CHANNEL,
    SCHEMA,
    TEAMS,
    _driver,
    _version,
    prepare,
    said,
)
from .team_members import Teams

T = TypeVar("T")
RECONNECT = 30.0  # seconds an operation keeps trying to reach a server that went away
CONNECT_TIMEOUT = 10  # seconds to reach the server at all
LAST_TRY = 1.0  # seconds an operation begun past its deadline (a withdrawal) may take
# a link that went dead fails a query in seconds, not after TCP's retransmissions (about
# 15 minutes): libpq's keepalives, and an unacknowledged send given up after 10 s; the
# URL's own settings win
TCP = {
    "keepalives": "1",
    "keepalives_idle": "5",
    "keepalives_interval": "2",
    "keepalives_count": "3",
    "tcp_user_timeout": "10000",
}
RETRIED = ("40P01", "40001")  # deadlock_detected, serialization_failure: tried again
BEAT = 1.0  # seconds between an asker's heartbeats
LOOK = 1.0  # seconds a waiter waits for a push before it looks anyway
GRACE = 2 * LEASE  # seconds after the server starts before leases lapse: all may come back


def _lost(db: Any) -> bool:
    return bool(db is None or db.closed or db.broken)


class PostgresStore(Store):
    """The queue in the PostgreSQL database ``url`` names (``$ASKCLI_INBOX`` by default)."""

    pushes = True
    locking = " FOR UPDATE"
    skip_locked = " SKIP LOCKED"
    # joining submissions one at a time (a lock of the transaction, no grant needed)
    serialize = "SELECT pg_advisory_xact_lock(7427756903)"

    def __init__(self, where: Path | str | None = None) -> None:
        self.url = str(where) if where is not None else os.environ.get("ASKCLI_INBOX", "")
        self.where = location.shown(self.url)
        self._db: Any = None
        self._offset = 0.0  # the server's clock less this machine's
        self._started = 0.0  # when the server last started, by its clock
        self._known = False  # reached once: a connection lost later is made again
        self._agent: bool | None = None  # whether the role is an agent's (asked once)

    def reopen(self) -> PostgresStore:
        return PostgresStore(self.url)

    @property
    def teams(self) -> PostgresTeams:
        return PostgresTeams(self)

    # -- the connection ----------------------------------------------------------------

    def connect(self, deadline: float | None = None) -> Any:
        """A new connection (autocommit) to the database, tried until ``deadline`` (a
        monotonic time) at the most; InboxError saying why not."""
        psycopg = _driver()
        timeout = CONNECT_TIMEOUT
        if deadline is not None:  # libpq takes whole seconds, 2 at the least
            timeout = max(2, min(CONNECT_TIMEOUT, int(deadline - time.monotonic() + 0.999)))
        try:
            given = psycopg.conninfo.conninfo_to_dict(self.url)
            extra = {key: value for key, value in TCP.items() if key not in given}
            return psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=timeout,
                application_name="askcli",
                **extra,
            )
        except psycopg.Error as exc:
            why = said(exc, self.url)
            raise InboxError(f"the inbox {self.where} cannot be reached: {why}") from None

    def _open(self, deadline: float | None = None) -> Any:
        if not _lost(self._db):
            return self._db
        db = self.connect(deadline)
        try:
            prepare(db, self.where)
            before = time.time()
            row = db.execute(
                "SELECT extract(epoch FROM clock_timestamp())::float8,"
                " extract(epoch FROM pg_postmaster_start_time())::float8"
            ).fetchone()
            self._offset = row[0] - (before + time.time()) / 2
            self._started = row[1]
            db.execute(f"SET search_path = {SCHEMA}")
        except BaseException:
            db.close()
            raise
        self._db = db
        self._known = True
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __del__(self) -> None:  # a store let go of closes its connection
        with contextlib.suppress(Exception):
            self.close()

    def _now(self) -> float:
        return time.time() + self._offset + self._skew

    def _grace(self, now: float) -> bool:
        """The server started less than two leases ago: everyone may still be coming back."""
        return now < self._started + GRACE

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s")

    def _run(self, work: Callable[[Any], T], *, write: bool = True) -> T:
        """``work(db)`` in a transaction; a connection lost is made again and the work
        done again, for :data:`RECONNECT` seconds at the most, and never past
        :attr:`deadline` (a query that hangs on a dead link is cut there); a deadlock or
        a serialization failure is tried again at once."""
        psycopg = _driver()
        begun = time.monotonic()
        end: float | None = None
        cut = self.deadline
        if cut is not None and cut <= begun:  # begun past it: one brief try
            cut = begun + LAST_TRY
        pause = 0.05
        again = 0  # deadlocks and serialization failures tried again
        while True:
            guard = None if cut is None else _Guard(self, cut)
            try:
                db = self._open(cut)
                if not write:
                    return work(db)
                with db.transaction():
                    return work(db)
            except psycopg.Error as exc:
                retried = getattr(exc, "sqlstate", None) in RETRIED
                if retried and again < 50 and not _lost(self._db):
                    again += 1  # one of two transactions gave way: again, a moment later
                    time.sleep(0.01 * again)
                    continue
                if not _lost(self._db) or isinstance(exc, psycopg.errors.QueryCanceled):
                    raise InboxError(
                        f"the inbox {self.where} cannot be used: {said(exc, self.url)}"
                    ) from None
                why = said(exc, self.url)
            except InboxError as exc:
                if not self._known:
                    raise
                why = str(exc).removeprefix(f"the inbox {self.where} cannot be reached: ")
            finally:
                if guard is not None:
                    guard.cancel()
            self.close()  # lost: made again, for a while
            if end is None:
                end = time.monotonic() + RECONNECT
                if cut is not None:
                    end = min(end, cut)
            if time.monotonic() >= end:
                raise InboxError(f"the inbox {self.where} was lost: {why}")
            time.sleep(min(pause, max(0.0, end - time.monotonic())))
            pause = min(pause * 2, 1.0)

    def _state_while_waiting(self, question_id: int) -> QueueState | None:
        """A waiting asker outlasts the server's absence: it waits on."""
        try:
            return self.state(question_id)
        except InboxError:
            if not self._known:
                raise
            return QueueState.WAITING

    # -- pushes and leases -------------------------------------------------------------

    def changes(self, question_id: int | None = None) -> Changes:
        """Of one question (this process's: it asked it), from the channel of this asker
        alone, so that an asker is not woken by everyone's questions; of all, from the
        inboxes' channel."""
        channel = CHANNEL if question_id is None else asker_channel()
        hub = _hub(self, channel)
        return Changes() if hub is None else _Pushed(hub, question_id)

    def _asking(self) -> None:
        _beat(self)

    def _lapse(self, db: Any, now: float) -> None:
        if not self._grace(now):
            super()._lapse(db, now)

    def tidy(self) -> list[Any]:
        self._open()
        if self._grace(self._now()) or self._is_agent():
            return []  # an agent's role tidies nothing: the inboxes do
        return super().tidy()

    # -- identity: roles, group roles and row-level security ------------------------------

    claimable = f" AND {SCHEMA}.may_answer(addressed_to)"

    def _audience(self, person: str | None) -> tuple[str, tuple[Any, ...]]:
        """Every question this role may see: row-level security decides which."""
        return ("1 = 1", ())

    def _answerer(self) -> str | None:
        return None  # the database writes session_user (the trigger guard())

    def own_inbox_condition(self) -> tuple[str, tuple[Any, ...]]:
        """The inboxes of this role (the database writes each inbox's role)."""
        return "inboxes.role = session_user", ()

    def role(self) -> str:
        """The role this store connects as: who answers and asks here."""
        return str(self._run(lambda db: db.execute("SELECT session_user").fetchone()[0]))

    def _is_agent(self) -> bool:
        """Whether this role is an agent's (asked once: a connection keeps its role)."""
        if self._agent is None:
            self._agent = bool(
                self._run(
                    lambda db: db.execute(f"SELECT {SCHEMA}.is_agent()").fetchone()[0],
                    write=False,
                )
            )
        return self._agent

    def refusal(self) -> str | None:
        """Why this role may not answer (an agent's role), or None."""
        if not self._is_agent():
            return None
        return (
            f"the role {self.role()} is an agent's (a member of {AGENTS}): it asks and takes"
            " its answers, it does not answer"
        )

    def check_addressee(self, to: str | None) -> None:
        """A question may be addressed only to a role of the database (a person's login
        role or a team's group role): InboxRefused for any other name."""
        if to is None:
            return
        found = self._run(
            lambda db: db.execute(
                "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = %s", (to,)
            ).fetchone(),
            write=False,
        )
        if found is None:
            raise InboxRefused(
                f"--to {to}: the inbox {self.where} has no person or team of that name (on"
                " PostgreSQL a person is a login role and a team a group role: see askcli"
                " inbox roles)"
            )

    def _dead_askers(self, db: Any, now: float) -> list[int]:
        """Questions whose asker was not heard of for :data:`~.store.ASKER_GRACE` seconds
        (out of reach is not dead: it may come back), and, where pids mean the same as
        here, whose asker's process is gone (known at once)."""
        grace = base.ASKER_GRACE
        kept, params = spared(now)
        rows = self._x(
            db,
            "SELECT id FROM questions WHERE status IN ('waiting', 'being answered') AND"
            " arrived < ? AND NOT EXISTS (SELECT 1 FROM askers WHERE askers.id ="
            f" questions.asker AND askers.seen >= ?) AND NOT {kept}",
            (now - grace, now - grace, *params),
        ).fetchall()
        gone = {row[0] for row in rows}
        if asker_identity.pids_meaningful():
            local = self._x(
                db,
                "SELECT questions.id, askers.pid, askers.start FROM questions JOIN askers ON"
                " askers.id = questions.asker WHERE questions.status IN ('waiting',"
                f" 'being answered') AND askers.place = ? AND NOT {kept}",
                (asker_identity.place(), *params),
            ).fetchall()
            gone.update(qid for qid, pid, start in local if not asker_identity.alive(pid, start))
        return sorted(gone)


class PostgresTeams(Teams):
    """The teams as group roles: each a member of the group role ``askcli_teams``, its
    members the roles granted it."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def all(self) -> dict[str, list[str]]:
        """The teams (the group roles that are members of askcli_teams) and their members."""
        rows = self.store._run(
            lambda db: db.execute(
                "SELECT t.rolname, m.rolname FROM pg_catalog.pg_auth_members g JOIN"
                " pg_catalog.pg_roles t ON t.oid = g.member LEFT JOIN pg_catalog.pg_auth_members"
                " tm ON tm.roleid = t.oid LEFT JOIN pg_catalog.pg_roles m ON m.oid = tm.member"
                " WHERE g.roleid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = %s)"
                " ORDER BY 1, 2",
                (TEAMS,),
            ).fetchall(),
            write=False,
        )
        found: dict[str, list[str]] = {}
        for team, member in rows:
            members = found.setdefault(team, [])
            if member is not None:
                members.append(member)
        return found

    def add(self, team: str, members: list[str]) -> None:
        """GRANT the team's group role to each member (made, as a member of askcli_teams,
        when it is new): only a role with CREATEROLE or ADMIN OPTION on it may."""
        from psycopg import sql

        def work(db: Any) -> None:
            kind = db.execute(
                "SELECT r.rolcanlogin, EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members a"
                " JOIN pg_catalog.pg_roles g ON g.oid = a.roleid WHERE a.member = r.oid AND"
                " g.rolname = %s) FROM pg_catalog.pg_roles r WHERE r.rolname = %s",
                (TEAMS, team),
            ).fetchone()
            if (
                kind is None
                and not db.execute(
                    "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = %s", (TEAMS,)
                ).fetchone()
            ):
                raise _NotATeam(
                    f"the inbox has no group role {TEAMS} yet: make askcli's roles first"
                    " (askcli inbox roles --apply, as the database's owner)"
                )
            if kind is None:
                db.execute(
                    sql.SQL("CREATE ROLE {} NOLOGIN IN ROLE {}").format(
                        sql.Identifier(team), sql.Identifier(TEAMS)
                    )
                )
            elif kind[0] or not kind[1]:
                what = "a person's login role" if kind[0] else f"a role outside {TEAMS}"
                raise _NotATeam(f"{team} is not a team but {what}")
            for member in members:
                db.execute(
                    sql.SQL("GRANT {} TO {}").format(sql.Identifier(team), sql.Identifier(member))
                )

        self._teamwork(team, work)

    def remove(self, team: str, members: list[str]) -> int:
        """REVOKE the team's group role from ``members`` (from all when none is named)."""
        from psycopg import sql

        def work(db: Any) -> int:
            current = self.all().get(team)
            if current is None:
                raise _NotATeam(f"{team} is not a team")
            gone = [m for m in (members or current) if m in current]
            for member in gone:
                db.execute(
                    sql.SQL("REVOKE {} FROM {}").format(
                        sql.Identifier(team), sql.Identifier(member)
                    )
                )
            return len(gone)

        return self._teamwork(team, work)

    def _teamwork(self, team: str, work: Callable[[Any], T]) -> T:
        """A change of a team, in one line when PostgreSQL refuses it."""
        psycopg = _driver()
        store = self.store
        db = store._open()
        try:
            with db.transaction():
                return work(db)
        except _NotATeam as exc:
            raise InboxRefused(f"team {team}: {exc}") from None
        except psycopg.Error as exc:
            if _lost(db):
                raise InboxError(
                    f"the inbox {store.where} was lost: {said(exc, store.url)}"
                ) from None
            raise InboxRefused(
                f"team {team} cannot be changed by the role {store.role()}: {said(exc, store.url)}"
                " (a team is changed by a role with CREATEROLE or ADMIN OPTION on it)"
            ) from None


class _NotATeam(Exception):
    """A team command named a role that is not a team."""


class _Guard:
    """Cuts ``store``'s connection at ``when`` (a monotonic time) if an operation is still
    on it then: a query on a link that went dead returns at once, as lost."""

    def __init__(self, store: PostgresStore, when: float) -> None:
        self.store = store
        self.timer = threading.Timer(max(0.0, when - time.monotonic()), self._cut)
        self.timer.daemon = True
        self.timer.start()

    def _cut(self) -> None:
        db = self.store._db
        if db is None or db.closed:
            return
        with contextlib.suppress(Exception):  # closed meanwhile: nothing to cut
            cut = socket.socket(fileno=os.dup(db.fileno()))
            try:
                cut.shutdown(socket.SHUT_RDWR)
            finally:
                cut.close()

    def cancel(self) -> None:
        self.timer.cancel()


class Schema(NamedTuple):
    """What :func:`look` found: the schema's version (0: none yet), and whether the role
    may make it (``CREATE`` on the database) where there is none."""

    version: int
    may_make: bool


def look(url: str) -> Schema:
    """The inbox's schema as it is, read only: nothing is made, migrated or written
    (``askcli doctor``). InboxError when the server cannot be reached or read, InboxRefused
    for a schema askcli did not make or a newer askcli's."""
    store = PostgresStore(url)
    psycopg = _driver()
    db = store.connect()
    try:
        db.execute("SET default_transaction_read_only = on")
        version = _version(db, store.where)
        row = db.execute("SELECT has_database_privilege(current_database(), 'CREATE')").fetchone()
    except psycopg.Error as exc:
        raise InboxError(f"the inbox {store.where} cannot be read: {said(exc)}") from None
    finally:
        db.close()
    return Schema(version, bool(row and row[0]))


# -- the thread of a process that listens and renews its lease as an asker ---------------


class _Hub:
    """A connection that LISTENs, in a thread of its own, and renews this process's lease
    as an asker; ``generation`` counts pushes (and connections made again, after which
    anything may have changed)."""

    def __init__(self, store: PostgresStore, channel: str) -> None:
        self.store = store
        self.channel = channel
        self.generation = 0
        self.touched: dict[int, int] = {}  # question id -> the generation it last changed in
        self.epoch = 0  # the generation of the last reconnection: any question may have changed
        self.changed = threading.Condition()
        self.db = self._listen()  # before anyone's first look: no push is missed
        threading.Thread(target=self._run, name="askcli-inbox-listen", daemon=True).start()

    def _listen(self) -> Any:
        db = self.store.connect()
        db.execute(f"LISTEN {self.channel}")
        return db

    def _bump(self, payload: str = "") -> None:
        with self.changed:
            self.generation += 1
            if payload.isdigit():
                if len(self.touched) >= 10_000:  # forgotten: everyone looks once
                    self.touched.clear()
                    self.epoch = self.generation
                self.touched[int(payload)] = self.generation
            else:
                self.epoch = self.generation
            self.changed.notify_all()

    def _run(self) -> None:
        psycopg = _driver()
        key = (os.getpid(), self.store.url)
        while True:
            try:
                for pushed in self.db.notifies(timeout=BEAT):
                    self._bump(pushed.payload)
                renewal = _renewals.get(key) if self.channel != CHANNEL else None
                if renewal is not None:  # this process asks: its lease
                    self.db.execute(*renewal)
            except (psycopg.Error, InboxError):
                self.db.close()
                pause = 0.1
                while True:
                    time.sleep(pause)
                    pause = min(pause * 2, LOOK)
                    try:
                        self.db = self._listen()
                        break
                    except InboxError as exc:
                        if _gone(exc):
                            _forget(self.store)
                            self._bump()  # waiters look, and are told
                            return
                self._bump()


class _Pushed(Changes):
    """The pushes a waiter cares for: every one, or those of its question (and a connection
    made again, after which anything may have changed)."""

    def __init__(self, hub: _Hub, question_id: int | None) -> None:
        self.hub = hub
        self.question_id = question_id
        self.seen = hub.generation

    def _news(self) -> bool:
        hub = self.hub
        if self.question_id is None:
            return hub.generation != self.seen
        return hub.touched.get(self.question_id, 0) > self.seen or hub.epoch > self.seen

    def wait(self, timeout: float | None) -> bool:
        wait = LOOK if timeout is None else min(timeout, LOOK)
        with self.hub.changed:
            self.hub.changed.wait_for(self._news, wait)
            changed = self._news()
            self.seen = self.hub.generation
        return changed

    def pending(self) -> bool:
        with self.hub.changed:
            changed = self._news()
            self.seen = self.hub.generation
        return changed


_hubs: dict[tuple[int, str, str], _Hub | None] = {}
_renewals: dict[tuple[int, str], tuple[str, tuple[Any, ...]]] = {}  # asker leases to renew
_threads = threading.Lock()


def _gone(exc: InboxError) -> bool:
    """The database itself is gone (dropped), not just out of reach for a while."""
    return "does not exist" in str(exc)


def _forget(store: PostgresStore) -> None:
    """This process's threads of ``store``'s database are let go of."""
    key = (os.getpid(), store.url)
    with _threads:
        for channel in (CHANNEL, asker_channel()):
            _hubs.pop((*key, channel), None)
        _renewals.pop(key, None)


def asker_channel() -> str:
    """The channel of this process's questions (as the trigger names it)."""
    digest = hashlib.md5(asker_id(asker_identity.me()).encode(), usedforsecurity=False)
    return ASKER_CHANNEL + digest.hexdigest()


def _hub(store: PostgresStore, channel: str) -> _Hub | None:
    """This process's listener of ``channel`` of ``store``'s database (None: it cannot
    listen, so waiters look every few milliseconds as with a file; :data:`_unheard` says
    why)."""
    key = (os.getpid(), store.url, channel)
    with _threads:
        if key not in _hubs:
            try:
                _hubs[key] = _Hub(store, channel)
            except InboxError as exc:
                _unheard[key] = str(exc)
                return None
        return _hubs[key]


_unheard: dict[tuple[int, str, str], str] = {}  # why a listener could not be had


def _beat(store: PostgresStore) -> None:
    """Renew this process's lease as an asker now, at its first question; its listener
    renews it every :data:`BEAT` seconds from then on (one connection less per asker).
    Without a listener its lease would lapse unseen: InboxError says why, in one line,
    before anything is queued."""
    key = (os.getpid(), store.url)
    if key in _renewals:
        return
    me = asker_identity.me()
    renew = (
        f"INSERT INTO {SCHEMA}.askers (id, host, seen, place, pid, start) VALUES (%s, %s,"
        " extract(epoch FROM clock_timestamp()), %s, %s, %s) ON CONFLICT (id) DO UPDATE"
        " SET seen = excluded.seen"
    )
    params = (asker_id(me), me.host, asker_identity.place(), me.pid, me.start)
    store._run(lambda db: db.execute(renew, params))
    with _threads:
        _renewals[key] = (renew, params)
    channel = asker_channel()
    if _hub(store, channel) is None:
        with _threads:
            _renewals.pop(key, None)
            why = _unheard.pop((*key, channel), "")
            _hubs.pop((*key, channel), None)  # tried again at the next question
        why = why.removeprefix(f"the inbox {store.where} cannot be reached: ")
        raise InboxError(
            f"the inbox {store.where} cannot be used: the connection that keeps this"
            f" asker's questions alive cannot be opened: {why}"
        )
