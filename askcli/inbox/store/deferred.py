"""Deferred questions: an asker leaves and its question stays, for the asker that comes back.

Claude Code's ``defer`` (``askcli hook --defer-after``) ends ``claude -p`` with a question
open; ``claude -p --resume`` runs the same call again in a new hook process. The question
waits meanwhile, deferred under a key (Claude Code's session and the call's tool_use id,
kept in its ``conversation``: a question of the kind :data:`.kept.DEFERRED`): its asker
being gone does not withdraw it, and the hook that comes back with the key adopts it,
and with it its answer. ``askcli resume`` lists them to know which sessions to resume, and
*claims* one before it resumes its session (:func:`claim_resume`): two ``askcli resume`` at
once never both resume it. The claim is the resuming process's (``resumed_by``, named as an
asker is) until it releases it (:func:`release_resume`) or is gone: its lease
(``resumed_until``, renewed while its run goes on) ran out, or it ran on this machine and
its process no longer runs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import asker_identity
from .base import (
    COLUMNS,
    LEASE,
    QueuedQuestion,
    Store,
    asker_id,
    question_of,
)
from .kept import DEFERRED

OPEN = "delivered IS NULL AND status IN ('waiting', 'being answered', 'answered')"


class Resuming(NamedTuple):
    """Who resumes a deferred question's session: the process (its name in the queue, its
    machine and pid) and since when (seconds since the epoch)."""

    by: str
    host: str
    pid: int | None
    since: float

    @property
    def mine(self) -> bool:
        """Whether it is this process."""
        return self.by == asker_id(asker_identity.me())


def defer(store: Store, question_id: int, key: str) -> bool:
    """This process leaves, and its question stays in the queue, deferred under ``key``.
    False when it is no longer waiting or answered (withdrawn meanwhile)."""
    return bool(
        store._run(
            lambda db: (
                store._x(
                    db,
                    "UPDATE questions SET conversation = ? WHERE id = ? AND asker = ? AND"
                    " delivered IS NULL AND status IN ('waiting', 'being answered', 'answered')",
                    (DEFERRED.conversation(key), question_id, asker_id(asker_identity.me())),
                ).rowcount
            )
        )
    )


def adopt(store: Store, key: str) -> QueuedQuestion | None:
    """The question deferred under ``key``, now this process's (its asker, no longer
    deferred): the call Claude Code runs again on ``--resume``; None when there is none
    (never deferred, withdrawn, or its answer taken already)."""
    me = asker_identity.me()
    store._asking()

    def work(db: Any) -> QueuedQuestion | None:
        row = store._x(
            db,
            f"SELECT id FROM questions WHERE conversation = ? AND {OPEN} ORDER BY id LIMIT 1",
            (DEFERRED.conversation(key),),
        ).fetchone()
        if row is None:
            return None
        store._x(
            db,
            "UPDATE questions SET conversation = NULL, asker = ?, asker_pid = ?,"
            " asker_host = ?, asker_start = ? WHERE id = ?",
            (asker_id(me), me.pid, me.host, me.start, row[0]),
        )
        return store._get(db, row[0])

    return store._run(work)


def waiting(store: Store) -> list[QueuedQuestion]:
    """The deferred questions not taken back yet (waiting, being answered, or answered
    and waiting for their call to come back), oldest first."""
    rows = store._run(
        lambda db: store._x(
            db,
            f"SELECT {COLUMNS} FROM questions WHERE {DEFERRED.condition} AND {OPEN} ORDER BY id",
        ).fetchall(),
        write=False,
    )
    return [question_of(row) for row in rows]


def claim_resume(store: Store, question_id: int) -> Resuming | None:
    """Claim the resuming of the deferred question's session for this process, for
    :data:`~.base.LEASE` seconds (:func:`still_resuming` renews it); who holds the claim then
    (this process, when it got it, or the one that resumes it already), or None when the
    question is no longer deferred (taken back, withdrawn) or not this store's to change. A
    claim whose process is gone lapses (see the module); this process's claim, asked for
    again (a retry after a lost acknowledgement), is this process's still, since it began."""
    me = asker_id(asker_identity.me())

    def work(db: Any) -> Resuming | None:
        now = store._now()
        row = store._x(
            db,
            f"SELECT resumed_by, resumed_at, resumed_until FROM questions WHERE id = ? AND"
            f" {DEFERRED.condition} AND {OPEN}{store.locking}",
            (question_id,),
        ).fetchone()
        if row is None:
            return None
        by, since, until = row
        if by is not None and by != me and not _gone(by, until, now, store._grace(now)):
            return _resuming(by, since)
        since = since if by == me else now
        if not store._x(  # compared and set: a claim another made meanwhile stays its
            db,
            "UPDATE questions SET resumed_by = ?, resumed_at = ?, resumed_until = ? WHERE"
            " id = ? AND COALESCE(resumed_by, '') = ?",
            (me, since, now + LEASE, question_id, by or ""),
        ).rowcount:
            row = store._x(
                db, "SELECT resumed_by, resumed_at FROM questions WHERE id = ?", (question_id,)
            ).fetchone()
            return None if row is None or row[0] is None else _resuming(*row)
        return _resuming(me, since)

    return store._run(work)


def still_resuming(store: Store, question_id: int) -> bool:
    """This process, resuming the question's session, lives on: its claim lasts another
    :data:`~.base.LEASE` seconds. False when it is no longer its claim (it lapsed, and
    another took it, or the question was taken back)."""
    me = asker_id(asker_identity.me())
    return bool(
        store._run(
            lambda db: (
                store._x(
                    db,
                    "UPDATE questions SET resumed_until = ? WHERE id = ? AND resumed_by = ?",
                    (store._now() + LEASE, question_id, me),
                ).rowcount
            )
        )
    )


def release_resume(store: Store, question_id: int) -> None:
    """This process no longer resumes the question's session (its run ended): another may.
    A claim another process holds now (this one's lapsed and was taken) stays its."""
    me = asker_identity.me()
    store._run(
        lambda db: store._x(
            db,
            "UPDATE questions SET resumed_by = NULL, resumed_at = NULL, resumed_until = NULL"
            " WHERE id = ? AND resumed_by = ?",
            (question_id, asker_id(me)),
        )
    )


def _gone(by: str, until: float | None, now: float, grace: bool) -> bool:
    """Whether the process named ``by`` (``HOST/PID/START``), whose claim lasts ``until``,
    is gone: its lease ran out (not during the store's ``grace``), or it ran on this machine
    and no longer runs (where pids mean something: as for a question of an earlier askcli,
    whose place is not known)."""
    if not grace and (until is None or until < now):
        return True
    host, pid, start = _named(by)
    return (
        host == asker_identity.me().host
        and asker_identity.pids_meaningful()
        and pid is not None
        and not asker_identity.alive(pid, start)
    )


def _named(by: str) -> tuple[str, int | None, str | None]:
    """The machine, pid and start of the process named ``by`` (``HOST/PID/START``)."""
    host, _, rest = by.partition("/")
    pid, _, start = rest.partition("/")
    return host, int(pid) if pid.isdigit() else None, start or None


def _resuming(by: str, since: float | None) -> Resuming:
    host, pid, _ = _named(by)
    return Resuming(by, host, pid, since or 0.0)
