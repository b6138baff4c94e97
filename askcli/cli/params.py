"""What the commands share: option types, options, usage errors, the signal-guarded run."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from ..errors import UsageError
from ..escaping import visible
from ..runners.streams import NOTIFY_MODES, guarded, say_err
from ..status import ExitStatus
from ..wire.envelopes import Output
from ..wire.wording import registry
from ..wire.wording.base import Wording

MAX_TIMEOUT = 7 * 24 * 3600.0  # one week


class Seconds(click.ParamType[float]):
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


def usage_error(ctx: click.Context, exc: UsageError) -> None:
    # the message may quote a path or value from the command line: one line, escaped
    say_err(f"askcli: {visible(str(exc))}\n")
    ctx.exit(int(ExitStatus.INVALID))


def guard_pipe(ctx: click.Context, work: Callable[[], int], *, every_sigint: bool = False) -> None:
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


class Setting(click.ParamType[tuple[str, str]]):
    """``ID=VALUE`` as ``(ID, VALUE)``: the ID not empty, the VALUE what follows the first
    ``=`` (``--config``)."""

    name = "id=value"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        key, equals, setting = str(value).partition("=")
        if not key or not equals:
            self.fail(f"{value!r} is not ID=VALUE", param, ctx)
        return key, setting


class WordingChoice(click.Choice):  # type: ignore[type-arg]
    """A name of :data:`askcli.wire.wording.registry.NAMES` (or an old one, ``seed`` for 2.1.88's);
    the value is the wording itself (:class:`askcli.wire.wording.base.Wording`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, Wording):
            return value
        name = super().convert(registry.OLD_NAMES.get(value, value), param, ctx)
        return registry.wording_named(name)


wording_option = click.option(
    "--wording",
    type=WordingChoice(registry.NAMES),
    envvar="ASKCLI_WORDING",
    default=registry.DEFAULT.name,
    help="The texts of AskUserQuestion's results, as Claude Code 2.1.88 or the current "
    "Claude Code release words them (see docs/dialects.md) "
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


class HostCommand(click.Command):
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


class ClaudeCommand(HostCommand):
    META = "askcli.claude_args"
    WHERE = "Claude Code's own options go after --, as in `askcli claude [PROMPT] -- {option}`"


class AcpCommand(HostCommand):
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


def prompt_of(words: tuple[str, ...], given: str | None) -> str | None:
    """The prompt of a host's command: ``--prompt``, or the words joined; UsageError for
    both."""
    if given is not None and words:
        raise UsageError("give the prompt either as PROMPT or with --prompt")
    return given if given is not None else " ".join(words) if words else None


def check_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A person's or team's name (``--to``, ``--as``), checked: one line and exit 2 else."""
    if value is None:
        return None
    from ..inbox.routing import checked_name

    try:
        return checked_name(value, f"--{param.name}" if param.name != "person" else "--as")
    except UsageError as exc:
        usage_error(ctx, exc)
        raise AssertionError("usage_error exits") from None


INBOX_URL = "askcli.inbox_url"  # an --inbox-url given on the command line, for subcommands


def _inbox_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--inbox-url``: the inbox this command uses, as ``$ASKCLI_INBOX`` names it (its
    default); a URL holding a password is refused on the command line (every user of the
    machine reads one). One given to ``inbox`` or ``inbox team`` holds for their
    subcommands. None: the default file."""
    assert param.name is not None
    if ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
        return ctx.meta.get(INBOX_URL) or value or None
    from ..inbox.location import password_refused

    value = value or ""
    refused = password_refused(value, "--inbox-url")
    if not value.strip():
        say_err("askcli: --inbox-url: give a postgresql:// URL or a file, not nothing\n")
        ctx.exit(int(ExitStatus.INVALID))
    if refused is not None:
        say_err(f"askcli: {visible(str(refused))}\n")
        ctx.exit(int(ExitStatus.INVALID))
    ctx.meta[INBOX_URL] = value
    return value


to_option = click.option(
    "--to",
    "to",
    envvar="ASKCLI_TO",
    metavar="NAME",
    callback=check_name,
    help="Address the questions queued in the inbox to the person or team NAME: only "
    "their inboxes (askcli inbox --as NAME, or a member's) answer them [default: "
    "$ASKCLI_TO, else anyone].",
)
inbox_url_option = click.option(
    "--inbox-url",
    "inbox_url",
    envvar="ASKCLI_INBOX",
    metavar="URL",
    callback=_inbox_url,
    help="The inbox to use, as $ASKCLI_INBOX names it: a postgresql:// URL (its password in "
    "~/.pgpass, PGPASSFILE or a service file, never here) or a file [default: $ASKCLI_INBOX, "
    "else $XDG_STATE_HOME/askcli/inbox.db].",
)
as_option = click.option(
    "--as",
    "person",
    metavar="NAME",
    callback=check_name,
    help="Show the questions the person NAME may answer: for anyone, for NAME and for "
    "NAME's teams [default: the login name]; who answered is the Unix user. Not on "
    "PostgreSQL, where you answer as the role you connect as.",
)


def answering_as(
    ctx: click.Context, person: str | None, where: str | None, *, default: bool
) -> str | None:
    """Whose questions an inbox shows: on PostgreSQL the role's, as row-level security
    decides (``--as`` refused in one line, exit 2); else ``--as`` or, with ``default``,
    the login name. ``where``: the inbox (``--inbox-url``)."""
    from ..inbox.location import is_postgres
    from ..inbox.routing import login_name

    if is_postgres(where or ""):
        if person is not None:
            say_err(
                "askcli: --as: on a PostgreSQL inbox you answer as the role you connect as; "
                "to answer as another person, connect as their role\n"
            )
            ctx.exit(int(ExitStatus.INVALID))
        return None
    return person if person is not None or not default else login_name()
