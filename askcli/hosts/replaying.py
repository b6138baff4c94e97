"""Replaying hosted sessions: the ``claude`` and ``acp`` sections of a fixture, played with the
recorded Claude Code lines or agent messages in place of the process. Importing this module
registers both with :mod:`askcli.runners.recordings`, which cannot import the hosts itself.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from ..lines import TextLineReader
from ..runners.recordings import ReplayOutcome, host_fixture, register_host, typed_answers
from ..terminal.conversation import Conversation
from ..terminal.options import RunOptions
from ..terminal.rendering import Style
from ..wire.wording.base import Wording
from ..wire.wording.registry import DEFAULT, as_wording, wording_named


class _Interrupting(TextLineReader):
    """A recorded ACP session's answer lines, where the line ``\x03`` is a Ctrl-C."""

    def readline(self, timeout: float | None = None) -> str | None:
        line = super().readline(timeout)
        if line == "\x03":
            raise KeyboardInterrupt
        return line


def play_claude(
    session: Mapping[str, Any], answers: Sequence[str] = (), columns: int = 80
) -> ReplayOutcome:
    """An ``askcli claude`` session (a fixture's ``claude`` section) with the recorded
    Claude Code lines in place of the process."""
    from .claude import ScriptedClaude, host

    out, err = io.StringIO(), io.StringIO()
    link = ScriptedClaude(session["received"], session.get("exit_status", 0))
    style = Style(width=columns, colour=False)
    wording = wording_named(session.get("wording", DEFAULT.name))
    conv = Conversation(typed_answers(answers), err, style, RunOptions(wording=wording))
    status = host(
        link,
        conv,
        out,
        prompt=session.get("prompt"),
        allow=session.get("allow", ()),
        deny=session.get("deny", ()),
    )
    return ReplayOutcome(out.getvalue().splitlines(), err.getvalue(), status, sent=link.sent)


def make_claude(
    *,
    prompt: str | None,
    received: Sequence[Any],
    answers: Sequence[str],
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    exit_status: int | None = 0,
    description: str = "",
    columns: int = 80,
    wording: Wording | str = DEFAULT,
) -> dict[str, Any]:
    """A fixture of an ``askcli claude`` session: Claude Code's lines, the person's, and
    what askcli sent and printed (as a replay prints it). ``wording``: a wording or its name."""
    wording = as_wording(wording)
    claude: dict[str, Any] = {
        "prompt": prompt,
        "allow": list(allow),
        "deny": list(deny),
        "exit_status": exit_status,
    }
    if wording is not DEFAULT:
        claude["wording"] = wording.name
    claude["received"] = list(received)
    outcome = play_claude(claude, answers, columns)
    return host_fixture("claude", claude, outcome, answers, description, columns)


def play_acp(
    session: Mapping[str, Any], answers: Sequence[str] = (), columns: int = 80
) -> ReplayOutcome:
    """An ``askcli acp`` session (a fixture's ``acp`` section) with the recorded agent's
    messages in place of the agent."""
    from .acp import ScriptedAgent, capabilities, host, show_stderr

    out, err = io.StringIO(), io.StringIO()
    reader = _Interrupting(io.StringIO("".join(a + "\n" for a in answers)))
    conv = Conversation(reader, err, Style(width=columns, colour=False))
    stderr = show_stderr(conv)
    link = ScriptedAgent(session["received"], session.get("exit_status", 0), stderr)
    offered = capabilities(fs=session.get("fs", False), terminal=session.get("terminal", False))
    status = host(
        link,
        conv,
        out,
        prompt=session.get("prompt"),
        capabilities=offered,
        one_terminal=session.get("one_terminal", False),
        cwd=session.get("cwd", "/"),
        thoughts=session.get("thoughts", False),
        mode=session.get("mode"),
        config=[(key, value) for key, value in session.get("config", ())],
        stderr=stderr,
    )
    return ReplayOutcome(out.getvalue().splitlines(), err.getvalue(), status, link.sent, acp=True)


def make_acp(
    *,
    prompt: str | None,
    received: Sequence[Any],
    answers: Sequence[str],
    cwd: str,
    exit_status: int | None = 0,
    one_terminal: bool = False,
    description: str = "",
    columns: int = 80,
    fs: bool = False,
    terminal: bool = False,
    thoughts: bool = False,
    mode: str | None = None,
    config: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """A fixture of an ``askcli acp`` session: the agent's messages, the person's lines,
    and what askcli sent and printed (as a replay prints it)."""
    acp: dict[str, Any] = {"prompt": prompt, "cwd": cwd, "exit_status": exit_status}
    options = {
        "one_terminal": one_terminal,
        "fs": fs,
        "terminal": terminal,
        "thoughts": thoughts,
        "mode": mode,
        "config": [[key, value] for key, value in config],
    }
    acp.update((name, value) for name, value in options.items() if value)  # only those set
    acp["received"] = list(received)
    outcome = play_acp(acp, answers, columns)
    return host_fixture("acp", acp, outcome, answers, description, columns)


register_host("claude", play_claude)
register_host("acp", play_acp)
