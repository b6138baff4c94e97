"""Who may do what in a team inbox on PostgreSQL: its roles, as SQL (``askcli inbox roles``).

On PostgreSQL who answered is the database's word: each person logs in as a role of their
own, a team is a group role whose members answer what is addressed to it, and an agent logs
in as a role that asks and takes its own answers but never answers (row-level security and
the trigger of :mod:`.store.postgres` decide). Three group roles carry the rights on the
schema ``askcli``: ``askcli_people`` (they answer), ``askcli_agents`` (they ask) and
``askcli_teams`` (every team is a member of it, so that a team is told from a person).
:func:`statements` writes the SQL that makes them, for a set of people, teams and agents;
:func:`apply` runs it, each statement once (what exists already is left as it is).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import InboxError, InboxRefused
from .store.postgres import PostgresStore
from .store.postgres_schema import AGENTS, PEOPLE, SCHEMA, TEAMS, _driver, said

_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
# words PostgreSQL reserves that a role might be called: quoted, never bare
_RESERVED = frozenset(
    [
        "all",
        "analyse",
        "analyze",
        "and",
        "any",
        "array",
        "as",
        "asc",
        "both",
        "case",
        "cast",
        "check",
        "collate",
        "column",
        "constraint",
        "create",
        "current_catalog",
        "current_date",
        "current_role",
        "current_time",
        "current_timestamp",
        "current_user",
        "default",
        "deferrable",
        "desc",
        "distinct",
        "do",
        "else",
        "end",
        "except",
        "false",
        "fetch",
        "for",
        "foreign",
        "from",
        "grant",
        "group",
        "having",
        "in",
        "initially",
        "intersect",
        "into",
        "lateral",
        "leading",
        "limit",
        "localtime",
        "localtimestamp",
        "not",
        "null",
        "offset",
        "on",
        "only",
        "or",
        "order",
        "placing",
        "primary",
        "public",
        "references",
        "returning",
        "select",
        "session_user",
        "some",
        "symmetric",
        "table",
        "then",
        "to",
        "trailing",
        "true",
        "union",
        "unique",
        "user",
        "using",
        "variadic",
        "when",
        "where",
        "window",
        "with",
    ]
)

BASE = (
    f"CREATE ROLE {PEOPLE} NOLOGIN",
    f"CREATE ROLE {AGENTS} NOLOGIN",
    f"CREATE ROLE {TEAMS} NOLOGIN",
    f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PEOPLE}, {AGENTS}",
    f"GRANT SELECT ON {SCHEMA}.version, {SCHEMA}.inboxes, {SCHEMA}.askers TO {PEOPLE}, {AGENTS}",
    f"GRANT SELECT, UPDATE ON {SCHEMA}.questions TO {PEOPLE}",
    f"GRANT INSERT, UPDATE, DELETE ON {SCHEMA}.inboxes TO {PEOPLE}",
    f"GRANT SELECT, INSERT, UPDATE ON {SCHEMA}.questions TO {AGENTS}",
    f"GRANT USAGE ON SEQUENCE {SCHEMA}.questions_id_seq TO {AGENTS}",
    f"GRANT INSERT, UPDATE ON {SCHEMA}.askers TO {AGENTS}",
)


def ident(name: str) -> str:
    """``name`` as an SQL identifier: bare when plain, else double-quoted."""
    if _PLAIN.fullmatch(name) and name not in _RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def statements(
    people: Sequence[str], teams: Mapping[str, Sequence[str]], agents: Sequence[str]
) -> list[str]:
    """The SQL, statement by statement (comments are statements of their own, ``-- ...``)."""
    out = [f"-- askcli's group roles and their rights on the schema {SCHEMA}", *BASE]
    if people:
        out.append("-- people: each logs in as a role of their own (password, certificate, peer)")
        for person in people:
            out += [f"CREATE ROLE {ident(person)} LOGIN", f"GRANT {PEOPLE} TO {ident(person)}"]
    if teams:
        out.append("-- teams: group roles; their members answer what is addressed to them")
        for team, members in teams.items():
            out += [f"CREATE ROLE {ident(team)} NOLOGIN", f"GRANT {TEAMS} TO {ident(team)}"]
            if members:
                out.append(f"GRANT {ident(team)} TO {', '.join(ident(m) for m in members)}")
    if agents:
        out.append("-- agents: they ask and take their own answers, and never answer")
        for agent in agents:
            out += [f"CREATE ROLE {ident(agent)} LOGIN", f"GRANT {AGENTS} TO {ident(agent)}"]
    return out


def script(lines: Sequence[str]) -> str:
    """The statements as one SQL script, as ``psql`` runs it."""
    return "".join(line + "\n" if line.startswith("--") else line + ";\n" for line in lines)


def apply(store: PostgresStore, lines: Sequence[str], said_line: Callable[[str], None]) -> int:
    """Run ``lines`` on the inbox, in one transaction (askcli's schema made first): a role
    that exists already is left as it is. The number of statements that changed something;
    InboxRefused, in one line, when PostgreSQL refuses one (too few rights)."""
    psycopg = _driver()
    db: Any = store._open()  # made (or brought up to date) as this role, first
    done = 0
    try:
        with db.transaction():
            for line in lines:
                if line.startswith("--"):
                    continue
                try:
                    with db.transaction():  # a savepoint: an existing role is passed
                        db.execute(line)
                    done += 1
                except psycopg.errors.DuplicateObject:
                    said_line(f"already there: {line}")
    except psycopg.Error as exc:
        if db.closed or db.broken:
            raise InboxError(f"the inbox {store.where} was lost: {said(exc, store.url)}") from None
        raise InboxRefused(
            f"the roles cannot be made by the role {store.role()}: {said(exc, store.url)} (it"
            " takes the schema's owner with CREATEROLE)"
        ) from None
    return done
