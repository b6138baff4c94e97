"""Write docs/cli.md: every askcli command's ``--help`` as printed at 80 columns.

Run it with ``make docs``; tests/project/test_docs.py fails when docs/cli.md differs from what it
makes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from askcli.cli import cli

CLI_MD = Path(__file__).with_name("cli.md")
COLUMNS = "80"

HEAD = """\
# Command-line reference

Every command's `--help`, exactly as askcli prints it at 80 columns (`COLUMNS=80`).
This page is generated: run `make docs` after changing a command's help;
`tests/project/test_docs.py` fails when it is out of date.
"""


def _commands(
    command: click.Command, path: tuple[str, ...], parent: click.Context | None
) -> list[tuple[tuple[str, ...], str]]:
    """(path, help text) for ``command`` and every command under it, in order."""
    ctx = click.Context(command, info_name=path[-1], parent=parent, **command.context_settings)
    found = [(path, ctx.get_help())]
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                found += _commands(sub, (*path, name), ctx)
    return found


def render() -> str:
    """The text of docs/cli.md."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS  # click wraps help to the terminal's width
    try:
        helps = _commands(cli, ("askcli",), None)
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    parts = [HEAD]
    parts.append("".join(f"- [`{' '.join(p)}`](#{'-'.join(p)})\n" for p, _ in helps))
    parts += [f"## `{' '.join(p)}`\n\n```\n{text}\n```\n" for p, text in helps]
    return "\n".join(parts)


def main() -> int:
    CLI_MD.write_text(render(), encoding="utf-8")
    print(f"wrote {CLI_MD}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
