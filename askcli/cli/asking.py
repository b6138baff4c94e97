"""``ask``, ``record``, ``replay``, ``check``, ``schema``, ``todo``: calls from files and pipes."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import BadFixture, UsageError
from ..escaping import visible
from ..runners.session import run
from ..runners.streams import Streams, open_reader, printer, say_err
from ..status import ExitStatus
from ..terminal.rendering import MAX_CELLS, Style, terminal_text
from ..tools.journal import default_dir as journal_default_dir
from ..tools.todo_store import TodoStore, default_path
from ..wire.envelopes import Output
from ..wire.wording.base import Wording
from .params import (
    SCHEMA_FORMATS,
    Seconds,
    answers_option,
    guard_pipe,
    inbox_url_option,
    notify_option,
    output_option,
    session_option,
    source_argument,
    state_option,
    to_option,
    usage_error,
    wording_option,
)


@click.command()
@source_argument
@answers_option
@output_option
@state_option
@session_option
@click.option(
    "--journal",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Keep every answer in FILE, a regular file, as it is given, to resume after an "
    "interruption (/dev/null: keep none) [default: a file per call under "
    "$XDG_STATE_HOME/askcli/journal/ when a person answers at a terminal].",
)
@click.option(
    "--timeout",
    type=Seconds(),
    metavar="SECONDS",
    help="Give up on a person who types nothing for this long (exit 3).",
)
@notify_option
@wording_option
@click.option(
    "--inbox",
    "inbox",
    is_flag=True,
    help="Queue each call for `askcli inbox` (where a person answers every agent) instead "
    "of asking here, and print its result when it is answered [inbox file: $ASKCLI_INBOX, "
    "else $XDG_STATE_HOME/askcli/inbox.db].",
)
@to_option
@inbox_url_option
@click.pass_context
def ask(
    ctx: click.Context,
    source: str,
    answers_path: str,
    output: str,
    state: Path | None,
    session: str | None,
    journal: Path | None,
    timeout: float | None,
    notify: str | None,
    wording: Wording,
    inbox: bool,
    to: str | None,
    inbox_url: str | None,
) -> None:
    """Ask the person the questions of the calls in SOURCE.

    SOURCE is a file, or - for stdin; when it is stdin, each call's answer lines follow it
    in the same stream.

    \b
    Exit status: 0 answered, 1 declined, 2 invalid call or usage,
    3 no answer (input ended or --timeout), 130 Ctrl-C (the person declined),
    129 SIGHUP (the terminal hung up) and 143 SIGTERM (askcli was stopped):
    no answer, 141 stdout closed, 74 stdout cannot be written.
    """
    try:
        streams = Streams(source, answers_path)
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    conv = streams.conversation(
        timeout,
        state=state,
        session=session,
        journal=journal,
        journal_dir=journal_default_dir(),
        notify=notify or "",
        wording=wording,
    )
    name = "stdin" if source == "-" else source
    asker = None
    if inbox:
        from ..inbox.asker_side import inbox_asker

        asker = inbox_asker(
            "ask", timeout=timeout, to=to, locked_is_no_answer=True, where=inbox_url
        )
    guard_pipe(
        ctx,
        lambda: int(
            run(streams.calls, conv, streams.out, output=Output(output), name=name, asker=asker)
        ),
    )


@click.command()
@source_argument
@click.option(
    "-o",
    "--fixture",
    "fixture_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to save the fixture (e.g. fixtures/NAME.json).",
)
@answers_option
@output_option
@session_option
@wording_option
@click.option("--description", default="", help="What the session shows.")
@click.option(
    "--columns",
    type=click.IntRange(min=20, max=MAX_CELLS),
    default=80,
    show_default=True,
    help="Width of the recorded transcript.",
)
@click.pass_context
def record(
    ctx: click.Context,
    source: str,
    fixture_path: Path,
    answers_path: str,
    output: str,
    session: str | None,
    wording: Wording,
    description: str,
    columns: int,
) -> None:
    """Run a live session on SOURCE and save it as a fixture.

    `askcli replay` runs the fixture again. It keeps the calls, the answer lines typed, and
    what askcli printed; its transcript is written without colour at --columns, with the
    answers echoed. TodoWrite calls start from an empty state, as a replay does.
    """
    from ..runners.recording import record_command

    try:
        work = record_command(
            source=source,
            fixture_path=fixture_path,
            answers_path=answers_path,
            output=Output(output),
            session=session,
            wording=wording,
            description=description,
            columns=columns,
        )
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    guard_pipe(ctx, work)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_context
def replay(ctx: click.Context, paths: tuple[Path, ...]) -> None:
    """Re-run recorded fixtures without a person.

    PATHS are fixtures, or folders of *.json. Prints `ok` or a unified diff per fixture.
    Exit status: 0 when all match, 1 when any differs, 2 when a fixture cannot be read, 130
    Ctrl-C, 129 SIGHUP, 143 SIGTERM, 141 stdout closed, 74 stdout cannot be written.
    """
    from .. import fixtures
    from ..runners.recording_files import fixture_files

    files = fixture_files(paths)
    if not files:
        say_err("askcli: no fixtures found\n")
        ctx.exit(int(ExitStatus.INVALID))
    echo = printer()

    def work() -> int:
        status = ExitStatus.OK
        for path in files:
            name = visible(str(path))  # a file name is one field of one line
            try:
                expected, actual = fixtures.replay(fixtures.load(path))
            except BadFixture as exc:
                echo(f"error   {name}: {visible(str(exc))}")
                status = ExitStatus.INVALID
                continue
            if expected == actual:
                echo(f"ok      {name}")
                continue
            echo(f"differs {name}")
            for line in fixtures.diff(expected, actual, str(path)):
                echo(visible(line))
            status = status or ExitStatus.FAILED
        return status

    guard_pipe(ctx, work)


@click.command()
@click.argument("sources", nargs=-1, metavar="[SOURCE]...")
@click.option("--strict", is_flag=True, help="Also warn about Claude Code's soft rules.")
@click.pass_context
def check(ctx: click.Context, sources: tuple[str, ...], strict: bool) -> None:
    """Validate the calls in each SOURCE without asking anything.

    SOURCE is a file, or - for stdin (the default). Prints ok/invalid (with the reasons) per
    call, each line beginning with the file's name when there are several, then one summary.
    --strict also reports Claude Code's hints as warnings: header over 12 characters,
    question without ?, label over 5 words, an Other option, (Recommended) not first, a
    preview on a multiSelect question.

    Exit status: 0 every call valid, 2 any invalid or a source without any, or a source
    that cannot be read, 130 Ctrl-C, 129 SIGHUP, 143 SIGTERM, 141 stdout closed, 74
    stdout cannot be written.
    """
    from ..runners.check import check_all

    names = sources or ("-",)
    try:
        if names.count("-") > 1:
            raise UsageError("stdin (-) can be read only once")
        readers = [("stdin" if n == "-" else n, open_reader(n, "calls from")) for n in names]
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    guard_pipe(ctx, lambda: int(check_all(readers, printer(), strict=strict)))


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(SCHEMA_FORMATS),
    metavar="FORMAT",
    default="anthropic",
    show_default=True,
    help="One of anthropic (a Messages API tool), openai (a Chat Completions function tool), "
    "json-schema (the input schema alone), claude-code (AskUserQuestion as the current Claude "
    "Code release defines it; claude-code-extended with text and number questions too), "
    "opencode, codex, gemini (that agent's own question tool), elicitation (the MCP "
    "elicitation/create params askcli answers).",
)
@click.pass_context
def schema(ctx: click.Context, fmt: str) -> None:
    """Print a question tool's definition for an LLM API's `tools` list."""
    import json

    from ..wire.definitions import tool_definition

    def work() -> int:
        printer()(json.dumps(tool_definition(fmt), indent=2, ensure_ascii=False))
        return 0

    guard_pipe(ctx, work)


@click.group()
def todo() -> None:
    """The TodoWrite lists askcli keeps."""


@todo.command()
@state_option
@click.option("--session", metavar="ID", default="default", show_default=True)
@click.pass_context
def show(ctx: click.Context, state: Path | None, session: str) -> None:
    """Print the current todo list of a session as a checklist.

    Reads the state file and changes nothing. Exit status: 0 shown, 2 the state file
    cannot be read, 141 stdout closed, 74 stdout cannot be written.
    """
    from ..tools.todos import checklist

    store = TodoStore(state or default_path())
    items = store.get(session)
    for note in store.notes:
        say_err(f"askcli: {visible(note)}\n")
    if store.problem is not None:
        ctx.exit(int(ExitStatus.INVALID))
    style = Style.for_stream(sys.stdout)
    shown = checklist(items, style, title=f"Todo list ({visible(session)})")
    click.echo(terminal_text(shown, colour=style.colour), nl=False)
