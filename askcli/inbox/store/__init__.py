"""The question queue's store: :mod:`.base` (the one interface, its SQL written once),
:mod:`.sqlite` (a file; :mod:`.opening`, the checks before it is opened) and :mod:`.postgres`
(a database: schema, leases, LISTEN/NOTIFY). What the rest of askcli uses is named here."""

from .base import (
    ASKER_GRACE,
    LEASE,
    Agent,
    Logged,
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
    "Logged",
    "QueueState",
    "QueuedQuestion",
    "Store",
    "asker_id",
    "default_path",
    "new_token",
]
