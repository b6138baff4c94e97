"""The askers' side of the queue: a document in, the inbox's reply out.

``askcli ask --inbox``, ``askcli mcp`` and ``askcli hook`` submit a document (any
envelope :func:`askcli.wire.envelopes.detect` reads) and wait for the reply an inbox made
for it, the same :class:`~askcli.runners.session.Reply` ``ask`` would have printed. A wait
that ends without an answer (``--timeout``, a signal) withdraws the question and gets the
no-answer result of each call; so does, for ``ask --inbox``, a call that finds the inbox
locked by another process for longer than askcli waits.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import AnswerTimeout, InboxBusy, InboxError, UnreadableDocument
from ..lines import TextLineReader
from ..questions.conclusion import Ending
from ..runners.session import Reply, answer_document
from ..status import ExitStatus
from ..terminal import signals
from ..terminal.conversation import Conversation, no_reply_within
from ..terminal.options import RunOptions
from ..wire import results
from ..wire.documents import Document
from ..wire.envelopes import detect
from ..wire.results import ToolResult
from . import asker_identity
from .store import Agent, QueueState, Store, open_store


def reply_to_json(reply: Reply) -> dict[str, Any]:
    """A reply as the queue keeps it."""
    return {
        "replies": reply.replies,
        "status": int(reply.status),
        "results": [_result_to_json(r) for r in reply.results],
    }


def _result_to_json(result: ToolResult) -> dict[str, Any]:
    out = result._asdict()
    out["status"] = int(result.status)
    for key in ("data", "updated_input", "reply"):
        if out[key] is not None:
            out[key] = dict(out[key])
    if out["updated_permissions"] is not None:
        out["updated_permissions"] = list(out["updated_permissions"])
    return out


def reply_from_json(kept: Any) -> Reply:
    """A reply as the queue kept it; UnreadableDocument for anything else."""
    try:
        found = [
            ToolResult(**{**r, "status": ExitStatus(r["status"])}) for r in kept.get("results", [])
        ]
        return Reply(list(kept["replies"]), ExitStatus(kept["status"]), found)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise UnreadableDocument(f"the inbox kept a reply askcli cannot read ({exc})") from None


def unanswered(document: Any, text: str, status: ExitStatus, seq: int = 1) -> Reply:
    """The reply of a document nobody answered: each call gets ``text`` alone."""
    try:
        envelope = detect(document, seq) if isinstance(document, dict) else None
    except UnreadableDocument:
        envelope = None
    if envelope is None or envelope.refusal is not None:
        result = ToolResult(None, text, status, is_error=True)
        return Reply([result.block()], status, [result])
    done = [ToolResult(call.id, text, status, is_error=True) for call in envelope.calls]
    return Reply(envelope.replies(done), status, done)


class _Ended(TextLineReader):
    """Answer lines that end at once, as the wait in the inbox ended: ``stop`` (a signal's
    KeyboardInterrupt, AnswerTimeout) is raised where the first line would be read, or,
    without it, the input ends there."""

    def __init__(self, stop: BaseException | None) -> None:
        super().__init__(io.StringIO(), interactive=False)
        self.stop = stop

    def _more(self, timeout: float | None) -> bytes:
        if self.stop is not None:
            raise self.stop
        return b""


_STATUS = {
    Ending.INTERRUPTED: ExitStatus.INTERRUPTED,
    Ending.TIMEOUT: ExitStatus.NO_ANSWER,
    Ending.ENDED: ExitStatus.NO_ANSWER,
}


def no_answer(
    document: Any,
    ending: Ending,
    *,
    options: RunOptions | None = None,
    why: str | None = None,
    seq: int = 1,
) -> Reply:
    """The reply of a document nobody answered in the inbox, made by the code that makes
    ``ask``'s when nobody answers here: each call is asked, showing nothing, of answer
    lines that end as the wait did (``ending``: Ctrl-C or SIGTERM / SIGHUP, the timeout of
    ``options``, or nothing more came, for the reason ``why``), in the wording of
    ``options``. So every ``--output`` prints what it prints without ``--inbox`` (for
    AskUserQuestion, its questions and each question's fate). A call that asks nothing
    (TodoWrite) or cannot be asked (an invalid call) gets the no-answer text alone."""
    given = options or RunOptions()
    stop: BaseException | None = None
    if ending is Ending.INTERRUPTED:
        stop = KeyboardInterrupt()
    elif ending is Ending.TIMEOUT:
        stop = AnswerTimeout(given.timeout or 0)
    quiet = Conversation(
        _Ended(stop),
        io.StringIO(),
        options=RunOptions(
            timeout=given.timeout,
            quiet=True,
            wording=given.wording,
            capabilities=given.capabilities,
            ended=why,
        ),
    )
    status = _STATUS[ending]
    if ending is Ending.INTERRUPTED:
        text = signals.interrupted_text({})
    else:
        text = results.no_answer_text(quiet.why(ending), {})
    try:
        envelope = detect(document, seq) if isinstance(document, dict) else None
    except UnreadableDocument:
        envelope = None
    if envelope is None or envelope.refusal is not None or not envelope.calls:
        return unanswered(document, text, status, seq)
    reply = answer_document(Document(document), quiet, seq)
    if all(result.status is status for result in reply.results):
        return reply._replace(status=status)
    done = [
        r if r.status is status else ToolResult(r.tool_use_id, text, status, is_error=True)
        for r in reply.results
    ]
    return Reply(envelope.replies(done), status, done)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGHUP and SIGTERM back for a moment; they arrive when it ends."""
    held = {signal.SIGINT, signal.SIGHUP, signal.SIGTERM}
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # not the main thread, or no sigmask here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def ask_inbox(
    store: Store,
    document: Document,
    agent: Agent,
    *,
    timeout: float | None = None,
    said: Callable[[str], None] = lambda _: None,
    locked_is_no_answer: bool = False,
    to: str | None = None,
    options: RunOptions | None = None,
) -> Reply:
    """Queue one document (addressed ``to`` a person or team; None: anyone) and wait for
    an inbox to answer it; the reply ``ask`` would have printed. ``said`` gets the lines
    the person at this end should read. An inbox locked for longer than askcli waits
    raises InboxBusy, or, ``locked_is_no_answer``, is the no-answer reply. When nobody
    answers, the reply is what ``ask`` with the asker's ``options`` (its wording) prints
    when nobody answers it here (:func:`no_answer`)."""
    given = (options or RunOptions())._replace(timeout=timeout)
    try:
        return _ask_inbox(store, document, agent, options=given, said=said, to=to)
    except InboxBusy as exc:  # no answer can come through a locked inbox
        if not locked_is_no_answer:
            raise
        said(str(exc))
        why = "the inbox is locked by another process"
        return no_answer(document.value, Ending.ENDED, options=given, why=why)


def _ask_inbox(
    store: Store,
    document: Document,
    agent: Agent,
    *,
    options: RunOptions,
    said: Callable[[str], None],
    to: str | None = None,
) -> Reply:
    timeout = options.timeout
    if document.value is None:
        reason = document.report or document.error or "the input is not a JSON object"
        said(reason)
        result = ToolResult(
            None, results.unreadable_text(reason), ExitStatus.INVALID, is_error=True
        )
        return Reply([result.block()], ExitStatus.INVALID, [result])
    if timeout is not None:  # a server out of reach is not waited on past the timeout
        store.deadline = time.monotonic() + timeout
    try:
        with _signals_held():  # queued and known, or neither: a signal comes after
            question = store.submit(document.value, agent, to=to)
    finally:
        store.deadline = None
    try:  # from here on a signal withdraws the question
        said(f"question {question.id} is waiting in the inbox {store.where}")
        found = store.wait(question.id, timeout)
    except KeyboardInterrupt:  # Ctrl-C declines; SIGHUP / SIGTERM: no answer came
        _withdraw(store, question.id, said)
        return no_answer(document.value, Ending.INTERRUPTED, options=options, seq=question.id)
    if found is None:  # --timeout: nobody answered in time
        withdrawn = _withdraw(store, question.id, said)
        if withdrawn is not False:
            why = no_reply_within(timeout) if timeout else "no reply"
            what = "was withdrawn" if withdrawn else "is withdrawn when its lease lapses"
            said(f"no answer ({why}); question {question.id} {what}")
            return no_answer(document.value, Ending.TIMEOUT, options=options, seq=question.id)
        found = store.get(question.id)  # answered just then
    if found is None or found.state is not QueueState.ANSWERED:
        why = "the question was withdrawn" if found is not None else "the question is gone"
        return no_answer(document.value, Ending.ENDED, options=options, why=why, seq=question.id)
    kept = store.take(question.id)
    if kept is None:
        why = "its answer was taken by another asker"
        return no_answer(document.value, Ending.ENDED, options=options, why=why, seq=question.id)
    return reply_from_json(kept)


def _withdraw(store: Store, question_id: int, said: Callable[[str], None]) -> bool | None:
    """Withdraw the question, trying briefly: the asker is leaving (its time is up, or a
    signal came). None when the inbox cannot be reached (said in one line): the asker's
    lease lapses once it is gone, and its question is withdrawn then."""
    store.deadline = time.monotonic()
    try:
        return store.withdraw(question_id)
    except InboxError as exc:
        said(str(exc))
        return None
    finally:
        store.deadline = None


def ask_answerer(
    timeout: float | None, to: str | None = None
) -> Callable[[Any, Conversation, int], Any]:
    """``ask --inbox``: each document is queued (addressed ``to`` a person or team) and its
    reply waited for."""
    store = open_store()
    agent = Agent("ask", None, os.getcwd(), asker_identity.tag())

    def answer(document: Any, conv: Conversation, seq: int) -> Any:
        return ask_inbox(
            store,
            document,
            agent,
            timeout=timeout,
            said=conv.error,
            locked_is_no_answer=True,
            to=to,
            options=conv.options,
        )

    return answer


def acp_asker(
    conv: Conversation, timeout: float | None, to: str | None = None
) -> Callable[[Any], Any]:
    """``acp --inbox``: each permission request or form is queued (addressed ``to`` a
    person or team) and its reply waited for (``timeout``: withdrawn when nobody answers
    in time)."""
    store = open_store()
    try:  # an inbox file askcli cannot use is said before the agent starts
        store.ids()
    finally:
        store.close()  # opened again, when asked, in the thread that asks
    agent = Agent("acp", None, os.getcwd(), asker_identity.tag())
    return lambda document: ask_inbox(
        store, document, agent, timeout=timeout, said=conv.error, to=to
    )
