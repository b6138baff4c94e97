"""The teams of an inbox: who answers the questions addressed to a team.

Each store keeps them its own way (:class:`~.sqlite.SQLiteTeams`, a table;
:class:`~.postgres.PostgresTeams`, group roles) and gives them as its ``teams``; this is what
both do. Nothing of a store's queue is needed here, so the queue's :class:`~.base.Store`
names this, not the other way round.
"""

from __future__ import annotations


class Teams:
    """The teams of one store and their members, by name."""

    def all(self) -> dict[str, list[str]]:
        """Every team and its members, by name."""
        raise NotImplementedError

    def add(self, team: str, members: list[str]) -> None:
        """``members`` join ``team`` (those already in it stay once)."""
        raise NotImplementedError

    def remove(self, team: str, members: list[str]) -> int:
        """``members`` leave ``team`` (all of them when none is named); how many left."""
        raise NotImplementedError
