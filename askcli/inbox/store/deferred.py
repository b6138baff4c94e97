"""Deferred questions: an asker leaves and its question stays, for the asker that comes back.

Claude Code's ``defer`` (``askcli hook --defer-after``) ends ``claude -p`` with a question
open; ``claude -p --resume`` runs the same call again in a new hook process. The question
waits meanwhile, deferred under a key (Claude Code's session and the call's tool_use id,
kept in its ``conversation``, :data:`.base.DEFERRED` first): its asker being gone does not
withdraw it (:data:`.base.NOT_DEFERRED`), and the hook that comes back with the key adopts it,
and with it its answer. ``askcli resume`` lists them to know which sessions to resume, and
*claims* one before it resumes its session (:func:`claim_resume`): two ``askcli resume`` at
once never both resume it. The claim is the resuming process's (``resumed_by``, an asker's
name, its lease in ``askers``), until it releases it (:func:`release_resume`) or is gone:
its process no longer runs (where its pid means the same as here), or its lease was not
renewed for :data:`~.base.ASKER_GRACE` seconds.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import asker_identity
from .base import (
    ASKER_GRACE,
    COLUMNS,
    DEFERRED,
    IS_DEFERRED,
    QueuedQuestion,
    Store,
    asker_id,
    question_of,
)

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
                    (DEFERRED + key, question_id, asker_id(asker_identity.me())),
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
            (DEFERRED + key,),
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
            f"SELECT {COLUMNS} FROM questions WHERE {IS_DEFERRED} AND {OPEN} ORDER BY id",
        ).fetchall(),
        write=False,
    )
    return [question_of(row) for row in rows]


def claim_resume(store: Store, question_id: int) -> Resuming | None:
    """Claim the resuming of the deferred question's session for this process; who holds the
    claim then (this process, when it got it, or the one that resumes it already), or None
    when the question is no longer deferred (taken back, withdrawn). A claim whose process is
    gone lapses (see the module); this process's claim, asked for again (a retry after a lost
    acknowledgement), is this process's still."""
    me = asker_id(asker_identity.me())
    store._asking()  # the claim lives while this process's lease does

    def work(db: Any) -> Resuming | None:
        now = store._now()
        row = store._x(
            db,
            f"SELECT resumed_by, resumed_at FROM questions WHERE id = ? AND {IS_DEFERRED}"
            f" AND {OPEN}{store.locking}",
            (question_id,),
        ).fetchone()
        if row is None:
            return None
        by, since = row
        if by == me:
            return _resuming(store, db, me, since)
        if by is not None and not _gone(store, db, by, since, now):
            return _resuming(store, db, by, since)
        if not store._x(  # compared and set: another claim made meanwhile stays
            db,
            "UPDATE questions SET resumed_by = ?, resumed_at = ? WHERE id = ? AND"
            " COALESCE(resumed_by, '') = ?",
            (me, now, question_id, by or ""),
        ).rowcount:
            row = store._x(
                db, "SELECT resumed_by, resumed_at FROM questions WHERE id = ?", (question_id,)
            ).fetchone()
            return None if row is None or row[0] is None else _resuming(store, db, *row)
        return _resuming(store, db, me, now)

    return store._run(work)


def release_resume(store: Store, question_id: int) -> None:
    """This process no longer resumes the question's session (it ended, or took its answer):
    another may. A claim another process holds now (this one's lapsed) stays its."""
    me = asker_id(asker_identity.me())
    store._run(
        lambda db: store._x(
            db,
            "UPDATE questions SET resumed_by = NULL, resumed_at = NULL WHERE id = ? AND"
            " resumed_by = ?",
            (question_id, me),
        )
    )


def still_resuming(store: Store) -> None:
    """This process, resuming a session, lives on: its lease (its claims') is renewed."""
    store._still_asking()


def _lease(store: Store, db: Any, by: str) -> tuple[Any, ...] | None:
    """The lease of the process named ``by``: its place, pid, start and when it was seen."""
    row = store._x(db, "SELECT place, pid, start, seen FROM askers WHERE id = ?", (by,)).fetchone()
    return None if row is None else tuple(row)


def _gone(store: Store, db: Any, by: str, since: float | None, now: float) -> bool:
    """Whether the process named ``by``, which claimed a resuming ``since``, is gone: where
    its pid means the same as here, it no longer runs; anywhere, it was not heard of for
    :data:`~.base.ASKER_GRACE` seconds (never, since its claim)."""
    lease = _lease(store, db, by)
    if lease is None:
        return (since or 0.0) < now - ASKER_GRACE
    place, pid, start, seen = lease
    if place == asker_identity.place() and not asker_identity.alive(pid, start):
        return True
    return bool(seen < now - ASKER_GRACE)


def _resuming(store: Store, db: Any, by: str, since: float | None) -> Resuming:
    lease = _lease(store, db, by)
    host, _, rest = by.partition("/")
    pid: int | None = lease[1] if lease is not None else None
    if pid is None and rest.partition("/")[0].isdigit():
        pid = int(rest.partition("/")[0])
    return Resuming(by, host, pid, since or 0.0)
