"""The audit trail of ``askcli inbox log``: the settled questions, who settled them and how.

Every answer keeps who answered, where and when (:meth:`~.base.Store.answer`); this reads
them back, with the SQL every store runs alike, so the queue's :class:`~.base.Store` need not.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ...wire.documents import parse_json
from .base import COLUMNS, QueuedQuestion, Store, question_of


class Logged(NamedTuple):
    """One line of the audit trail: a question that was settled, who settled it and how."""

    question: QueuedQuestion
    decision: str | None  # what was decided, in a few words (never a secret)
    rules: tuple[str, ...] = ()  # the lasting permission rules it granted (Bash(rm:*))


class AuditLog:
    """The audit trail of the queue ``store`` keeps."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def entries(self, limit: int | None = None) -> list[Logged]:
        """The settled questions (answered or withdrawn), oldest first (the last ``limit``)."""
        query = (
            f"SELECT {COLUMNS}, decision, rules FROM questions WHERE status IN ('answered',"
            " 'withdrawn') ORDER BY finished DESC, id DESC"
        )
        params: tuple[Any, ...] = ()
        if limit is not None:
            query += " LIMIT ?"
            params = (limit,)
        store = self.store
        rows = store._run(lambda db: store._x(db, query, params).fetchall(), write=False)
        return [
            Logged(question_of(row), row[-2], tuple(parse_json(row[-1])) if row[-1] else ())
            for row in reversed(rows)
        ]
