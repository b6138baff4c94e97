"""``setup`` and ``doctor``: askcli written into an agent's config, and what is set up."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from ..escaping import visible
from ..runners.streams import say_err
from ..setup import configs
from ..status import ExitStatus
from .params import check_name


def _home() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def _askcli() -> str | None:
    """The absolute path of the running askcli, or of the one on PATH."""
    ran = sys.argv[0] if sys.argv else ""
    if ran and os.path.basename(ran) not in ("__main__.py", "-c", "-m"):
        found = ran if os.sep in ran else shutil.which(ran)
        if found and os.path.isfile(found):
            return os.path.abspath(found)
    found = shutil.which("askcli")
    return os.path.abspath(found) if found else None


CODEX_HOOK_OFFER = (
    "Codex's approvals can be answered through askcli too: askcli setup codex-hook "
    "(its PermissionRequest hook; Codex asks you to trust it once, in /hooks)"
)


@click.command()
@click.argument("agent", type=click.Choice(configs.TARGETS))
@click.option("--dry-run", is_flag=True, help="Print the change as a unified diff; write nothing.")
@click.option("--undo", is_flag=True, help="Remove what setup added (an edited entry is left).")
@click.option(
    "--inbox-url",
    metavar="URL",
    help="Write the command with --inbox-url URL: the agent's questions go to that inbox "
    "(a postgresql:// URL without its password, or a file) [default: $ASKCLI_INBOX as the "
    "agent's environment has it].",
)
@click.option(
    "--to",
    metavar="NAME",
    callback=check_name,
    help="Write the command with --to NAME: the agent's questions are for the person or "
    "team NAME [default: $ASKCLI_TO as the agent's environment has it, else anyone].",
)
@click.pass_context
def setup(
    ctx: click.Context,
    agent: str,
    dry_run: bool,
    undo: bool,
    inbox_url: str | None,
    to: str | None,
) -> None:
    """Write askcli into AGENT's user config.

    For Claude Code its hooks (~/.claude/settings.json); askcli mcp as an MCP server for
    Codex (~/.codex/config.toml), Gemini CLI (~/.gemini/settings.json) and OpenCode
    (~/.config/opencode/opencode.json); codex-hook: askcli hook as Codex's
    PermissionRequest hook (~/.codex/hooks.json), for Codex's approvals.

    Everything else in the file is kept, and the former file beside it, as
    FILE.askcli-backup. A second run changes nothing. --undo removes the entry as setup
    wrote it, with whatever --inbox-url and --to it was written with.

    \b
    Exit status: 0 done (or nothing to do); 1 the file cannot be written;
    2 a usage error, a config file that is not valid JSON or TOML (nothing
    written).
    """
    from ..inbox.location import password_refused
    from ..setup import configs as setting

    refused = password_refused(inbox_url, "--inbox-url") if inbox_url is not None else None
    if inbox_url is not None and not inbox_url.strip():
        say_err("askcli setup: --inbox-url: give a postgresql:// URL or a file, not nothing\n")
        ctx.exit(ExitStatus.USAGE)
    if refused is not None:
        say_err(f"askcli setup: {visible(str(refused))}\n")
        ctx.exit(ExitStatus.USAGE)
    if undo and (inbox_url is not None or to is not None):
        say_err(
            "askcli setup: --undo removes what setup wrote, whatever its --inbox-url and --to:"
            " give it alone\n"
        )
        ctx.exit(ExitStatus.USAGE)
    options: tuple[str, ...] = ()
    if inbox_url is not None:
        options += ("--inbox-url", inbox_url)
    if to is not None:
        options += ("--to", to)
    askcli = _askcli()
    if askcli is None:
        say_err("askcli setup: cannot tell where askcli is installed (not on PATH)\n")
        ctx.exit(ExitStatus.USAGE)
    try:
        planned = setting.plan(agent, askcli, _home(), undo=undo, options=options)
    except setting.SetupError as exc:
        say_err(f"askcli setup: {visible(str(exc))}\n")
        ctx.exit(ExitStatus.USAGE)
    where = visible(str(planned.path))
    if not planned.changes:
        why = f" ({visible(planned.said)})" if planned.said else ""
        said = "nothing to undo" if undo else "already set up"
        say_err(f"askcli setup: {agent}: {said} in {where}; nothing changed{why}\n")
        ctx.exit(0)
    if dry_run:
        click.echo(visible(setting.unified_diff(planned), multiline=True), nl=False)
        say_err(
            f"askcli setup: {agent}: {visible(planned.would)} in {where} "
            "(dry run: nothing written)\n"
        )
        ctx.exit(0)
    try:
        backup = setting.write(planned)
    except setting.SetupError as exc:
        say_err(f"askcli setup: {visible(str(exc))}\n")
        ctx.exit(1)
    kept = f"; the former file is {visible(str(backup))}" if backup is not None else ""
    say_err(f"askcli setup: {agent}: {visible(planned.said)} in {where}{kept}\n")
    if agent == "codex" and not undo:
        say_err(f"askcli setup: {CODEX_HOOK_OFFER}\n")
    ctx.exit(0)


@click.command()
def doctor() -> None:
    """Say, for each agent, whether askcli is set up there.

    Which file, hook or MCP server; which inbox file is used and whether it is usable;
    which extras are installed.

    Exit status: 0.
    """
    from ..setup import doctor as checking

    for line in checking.report(_home()):
        click.echo(line)
