"""The ``askcli`` command line: options in, the core called, domain outcomes to exit codes.

This is the only module that imports click.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TextIO, cast

import click

from . import __version__, signals
from .conversation import Conversation
from .envelopes import Output
from .errors import UsageError
from .journal import default_dir as journal_default_dir
from .lines import FdLineReader
from .rendering import Style, escape_controls, terminal_text, visible
from .results import Status
from .session import run
from .todo_store import TodoStore, default_path

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a reader that went away
EXIT_MISMATCH = 1


def _text_stream(stream: TextIO, *, errors: str) -> TextIO:
    """``stream`` writing UTF-8 whatever the locale says: model text and answers are
    Unicode. The stream itself is set up, not wrapped, so that nothing closes it twice."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", errors=errors)
        return stream
    return io.TextIOWrapper(stream.buffer, encoding="utf-8", errors=errors, newline="\n")


def _open(path: str, what: str) -> FdLineReader:
    if path == "-":
        return FdLineReader(0)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from None
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"cannot read {what} {path}: it is a directory")
    return FdLineReader(fd)


class _Streams:
    """stdout, stderr and the readers for calls and answers of one command."""

    def __init__(self, source: str, answers: str) -> None:
        self.err = _text_stream(sys.stderr, errors="backslashreplace")
        self.out = _text_stream(sys.stdout, errors="strict")
        self.calls = _open(source, "calls from")
        shared = source == "-" and answers == "-"
        self.answers = self.calls if shared else _open(answers, "answers from")
        if shared and self.calls.interactive:
            self.say("askcli: paste the call (JSON) and then answer; Ctrl-D ends.\n")

    @property
    def shared(self) -> bool:
        return self.answers is self.calls

    def say(self, text: str) -> None:
        self.err.write(text)
        self.err.flush()

    def conversation(
        self,
        timeout: float | None = None,
        *,
        state: Path | None = None,
        session: str | None = None,
        journal: Path | None = None,
        journal_dir: Path | None = None,
    ) -> Conversation:
        return Conversation(
            reader=self.answers,
            out=self.err,
            style=Style.for_stream(sys.stderr),
            timeout=timeout,
            calls_follow=self.shared,
            todos=TodoStore(state or default_path()),
            session=session,
            journal_file=journal,
            journal_dir=journal_dir,
            quiet=_discarded(sys.stderr),
        )


def _discarded(stream: TextIO) -> bool:
    """The stream is ``/dev/null``: what is written there is never seen."""
    try:
        written, null = os.fstat(stream.fileno()), os.stat(os.devnull)
    except (OSError, ValueError, AttributeError):
        return False
    return (written.st_dev, written.st_ino) == (null.st_dev, null.st_ino)


def _usage_error(ctx: click.Context, exc: UsageError) -> None:
    # the message may quote a path or value from the command line: one line, escaped
    _say_err(f"askcli: {visible(str(exc))}\n")
    ctx.exit(int(Status.INVALID))


def _say_err(text: str) -> None:
    """Write to stderr through the terminal gate; a stderr that is gone is no error."""
    try:
        sys.stderr.write(terminal_text(text))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _GatedStderr(io.TextIOBase):
    """stderr for click's own messages, through the terminal gate."""

    def write(self, text: str) -> int:
        _say_err(text)
        return len(text)


def _guard_pipe(ctx: click.Context, work: Callable[[], int], *, every_sigint: bool = False) -> None:
    """Run ``work`` with askcli's signal handling and exit with its status; a closed
    stdout ends quietly."""
    signals.install(every_sigint=every_sigint)
    try:
        status = work()
    except BrokenPipeError:
        # stdout's reader went away: nobody is left to read a result
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        ctx.exit(EXIT_BROKEN_PIPE)
    if status == Status.INTERRUPTED:
        status = signals.exit_status(Status.INTERRUPTED)
    ctx.exit(status)


source_argument = click.argument("source", default="-", metavar="[SOURCE]")
answers_option = click.option(
    "--answers",
    "answers_path",
    default="-",
    metavar="FILE",
    help="Read the answer lines from FILE (e.g. /dev/tty) instead of stdin.",
)
state_option = click.option(
    "--state",
    type=click.Path(path_type=Path),
    help="TodoWrite state file, a regular file (/dev/null: keep no lists) "
    "[default: $XDG_STATE_HOME/askcli/todos.json].",
)
session_option = click.option(
    "--session",
    metavar="ID",
    help="The session whose todo list TodoWrite calls change [default: the call's own, "
    "else one per state file].",
)
output_option = click.option(
    "--output",
    "output",
    type=click.Choice([o.value for o in Output]),
    default=Output.RESULT.value,
    show_default=True,
    help="What stdout carries: the reply envelope, the answers as data, the Agent SDK "
    "permission decision, or the result text.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="askcli")
def cli() -> None:
    """The human side of an AI agent's AskUserQuestion tool, in plain lines.

    Calls (JSON) come from a file or stdin; menus and prompts go to stderr; answers are
    lines on stdin; each call's result is one JSON line on stdout.
    """


@cli.command()
@source_argument
@answers_option
@output_option
@state_option
@session_option
@click.option(
    "--journal",
    type=click.Path(path_type=Path),
    help="Keep every answer in FILE, a regular file, as it is given, to resume after an "
    "interruption (/dev/null: keep none) [default: a file per call under "
    "$XDG_STATE_HOME/askcli/journal/ when a person answers at a terminal].",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Give up on a person who types nothing for this long (exit 3).",
)
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
) -> None:
    """Ask the person the questions of each call in SOURCE (a file, or - for stdin).

    When SOURCE is stdin, each call's answer lines follow it in the same stream.

    \b
    Exit status: 0 answered, 1 declined, 2 invalid call or usage,
    3 no answer (input ended or --timeout), 130 interrupted.
    """
    try:
        streams = _Streams(source, answers_path)
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    conv = streams.conversation(
        timeout, state=state, session=session, journal=journal, journal_dir=journal_default_dir()
    )
    _guard_pipe(ctx, lambda: int(run(streams.calls, conv, streams.out, output=Output(output))))


class _Tee(io.StringIO):
    """Keeps what is written and passes it on to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text)
        return super().write(text)

    def flush(self) -> None:
        self.stream.flush()


@cli.command()
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
@click.option("--description", default="", help="What the session shows.")
@click.option(
    "--columns",
    type=click.IntRange(min=20),
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
    description: str,
    columns: int,
) -> None:
    """Run a live session on SOURCE and save it as a fixture for `askcli replay`.

    The fixture keeps the calls, the answer lines typed, and what askcli printed; its
    transcript is written without colour at --columns, with the answers echoed. TodoWrite
    calls start from an empty state, as a replay does.
    """
    import tempfile

    from . import fixtures
    from .documents import Document

    try:
        streams = _Streams(source, answers_path)
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    mode = Output(output)
    typed = bytearray()
    calls: list[Any] = []

    def keep(document: Document) -> None:
        calls.append(document.value if document.value is not None else document.text)

    if streams.shared:
        streams.calls.transcript = typed
    else:
        streams.answers.transcript = typed
    out = _Tee(streams.out)

    def work() -> int:
        with tempfile.TemporaryDirectory(prefix="askcli-record-") as scratch:
            status = run(
                streams.calls,
                streams.conversation(state=Path(scratch) / "todos.json", session=session),
                out,
                output=mode,
                on_document=None if streams.shared else keep,
            )
        if status is Status.INTERRUPTED:
            streams.say("askcli: interrupted; no fixture written\n")
            return int(status)
        lines = fixtures.typed_lines(typed)
        shape: dict[str, Any] = (
            {"stdin": lines} if streams.shared else {"calls": calls, "answers": lines}
        )
        fixture = fixtures.make(
            **shape, description=description, columns=columns, output=mode, session=session
        )
        if fixture["stdout"] != out.getvalue().splitlines() or fixture["status"] != status:
            streams.say("askcli: warning: replaying this session does not give what it printed\n")
        fixture_path.parent.mkdir(parents=True, exist_ok=True)
        fixture_path.write_text(fixtures.dumps(fixture), encoding="utf-8")
        streams.say(f"askcli: recorded {fixture_path}\n")
        return int(status)

    _guard_pipe(ctx, work)


def _fixture_files(paths: tuple[Path, ...]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    return found


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_context
def replay(ctx: click.Context, paths: tuple[Path, ...]) -> None:
    """Re-run recorded fixtures (files, or folders of *.json) without a person.

    Prints `ok` or a unified diff per fixture. Exit status: 0 when all match, 1 when any
    differs, 2 when a fixture cannot be read.
    """
    from . import fixtures

    files = _fixture_files(paths)
    if not files:
        click.echo("askcli: no fixtures found", err=True)
        ctx.exit(int(Status.INVALID))
    status = 0
    for path in files:
        try:
            expected, actual = fixtures.replay(fixtures.load(path))
        except ValueError as exc:
            click.echo(f"error   {escape_controls(str(exc))}")
            status = int(Status.INVALID)
            continue
        if expected == actual:
            click.echo(f"ok      {path}")
            continue
        click.echo(f"differs {path}")
        for line in fixtures.diff(expected, actual, str(path)):
            click.echo(escape_controls(line))
        status = status or EXIT_MISMATCH
    ctx.exit(status)


@cli.command()
@source_argument
@click.option("--strict", is_flag=True, help="Also warn about the seed's soft rules.")
@click.pass_context
def check(ctx: click.Context, source: str, strict: bool) -> None:
    """Validate the calls in SOURCE without asking anything.

    Prints ok/invalid (with the reasons) per call; exit status 0 when every call is
    valid, 2 when any is invalid or there is none. --strict also reports the seed's hints
    as warnings: header over 12 characters, question without ?, label over 5 words, an
    Other option, (Recommended) not first, a preview on a multiSelect question.
    """
    from .check import check as check_source

    try:
        reader = _open(source, "calls from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    _guard_pipe(ctx, lambda: int(check_source(reader, click.echo, strict=strict)))


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["anthropic", "openai", "json-schema"]),
    default="anthropic",
    show_default=True,
    help="anthropic: a Messages API tool; openai: a Chat Completions function tool; "
    "json-schema: the input schema alone.",
)
def schema(fmt: str) -> None:
    """Print the AskUserQuestion tool definition for an LLM API's `tools` list."""
    import json

    from .definitions import tool_definition

    click.echo(json.dumps(tool_definition(fmt), indent=2, ensure_ascii=False))


class _ClaudeCommand(click.Command):
    """``askcli claude``: the words after the first ``--`` go to Claude Code as they are;
    before it, every word is askcli's (an option, or the prompt's text)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta["askcli.claude_args"] = args[cut + 1 :]
            args = args[:cut]
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            raise click.UsageError(
                f"no such option: {exc.option_name}. Claude Code's own options go after --, "
                f"as in `askcli claude [PROMPT] -- {exc.option_name}`; a prompt that begins "
                "with - is given as --prompt=TEXT",
                ctx,
            ) from None


@cli.command(cls=_ClaudeCommand)
@click.argument("words", nargs=-1, metavar="[PROMPT] [-- CLAUDE ARGS]")
@click.option(
    "--prompt",
    "prompt_option",
    metavar="TEXT",
    help="The prompt, when it begins with - (else give it as PROMPT).",
)
@click.option("--claude-bin", metavar="PATH", help="The Claude Code executable [default: claude].")
@click.option("--allow", multiple=True, metavar="TOOL", help="Allow TOOL without asking.")
@click.option("--deny", multiple=True, metavar="TOOL", help="Deny TOOL without asking.")
@answers_option
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the session as a fixture for `askcli replay`.",
)
@click.pass_context
def claude(
    ctx: click.Context,
    words: tuple[str, ...],
    prompt_option: str | None,
    claude_bin: str | None,
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    answers_path: str,
    record_path: Path | None,
) -> None:
    """Host Claude Code in plain lines: its questions and permission requests are asked
    here, its answers shown, each turn's result printed on stdout.

    With PROMPT (its words are joined by spaces), one turn; without, prompts are read at
    `> ` until the input ends. The prompt goes to Claude Code as a message, never as an
    argument. Arguments after `--` go to Claude Code. Ctrl-C interrupts a turn; a second
    Ctrl-C, or Ctrl-D at `> `, ends the session.

    \b
    Exit status: 0 done, 1 Claude Code failed or a turn ended in error, 2 usage,
    3 no answer (the input ended at a question), 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP,
    141 stdout closed, 74 stdout cannot be written.
    """
    from . import claude as hosting

    if prompt_option is not None and words:
        _usage_error(ctx, UsageError("give the prompt either as PROMPT or with --prompt"))
        return
    prompt = prompt_option if prompt_option is not None else " ".join(words) if words else None
    try:
        command = [hosting.find_claude(claude_bin), *hosting.FLAGS]
        command += ctx.meta.get("askcli.claude_args", [])
        reader = _open(answers_path, "answers from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    err = _text_stream(sys.stderr, errors="backslashreplace")
    out = _text_stream(sys.stdout, errors="strict")
    conv = Conversation(reader, err, Style.for_stream(sys.stderr))
    typed = bytearray()
    reader.transcript = typed
    link: hosting.Link = hosting.ChildClaude(command, on_stderr=hosting.show_stderr(conv))
    recorder = hosting.Recorder(link) if record_path is not None else None

    def work() -> int:
        # host() ends Claude Code on every way out
        status = hosting.host(recorder or link, conv, out, prompt=prompt, allow=allow, deny=deny)
        if status in (hosting.EXIT_STDOUT_GONE, hosting.EXIT_OUTPUT_FAILED):
            devnull = os.open(os.devnull, os.O_WRONLY)  # the flush at exit cannot fail again
            os.dup2(devnull, 1)
            os.close(devnull)
        if recorder is not None and record_path is not None:
            from . import fixtures

            fixture = fixtures.make_claude(
                prompt=prompt,
                allow=list(allow),
                deny=list(deny),
                received=recorder.received,
                answers=fixtures.typed_lines(typed),
                exit_status=recorder.exit_status,
            )
            if fixture["claude"]["sent"] != recorder.sent or fixture["status"] != status:
                conv.say("askcli: warning: replaying this session does not give what it did\n")
            record_path.parent.mkdir(parents=True, exist_ok=True)
            record_path.write_text(fixtures.dumps(fixture), encoding="utf-8")
            conv.say(f"askcli: recorded {record_path}\n")
        return status

    _guard_pipe(ctx, work, every_sigint=True)


@cli.group()
def todo() -> None:
    """The TodoWrite lists askcli keeps."""


@todo.command()
@state_option
@click.option("--session", metavar="ID", default="default", show_default=True)
@click.pass_context
def show(ctx: click.Context, state: Path | None, session: str) -> None:
    """Print the current todo list of a session as a checklist.

    Reads the state file and changes nothing. Exit status 2 when it cannot be read.
    """
    from .todos import checklist

    store = TodoStore(state or default_path())
    items = store.get(session)
    for note in store.notes:
        click.echo(f"askcli: {visible(note)}", err=True)
    if store.problem is not None:
        ctx.exit(int(Status.INVALID))
    style = Style.for_stream(sys.stdout)
    click.echo(checklist(items, style, title=f"Todo list ({visible(session)})"), nl=False)


def main() -> None:
    try:
        status = cli.main(prog_name="askcli", standalone_mode=False)
    except click.ClickException as exc:  # click's usage errors quote what was typed
        exc.show(file=cast(IO[Any], _GatedStderr()))
        status = exc.exit_code
    except click.Abort:
        status = int(Status.INTERRUPTED)
    except KeyboardInterrupt:
        status = int(Status.INTERRUPTED)
    sys.exit(status if isinstance(status, int) else 0)
