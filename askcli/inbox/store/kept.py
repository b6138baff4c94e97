"""Questions kept past their asker: its process being gone does not withdraw them.

A question is withdrawn when its asker is gone (:meth:`.base.Store.tidy`), unless it is of a
kind kept past its asker, for a later asker that comes back for it: a *deferred* question
(Claude Code's ``defer``: kept until the resumed call's hook takes it back, see
:mod:`.deferred`) and a *task* (an MCP task: kept :data:`TASK_TTL` seconds from its arrival,
for a later server of that conversation to take over, :meth:`.base.Store.by_task`). Each
kind is a :class:`Kept`; a question's kind is written in its ``conversation``, as the kind's
name and a colon before its key, which SQL reads (:func:`spared`).
"""

from __future__ import annotations

from typing import NamedTuple

TASK_TTL = 86400.0  # seconds a task is kept from its arrival


class Kept(NamedTuple):
    """A kind of question kept past its asker: its name, and for how long from its arrival
    (None: until taken back)."""

    name: str
    ttl: float | None

    @property
    def prefix(self) -> str:
        return self.name + ":"

    def conversation(self, key: str) -> str:
        """The conversation of a question of this kind kept under ``key``."""
        return self.prefix + key

    def key_of(self, conversation: str | None) -> str | None:
        """The key of a question of this kind, from its conversation; None for another."""
        if conversation is None or not conversation.startswith(self.prefix):
            return None
        return conversation[len(self.prefix) :]

    @property
    def condition(self) -> str:
        """The condition on questions of those of this kind (whatever their age)."""
        return f"substr(COALESCE(conversation, ''), 1, {len(self.prefix)}) = '{self.prefix}'"


DEFERRED = Kept("deferred", None)
TASK = Kept("task", TASK_TTL)
KINDS = (DEFERRED, TASK)


def spared(now: float) -> tuple[str, tuple[float, ...]]:
    """The condition on questions (``?`` parameters) of those kept past their asker at
    ``now``, and its parameters: their asker being gone does not withdraw them."""
    parts: list[str] = []
    params: list[float] = []
    for kind in KINDS:
        if kind.ttl is None:
            parts.append(kind.condition)
        else:
            parts.append(f"({kind.condition} AND arrived >= ?)")
            params.append(now - kind.ttl)
    return "(" + " OR ".join(parts) + ")", tuple(params)
