"""The question queue's store: :mod:`.base` (the one interface, its SQL written once),
:mod:`.sqlite` (a file; :mod:`.opening`, the checks before it is opened) and :mod:`.postgres`
(a database: leases, LISTEN/NOTIFY; :mod:`.postgres_schema`, its tables and roles), and
:mod:`.deferred` (the questions an asker left for the one that comes back), of the kinds
of question kept past their asker (:mod:`.kept`: deferred ones, and MCP tasks). Beside
the queue, :mod:`.team_members` (a store's ``teams``, kept each database's way) and
:mod:`.audit_log` (the trail of ``askcli inbox log``). What the rest of askcli uses is named
here."""

import os
from pathlib import Path

from .. import location
from . import deferred
from .base import (
    ASKER_GRACE,
    LEASE,
    Agent,
    QueuedQuestion,
    QueueState,
    Store,
    asker_id,
    default_path,
    new_token,
)

__all__ = [
    "ASKER_GRACE",
    "LEASE",
    "Agent",
    "QueueState",
    "QueuedQuestion",
    "Store",
    "asker_id",
    "default_path",
    "deferred",
    "new_token",
    "open_store",
]


def open_store(where: Path | str | None = None) -> Store:
    """The queue ``where`` names (a file, or a PostgreSQL URL), or, without it, the one
    ``$ASKCLI_INBOX`` names (a file by default)."""
    named = str(where) if where is not None else os.environ.get("ASKCLI_INBOX") or ""
    if location.is_postgres(named):
        from .postgres import PostgresStore

        return PostgresStore(where)
    from .sqlite import SQLiteStore

    return SQLiteStore(where)
