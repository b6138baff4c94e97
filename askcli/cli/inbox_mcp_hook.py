"""``inbox``, ``mcp`` and ``hook``: one inbox where a person answers every agent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO, cast

import click

from ..errors import InboxError, UsageError
from ..escaping import visible
from ..runners.streams import (
    Stdout,
    inbox_conversation,
    notice_for,
    open_reader,
    printer,
    say_err,
    text_stream,
)
from ..status import ExitStatus
from ..wire.envelopes import Output
from ..wire.wording.base import Wording
from .params import (
    Seconds,
    answering_as,
    answers_option,
    as_option,
    check_name,
    guard_pipe,
    inbox_url_option,
    notify_option,
    output_option,
    to_option,
    usage_error,
    wording_option,
)
from .teams import log, roles, team


@click.command()
@click.option(
    "--wait",
    type=Seconds(),
    default=50.0,
    show_default=True,
    metavar="SECONDS",
    help="Answer a call still unanswered after SECONDS with a ticket for get_answer; keep it "
    "under the client's tool timeout (Codex: tool_timeout_sec, 300 by default; Claude Code: "
    "MCP_TOOL_TIMEOUT).",
)
@click.option(
    "--progress-every",
    "every",
    type=Seconds(),
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
    type=Seconds(zero=True),
    default=600.0,
    show_default=True,
    metavar="SECONDS",
    help="An answer the client has not collected goes to the identical call asked again in "
    "the same conversation for SECONDS after it was given (0: never); never to another "
    "conversation.",
)
@to_option
@inbox_url_option
@click.pass_context
def mcp(
    ctx: click.Context,
    wait: float,
    every: float,
    http: str | None,
    token: str | None,
    session: str | None,
    reuse_for: float,
    to: str | None,
    inbox_url: str | None,
) -> None:
    """An MCP server whose tools a person answers in `askcli inbox`.

    It serves stdio, or HTTP with --http. Its tools are ask_user_questions, todo_write
    and get_answer [inbox file: $ASKCLI_INBOX, else $XDG_STATE_HOME/askcli/inbox.db],
    and permission_prompt for claude --permission-prompt-tool
    mcp__askcli__permission_prompt.
    Needs the MCP SDK: pip install 'askcli[mcp]'.

    \b
    Exit status: 0 the client closed the connection, 2 usage, no SDK or the port
    cannot be used, 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (within a second, even
    when the client reads nothing), 141 the client went away in the middle of
    a reply.
    """
    from ..hosts.mcp import server as host

    given = ctx.get_parameter_source("token") is click.core.ParameterSource.COMMANDLINE
    if given and http is None:
        usage_error(ctx, UsageError("--token is for --http"))
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
            to=to,
            inbox_url=inbox_url,
        )
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    except InboxError as exc:
        say_err(f"askcli: {visible(str(exc))}\n")
        status = int(ExitStatus.INVALID)
    ctx.exit(status)


AS = "askcli.inbox_as"  # the inbox group's --as, for its subcommands


@click.group(invoke_without_command=True)
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
@as_option
@inbox_url_option
@click.pass_context
def inbox(
    ctx: click.Context,
    answers_path: str,
    notify: str | None,
    notify_command: str | None,
    journal: Path | None,
    wording: Wording,
    person: str | None,
    inbox_url: str | None,
) -> None:
    """Answer every agent's queued questions here, one after another.

    The inbox file: $ASKCLI_INBOX, else $XDG_STATE_HOME/askcli/inbox.db. Each waiting
    question is shown in one line; Enter asks it (the screens and answers
    of `askcli ask`), a number shows another one, l lists, q declines it, ? helps. When
    nothing waits, the inbox waits and says each arrival.

    \b
    Exit status: 0 left (Ctrl-D at the inbox prompt, or the end of the input),
    2 usage or the inbox file cannot be used, 3 the input ended in a question,
    130 Ctrl-C, 143 SIGTERM, 129 SIGHUP; the question held then waits again.
    """
    if ctx.invoked_subcommand is not None:
        ctx.meta[AS] = person  # `inbox --as NAME list` is `inbox list --as NAME`
        return
    from ..inbox.location import environment
    from ..inbox.person_side.commands import Inbox
    from ..inbox.store import open_store

    try:
        reader = open_reader(answers_path, "answers from")
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    err = text_stream(sys.stderr, errors="backslashreplace")
    conv = inbox_conversation(reader, err, journal, wording)
    notice = notice_for(notify or "", reader, say_err)
    who = answering_as(ctx, person, inbox_url, default=True)
    session = Inbox(
        open_store(inbox_url),
        conv,
        notice=notice,
        command=notify_command,
        person=who,
        env=environment(inbox_url),
    )
    guard_pipe(ctx, session.run)


@inbox.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option("--all", "every", is_flag=True, help="Answered and withdrawn questions too.")
@click.option(
    "--as",
    "person",
    metavar="NAME",
    callback=check_name,
    help="Only the questions the person NAME may answer: for anyone, for NAME and for "
    "NAME's teams [default: every question].",
)
@inbox_url_option
@click.pass_context
def inbox_list(
    ctx: click.Context, as_json: bool, every: bool, person: str | None, inbox_url: str | None
) -> None:
    """List the questions waiting and being answered, oldest first.

    The questions of askers that died are withdrawn first. With --all, a question answered
    by a decline says declined. When there is none, stdout stays empty and stderr says so.

    A question addressed to a person or team says so (for bob, for team ops), and one
    being answered says by whom.

    With --json, one object per line: id, status, declined (true when the answer was a
    decline), agent (client, session, cwd), arrived (seconds since the epoch), kind
    (question, permission or todo), question (the first one's text), questions, to (the
    person or team it is for, null: anyone), being_answered_by, answered_by,
    answered_host, answered_from (the address, on PostgreSQL) and finished (ISO 8601,
    UTC).

    Exit status: 0 listed, 2 the inbox file cannot be used, 141 stdout closed, 74 stdout
    cannot be written.
    """
    from ..inbox.person_side.commands import list_questions
    from ..inbox.store import open_store
    from ..terminal.rendering import terminal_width

    width = terminal_width(sys.stdout)

    def said(text: str) -> None:
        say_err(f"askcli: {text}\n")

    guard_pipe(
        ctx,
        lambda: list_questions(
            open_store(inbox_url),
            printer(),
            as_json=as_json,
            every=every,
            width=width,
            said=said,
            person=answering_as(ctx, person or ctx.meta.get(AS), inbox_url, default=False),
        ),
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
@as_option
@inbox_url_option
@click.pass_context
def inbox_answer(
    ctx: click.Context,
    question_id: int,
    answers_path: str,
    output: str,
    journal: Path | None,
    wording: Wording,
    person: str | None,
    inbox_url: str | None,
) -> None:
    """Answer queued question ID with the answer lines on stdin.

    ID is as `askcli inbox list` shows it. The result is printed on stdout, as `askcli
    ask` does.

    \b
    Exit status: as for `askcli ask` (0 answered, 1 declined, 3 the answers ended,
    130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: then nothing is printed and the question
    waits again), and 2 when question ID is not waiting (answered, being answered
    elsewhere, withdrawn: its asker gave up or died), is not for the person
    answering (--as) or its asker withdrew it meanwhile.
    """
    from ..inbox.person_side.commands import answer_by_id
    from ..inbox.store import open_store

    try:
        reader = open_reader(answers_path, "answers from")
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = cast(TextIO, Stdout(text_stream(sys.stdout, errors="strict")))
    conv = inbox_conversation(reader, err, journal, wording)
    who = answering_as(ctx, person or ctx.meta.get(AS), inbox_url, default=True)
    guard_pipe(
        ctx,
        lambda: answer_by_id(
            open_store(inbox_url), question_id, conv, out, output=Output(output), person=who
        ),
    )


@click.command()
@click.option(
    "--here",
    is_flag=True,
    help="Ask at the terminal (/dev/tty, else Claude Code's own terminal) instead of "
    "queueing the call for `askcli inbox`; for claude -p at a terminal.",
)
@click.option(
    "--timeout",
    type=Seconds(),
    metavar="SECONDS",
    help="Give up after this long and deny, telling the model nobody answered [default: "
    "wait until Claude Code ends the hook, after the hook's own timeout].",
)
@click.option(
    "--defer-after",
    type=Seconds(),
    metavar="SECONDS",
    help="claude -p: when nobody answered AskUserQuestion in this long, leave it in the inbox "
    "and answer defer (Claude Code stops; askcli resume runs claude --resume once it is "
    "answered).",
)
@to_option
@inbox_url_option
@click.pass_context
def hook(
    ctx: click.Context,
    here: bool,
    timeout: float | None,
    defer_after: float | None,
    to: str | None,
    inbox_url: str | None,
) -> None:
    """A Claude Code hook that asks through the inbox (or --here).

    It answers PreToolUse for AskUserQuestion and PermissionRequest for any tool, in Claude
    Code's hook protocol. Reads the hook input (JSON) on stdin and prints the decision
    (JSON) on stdout. Other events and tools get no output: Claude Code goes on as without
    the hook.

    \b
    Exit status: 0 a decision printed, or none to give; 1 the hook cannot work
    (its input, the inbox file, no terminal for --here; one line on stderr):
    Claude Code goes on without it; 143 SIGTERM, 129 SIGHUP, 141 Claude Code went
    away (stdout closed): the question is withdrawn, no decision; 74 stdout cannot
    be written.
    """
    from ..hosts.hook import command as hooks

    ctx.exit(
        hooks.main(here=here, timeout=timeout, to=to, where=inbox_url, defer_after=defer_after)
    )


@click.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--timeout",
    type=Seconds(),
    metavar="SECONDS",
    help="Stop waiting after this long; the questions stay deferred [default: wait].",
)
@click.option(
    "--command",
    default="claude",
    show_default=True,
    metavar="COMMAND",
    help="Claude Code's command (its words, as a shell splits them); -p --resume SESSION "
    "and CLAUDE_ARGS are added.",
)
@inbox_url_option
@click.argument("claude_args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def resume(
    ctx: click.Context,
    timeout: float | None,
    command: str,
    inbox_url: str | None,
    claude_args: tuple[str, ...],
) -> None:
    """Resume the claude -p runs askcli hook deferred, once answered.

    For each question that askcli hook --defer-after left deferred in the inbox, wait
    for its answer, then run COMMAND -p --resume SESSION [CLAUDE_ARGS] in the session's
    folder: Claude Code runs the deferred call again and its hook takes the answer. The
    resumed run's output goes to stdout. Put Claude Code's own options after --
    (askcli resume -- --output-format json). Ends when no deferred question is left.

    \b
    Exit status: 0 every deferred session resumed (or none was waiting); 1 one
    could not be resumed or did not take its answer, or the inbox cannot be used;
    3 the timeout passed; 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: the questions stay
    deferred, a resumed run still going is stopped.
    """
    from ..hosts.hook import resume as resuming

    ctx.exit(resuming.main(command=command, extra=claude_args, timeout=timeout, where=inbox_url))


inbox.add_command(team)
inbox.add_command(log)
inbox.add_command(roles)
