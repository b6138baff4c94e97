"""Deferred questions: an asker leaves and its question stays, for the asker that comes back.

Claude Code's ``defer`` (``askcli hook --defer-after``) ends ``claude -p`` with a question
open; ``claude -p --resume`` runs the same call again in a new hook process. The question
waits meanwhile, deferred under a key (Claude Code's session and the call's tool_use id,
kept in its ``conversation``, :data:`.base.DEFERRED` first): its asker being gone does not
withdraw it (:data:`.base.NOT_DEFERRED`), and the hook that comes back with the key adopts it,
and with it its answer. ``askcli resume`` lists them to know which sessions to resume.
"""

from __future__ import annotations

from typing import Any

from .. import asker_identity
from .base import COLUMNS, DEFERRED, IS_DEFERRED, QueuedQuestion, Store, asker_id, question_of


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
            "SELECT id FROM questions WHERE conversation = ? AND delivered IS NULL AND"
            " status IN ('waiting', 'being answered', 'answered') ORDER BY id LIMIT 1",
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
            f"SELECT {COLUMNS} FROM questions WHERE {IS_DEFERRED} AND delivered IS NULL"
            " AND status IN ('waiting', 'being answered', 'answered') ORDER BY id",
        ).fetchall(),
        write=False,
    )
    return [question_of(row) for row in rows]
