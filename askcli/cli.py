"""The ``askcli`` command line: options in, the core called, domain outcomes to exit codes.

This is the only module that imports click.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from typing import BinaryIO, TextIO

import click

from . import __version__
from .errors import UsageError
from .lines import FdLineReader
from .rendering import Style
from .repl import Conversation
from .results import Status
from .session import run

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a reader that went away


def _text_stream(binary: BinaryIO, *, errors: str) -> TextIO:
    """UTF-8 whatever the locale says: model text and answers are Unicode."""
    return io.TextIOWrapper(binary, encoding="utf-8", errors=errors, newline="\n")


def _open_source(source: str) -> FdLineReader:
    if source == "-":
        return FdLineReader(0)
    try:
        fd = os.open(source, os.O_RDONLY)
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror}") from None
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"cannot read {source}: it is a directory")
    return FdLineReader(fd)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="askcli")
def cli() -> None:
    """The human side of an AI agent's AskUserQuestion tool, in plain lines.

    Calls (JSON) come from a file or stdin; menus and prompts go to stderr; answers are
    lines on stdin; each call's tool_result is one JSON line on stdout.
    """


@cli.command()
@click.argument("source", default="-", metavar="[SOURCE]")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Give up on a person who types nothing for this long (exit 3).",
)
@click.pass_context
def ask(ctx: click.Context, source: str, timeout: float | None) -> None:
    """Ask the person the questions of each call in SOURCE (a file, or - for stdin).

    When SOURCE is stdin, each call's answer lines follow it in the same stream.

    \b
    Exit status: 0 answered, 1 declined, 2 invalid call or usage,
    3 no answer (input ended or --timeout), 130 interrupted.
    """
    err = _text_stream(sys.stderr.buffer, errors="backslashreplace")
    out = _text_stream(sys.stdout.buffer, errors="strict")
    try:
        reader = _open_source(source)
    except UsageError as exc:
        err.write(f"askcli: {exc}\n")
        err.flush()
        ctx.exit(int(Status.INVALID))
    answers = reader if source == "-" else FdLineReader(0)
    if source == "-" and reader.interactive:
        err.write("askcli: paste the call (JSON) and then answer; Ctrl-D ends.\n")
        err.flush()
    conv = Conversation(
        reader=answers,
        out=err,
        style=Style.for_stream(sys.stderr),
        timeout=timeout,
        calls_follow=answers is reader,
    )
    try:
        status = run(reader, conv, out)
    except BrokenPipeError:
        # stdout's reader went away: nobody is left to read a result
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        ctx.exit(EXIT_BROKEN_PIPE)
    err.flush()
    ctx.exit(int(status))


def main() -> None:
    try:
        cli(prog_name="askcli")
    except KeyboardInterrupt:
        sys.exit(int(Status.INTERRUPTED))
