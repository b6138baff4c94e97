"""What ``askcli acp --terminal`` runs for the agent, as the person is shown it.

The line shown is the whole command: the folder it runs in (``cd DIR &&``, when not the
session's folder), each variable the agent sets (``NAME=value``, quoted as a shell would),
then the command (its arguments quoted with ``shlex.join``; a command given alone is the
shell line it is). With variables set, a shell line is shown as the ``/bin/sh -c`` it runs,
so that the variables plainly cover all of it.

A variable set to the value askcli has anyway is no change and is left out. Variables that
change which program runs, or what it loads or reads as its settings, are refused rather
than shown, since ``$ git status`` would not say what runs: :data:`REFUSED` and the names
starting with :data:`REFUSED_PREFIXES`.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from typing import Any

REFUSED = frozenset(
    {
        # where programs are found, and what the shell runs or how it reads the line
        "PATH",
        "CDPATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "GLOBIGNORE",
        # where settings (git's, the shell's, tools') are read from
        "HOME",
        "XDG_CONFIG_HOME",
        "ZDOTDIR",
        # the dynamic loader, and code interpreters load before the program
        "GCONV_PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5LIB",
        "PERL5OPT",
        "PERLLIB",
        "RUBYLIB",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "_JAVA_OPTIONS",
    }
)
REFUSED_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_")
LINE = 1900  # characters of one shown line (a longer command goes on over more lines)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Unsafe(ValueError):
    """A variable of the agent's ``env`` askcli will not set (the message says why)."""


def refused(name: str) -> bool:
    """Whether setting ``name`` could change what runs without the line shown saying so."""
    return name in REFUSED or name.startswith(REFUSED_PREFIXES)


def overrides(env: Any) -> list[tuple[str, str]]:
    """The agent's ``env`` (``[{"name", "value"}]``) as pairs, those that change askcli's
    own environment only; Unsafe for one that is not a name and a value, or that
    :func:`refused` refuses."""
    pairs = []
    for item in env or []:
        name = item.get("name") if isinstance(item, dict) else None
        value = item.get("value") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name or "=" in name or not isinstance(value, str):
            raise Unsafe(f"a variable of env is not a name and a value: {item!r}")
        if not _NAME.fullmatch(name):
            raise Unsafe(f"the variable name {name!r} of env is not letters, digits and _")
        if os.environ.get(name) == value:
            continue  # what askcli runs with anyway: nothing changes
        if refused(name):
            raise Unsafe(
                f"env sets {name}, which changes what runs: askcli lets no agent set PATH, "
                "HOME, IFS, LD_*, GIT_*, BASH_ENV, PYTHONPATH, NODE_OPTIONS or the like"
            )
        pairs.append((name, value))
    return pairs


def shown(
    command: str,
    args: Sequence[str],
    argv: Sequence[str],
    env: list[tuple[str, str]],
    cwd: str,
    root: str,
) -> str:
    """The whole command as the person reads it: ``argv`` is what runs (``command`` with
    ``args``, or the shell running the line ``command``)."""
    words = []
    if os.path.realpath(cwd) != os.path.realpath(root):
        words.append(f"cd {shlex.quote(cwd)} &&")
    words += [f"{name}={shlex.quote(value)}" for name, value in env]
    if env or args:
        words.append(shlex.join(argv))
    else:
        words.append(command)
    return " ".join(words)


def lines(text: str) -> list[str]:
    """``text`` cut into lines of at most :data:`LINE` characters, none left out."""
    return [text[i : i + LINE] for i in range(0, len(text), LINE)] or [""]
