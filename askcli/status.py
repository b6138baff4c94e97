"""askcli's exit statuses, one enum for every command (docs/cli.md lists each command's)."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    """How a command ended; a run of many calls exits with the first that is not ANSWERED.

    The aliases name the same numbers as the commands that give them mean them.
    """

    ANSWERED = 0
    DECLINED = 1
    INVALID = 2
    NO_ANSWER = 3
    OUTPUT_FAILED = 74  # EX_IOERR: stdout refused the result (a full disk, /dev/full)
    HANGUP = 129  # 128 + SIGHUP: the terminal hung up
    INTERRUPTED = 130  # 128 + SIGINT: Ctrl-C
    STDOUT_GONE = 141  # 128 + SIGPIPE, as a shell reports a reader that went away
    TERMINATED = 143  # 128 + SIGTERM: askcli was stopped

    OK = 0  # a command that asks nothing: done (inbox: the person left)
    FAILED = 1  # the hosted agent failed, a fixture differs, a hook that cannot serve
    USAGE = 2  # the command line or a file it names cannot be used
