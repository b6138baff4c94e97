"""``askcli acp``: the command's run, from its options (the command line is askcli.cli's)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import UsageError
from ...inbox import location
from ...runners.recording_files import save_session, writable_fixture
from ...runners.recordings import typed_lines
from ...runners.streams import notice_for, open_reader, say_err, text_stream
from ...terminal.conversation import Conversation
from ...terminal.options import RunOptions
from ...terminal.rendering import Style
from .. import child
from .agent import AgentLink
from .recording import AcpRecorder
from .session import capabilities, host, show_stderr


def acp_command(
    *,
    agent: Sequence[str],
    prompt: str | None,
    answers_path: str,
    notify: str | None,
    record_path: Path | None,
    inbox: bool,
    timeout: float | None,
    fs: bool,
    terminal: bool,
    thoughts: bool,
    mode: str | None,
    config: Sequence[tuple[str, str]] = (),
    to: str | None = None,
    where: str | None = None,
) -> Callable[[], int]:
    """The session's work, ready to run under askcli's signal handling; UsageError for what
    cannot be used (no agent, --record with --inbox, the fixture path, the answers file),
    InboxError for an inbox file that cannot be. ``where`` names the inbox (None: the
    default); the agent gets it as ``$ASKCLI_INBOX``."""
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = text_stream(sys.stdout, errors="strict")
    if not agent:
        raise UsageError(
            "no agent: give its command line after --, as in `askcli acp -- gemini --acp`"
        )
    if record_path is not None and inbox:
        raise UsageError("--record keeps the answers typed here: it cannot be used with --inbox")
    if record_path is not None:
        writable_fixture(record_path)
    reader = open_reader(answers_path, "answers from")
    notice = notice_for(notify or "", reader, say_err)
    options = RunOptions(notice=notice, timeout=timeout)
    conv = Conversation(reader, err, Style.for_stream(sys.stderr), options)
    offered = capabilities(fs=fs, terminal=terminal)
    asker = None
    if inbox:
        from ...inbox.asker_side import inbox_asker

        asker = inbox_asker("acp", timeout=timeout, to=to, where=where)
        asker.check()  # an inbox file askcli cannot use is said before the agent starts
    shown = show_stderr(conv)
    recorder = AcpRecorder() if record_path is not None else None
    link = AgentLink(
        list(agent),
        on_stderr=recorder.stderr(shown) if recorder is not None else shown,
        fs=fs,
        terminal=terminal,
        env=location.environment(where),
    )
    typed = bytearray()
    reader.transcript = typed
    cwd = os.getcwd()
    one_terminal = child.same_terminal(out, err)

    def save(status: int) -> bool:
        from ..replaying import make_acp

        assert recorder is not None and record_path is not None
        fixture = make_acp(
            prompt=prompt,
            received=recorder.received,
            answers=typed_lines(typed),
            cwd=cwd,
            fs=fs,
            terminal=terminal,
            thoughts=thoughts,
            mode=mode,
            config=config,
            exit_status=recorder.exit_status,
            one_terminal=one_terminal,
        )
        return save_session(record_path, fixture, recorder.sent, status, conv.say)

    def work() -> int:
        # host() ends the agent on every way out
        status = host(
            recorder.attach(link) if recorder is not None else link,
            conv,
            out,
            prompt=prompt,
            capabilities=offered,
            one_terminal=one_terminal,
            cwd=cwd,
            asker=asker,
            thoughts=thoughts,
            mode=mode,
            config=config,
            stderr=shown,
        )
        return child.session_ended(status, save if recorder is not None else None)

    return work
