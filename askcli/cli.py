"""The ``askcli`` command line: options in, the core called, domain outcomes to exit codes.

This is the only module that imports click.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

import click

from . import __version__
from .errors import BadFixture, InboxError, UsageError
from .escaping import visible
from .runners.session import run
from .runners.streams import (
    CLOSED_AT_START,
    NOTIFY_MODES,
    GatedStderr,
    Stdout,
    Streams,
    Tee,
    guarded,
    inbox_conversation,
    notice_for,
    open_reader,
    printer,
    quiet_stdout,
    reopen_closed_fds,
    say_err,
    text_stream,
)
from .schema.names import WORDING_2_1_88, canonical_wording
from .status import ExitStatus
from .terminal.conversation import Conversation
from .terminal.rendering import MAX_CELLS, Style, terminal_text
from .tools.journal import default_dir as journal_default_dir
from .tools.todo_store import TodoStore, default_path
from .wire.envelopes import Output

if TYPE_CHECKING:
    pass

_OUTPUT_ERRORS = (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)
MAX_TIMEOUT = 7 * 24 * 3600.0  # one week


class _Seconds(click.ParamType[float]):
    """A finite number of seconds, more than 0 (or 0 itself, with ``zero``) and at most
    :data:`MAX_TIMEOUT`."""

    name = "seconds"

    def __init__(self, *, zero: bool = False) -> None:
        self.zero = zero

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        least_ok = seconds > 0 or (self.zero and seconds == 0)
        if not (math.isfinite(seconds) and least_ok and seconds <= MAX_TIMEOUT):
            least = "from 0 to" if self.zero else "above 0 and at most"
            self.fail(
                f"{value!r} is out of range: give a number of seconds {least} "
                f"{MAX_TIMEOUT:.0f} (one week)",
                param,
                ctx,
            )
        return seconds


def _usage_error(ctx: click.Context, exc: UsageError) -> None:
    # the message may quote a path or value from the command line: one line, escaped
    say_err(f"askcli: {visible(str(exc))}\n")
    ctx.exit(int(ExitStatus.INVALID))


def _guard_pipe(ctx: click.Context, work: Callable[[], int], *, every_sigint: bool = False) -> None:
    """Run ``work`` with askcli's signal handling and exit with its status; a closed
    stdout ends quietly."""
    ctx.exit(guarded(work, every_sigint=every_sigint))


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
    metavar="FILE",
    help="TodoWrite state file, a regular file (/dev/null: keep no lists) "
    "[default: $XDG_STATE_HOME/askcli/todos.json].",
)
session_option = click.option(
    "--session",
    metavar="ID",
    help="The session whose todo list TodoWrite calls change [default: the call's own, "
    "else one per state file].",
)
notify_option = click.option(
    "--notify",
    type=click.Choice(NOTIFY_MODES, case_sensitive=False),
    help="Call the person when a question starts waiting at a terminal, once per call: "
    "the bell, a terminal notification (osc9, osc777), what the terminal shows (auto), or "
    "nothing [default: $ASKCLI_NOTIFY, else auto].",
)
SCHEMA_FORMATS = (  # askcli.wire.definitions: FORMATS + DIALECT_FORMATS, unimported
    *("anthropic", "openai", "json-schema"),
    *("claude-code", "claude-code-extended", "opencode", "codex", "gemini", "elicitation"),
)
# --wording: Claude Code 2.1.88's texts (askcli.wire.results; "seed" inside askcli and in
# fixtures, and still accepted) or the current release's (askcli.wire.wording)
WORDINGS = (WORDING_2_1_88, "claude-code")


class _Wording(click.Choice):  # type: ignore[type-arg]
    """:data:`WORDINGS`, also ``seed`` (2.1.88's old name); the value is ``seed`` for 2.1.88."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        name = super().convert(WORDING_2_1_88 if value == "seed" else value, param, ctx)
        return canonical_wording(name)


wording_option = click.option(
    "--wording",
    type=_Wording(WORDINGS),
    envvar="ASKCLI_WORDING",
    default=WORDING_2_1_88,
    help="The texts of AskUserQuestion's results: Claude Code 2.1.88's (the name seed is "
    "accepted too) or the current Claude Code release's (see docs/dialects.md) "
    "[default: $ASKCLI_WORDING, else claude-code-2.1.88].",
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
    metavar="FILE",
    help="Keep every answer in FILE, a regular file, as it is given, to resume after an "
    "interruption (/dev/null: keep none) [default: a file per call under "
    "$XDG_STATE_HOME/askcli/journal/ when a person answers at a terminal].",
)
@click.option(
    "--timeout",
    type=_Seconds(),
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
    wording: str,
    inbox: bool,
) -> None:
    """Ask the person the questions of each call in SOURCE (a file, or - for stdin).

    When SOURCE is stdin, each call's answer lines follow it in the same stream.

    \b
    Exit status: 0 answered, 1 declined, 2 invalid call or usage,
    3 no answer (input ended or --timeout), 130 Ctrl-C (the person declined),
    129 SIGHUP (the terminal hung up) and 143 SIGTERM (askcli was stopped): no answer,
    141 stdout closed, 74 stdout cannot be written.
    """
    try:
        streams = Streams(source, answers_path)
    except UsageError as exc:
        _usage_error(ctx, exc)
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
    answer = None
    if inbox:
        from .inbox.asking import ask_answerer

        answer = ask_answerer(timeout)
    _guard_pipe(
        ctx,
        lambda: int(
            run(streams.calls, conv, streams.out, output=Output(output), name=name, answer=answer)
        ),
    )


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
    wording: str,
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
    from .runners.fixture_files import save_fixture, writable_fixture
    from .wire.documents import Document

    try:
        writable_fixture(fixture_path)
        streams = Streams(source, answers_path)
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
    out = Tee(streams.out)

    def work() -> int:
        with tempfile.TemporaryDirectory(prefix="askcli-record-") as scratch:
            status = run(
                streams.calls,
                streams.conversation(
                    state=Path(scratch) / "todos.json", session=session, wording=wording
                ),
                out,
                output=mode,
                on_document=None if streams.shared else keep,
            )
        if status is ExitStatus.INTERRUPTED:
            streams.say("askcli: interrupted; no fixture written\n")
            return int(status)
        lines = fixtures.typed_lines(typed)
        shape: dict[str, Any] = (
            {"stdin": lines} if streams.shared else {"calls": calls, "answers": lines}
        )
        fixture = fixtures.make(
            **shape,
            description=description,
            columns=columns,
            output=mode,
            session=session,
            wording=wording,
        )
        if fixture["stdout"] != out.getvalue().splitlines() or fixture["status"] != status:
            streams.say("askcli: warning: replaying this session does not give what it printed\n")
        if not save_fixture(fixture_path, fixture, streams.say):
            return ExitStatus.OUTPUT_FAILED
        return int(status)

    _guard_pipe(ctx, work)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_context
def replay(ctx: click.Context, paths: tuple[Path, ...]) -> None:
    """Re-run recorded fixtures (files, or folders of *.json) without a person.

    Prints `ok` or a unified diff per fixture. Exit status: 0 when all match, 1 when any
    differs, 2 when a fixture cannot be read, 141 stdout closed, 74 stdout cannot be written.
    """
    from . import fixtures
    from .runners.fixture_files import fixture_files

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

    _guard_pipe(ctx, work)


@cli.command()
@source_argument
@click.option("--strict", is_flag=True, help="Also warn about Claude Code's soft rules.")
@click.pass_context
def check(ctx: click.Context, source: str, strict: bool) -> None:
    """Validate the calls in SOURCE without asking anything.

    Prints ok/invalid (with the reasons) per call. --strict also reports Claude Code's
    hints as warnings: header over 12 characters, question without ?, label over 5 words, an
    Other option, (Recommended) not first, a preview on a multiSelect question.

    Exit status: 0 every call valid, 2 any invalid or none, 141 stdout closed, 74 stdout
    cannot be written.
    """
    from .runners.check import check as check_source

    try:
        reader = open_reader(source, "calls from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    _guard_pipe(ctx, lambda: int(check_source(reader, printer(), strict=strict)))


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(SCHEMA_FORMATS),
    default="anthropic",
    show_default=True,
    help="anthropic: a Messages API tool; openai: a Chat Completions function tool; "
    "json-schema: the input schema alone; claude-code: AskUserQuestion as the current Claude "
    "Code release defines it (-extended: with text and number questions); opencode, codex, "
    "gemini: that agent's own question tool; "
    "elicitation: the MCP elicitation/create params askcli answers.",
)
@click.pass_context
def schema(ctx: click.Context, fmt: str) -> None:
    """Print a question tool's definition for an LLM API's `tools` list."""
    import json

    from .wire.definitions import tool_definition

    def work() -> int:
        printer()(json.dumps(tool_definition(fmt), indent=2, ensure_ascii=False))
        return 0

    _guard_pipe(ctx, work)


class _HostCommand(click.Command):
    """A host's command: the words after the first ``--`` are the hosted program's, kept as
    they are in ``ctx.meta[META]``; before it, every word is askcli's (an option, or the
    prompt's text). An option askcli does not know is a usage error saying ``WHERE``."""

    META = ""
    WHERE = ""  # where the option belongs, with {option}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[self.META] = args[cut + 1 :]
            args = args[:cut]
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            where = self.WHERE.format(option=exc.option_name)
            raise click.UsageError(
                f"no such option: {exc.option_name}. {where}; a prompt that begins with - is "
                "given as --prompt=TEXT",
                ctx,
            ) from None


class _ClaudeCommand(_HostCommand):
    META = "askcli.claude_args"
    WHERE = "Claude Code's own options go after --, as in `askcli claude [PROMPT] -- {option}`"


class _AcpCommand(_HostCommand):
    META = "askcli.agent"
    WHERE = "The agent's command line goes after --, as in `askcli acp [PROMPT] -- gemini --acp`"


prompt_option = click.option(
    "--prompt",
    "prompt_option",
    metavar="TEXT",
    help="The prompt, when it begins with - (else give it as PROMPT).",
)
record_option = click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the session as a fixture for `askcli replay`.",
)


def _prompt(words: tuple[str, ...], given: str | None) -> str | None:
    """The prompt of a host's command: ``--prompt``, or the words joined; UsageError for
    both."""
    if given is not None and words:
        raise UsageError("give the prompt either as PROMPT or with --prompt")
    return given if given is not None else " ".join(words) if words else None


@cli.command(cls=_ClaudeCommand)
@click.argument("words", nargs=-1, metavar="[PROMPT]... [-- CLAUDE ARGS]")
@prompt_option
@click.option("--claude-bin", metavar="PATH", help="The Claude Code executable [default: claude].")
@click.option(
    "--allow",
    multiple=True,
    metavar="TOOL",
    help="Allow TOOL without asking (a request Claude Code marks default_to_no is still asked).",
)
@click.option("--deny", multiple=True, metavar="TOOL", help="Deny TOOL without asking.")
@answers_option
@notify_option
@wording_option
@record_option
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
    notify: str | None,
    wording: str,
) -> None:
    """Host Claude Code in plain lines: its questions and permission requests are asked
    here, its answers shown, each turn's result printed on stdout.

    With PROMPT (its words are joined by spaces), one turn; without, prompts are read at
    `> ` until the input ends. The prompt goes to Claude Code as a message, never as an
    argument. Arguments after `--` go to Claude Code. Ctrl-C interrupts a turn; a second
    Ctrl-C, or Ctrl-D at `> `, ends the session.

    \b
    Exit status: 0 done, 1 Claude Code failed or a turn ended in error, 2 usage,
    3 no answer (the input ended at a question), 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
    (an open question is denied with the no-answer text first),
    141 stdout closed, 74 stdout cannot be written.
    """
    from .hosts import child
    from .hosts import claude as hosting
    from .runners.fixture_files import save_session, writable_fixture

    try:
        prompt = _prompt(words, prompt_option)
        command = [hosting.find_claude(claude_bin), *hosting.FLAGS]
        command += ctx.meta.get("askcli.claude_args", [])
        if record_path is not None:
            writable_fixture(record_path)
        reader = open_reader(answers_path, "answers from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = text_stream(sys.stdout, errors="strict")
    notice = notice_for(notify or "", reader, say_err)
    conv = Conversation(reader, err, Style.for_stream(sys.stderr), notice=notice, wording=wording)
    typed = bytearray()
    reader.transcript = typed
    link: hosting.Link = hosting.ChildClaude(command, on_stderr=child.show_stderr(conv))
    recorder = hosting.ClaudeRecorder(link) if record_path is not None else None

    def work() -> int:
        # host() ends Claude Code on every way out
        status = hosting.host(recorder or link, conv, out, prompt=prompt, allow=allow, deny=deny)
        if status in (ExitStatus.STDOUT_GONE, ExitStatus.OUTPUT_FAILED):
            quiet_stdout()
        if recorder is not None and record_path is not None:
            from . import fixtures

            fixture = fixtures.make_claude(
                prompt=prompt,
                allow=list(allow),
                deny=list(deny),
                received=recorder.received,
                answers=fixtures.typed_lines(typed),
                exit_status=recorder.exit_status,
                wording=wording,
            )
            if not save_session(record_path, fixture, recorder.sent, status, conv.say):
                return ExitStatus.OUTPUT_FAILED
        return status

    _guard_pipe(ctx, work, every_sigint=True)


@cli.command(cls=_AcpCommand)
@click.argument("words", nargs=-1, metavar="[PROMPT]... -- AGENT [ARGS]...")
@prompt_option
@answers_option
@notify_option
@record_option
@click.option(
    "--inbox",
    "inbox",
    is_flag=True,
    help="Queue the agent's permission requests and forms for `askcli inbox` (where a "
    "person answers every agent) instead of asking here; Ctrl-C withdraws the one waiting "
    "[inbox file: $ASKCLI_INBOX, else $XDG_STATE_HOME/askcli/inbox.db].",
)
@click.option(
    "--timeout",
    type=_Seconds(),
    metavar="SECONDS",
    help="Answer a permission request or form nobody answers within SECONDS (here or in "
    "the inbox) cancelled, never allowed, and end the session (exit 3).",
)
@click.option(
    "--fs",
    "fs",
    is_flag=True,
    help="Offer the agent askcli's file system: it reads and writes text files under this "
    "folder through askcli (fs/read_text_file, fs/write_text_file), each shown in a line.",
)
@click.option(
    "--terminal",
    "terminal",
    is_flag=True,
    help="Offer the agent askcli's terminals: commands it runs through askcli "
    "(terminal/create) are shown with their output and exit status.",
)
@click.option(
    "--thoughts",
    "thoughts",
    is_flag=True,
    help="Show the agent's thoughts (agent_thought_chunk) as `Thinking: ...` lines.",
)
@click.option(
    "--mode",
    "mode",
    metavar="ID",
    help="Start the session in the agent's mode ID (session/set_mode), such as Gemini CLI's "
    "`plan` or claude-agent-acp's `acceptEdits`; an ID the agent does not offer lists its modes.",
)
@click.pass_context
def acp(
    ctx: click.Context,
    words: tuple[str, ...],
    prompt_option: str | None,
    answers_path: str,
    notify: str | None,
    record_path: Path | None,
    inbox: bool,
    timeout: float | None,
    fs: bool,
    terminal: bool,
    thoughts: bool,
    mode: str | None,
) -> None:
    """Host any Agent Client Protocol agent in plain lines: its permission requests and
    forms are asked here, its messages shown, each turn's final text printed on stdout.

    The agent's command line comes after `--` (`askcli acp -- gemini --acp`); with no
    `--`, the words are the agent's command and the prompt is given with --prompt. With a
    prompt, one turn; without, prompts are read at `> ` until the input ends. Ctrl-C
    cancels a turn (session/cancel); a second Ctrl-C, or Ctrl-D at `> `, ends the session.

    \b
    Exit status: 0 done, 1 the agent failed or a turn ended early (max_tokens, refusal),
    2 usage (a --mode the agent does not offer too) or an inbox file that cannot be used,
    3 no answer (the input ended at a question, or --timeout; it is answered cancelled),
    130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 141 stdout closed, 74 stdout cannot be written.
    """
    from .hosts import acp as hosting
    from .hosts import child
    from .runners.fixture_files import save_session, writable_fixture

    agent = ctx.meta.get("askcli.agent")
    if agent is None:
        agent, words = list(words), ()
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = text_stream(sys.stdout, errors="strict")
    try:
        prompt = _prompt(words, prompt_option)
        if not agent:
            raise UsageError(
                "no agent: give its command line after --, as in `askcli acp -- gemini --acp`"
            )
        if record_path is not None and inbox:
            raise UsageError(
                "--record keeps the answers typed here: it cannot be used with --inbox"
            )
        if record_path is not None:
            writable_fixture(record_path)
        reader = open_reader(answers_path, "answers from")
        notice = notice_for(notify or "", reader, say_err)
        conv = Conversation(
            reader, err, Style.for_stream(sys.stderr), notice=notice, timeout=timeout
        )
        capabilities = hosting.capabilities(fs=fs, terminal=terminal)
        asker = None
        if inbox:
            from .inbox.asking import acp_asker

            asker = acp_asker(conv, timeout)
        shown = hosting.show_stderr(conv)
        recorder = hosting.AcpRecorder() if record_path is not None else None
        link = hosting.AgentLink(
            agent,
            on_stderr=recorder.stderr(shown) if recorder is not None else shown,
            fs=fs,
            terminal=terminal,
        )
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    except InboxError as exc:  # the inbox file cannot be used: said in one line
        say_err(f"askcli: {visible(str(exc))}\n")
        ctx.exit(int(ExitStatus.INVALID))
    typed = bytearray()
    reader.transcript = typed
    cwd = os.getcwd()
    one_terminal = child.same_terminal(out, err)

    def work() -> int:
        # host() ends the agent on every way out
        status = hosting.host(
            recorder.attach(link) if recorder is not None else link,
            conv,
            out,
            prompt=prompt,
            capabilities=capabilities,
            one_terminal=one_terminal,
            cwd=cwd,
            inbox=asker,
            thoughts=thoughts,
            mode=mode,
        )
        if status in (ExitStatus.STDOUT_GONE, ExitStatus.OUTPUT_FAILED):
            quiet_stdout()
        if recorder is not None and record_path is not None:
            from . import fixtures

            fixture = fixtures.make_acp(
                prompt=prompt,
                received=recorder.received,
                answers=fixtures.typed_lines(typed),
                cwd=cwd,
                fs=fs,
                terminal=terminal,
                thoughts=thoughts,
                mode=mode,
                exit_status=recorder.exit_status,
                one_terminal=one_terminal,
            )
            if not save_session(record_path, fixture, recorder.sent, status, conv.say):
                return ExitStatus.OUTPUT_FAILED
        return status

    _guard_pipe(ctx, work, every_sigint=True)


@cli.command()
@click.option(
    "--wait",
    type=_Seconds(),
    default=50.0,
    show_default=True,
    metavar="SECONDS",
    help="Answer a call still unanswered after SECONDS with a ticket for get_answer; keep it "
    "under the client's tool timeout (Codex: tool_timeout_sec, 60 by default; Claude Code: "
    "MCP_TOOL_TIMEOUT).",
)
@click.option(
    "--progress-every",
    "every",
    type=_Seconds(),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Send a progress notification this often while a call waits.",
)
@click.option(
    "--http",
    metavar="HOST:PORT",
    help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to "
    "127.0.0.1; meant to be reached through an SSH tunnel).",
)
@click.option(
    "--token",
    envvar="ASKCLI_MCP_TOKEN",
    metavar="TOKEN",
    help="With --http, the bearer token clients must send: 16 or more visible ASCII "
    "characters [env: ASKCLI_MCP_TOKEN; default: a new one, printed on stderr].",
)
@click.option(
    "--session",
    metavar="ID",
    help="The agent's session in the inbox (the todo list its todo_write calls change) "
    "[default: the working folder; none with --http].",
)
@click.option(
    "--reuse-for",
    type=_Seconds(zero=True),
    default=600.0,
    show_default=True,
    metavar="SECONDS",
    help="An answer the client has not collected goes to the identical call asked again in "
    "the same conversation for SECONDS after it was given (0: never); never to another "
    "conversation.",
)
@click.pass_context
def mcp(
    ctx: click.Context,
    wait: float,
    every: float,
    http: str | None,
    token: str | None,
    session: str | None,
    reuse_for: float,
) -> None:
    """An MCP server (stdio) whose tools ask_user_questions, todo_write and get_answer are
    answered by a person in `askcli inbox` [inbox file: $ASKCLI_INBOX, else
    $XDG_STATE_HOME/askcli/inbox.db]. Needs the MCP SDK: pip install 'askcli[mcp]'.

    \b
    Exit status: 0 the client closed the connection, 2 usage, no SDK or the port cannot
    be used, 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP.
    """
    from .hosts import mcp as host

    given = ctx.get_parameter_source("token") is click.core.ParameterSource.COMMANDLINE
    if given and http is None:
        _usage_error(ctx, UsageError("--token is for --http"))
        return
    try:
        status = host.run(
            wait=wait,
            every=every,
            http=http,
            token=token,
            session=session,
            say=host.stderr_say,
            reuse_for=reuse_for,
            token_from="--token" if given else "$ASKCLI_MCP_TOKEN",
        )
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    except InboxError as exc:
        say_err(f"askcli: {visible(str(exc))}\n")
        status = int(ExitStatus.INVALID)
    ctx.exit(status)


@cli.group(invoke_without_command=True)
@answers_option
@notify_option
@click.option(
    "--notify-command",
    metavar="CMD",
    help="Run CMD (with /bin/sh) when a question arrives, with a JSON description of it on "
    "its stdin (id, agent, kind: question, permission or todo, question texts); at most 10 "
    "seconds, never waited for.",
)
@click.option(
    "--journal",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Keep every answer in FILE as it is given, so that a question left half-answered "
    "resumes in the next inbox [default: a file per call under $XDG_STATE_HOME/askcli/"
    "journal/ when a person answers at a terminal].",
)
@wording_option
@click.pass_context
def inbox(
    ctx: click.Context,
    answers_path: str,
    notify: str | None,
    notify_command: str | None,
    journal: Path | None,
    wording: str,
) -> None:
    """Answer every agent's queued questions here, one after another [inbox file:
    $ASKCLI_INBOX, else $XDG_STATE_HOME/askcli/inbox.db].

    Each waiting question is shown in one line; Enter asks it (the screens and answers
    of `askcli ask`), a number shows another one, l lists, q declines it, ? helps. When
    nothing waits, the inbox waits and says each arrival.

    \b
    Exit status: 0 left (Ctrl-D at the inbox prompt, or the end of the input),
    2 usage or the inbox file cannot be used, 3 the input ended in a question,
    130 Ctrl-C, 143 SIGTERM, 129 SIGHUP; the question held then waits again.
    """
    if ctx.invoked_subcommand is not None:
        return
    from .inbox.person import Inbox
    from .inbox.store import Store

    try:
        reader = open_reader(answers_path, "answers from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    err = text_stream(sys.stderr, errors="backslashreplace")
    conv = inbox_conversation(reader, err, journal, wording)
    notice = notice_for(notify or "", reader, say_err)
    session = Inbox(Store(), conv, notice=notice, command=notify_command)
    _guard_pipe(ctx, session.run)


@inbox.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option("--all", "every", is_flag=True, help="Answered and withdrawn questions too.")
@click.pass_context
def inbox_list(ctx: click.Context, as_json: bool, every: bool) -> None:
    """List the questions waiting and being answered, oldest first (the questions of
    askers that died are withdrawn first).

    With --json, one object per line: id, status, agent (client, session, cwd),
    arrived (seconds since the epoch), kind (question, permission or todo), question (the
    first one's text) and questions.

    Exit status: 0 listed, 2 the inbox file cannot be used, 141 stdout closed, 74 stdout
    cannot be written.
    """
    from .inbox.person import list_questions
    from .inbox.store import Store
    from .terminal.rendering import terminal_width

    width = terminal_width(sys.stdout)
    _guard_pipe(
        ctx,
        lambda: list_questions(Store(), printer(), as_json=as_json, every=every, width=width),
    )


@inbox.command("answer")
@click.argument("question_id", metavar="ID", type=click.IntRange(min=1))
@answers_option
@output_option
@click.option(
    "--journal",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Keep every answer in FILE as it is given (as for `askcli ask`).",
)
@wording_option
@click.pass_context
def inbox_answer(
    ctx: click.Context,
    question_id: int,
    answers_path: str,
    output: str,
    journal: Path | None,
    wording: str,
) -> None:
    """Answer queued question ID (see `askcli inbox list`) with the answer lines on stdin;
    print its result on stdout, as `askcli ask` does.

    \b
    Exit status: as for `askcli ask` (0 answered, 1 declined, 3 the answers ended,
    130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: then nothing is printed and the question waits
    again), and 2 when question ID is not waiting (answered, being answered elsewhere,
    withdrawn: its asker gave up or died) or its asker withdrew it meanwhile.
    """
    from .inbox.person import answer_by_id
    from .inbox.store import Store

    try:
        reader = open_reader(answers_path, "answers from")
    except UsageError as exc:
        _usage_error(ctx, exc)
        return
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = cast(TextIO, Stdout(text_stream(sys.stdout, errors="strict")))
    conv = inbox_conversation(reader, err, journal, wording)
    _guard_pipe(ctx, lambda: answer_by_id(Store(), question_id, conv, out, output=Output(output)))


@cli.group()
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
    from .tools.todos import checklist

    store = TodoStore(state or default_path())
    items = store.get(session)
    for note in store.notes:
        say_err(f"askcli: {visible(note)}\n")
    if store.problem is not None:
        ctx.exit(int(ExitStatus.INVALID))
    style = Style.for_stream(sys.stdout)
    shown = checklist(items, style, title=f"Todo list ({visible(session)})")
    click.echo(terminal_text(shown, colour=style.colour), nl=False)


@cli.command()
@click.option(
    "--here",
    is_flag=True,
    help="Ask at the terminal (/dev/tty, else Claude Code's own terminal) instead of "
    "queueing the call for `askcli inbox`; for claude -p at a terminal.",
)
@click.option(
    "--timeout",
    type=_Seconds(),
    metavar="SECONDS",
    help="Give up after this long and deny, telling the model nobody answered [default: "
    "wait until Claude Code ends the hook, after the hook's own timeout].",
)
@click.pass_context
def hook(ctx: click.Context, here: bool, timeout: float | None) -> None:
    """A Claude Code hook: answers PreToolUse for AskUserQuestion and PermissionRequest
    for any tool through the inbox (or --here), in Claude Code's hook protocol.

    Reads the hook input (JSON) on stdin and prints the decision (JSON) on stdout. Other
    events and tools get no output: Claude Code goes on as without the hook.

    \b
    Exit status: 0 a decision printed, or none to give; 1 the hook cannot work (its
    input, the inbox file, no terminal for --here; one line on stderr): Claude Code goes
    on without it; 143 SIGTERM, 129 SIGHUP, 141 Claude Code went away (stdout closed):
    the question is withdrawn, no decision; 74 stdout cannot be written.
    """
    from .hosts import hook as hooks

    ctx.exit(hooks.main(here=here, timeout=timeout))


# click 8.2+ raises this (a UsageError holding the whole help) for a group run without arguments
_NO_ARGS_IS_HELP: tuple[type[click.UsageError], ...] = (
    (click.exceptions.NoArgsIsHelpError,) if hasattr(click.exceptions, "NoArgsIsHelpError") else ()
)


def main() -> None:
    CLOSED_AT_START.update(reopen_closed_fds())
    if 1 in CLOSED_AT_START:
        say_err("askcli: stdout is closed: nobody is left to read a result\n")
        sys.exit(ExitStatus.STDOUT_GONE)
    try:
        status = cli.main(prog_name="askcli", standalone_mode=False)
    except _NO_ARGS_IS_HELP as exc:  # bare `askcli` or `askcli todo`: the usage, as lines
        say_err(visible(exc.format_message(), multiline=True) + "\n")
        status = exc.exit_code
    except click.UsageError as exc:  # one line: what is wrong, and where to read more
        where = exc.ctx.command_path if exc.ctx is not None else "askcli"
        say_err(f"{where}: {visible(exc.format_message())} (see '{where} --help')\n")
        status = exc.exit_code
    except click.ClickException as exc:  # click's usage errors quote what was typed
        exc.show(file=cast(IO[Any], GatedStderr()))
        status = exc.exit_code
    except click.Abort:
        status = int(ExitStatus.INTERRUPTED)
    except KeyboardInterrupt:
        status = int(ExitStatus.INTERRUPTED)
    except BrokenPipeError:  # the reader went away (`askcli todo show | head -1`)
        with contextlib.suppress(OSError):
            quiet_stdout()
        status = ExitStatus.STDOUT_GONE
    except OSError as exc:  # most likely stdout refused what a command printed (a full disk)
        with contextlib.suppress(OSError):
            quiet_stdout()
        what = "cannot write to stdout: " if exc.errno in _OUTPUT_ERRORS else ""
        say_err(f"askcli: {what}{visible(exc.strerror or str(exc))}\n")
        status = ExitStatus.OUTPUT_FAILED
    sys.exit(status if isinstance(status, int) else 0)
