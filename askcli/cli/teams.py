"""``inbox team`` and ``inbox log``: who answers what, and what was answered."""

from __future__ import annotations

from typing import Any

import click

from ..escaping import visible
from ..runners.streams import printer, say_err
from ..status import ExitStatus
from .params import guard_pipe, inbox_url_option


def _names(ctx: click.Context, what: str, names: tuple[str, ...]) -> list[str]:
    """The names checked (one line and exit 2 for one that cannot be a name)."""
    from ..errors import UsageError
    from ..inbox.routing import checked_name
    from .params import usage_error

    try:
        return [checked_name(name, what) for name in names]
    except UsageError as exc:
        usage_error(ctx, exc)
        raise AssertionError("usage_error exits") from None


@click.group()
@inbox_url_option
def team(inbox_url: str | None) -> None:
    """The teams of the inbox.

    A question addressed to a team (--to TEAM) is answered by any of its members
    (askcli inbox --as NAME)."""


@team.command("add")
@click.argument("name", metavar="TEAM")
@click.argument("members", nargs=-1, required=True, metavar="NAME...")
@inbox_url_option
@click.pass_context
def team_add(
    ctx: click.Context, name: str, members: tuple[str, ...], inbox_url: str | None
) -> None:
    """Add the people NAME... to team TEAM (made when it is new).

    Exit status: 0 added, 2 usage or the inbox cannot be used.
    """
    from ..inbox.store import open_store

    (checked,) = _names(ctx, "TEAM", (name,))
    people = _names(ctx, "NAME", members)

    def work() -> int:
        store = open_store(inbox_url)
        store.teams.add(checked, people)
        said = ", ".join(visible(m) for m in store.teams.all().get(checked, []))
        say_err(f"askcli: team {visible(checked)}: {said}\n")
        return ExitStatus.OK

    guard_pipe(ctx, work)


@team.command("remove")
@click.argument("name", metavar="TEAM")
@click.argument("members", nargs=-1, metavar="[NAME]...")
@inbox_url_option
@click.pass_context
def team_remove(
    ctx: click.Context, name: str, members: tuple[str, ...], inbox_url: str | None
) -> None:
    """Remove the people NAME... from team TEAM.

    Without NAME, the whole team is removed. Exit status: 0 removed, 1 nobody was removed
    (no such team or member), 2 usage or the inbox cannot be used.
    """
    from ..inbox.store import open_store

    (checked,) = _names(ctx, "TEAM", (name,))
    people = _names(ctx, "NAME", members)

    def work() -> int:
        count = open_store(inbox_url).teams.remove(checked, people)
        if count == 0:
            whom = "no such member" if people else "no such team"
            say_err(f"askcli: nobody was removed from team {visible(checked)} ({whom})\n")
            return ExitStatus.FAILED
        say_err(f"askcli: {count} removed from team {visible(checked)}\n")
        return ExitStatus.OK

    guard_pipe(ctx, work)


@team.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@inbox_url_option
@click.pass_context
def team_list(ctx: click.Context, as_json: bool, inbox_url: str | None) -> None:
    """List the teams and their members (`ops: alice, bob`).

    With --json, one object per line: team, members. When there is none, stdout stays empty
    and stderr says so.

    Exit status: 0 listed, 2 the inbox cannot be used.
    """
    from ..inbox.store import open_store
    from ..wire.envelopes import json_line

    def work() -> int:
        echo = printer()
        found = open_store(inbox_url).teams.all()
        if not found:
            say_err("askcli: there are no teams\n")
        for name, members in found.items():
            if as_json:
                echo(json_line({"team": name, "members": members}))
            else:
                echo(f"{visible(name)}: {', '.join(visible(m) for m in members)}")
        return ExitStatus.OK

    guard_pipe(ctx, work)


@click.command("log")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    metavar="N",
    help="Only the last N settled questions.",
)
@inbox_url_option
@click.pass_context
def log(ctx: click.Context, as_json: bool, limit: int | None, inbox_url: str | None) -> None:
    """The audit trail: a line per question answered or withdrawn.

    Oldest first: when (local time), #id, who asked and on which host, the question, and who
    answered on which host and what was decided (`Library: date-fns`, `allowed`, `denied`,
    `declined`), or `withdrawn`. A secret answer is never shown (it is not kept).

    With --json, one object per line: id, status, agent, asker_host, to, question, arrived,
    finished (ISO 8601, UTC), answered_by, answered_host, answered_from (the address, on
    PostgreSQL), decision, rules (the lasting permission rules granted).

    Exit status: 0 printed, 2 the inbox cannot be used, 141 stdout closed, 74 stdout
    cannot be written.
    """
    from ..inbox.person_side.audit import print_log
    from ..inbox.store import open_store
    from ..inbox.store.audit_log import AuditLog

    def said(text: str) -> None:
        say_err(f"askcli: {text}\n")

    guard_pipe(
        ctx,
        lambda: print_log(
            AuditLog(open_store(inbox_url)).entries(limit), printer(), as_json=as_json, said=said
        ),
    )


def _team_option(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> Any:
    """``--team TEAM=NAME,NAME``: each team and its members, checked."""
    teams: dict[str, list[str]] = {}
    for value in values:
        team, _, members = value.partition("=")
        (checked,) = _names(ctx, "--team", (team,))
        people = [m for m in members.split(",") if m] if members else []
        teams.setdefault(checked, []).extend(_names(ctx, "--team", tuple(people)))
    return teams


@click.command("roles")
@click.option("--person", "people", multiple=True, metavar="NAME", help="A person (repeatable).")
@click.option(
    "--team",
    "teams",
    multiple=True,
    metavar="TEAM=NAME,...",
    callback=_team_option,
    help="A team and its members (repeatable).",
)
@click.option("--agent", "agents", multiple=True, metavar="NAME", help="An agent (repeatable).")
@click.option(
    "--apply",
    is_flag=True,
    help="Run the SQL on the inbox (PostgreSQL) instead of printing it: as its owner, a "
    "role with CREATEROLE; roles that exist are left as they are.",
)
@inbox_url_option
@click.pass_context
def roles(
    ctx: click.Context,
    people: tuple[str, ...],
    teams: dict[str, list[str]],
    agents: tuple[str, ...],
    apply: bool,
    inbox_url: str | None,
) -> None:
    """The SQL that gives a team inbox on PostgreSQL its roles.

    Its people, teams and agents: each person and agent logs in as a role of their own, a
    team is a group role (GRANT ops TO alice), and row-level security lets a role see and
    answer only what is addressed to nobody, to it or to one of its teams; an agent's role
    asks and never answers.

    Prints the SQL on stdout (for psql); with --apply, runs it on the inbox.

    \b
    Exit status: 0 printed or applied, 2 usage, an inbox that is not PostgreSQL
    or that refuses (too few rights).
    """
    from ..inbox import roles as making

    lines = making.statements(
        _names(ctx, "--person", people), teams, _names(ctx, "--agent", agents)
    )

    def work() -> int:
        from ..inbox.location import is_postgres
        from ..inbox.store import open_store
        from ..inbox.store.postgres import PostgresStore

        if not apply:
            printer()(making.script(lines).rstrip("\n"))
            return ExitStatus.OK
        if not is_postgres(inbox_url or ""):
            say_err(
                "askcli: roles --apply: the inbox is a file, answered by its Unix user; "
                "roles are PostgreSQL's (ASKCLI_INBOX=postgresql://... or --inbox-url)\n"
            )
            return ExitStatus.INVALID
        store = open_store(inbox_url)
        assert isinstance(store, PostgresStore)
        done = making.apply(store, lines, lambda text: say_err(f"askcli: {visible(text)}\n"))
        say_err(f"askcli: {done} statements applied to {visible(store.where)}\n")
        return ExitStatus.OK

    guard_pipe(ctx, work)
