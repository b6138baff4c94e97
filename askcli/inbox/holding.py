"""Which inbox holds a question, and taking a question over from another inbox of the same
person: one ``askcli inbox`` left open in another terminal (or on another machine) holds the
question that the person wants to answer here.

Whose an inbox is, is the store's word, never the inbox's: the Unix user on one machine (an
inbox file is that one user's), the role on PostgreSQL (the database writes each inbox's
role). A person takes a question over only from an inbox of their own: another person's
inbox keeps it, and says who is answering it, as before. The takeover moves the claim in one
transaction, from the inbox the person was shown to this one: from then on the other inbox
cannot store an answer (:meth:`~.store.Store.answer` takes one only from the inbox that holds
the question), its watch tells it that the question was taken, and the journal keeps what it
had typed for this inbox's ``Resume?``. A retry after a lost acknowledgement finds its own
takeover (its token), so it is done once.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from . import askers
from .store import LEASE, QueuedQuestion, QueueState, Store, new_token


class OwnInbox(NamedTuple):
    """An open inbox of whoever uses the store: its id, its process and where that runs."""

    id: str
    pid: int
    host: str
    place: str | None


def own_inboxes(store: Store) -> dict[str, OwnInbox]:
    """The open inboxes of whoever uses ``store`` (the Unix user; the PostgreSQL role), by id."""
    condition, params = store.own_inbox_condition()
    query = f"SELECT id, pid, host, place FROM inboxes WHERE {condition}"
    rows = store._run(lambda db: store._x(db, query, params).fetchall(), write=False)
    return {row[0]: OwnInbox(*row) for row in rows}


def take_over(
    store: Store, inbox: str, question_id: int, holder: str, *, person: str | None = None
) -> QueuedQuestion | None:
    """Move question ``question_id`` from ``holder`` (the inbox the person was shown) to
    ``inbox``; the question as it then is, or None when it is not that inbox's any more
    (answered, withdrawn, waiting again, held by another), ``holder`` is not an inbox of
    whoever uses ``store``, or ``person`` may not answer it."""
    token = new_token()
    condition, own = store.own_inbox_condition()
    audience, seen = store._audience(person)

    def work(db: Any) -> QueuedQuestion | None:
        done = store._x(  # this takeover, made before a lost acknowledgement
            db,
            "SELECT id FROM questions WHERE id = ? AND claim_token = ? AND claimed_by = ? AND"
            " status = 'being answered'",
            (question_id, token, inbox),
        ).fetchone()
        if done is not None:
            return store._get(db, question_id)
        now = store._now()
        moved = store._x(  # status set: the change is pushed to every inbox (PostgreSQL)
            db,
            "UPDATE questions SET status = 'being answered', claimed_by = ?, claimed_until = ?,"
            " claimed_at = ?, claim_token = ? WHERE id = ? AND status = 'being answered' AND"
            " claimed_by = ? AND claimed_by <> ? AND claimed_by IN (SELECT inboxes.id FROM"
            f" inboxes WHERE {condition}) AND {audience}{store.claimable}",
            (inbox, now + LEASE, now, token, question_id, holder, inbox, *own, *seen),
        )
        return store._get(db, question_id) if moved.rowcount == 1 else None

    return store._run(work)


def other_inbox(question: QueuedQuestion, own: dict[str, OwnInbox], me: str) -> OwnInbox | None:
    """The person's other inbox that holds ``question`` (not ``me``), if one does."""
    if question.state is not QueueState.ANSWERING or question.holder_inbox in (None, me):
        return None
    return own.get(question.holder_inbox or "")


def held_here(inbox: OwnInbox) -> str:
    """Which process it is: ``pid 1234`` on this machine, ``pid 1234 on devbox`` elsewhere
    (another machine, or a container: its pids are its own). Not escaped."""
    if inbox.place == askers.place():
        return f"pid {inbox.pid}"
    return f"pid {inbox.pid} on {inbox.host}"


def since(seconds: float | None, now: float | None = None) -> str:
    """``since 14:02`` (local time), ``since 2026-12-01 14:02`` on another day; empty when
    not known (a claim of an earlier askcli)."""
    if seconds is None:
        return ""
    then = time.localtime(seconds)
    today = time.localtime(time.time() if now is None else now)
    shape = "%H:%M" if then[:3] == today[:3] else "%Y-%m-%d %H:%M"
    return "since " + time.strftime(shape, then)


def held_by(question: QueuedQuestion, inbox: OwnInbox) -> str:
    """``your other inbox (pid 1234, since 14:02)``: the person's other inbox holding
    ``question``. Not escaped."""
    when = since(question.held_since)
    return f"your other inbox ({held_here(inbox)}{', ' + when if when else ''})"
