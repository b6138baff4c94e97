"""``claude`` and ``acp``: an agent hosted in plain lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from ..errors import InboxError, UsageError
from ..escaping import visible
from ..runners.streams import say_err
from ..status import ExitStatus
from ..wire.wording.base import Wording
from .params import (
    AcpCommand,
    ClaudeCommand,
    Seconds,
    Setting,
    answers_option,
    guard_pipe,
    inbox_url_option,
    notify_option,
    prompt_of,
    prompt_option,
    record_option,
    to_option,
    usage_error,
    wording_option,
)


@click.command(cls=ClaudeCommand)
@click.argument("words", nargs=-1, metavar="[PROMPT]... [-- CLAUDE ARGS]")
@prompt_option
@click.option("--claude-bin", metavar="PATH", help="The Claude Code executable [default: claude].")
@click.option(
    "--allow",
    multiple=True,
    metavar="TOOL",
    help=(
        "Allow TOOL without asking (a request Claude Code marks as needing a person is "
        "still asked)."
    ),
)
@click.option("--deny", multiple=True, metavar="TOOL", help="Deny TOOL without asking.")
@answers_option
@notify_option
@wording_option
@record_option
@click.option(
    "--inbox",
    "inbox",
    is_flag=True,
    help="Queue Claude Code's questions, permission requests and forms for `askcli inbox` "
    "(where a person answers every agent) instead of asking here; Ctrl-C withdraws the one "
    "waiting [inbox file: $ASKCLI_INBOX, else $XDG_STATE_HOME/askcli/inbox.db].",
)
@to_option
@inbox_url_option
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
    wording: Wording,
    inbox: bool,
    to: str | None,
    inbox_url: str | None,
) -> None:
    """Host Claude Code in plain lines.

    Its questions and permission requests are asked here (with --inbox, in the inbox),
    its answers shown, each turn's result printed on stdout. With PROMPT (its words are
    joined by spaces), one turn; without, prompts are read at `> ` until the input ends.
    The prompt goes to Claude Code as a message, never as an argument. Arguments after
    `--` go to Claude Code. Ctrl-C interrupts a turn; a second Ctrl-C, or Ctrl-D at `> `,
    ends the session.

    \b
    Exit status: 0 done, 1 Claude Code failed or a turn ended in error, 2 usage
    or an inbox file that cannot be used, 3 no answer (the input ended at a
    question), 130 Ctrl-C, 143 SIGTERM,
    129 SIGHUP (an open question is denied with the no-answer text first),
    141 stdout closed, 74 stdout cannot be written.
    """
    from ..hosts.claude.command import claude_command

    run_hosted(
        ctx,
        lambda: claude_command(
            prompt=prompt_of(words, prompt_option),
            claude_bin=claude_bin,
            claude_args=ctx.meta.get("askcli.claude_args", []),
            allow=allow,
            deny=deny,
            answers_path=answers_path,
            record_path=record_path,
            notify=notify,
            wording=wording,
            inbox=inbox,
            to=to,
            where=inbox_url,
        ),
    )


@click.command(cls=AcpCommand)
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
    type=Seconds(),
    metavar="SECONDS",
    help="Answer a permission request or form nobody answers within SECONDS (here or in "
    "the inbox) cancelled, never allowed, and end the session (exit 3).",
)
@to_option
@inbox_url_option
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
@click.option(
    "--config",
    "config",
    multiple=True,
    metavar="ID=VALUE",
    type=Setting(),
    help="Set the agent's session config option ID to VALUE before the first prompt "
    "(session/set_config_option), such as `model=sonnet`; repeatable. The options are shown "
    "when the session starts; an ID or VALUE the agent does not offer lists what it offers.",
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
    config: tuple[tuple[str, str], ...],
    to: str | None,
    inbox_url: str | None,
) -> None:
    """Host any Agent Client Protocol agent in plain lines.

    Its permission requests and forms are asked here, its messages shown, each turn's final
    text printed on stdout. The agent's command line comes after `--` (`askcli acp -- gemini
    --acp`); with no `--`, the words are the agent's command and the prompt is given with
    --prompt. With a prompt, one turn; without, prompts are read at `> ` until the input
    ends. Ctrl-C cancels a turn (session/cancel); a second Ctrl-C, or Ctrl-D at `> `, ends
    the session.

    \b
    Exit status: 0 done, 1 the agent failed or a turn ended early (max_tokens,
    refusal), 2 usage (a --mode or --config the agent does not offer too) or an
    inbox file that cannot be used, 3 no answer (the input ended at a question, or
    --timeout; it is answered cancelled), 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP,
    141 stdout closed, 74 stdout cannot be written.
    """
    from ..hosts.acp.command import acp_command

    agent = ctx.meta.get("askcli.agent")
    if agent is None:
        agent, words = list(words), ()
    run_hosted(
        ctx,
        lambda: acp_command(
            agent=agent,
            prompt=prompt_of(words, prompt_option),
            answers_path=answers_path,
            notify=notify,
            record_path=record_path,
            inbox=inbox,
            timeout=timeout,
            fs=fs,
            terminal=terminal,
            thoughts=thoughts,
            mode=mode,
            config=config,
            to=to,
            where=inbox_url,
        ),
    )


def run_hosted(ctx: click.Context, prepare: Callable[[], Callable[[], int]]) -> None:
    """Set a hosted session up with ``prepare`` (its options checked, its inbox opened) and
    run it with Ctrl-C taken at every moment; a usage error or an inbox that cannot be used
    is one line and its status."""
    try:
        work = prepare()
    except UsageError as exc:
        usage_error(ctx, exc)
        return
    except InboxError as exc:  # the inbox file cannot be used: said in one line
        say_err(f"askcli: {visible(str(exc))}\n")
        ctx.exit(int(ExitStatus.INVALID))
    guard_pipe(ctx, work, every_sigint=True)
