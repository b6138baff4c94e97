"""The ``askcli`` command line: options in, the core called, domain outcomes to exit codes.

This package is the only code that imports click: :mod:`.params` (what the commands
share), :mod:`.asking` (ask, record, replay, check, schema, todo), :mod:`.claude_acp`,
:mod:`.inbox_mcp_hook` (with :mod:`.teams`) and :mod:`.setup_doctor` (the commands).
A command's module is imported when the command is named (or all are listed, for help), so
that ``askcli ask`` does not import what ``askcli inbox`` needs.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import sys
from typing import IO, Any, cast

import click

from .. import __version__
from ..errors import OutputFailed
from ..escaping import visible
from ..runners.streams import (
    CLOSED_AT_START,
    GatedStderr,
    quiet_stdout,
    reader_gone,
    reopen_closed_fds,
    say_err,
    settle_streams,
)
from ..status import ExitStatus
from ..terminal import signals

_OUTPUT_ERRORS = (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)

# each command and the module (of this package) that defines it, under the same name
COMMANDS = {
    "ask": "asking",
    "record": "asking",
    "replay": "asking",
    "check": "asking",
    "schema": "asking",
    "claude": "claude_acp",
    "acp": "claude_acp",
    "mcp": "inbox_mcp_hook",
    "inbox": "inbox_mcp_hook",
    "todo": "asking",
    "hook": "inbox_mcp_hook",
    "resume": "inbox_mcp_hook",
    "setup": "setup_doctor",
    "doctor": "setup_doctor",
}


class LazyGroup(click.Group):
    """A group whose commands are imported when named: one command's module, not all."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(f"{__name__}.{module}"), cmd_name)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="askcli")
def cli() -> None:
    """The human side of an AI agent's AskUserQuestion tool, in plain lines.

    Calls (JSON) come from a file or stdin; menus and prompts go to stderr; answers are
    lines on stdin; each call's result is one JSON line on stdout.
    """


# click 8.2+ raises this (a UsageError holding the whole help) for a group run without arguments
_NO_ARGS_IS_HELP: tuple[type[click.UsageError], ...] = (
    (click.exceptions.NoArgsIsHelpError,) if hasattr(click.exceptions, "NoArgsIsHelpError") else ()
)


def main() -> None:
    # at once: a signal while a command is set up (the agents' SDKs take a while to import)
    # gives its status, quietly; the commands that ask put in their own handling again
    signals.install()
    CLOSED_AT_START.update(reopen_closed_fds())
    if 1 in CLOSED_AT_START:
        say_err("askcli: stdout is closed: nobody is left to read a result\n")
        sys.exit(ExitStatus.STDOUT_GONE)
    sys.exit(settle_streams(_run()))


def _run() -> int:
    """Run the command line; its exit status."""
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
    except (click.Abort, KeyboardInterrupt):  # a signal no command took: its own status
        status = signals.exit_status(ExitStatus.INTERRUPTED)
    except SystemExit:
        # click's own answer to a reader that went away (--help, --version, todo show): 1
        if not reader_gone(1):
            raise
        with contextlib.suppress(OSError):
            quiet_stdout()
        status = ExitStatus.STDOUT_GONE
    except BrokenPipeError:  # the reader went away (`askcli todo show | head -1`)
        with contextlib.suppress(OSError):
            quiet_stdout()
        status = ExitStatus.STDOUT_GONE
    except OSError as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):
            # click's blank line after a signal, on a stderr that is gone
            return signals.exit_status(ExitStatus.INTERRUPTED)
        # most likely stdout refused what a command printed (a full disk)
        with contextlib.suppress(OSError):
            quiet_stdout()
        what = "cannot write to stdout: " if exc.errno in _OUTPUT_ERRORS else ""
        say_err(f"askcli: {what}{visible(exc.strerror or str(exc))}\n")
        status = ExitStatus.OUTPUT_FAILED
    except OutputFailed as exc:  # stdout refused a line printed outside a guarded run
        with contextlib.suppress(OSError):
            quiet_stdout()
        say_err(f"askcli: cannot write to stdout: {visible(str(exc))}\n")
        status = ExitStatus.OUTPUT_FAILED
    return status if isinstance(status, int) else 0
