"""Running a source: documents in, one reply line per document out, an exit status.

:func:`run` is what ``askcli ask`` does; :func:`ask` is the same for one call from Python,
for harnesses that hand askcli their tool calls without the CLI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, Protocol, TextIO

from ..errors import UnreadableDocument, Withdrawn
from ..lines import LineReader, reader_for
from ..questions.outcome import Outcome
from ..schema.issues import MAX_TEXT
from ..status import ExitStatus
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.options import RunOptions
from ..terminal.rendering import Style
from ..terminal.screens import context_text
from ..tools.registry import run_call
from ..tools.todo_store import TodoStore, default_path
from ..wire import results
from ..wire.documents import Document, parse_object, read_documents
from ..wire.envelopes import Context, EnvelopeKind, Output, capabilities, detect, output_lines
from ..wire.results import ToolResult


class Reply(NamedTuple):
    """What one document got: its reply objects (none for a document without a call),
    its status and the result of each call."""

    replies: list[dict[str, Any]]
    status: ExitStatus
    results: Sequence[ToolResult] = ()

    @property
    def envelope(self) -> dict[str, Any] | None:
        """The reply when there is exactly one (every envelope but OpenAI's with several
        calls), else None."""
        return self.replies[0] if len(self.replies) == 1 else None

    def result(self, call_id: str | None = None) -> ToolResult:
        """The result of the document's one call; when the asker made none (nobody
        answered before it was asked), a no-answer result with the reply's status."""
        if self.results:
            return self.results[0]
        outcome = Outcome.of_status(self.status)
        return ToolResult(call_id, "no answer", outcome, is_error=True)


def worst(statuses: Iterable[ExitStatus]) -> ExitStatus:
    """The run's status: interrupted if it was, else the first that is not ANSWERED."""
    status = ExitStatus.ANSWERED
    for s in statuses:
        if s is ExitStatus.INTERRUPTED:
            return s
        if status is ExitStatus.ANSWERED:
            status = s
    return status


Told = Callable[[list[str]], None]  # gets the capabilities a Claude Code line lists


def answer_document(
    document: Document, conv: Conversation, seq: int = 1, *, told: Told | None = None
) -> Reply:
    """Answer every call of one document, in order, and build its reply. The document's
    TodoWrite changes are written once, at its end. ``told`` gets what a Claude Code line
    says it supports (for the calls of the documents after it)."""
    kept = conv.options.todos
    if kept is None:
        return _answer_calls(document, conv, seq, told)
    with kept.batch(conv.error):
        reply = _answer_calls(document, conv, seq, told)
    if kept.interrupted:  # a signal came while the lists were being kept
        return reply._replace(status=ExitStatus.INTERRUPTED)
    return reply


class Asker(Protocol):
    """Who asks the person a document and gets the reply: :class:`Here`, the conversation
    at this terminal, or the inbox (:class:`askcli.inbox.asker_side.InboxAsker`), where a
    person answers every agent. Every command and host hands its documents to one."""

    here: ClassVar[bool]  # the person answers at this terminal (a host may prompt itself)

    def ask(self, document: Document, conv: Conversation, seq: int = 1) -> Reply:
        """Ask ``document`` (the ``seq``-th of its source) and wait for its reply;
        ``conv`` is the conversation at this end: where it is asked here, or where notes
        about the wait are said, and whose options (timeout, wording) it is answered with."""
        ...


class Here:
    """The conversation at this terminal: the person answers the document there
    (:func:`answer_document`). ``told`` gets what a Claude Code line says it supports."""

    here: ClassVar[bool] = True

    def __init__(self, told: Told | None = None) -> None:
        # answer_document itself, not a method calling it: no Python call more per document
        self.ask: Callable[..., Reply] = partial(answer_document, told=told)


def _answer_calls(document: Document, conv: Conversation, seq: int, told: Told | None) -> Reply:
    try:
        if document.value is None:
            raise UnreadableDocument(document.error or "the input is not a JSON object")
        envelope = detect(document.value, seq)
    except UnreadableDocument as exc:
        said = document.report or str(exc)  # the agent is told where, as the person is
        conv.error(said)
        result = ToolResult(None, results.unreadable_text(said), Outcome.INVALID, is_error=True)
        return Reply([result.block()], ExitStatus.INVALID, [result])
    if envelope.kind is EnvelopeKind.PASSED_OVER and told is not None:  # a Claude Code line may
        found = capabilities(document.value)  # say what it supports
        if found:
            told(found)
    if envelope.refusal is not None:
        conv.error(envelope.refusal)
        return Reply(envelope.replies([]), ExitStatus.ANSWERED)
    # a control request's calls are answered in a view of the conversation that knows it:
    # the request's own control_cancel_request, read as an answer line, withdraws it
    asking = conv.answering(envelope.request_id) if envelope.kind is EnvelopeKind.CONTROL else conv
    done: list[ToolResult] = []
    stopped: ExitStatus | None = None  # after a refusal or Ctrl-C the other calls are not asked
    for item in envelope.items:
        if isinstance(item, Context):
            if stopped is None:
                try:
                    conv.say(context_text(item.text, conv.style, item.label))
                except KeyboardInterrupt:
                    conv.say("\n")
                    stopped = ExitStatus.INTERRUPTED
        elif stopped is ExitStatus.INTERRUPTED:
            text = signals.interrupted_text({})
            done.append(ToolResult(item.id, text, signals.interruption(), is_error=True))
        elif stopped is not None:  # Claude Code cancels the other calls of the message
            done.append(
                ToolResult(item.id, results.CANCEL_MESSAGE, Outcome.DECLINED, is_error=True)
            )
        else:
            try:
                result = run_call(item, asking, short=0 <= document.size <= MAX_TEXT)
            except Withdrawn:  # no reply: the requester no longer waits for one
                conv.say("\n")
                conv.error("the request was withdrawn (control_cancel_request); nothing was sent")
                return Reply([], ExitStatus.ANSWERED)
            done.append(result)
            status = result.outcome.status
            if status is ExitStatus.DECLINED or status is ExitStatus.INTERRUPTED:
                stopped = status
    if not done and envelope.kind in (
        EnvelopeKind.MESSAGE,
        EnvelopeKind.OPENAI,
        EnvelopeKind.RESPONSES,
        EnvelopeKind.GEMINI_CONTENT,
    ):
        conv.error("this message holds no tool call; nothing to answer")
    statuses = [r.outcome.status for r in done]
    if stopped is ExitStatus.INTERRUPTED:
        statuses.append(stopped)
    return Reply(envelope.replies(done), worst(statuses), done)


def _end_typed_line(conv: Conversation) -> None:
    """End the person's line before a result: an answer typed at a terminal and ended with
    Ctrl-D, not Enter, leaves the cursor after it (``Choose 1-3: 2``), where the result
    line, on the same terminal, would be glued. The reader's end-of-input flag is the one
    sign of it: the line it returned came without a line ending."""
    if conv.open_line and conv.reader.interactive and conv.reader.at_end:
        conv.say("\n")


ANSWER_HERE = (
    "stdin held the call but no answer; to answer at this terminal, add --answers /dev/tty"
)


def _person_watching(conv: Conversation) -> bool:
    """The calls come through a pipe with their answers (stdin is not a terminal) while a
    person watches the screens at a terminal: a call piped in (``jq -n ... | askcli ask``)
    ends at once with no answer, and they are told how to answer at the terminal."""
    if not conv.options.calls_follow or conv.reader.interactive or conv.options.quiet:
        return False
    try:
        if not os.isatty(conv.out.fileno()):
            return False
        os.close(os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY))  # a terminal to answer at
    except (OSError, ValueError, AttributeError):
        return False
    return True


def run(
    source: LineReader,
    conv: Conversation,
    out: TextIO,
    *,
    output: Output = Output.RESULT,
    on_document: Callable[[Document], None] | None = None,
    name: str | None = None,
    asker: Asker | None = None,
) -> ExitStatus:
    """Answer every document of ``source``, printing its lines as soon as they are made.

    One document is read, answered and printed before the next is read, so a stream of
    any length runs in constant memory and its results come out as they are made.
    ``name`` (a path, ``stdin``) names the source where a document cannot be read.
    ``asker`` asks each document (default :class:`Here`; ``--inbox``: the inbox).
    """

    def told(found: list[str]) -> None:  # the documents after this one are answered knowing it
        nonlocal conv
        conv = conv.with_options(conv.options.told(found))

    if asker is None:
        asker = Here(told)
    hint = asker.here and _person_watching(conv)
    status = ExitStatus.ANSWERED
    try:
        for seq, document in enumerate(read_documents(source, conv.error, name=name), start=1):
            if on_document is not None:
                on_document(document)
            before = source.line
            reply = asker.ask(document, conv, seq)
            _end_typed_line(conv)
            if hint and reply.status is ExitStatus.NO_ANSWER and source.line == before:
                conv.error(ANSWER_HERE)  # not one answer line came for the call
                hint = False  # once: the calls after it end the same way
            for line in output_lines(reply.replies, reply.results, output):
                out.write(line + "\n")
            out.flush()
            if reply.status is not ExitStatus.ANSWERED:
                status = worst([status, reply.status])
            if reply.status is ExitStatus.INTERRUPTED:
                conv.error(signals.stop_notice())
                break
    except KeyboardInterrupt:  # between calls: nothing was asked, nothing to answer
        conv.say("\n")
        conv.error(signals.stop_notice())
        status = ExitStatus.INTERRUPTED
    return status


def ask(
    call: Mapping[str, Any] | str,
    *,
    input: TextIO | LineReader | None = None,
    output: TextIO | None = None,
    timeout: float | None = None,
    style: Style | None = None,
    state: str | Path | None = None,
    session: str | None = None,
) -> Reply:
    """Ask one call (any envelope, as a dict or JSON text) and return its reply.

    Answer lines are read from ``input`` (default stdin) and the screens written to
    ``output`` (default stderr). TodoWrite lists are kept in ``state`` (default
    ``$XDG_STATE_HOME/askcli/todos.json``) under ``session``.
    """
    document = parse_object(call) if isinstance(call, str) else Document(dict(call))
    out = output if output is not None else sys.stderr
    options = RunOptions(
        timeout=timeout,
        todos=TodoStore(Path(state) if state is not None else default_path()),
        session=session,
    )
    conv = Conversation(
        reader=reader_for(input if input is not None else sys.stdin),
        out=out,
        style=style if style is not None else Style.for_stream(out),
        options=options,
    )
    return answer_document(document, conv)
