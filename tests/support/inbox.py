"""The inbox in the tests: its person side as ``askcli inbox`` answers, and a store's database
as another askcli or time would have left it."""

from __future__ import annotations

import io
import subprocess
import time
from typing import TYPE_CHECKING, Any

from askcli.lines import TextLineReader

if TYPE_CHECKING:
    from askcli.inbox.store import QueuedQuestion, Store
    from askcli.terminal.conversation import Conversation


def answer_one(store: Store, inbox: str, question: QueuedQuestion, conv: Conversation) -> bool:
    """Ask a question ``inbox`` claimed and store its reply, as ``askcli inbox`` does; False
    when it was no longer this inbox's to answer (its asker withdrew it meanwhile)."""
    from askcli.inbox.asking import reply_to_json
    from askcli.runners.session import answer_document
    from askcli.wire.documents import Document

    reply = answer_document(Document(question.call), conv, question.id)
    return store.answer(inbox, question.id, reply_to_json(reply))


def answer_queued(
    store: Store, lines: str, question_id: int | None = None, screen: io.StringIO | None = None
) -> bool:
    """A person at an inbox of ``store`` answers question ``question_id`` (None: the oldest
    waiting) with the answer ``lines``: True when the answer was stored. ``screen`` gets
    what they saw."""
    from askcli.inbox.person import inbox_id
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.rendering import Style

    me = inbox_id()
    store.heartbeat(me)
    question = store.claim(me, question_id)
    assert question is not None, f"question {question_id} is not waiting"
    out = screen if screen is not None else io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), out, Style())
    try:
        return answer_one(store, me, question, conv)
    finally:
        store.leave(me)


def tamper(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Run ``sql`` (``?`` parameters) on the store's database, as another askcli or time
    would have left it; the rows it returns."""

    def work(db: Any) -> list[Any]:
        cursor = store._x(db, sql, params)
        return list(cursor.fetchall()) if cursor.description else []

    return store._run(work)


def opened_at(store: Store) -> str:
    """What ``Store(...)`` takes to open ``store`` again: its file or its URL."""
    url: str | None = getattr(store, "url", None)
    return url if url is not None else str(getattr(store, "path"))  # noqa: B009


def as_if_asked_by(store: Store, question_id: int, pid: int, start: str | None) -> None:
    """Make the question another process's of this machine (on PostgreSQL, with its lease)."""
    import socket

    from askcli.inbox.askers import Process, place
    from askcli.inbox.store import asker_id

    asker = asker_id(Process(socket.gethostname(), pid, start))
    tamper(
        store,
        "UPDATE questions SET asker_pid = ?, asker_start = ?, asker = ? WHERE id = ?",
        (pid, start, asker, question_id),
    )
    if store.pushes:
        tamper(
            store,
            "INSERT INTO askers (id, host, seen, place, pid, start) VALUES (?, ?, ?, ?, ?, ?)",
            (asker, socket.gethostname(), time.time(), place(), pid, start),
        )


def another_asker(store: Store, question_id: int) -> subprocess.Popen[bytes]:
    """Make the question one of a process of its own (``sleep``), not of the tests: an
    ``askcli inbox answer`` the tests start runs under them, and an agent does not answer
    its own question. The caller ends the process (``kill()``, ``wait()``)."""
    from askcli.inbox.askers import process_start

    child = subprocess.Popen(["sleep", "600"])
    as_if_asked_by(store, question_id, child.pid, process_start(child.pid))
    return child
