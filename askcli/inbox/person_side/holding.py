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
from collections.abc import Iterator
from typing import Any, NamedTuple

from ...escaping import visible
from ...terminal.rendering import Style, display_width, wrap, wrap_prompt
from .. import asker_identity, routing
from ..store.base import LEASE, QueuedQuestion, QueueState, Store, new_token
from . import queue_screens


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
    if inbox.place == asker_identity.place():
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


class TakenAway(Exception):
    """The question being answered is held by another inbox now (taken over from this one,
    or claimed after its claim here lapsed): raised in the middle of reading an answer line."""

    def __init__(self, question: QueuedQuestion) -> None:
        super().__init__(f"question {question.id} was taken")
        self.question = question


class Others:
    """An inbox's view of its person's other inboxes: the questions they hold, which of
    them to offer to take over (each once for each inbox holding it, never back to the inbox
    it was taken from), and the takeover itself."""

    def __init__(self, store: Store, inbox: str, person: str | None) -> None:
        self.store = store
        self.inbox = inbox
        self.person = person
        self.left: set[tuple[int, str]] = set()  # (question, its inbox): not offered (again)

    def holder(self, question: QueuedQuestion | None) -> OwnInbox | None:
        """The person's other inbox that holds ``question``, if one does."""
        if question is None:
            return None
        return other_inbox(question, own_inboxes(self.store), self.inbox)

    def to_offer(self) -> Iterator[tuple[QueuedQuestion, OwnInbox]]:
        """The questions the person's other inboxes hold and that were not offered here,
        oldest first."""
        own = own_inboxes(self.store)
        if not set(own) - {self.inbox}:
            return
        for question in self.store.questions(states=(QueueState.ANSWERING,), person=self.person):
            found = other_inbox(question, own, self.inbox)
            if found is not None and (question.id, found.id) not in self.left:
                yield question, found

    def take(self, question_id: int, holder: str) -> QueuedQuestion | None:
        """:func:`take_over` for this inbox."""
        return take_over(self.store, self.inbox, question_id, holder, person=self.person)

    def taken(self, question: QueuedQuestion) -> str | None:
        """``your other inbox (pid 1234) took #3 over``: ``question`` was taken from here
        (it is not offered back); None when not by one of the person's inboxes."""
        self.left.add((question.id, question.holder_inbox or ""))
        found = self.holder(question)
        if found is None:
            return None
        return f"your other inbox ({visible(held_here(found))}) took #{question.id} over"

    def listed(self, shown: list[QueuedQuestion]) -> tuple[list[QueuedQuestion], list[int]]:
        """``shown``, those the person's other inboxes hold saying which (``being answered
        by your other inbox, pid 1234, since 14:02``), and their ids."""
        own = own_inboxes(self.store)
        out, elsewhere = [], []
        for question in shown:
            found = other_inbox(question, own, self.inbox)
            if found is not None:
                elsewhere.append(question.id)
                question = question._replace(holder=held_note(question, found))
            out.append(question)
        return out, elsewhere


def held_note(question: QueuedQuestion, inbox: OwnInbox, whose: str = "your other inbox") -> str:
    """``your other inbox, pid 1234, since 14:02``: who answers it, in a list's line. Not
    escaped."""
    when = since(question.held_since)
    return f"{whose}, {held_here(inbox)}{', ' + when if when else ''}"


def yours(store: Store, questions: list[QueuedQuestion]) -> list[QueuedQuestion]:
    """``questions``, those an inbox of whoever uses ``store`` holds saying which (``being
    answered by your inbox, pid 1234, since 14:02``): ``inbox list`` is run by the person,
    and every inbox of theirs is theirs, not "root"'s."""
    if not any(question.state is QueueState.ANSWERING for question in questions):
        return questions
    own = own_inboxes(store)
    shown = []
    for question in questions:
        found = own.get(question.holder_inbox or "")
        if question.state is QueueState.ANSWERING and found is not None:
            question = question._replace(holder=held_note(question, found, "your inbox"))
        shown.append(question)
    return shown


# -- what the person sees --------------------------------------------------------------


def offer_text(
    question: QueuedQuestion, inbox: OwnInbox, style: Style, teams: queue_screens.Teams
) -> str:
    """The lines offering to take ``question`` over: ``#3 Which database?  claude ~/api``,
    then ``  is held by your other inbox (pid 1234, since 14:02)``; escaped, laid out to the
    terminal's width."""
    found = queue_screens.summary(question.call)
    many = found.kind == queue_screens.QUESTION and len(found.texts) > 1
    more = (f" (+{len(found.texts) - 1} more)" if many else "") + routing.note(
        question._replace(holder=None), teams
    )
    lines = queue_screens.lay_out(
        style.width, f"#{question.id} ", found.shown, question.agent, more=more
    )
    held = f"is held by {visible(held_by(question, inbox))}"
    return "\n".join(
        lines + wrap(held, style.width, first=queue_screens.INDENT, rest=queue_screens.INDENT)
    )


def offer_prompt(question_id: int, width: int = 80) -> str:
    """``Take #3 over? y takes it here, Enter leaves it [n]:``, shorter where that does not
    fit ``width``."""
    forms = (
        f"Take #{question_id} over? y takes it here, Enter leaves it [n]: ",
        f"Take #{question_id} over? [n]: ",
    )
    for form in forms:
        if display_width(form) + queue_screens.ROOM_TO_TYPE <= width:
            return form
    return wrap_prompt(forms[-1], width)


def list_hint(numbers: list[int]) -> str:
    """What ``l`` adds when the person's other inboxes hold some of the questions listed."""
    if len(numbers) == 1:
        return f"  (t {numbers[0]} takes it over from your other inbox)"
    return "  (t N takes question N over from your other inbox)"
