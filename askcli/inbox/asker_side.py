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
from typing import Any, ClassVar, NamedTuple

from ..errors import AnswerTimeout, InboxBusy, InboxError, QuestionDeferred, UnreadableDocument
from ..lines import TextLineReader
from ..questions.outcome import Outcome
from ..runners.session import Reply, answer_document
from ..status import ExitStatus
from ..terminal import signals
from ..terminal.conversation import Conversation, no_reply_within
from ..terminal.options import RunOptions
from ..wire import results
from ..wire.documents import Document
from ..wire.envelopes import detect
from ..wire.results import ToolResult
from . import asker_identity, same_call
from .store import Agent, QueuedQuestion, QueueState, Store, deferred, open_store


class Deferral(NamedTuple):
    """Give up waiting after ``after`` seconds and leave the question in the queue, deferred
    under ``key``, for the asker that comes back with ``key`` (Claude Code's ``defer``);
    ``after`` None: only take back the question deferred under ``key``, never defer."""

    key: str
    after: float | None


def reply_to_json(reply: Reply) -> dict[str, Any]:
    """A reply as the queue keeps it."""
    return {
        "replies": reply.replies,
        "status": int(reply.status),
        "results": [_result_to_json(r) for r in reply.results],
    }


def _result_to_json(result: ToolResult) -> dict[str, Any]:
    """A result as the queue keeps it: its outcome as its exit status, the number askcli
    has always kept (an inbox and its askers may run different versions)."""
    out = {"status" if k == "outcome" else k: v for k, v in result._asdict().items()}
    out["status"] = int(result.status)
    if not result.taken:  # kept only when set, so that an older asker reads the rest
        del out["taken"]
    for key in ("data", "updated_input", "reply"):
        if out[key] is not None:
            out[key] = dict(out[key])
    if out["updated_permissions"] is not None:
        out["updated_permissions"] = list(out["updated_permissions"])
    return out


def reply_from_json(kept: Any) -> Reply:
    """A reply as the queue kept it; UnreadableDocument for anything else."""
    try:
        found = [_result_from_json(r) for r in kept.get("results", [])]
        return Reply(list(kept["replies"]), ExitStatus(kept["status"]), found)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise UnreadableDocument(f"the inbox kept a reply askcli cannot read ({exc})") from None


def _result_from_json(kept: dict[str, Any]) -> ToolResult:
    """A result as the queue kept it: the outcome is the first of its exit status
    (:meth:`Outcome.of_status`)."""
    fields = {k: v for k, v in kept.items() if k != "status"}
    return ToolResult(**fields, outcome=Outcome.of_status(ExitStatus(kept["status"])))


def unanswered(document: Any, text: str, outcome: Outcome, seq: int = 1) -> Reply:
    """The reply of a document nobody answered: each call gets ``text`` alone."""
    status = outcome.status
    try:
        envelope = detect(document, seq) if isinstance(document, dict) else None
    except UnreadableDocument:
        envelope = None
    if envelope is None or envelope.refusal is not None:
        result = ToolResult(None, text, outcome, is_error=True)
        return Reply([result.block()], status, [result])
    done = [ToolResult(call.id, text, outcome, is_error=True) for call in envelope.calls]
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


def no_answer(
    document: Any,
    outcome: Outcome,
    *,
    options: RunOptions | None = None,
    why: str | None = None,
    seq: int = 1,
) -> Reply:
    """The reply of a document nobody answered in the inbox, made by the code that makes
    ``ask``'s when nobody answers here: each call is asked, showing nothing, of answer
    lines that end as the wait did (``outcome``: Ctrl-C or SIGTERM / SIGHUP, the timeout of
    ``options``, or nothing more came, for the reason ``why``), in the wording of
    ``options``. So every ``--output`` prints what it prints without ``--inbox`` (for
    AskUserQuestion, its questions and each question's fate). A call that asks nothing
    (TodoWrite) or cannot be asked (an invalid call) gets the no-answer text alone."""
    given = options or RunOptions()
    stop: BaseException | None = None
    if outcome.status is ExitStatus.INTERRUPTED:
        stop = KeyboardInterrupt()
    elif outcome is Outcome.TIMED_OUT:
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
    status = outcome.status
    if status is ExitStatus.INTERRUPTED:
        text = signals.interrupted_text({})
    else:
        text = results.no_answer_text(quiet.why(outcome), {})
    try:
        envelope = detect(document, seq) if isinstance(document, dict) else None
    except UnreadableDocument:
        envelope = None
    if envelope is None or envelope.refusal is not None or not envelope.calls:
        return unanswered(document, text, outcome, seq)
    reply = answer_document(Document(document), quiet, seq)
    if all(result.status is status for result in reply.results):
        return reply._replace(status=status)
    done = [
        r if r.status is status else ToolResult(r.tool_use_id, text, outcome, is_error=True)
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
    defer: Deferral | None = None,
    one_call: bool = False,
) -> Reply:
    """Queue one document (addressed ``to`` a person or team; None: anyone) and wait for
    an inbox to answer it; the reply ``ask`` would have printed. ``said`` gets the lines
    the person at this end should read. An inbox locked for longer than askcli waits
    raises InboxBusy, or, ``locked_is_no_answer``, is the no-answer reply. When nobody
    answers, the reply is what ``ask`` with the asker's ``options`` (its wording) prints
    when nobody answers it here (:func:`no_answer`). With ``defer``, the question deferred
    under its key is taken back instead of queueing another, and one unanswered after its
    time is deferred (QuestionDeferred). ``one_call``: a Claude Code permission prompt that
    another asker queued already is waited for, not asked again (:mod:`.same_call`)."""
    given = (options or RunOptions())._replace(timeout=timeout)
    joins = same_call.joins_for(document.value) if one_call else None
    try:
        return _ask_inbox(
            store, document, agent, options=given, said=said, to=to, defer=defer, joins=joins
        )
    except InboxBusy as exc:  # no answer can come through a locked inbox
        if not locked_is_no_answer:
            raise
        said(str(exc))
        why = "the inbox is locked by another process"
        return no_answer(document.value, Outcome.ENDED, options=given, why=why)


def _ask_inbox(
    store: Store,
    document: Document,
    agent: Agent,
    *,
    options: RunOptions,
    said: Callable[[str], None],
    to: str | None = None,
    defer: Deferral | None = None,
    joins: Callable[[QueuedQuestion], bool] | None = None,
) -> Reply:
    timeout = options.timeout
    if document.value is None:
        reason = document.report or document.error or "the input is not a JSON object"
        said(reason)
        result = ToolResult(None, results.unreadable_text(reason), Outcome.INVALID, is_error=True)
        return Reply([result.block()], ExitStatus.INVALID, [result])
    queued = _queue(
        store, document, agent, options=options, said=said, to=to, defer=defer, joins=joins
    )
    if isinstance(queued, Reply):
        return queued
    question = queued
    after = defer.after if defer is not None else None
    if after is not None and timeout is not None and after >= timeout:
        after = None  # --timeout comes first
    try:  # from here on a signal withdraws the question
        if question.state is not QueueState.ANSWERED:
            said(f"question {question.id} is waiting in the inbox {store.where}")
        found = store.wait(question.id, timeout if after is None else after)
        if found is None and defer is not None and after is not None:
            with _signals_held():
                if deferred.defer(store, question.id, defer.key):
                    raise QuestionDeferred(question.id)
            found = store.get(question.id)  # withdrawn or answered just then
    except KeyboardInterrupt:  # Ctrl-C declines; SIGHUP / SIGTERM: no answer came
        _withdraw(store, question.id, said)
        ended = signals.interruption()
        return no_answer(document.value, ended, options=options, seq=question.id)
    if found is None:  # --timeout: nobody answered in time
        withdrawn = _withdraw(store, question.id, said)
        if withdrawn is not False:
            why = no_reply_within(timeout) if timeout else "no reply"
            what = "was withdrawn" if withdrawn else "is withdrawn when its lease lapses"
            said(f"no answer ({why}); question {question.id} {what}")
            return no_answer(document.value, Outcome.TIMED_OUT, options=options, seq=question.id)
        found = store.get(question.id)  # answered just then
    got = collect(store, found)
    if isinstance(got, str):
        return no_answer(document.value, Outcome.ENDED, options=options, why=got, seq=question.id)
    return got


def _queue(
    store: Store,
    document: Document,
    agent: Agent,
    *,
    options: RunOptions,
    said: Callable[[str], None],
    to: str | None,
    defer: Deferral | None,
    joins: Callable[[QueuedQuestion], bool] | None,
) -> QueuedQuestion | Reply:
    """The question of ``document``: queued, or the one deferred under ``defer``'s key taken
    back. With ``joins``, another asker's question of the same call (:mod:`.same_call`) is
    waited for instead, and its reply is returned (asked anew when its asker withdraws it)."""
    timeout = options.timeout
    while True:
        if timeout is not None:  # a server out of reach is not waited on past the timeout
            store.deadline = time.monotonic() + timeout
        try:
            with _signals_held():  # queued and known, or neither: a signal comes after
                adopted = deferred.adopt(store, defer.key) if defer is not None else None
                question = adopted or store.submit(document.value, agent, to=to, joins=joins)
                if adopted is not None and adopted.state is QueueState.ANSWERED:
                    said(f"question {question.id}, deferred, was answered meanwhile")
        finally:
            store.deadline = None
        if adopted is not None or joins is None or same_call.is_mine(question):
            return question
        said(f"question {question.id}, queued by another asker of this call, is waited for")
        try:
            joined = store.wait(question.id, timeout)
        except KeyboardInterrupt:  # the other asker's question stays for it
            return no_answer(document.value, signals.interruption(), options=options)
        if joined is None:
            return no_answer(document.value, Outcome.TIMED_OUT, options=options)
        reply = joined_reply(joined)
        if reply is not None:
            return reply
        said(f"question {question.id} was withdrawn by its asker: this call is asked again")


def joined_reply(found: QueuedQuestion | None) -> Reply | None:
    """The reply of another asker's question ``found`` (:mod:`.same_call`) as it is now:
    None when it is not answered (withdrawn, gone) or its answer cannot be read."""
    if found is None or found.state is not QueueState.ANSWERED or found.result is None:
        return None
    try:
        reply = reply_from_json(found.result)
    except UnreadableDocument:
        return None
    return reply if reply.results else None


GONE = "the question is gone"
WITHDRAWN = "the question was withdrawn"
TAKEN = "its answer was taken by another asker"
GIVEN_ONCE = "the answer held a secret and was given once; ask again"


def collect(store: Store, found: QueuedQuestion | None, *, again: bool = False) -> Reply | str:
    """The reply an inbox made for the question ``found`` (as the queue has it now; None:
    it is gone), taken from the queue; a str says why there is none. ``again``: a reply
    taken already (by an earlier call of the same ticket) is given again, where it is still
    kept. UnreadableDocument for a reply askcli cannot read. ``ask --inbox``, the hook and
    ``askcli mcp`` all collect their answers here."""
    if found is None:
        return GONE
    if found.state is not QueueState.ANSWERED:
        return WITHDRAWN
    kept = store.take(found.id)
    if kept is None and again:
        kept = found.result
    if kept is None:  # a secret answer is erased once it was given
        return GIVEN_ONCE if again else TAKEN
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


class InboxAsker:
    """The inbox as the asker: each document is queued in ``store`` by ``agent``
    (addressed ``to`` a person or team; None: anyone) and its reply waited for, at most
    ``timeout`` seconds (then withdrawn: the no-answer reply). ``said`` gets the lines the
    person at this end should read (default: the conversation's ``askcli:`` lines). An inbox
    locked for longer than askcli waits raises InboxBusy, or, ``locked_is_no_answer``, is
    the no-answer reply (:func:`ask_inbox`); ``defer``, see :class:`Deferral`."""

    here: ClassVar[bool] = False

    def __init__(
        self,
        store: Store,
        agent: Agent,
        *,
        timeout: float | None = None,
        to: str | None = None,
        said: Callable[[str], None] | None = None,
        locked_is_no_answer: bool = False,
        defer: Deferral | None = None,
        one_call: bool = False,
    ) -> None:
        self.one_call = one_call  # see ask_inbox
        self.store = store
        self.agent = agent
        self.timeout = timeout
        self.to = to
        self.said = said
        self.locked_is_no_answer = locked_is_no_answer
        self.defer = defer

    def ask(self, document: Document, conv: Conversation, seq: int = 1) -> Reply:
        return ask_inbox(
            self.store,
            document,
            self.agent,
            timeout=self.timeout,
            said=self.said or conv.error,
            locked_is_no_answer=self.locked_is_no_answer,
            to=self.to,
            options=conv.options,
            defer=self.defer,
            one_call=self.one_call,
        )

    def check(self) -> None:
        """Open the inbox once and close it: an inbox file askcli cannot use is said now
        (InboxError), before the agent starts; it is opened again, when asked, in the
        thread that asks."""
        try:
            self.store.ids()
        finally:
            self.store.close()

    def close(self) -> None:
        self.store.close()


def inbox_asker(
    client: str,
    *,
    timeout: float | None = None,
    to: str | None = None,
    session: str | None = None,
    tag: str | None = None,
    said: Callable[[str], None] | None = None,
    locked_is_no_answer: bool = False,
    where: str | None = None,
) -> InboxAsker:
    """The inbox ``where`` names (``--inbox-url``; None: ``$ASKCLI_INBOX``, else the
    default file) as the asker of ``client``
    (``ask``, ``claude``, ``acp``) in this folder, told apart by ``tag`` (default: this
    process's pid) and, for its todo list, by ``session``."""
    agent = Agent(client, session, os.getcwd(), tag or asker_identity.tag())
    return InboxAsker(
        open_store(where),
        agent,
        timeout=timeout,
        to=to,
        said=said,
        locked_is_no_answer=locked_is_no_answer,
    )
