"""``askcli claude``: the command's run, from its options (the command line is askcli.cli's)."""

from __future__ import annotations

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
from ...wire.wording.base import Wording
from .. import child
from .process import FLAGS, ChildClaude, find_claude
from .recording import ClaudeRecorder
from .session import host
from .stream_json import StreamLink


def claude_command(
    *,
    prompt: str | None,
    claude_bin: str | None,
    claude_args: Sequence[str],
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    answers_path: str,
    record_path: Path | None,
    notify: str | None,
    wording: Wording,
    inbox: bool = False,
    to: str | None = None,
    where: str | None = None,
) -> Callable[[], int]:
    """The session's work, ready to run under askcli's signal handling; UsageError for an
    executable, fixture path or answers file that cannot be used (or --record with
    --inbox), InboxError for an inbox file that cannot be. With ``inbox``, Claude Code's
    questions and requests are queued for ``askcli inbox`` (addressed ``to`` a person or
    team) instead of asked here; ``where`` names the inbox (None: the default), and Claude
    Code gets it as ``$ASKCLI_INBOX``."""
    command = [find_claude(claude_bin), *FLAGS, *claude_args]
    if record_path is not None and inbox:
        raise UsageError("--record keeps the answers typed here: it cannot be used with --inbox")
    if record_path is not None:
        writable_fixture(record_path)
    asker = None
    if inbox:
        from ...inbox.asker_side import inbox_asker

        asker = inbox_asker("claude", to=to, where=where)
        asker.check()  # an inbox file askcli cannot use is said before Claude Code starts
    reader = open_reader(answers_path, "answers from")
    err = text_stream(sys.stderr, errors="backslashreplace")
    out = text_stream(sys.stdout, errors="strict")
    notice = notice_for(notify or "", reader, say_err)
    options = RunOptions(notice=notice, wording=wording)
    conv = Conversation(reader, err, Style.for_stream(sys.stderr), options)
    typed = bytearray()
    reader.transcript = typed
    stderr = child.show_stderr(conv)
    link: StreamLink = ChildClaude(command, on_stderr=stderr, env=location.environment(where))
    recorder = ClaudeRecorder(link) if record_path is not None else None

    def save(status: int) -> bool:
        from ..replaying import make_claude

        assert recorder is not None and record_path is not None
        fixture = make_claude(
            prompt=prompt,
            allow=list(allow),
            deny=list(deny),
            received=recorder.received,
            answers=typed_lines(typed),
            exit_status=recorder.exit_status,
            wording=wording,
        )
        return save_session(record_path, fixture, recorder.sent, status, conv.say)

    def work() -> int:
        # host() ends Claude Code on every way out
        status = host(
            recorder or link,
            conv,
            out,
            prompt=prompt,
            allow=allow,
            deny=deny,
            stderr=stderr,
            asker=asker,
        )
        return child.session_ended(status, save if recorder is not None else None)

    return work
