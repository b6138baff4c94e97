"""The person's side of the queue: ``askcli inbox``, ``inbox list`` and ``inbox answer``.

The inbox claims the oldest waiting question, shows it in one line (``[2 waiting] #3 Which
database?  claude ~/api (pid 4242)``; two on a narrow terminal) and asks at its own prompt
what to do with it: Enter asks it with the screens and answer grammar of ``askcli ask``, a
number shows another one instead, ``l`` lists, ``q`` declines it (the agent gets exactly
what ``q`` in its screens gives). When nothing waits it waits, and says each arrival. A
thread (:mod:`.watch`) keeps the claim alive, tidies after dead askers and inboxes and wakes
the prompt; an asker that withdraws is said, even in the middle of its question, which then
stops.

Leaving (Ctrl-D at the inbox prompt, Ctrl-C, SIGHUP, SIGTERM, the answers ending in a
question) gives the question held back to the queue, where another inbox asks it again;
its typed lines are in the journal, so nothing typed is lost.

An answer is kept until the queue took it: a claim that lapsed meanwhile (the inbox was out
of reach, or stopped, for longer than a lease) is taken back quietly when no other inbox
claimed the question; a server out of reach is tried again until it is back (said after
:data:`UNREACHABLE` seconds), and the journal keeps the answer until it was sent, for the
next inbox's ``Resume?``. The person is told that another inbox has the question only when
one does.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from ...errors import InboxError
from ...escaping import visible
from ...lines import FdLineReader, TextLineReader
from ...questions.outcome import Outcome
from ...runners.session import Reply, answer_document
from ...status import ExitStatus
from ...terminal import editing, paging, signals
from ...terminal.conversation import Conversation
from ...terminal.options import RunOptions
from ...terminal.rendering import wrap
from ...wire import results
from ...wire.documents import Document
from ...wire.envelopes import Output, output_lines
from ...wire.wording.base import CLAUDE_CODE_2_1_88, Wording
from .. import asker_identity, routing
from ..asker_side import reply_to_json, unanswered
from ..store.base import QueuedQuestion, QueueState, Store, new_token
from . import audit, holding, queue_screens
from .holding import Others, OwnInbox, TakenAway, own_inboxes, yours
from .watch import ROUND, Commands, QueueChange, QueueEvent, Watch

if TYPE_CHECKING:
    from ...terminal.notify import Notice


UNREACHABLE = 30.0  # seconds an answer is tried before the person is told it waits to be sent
RETRY = 1.0  # seconds between tries of an answer the server could not take


def send(
    store: Store,
    inbox: str,
    held: QueuedQuestion,
    kept: object,
    *,
    secret: bool,
    decision: str | None,
    rules: Sequence[str] = (),
    person: str | None,
    away: Callable[[], None],
) -> bool:
    """Store ``inbox``'s answer to ``held``; False when it is not this inbox's to answer
    (withdrawn, answered, or held by another inbox). A claim that lapsed is claimed back
    when it waits again; a store out of reach is tried again until it takes the answer
    (``away`` is called once, after :data:`UNREACHABLE` seconds; Ctrl-C ends the tries)."""
    began = time.monotonic()
    told = False
    again = 0
    token = new_token()  # one for every try: a try whose acknowledgement was lost is known
    while True:
        store.deadline = time.monotonic() + ROUND
        if not told:  # the person is told on time, however long one try takes
            store.deadline = min(store.deadline, began + UNREACHABLE)
        try:
            if store.answer(
                inbox, held.id, kept, secret=secret, decision=decision, rules=rules, token=token
            ):
                return True
            found = store.get(held.id)
            if found is None or found.state is not QueueState.WAITING or again >= 2:
                return False
            again += 1  # its claim lapsed and nobody claimed it: taken back, quietly
            if store.claim(inbox, held.id, person=person) is None:
                return False
            continue
        except InboxError:
            if not told and time.monotonic() - began >= UNREACHABLE:
                told = True
                away()
        finally:
            store.deadline = None
        time.sleep(RETRY)


def inbox_id() -> str:
    """This inbox's name in the queue: host, process and start time."""
    return f"{socket.gethostname()}:{os.getpid()}:{time.time():.6f}"


def decline_reply(question: QueuedQuestion, wording: Wording = CLAUDE_CODE_2_1_88) -> Reply:
    """The reply ``q`` in the question's own screens gives (the dialect's decline, in its
    words): the call is run with the one answer line ``q``, nothing drawn, no journal."""
    quiet = Conversation(
        TextLineReader(io.StringIO("q\n"), interactive=False),
        io.StringIO(),
        options=RunOptions(quiet=True, wording=wording),
    )
    reply = answer_document(Document(question.call), quiet, question.id)
    if reply.status is ExitStatus.DECLINED:
        return reply
    return unanswered(question.call, results.REJECT_MESSAGE, Outcome.DECLINED)


def own_question(question: QueuedQuestion) -> str | None:
    """Why ``question`` may not be answered from here: its asking agent is a process this
    one runs under (an agent answering its own question); None otherwise."""
    if not asker_identity.runs_under(question.asker_pid, question.asker_start):
        return None
    return (
        f"question #{question.id} was asked by {queue_screens.label(question)}, which this command"
        " runs under: an agent does not answer its own question"
    )


class AskerWithdrew(Exception):
    """The question being answered was withdrawn by its asker (raised in the middle of
    reading an answer line)."""

    def __init__(self, question: QueuedQuestion) -> None:
        super().__init__(f"question {question.id} was withdrawn")
        self.question = question


class _Wake(Exception):
    """Something to tell the person at the inbox prompt: the prompt is left and shown again."""


def not_waiting(store: Store, question_id: int, person: str | None = None, inbox: str = "") -> str:
    """Why question ``question_id`` cannot be claimed (by ``person``, at ``inbox``): ``is
    being answered in another inbox``, ``is held by your other inbox (pid 1234, since
    14:02)``, ``was withdrawn by its asker``, ``does not exist``, ``is for bob, not for
    alice``."""
    found = store.get(question_id)
    if found is None:
        return f"there is no question #{question_id}"
    teams = store.teams.all() if found.to is not None else {}
    if person is not None and not routing.may_answer(found, person, teams):
        return routing.not_for(found, person, teams)
    other = holding.other_inbox(found, own_inboxes(store), inbox)
    if other is not None:
        return f"question #{question_id} is held by {visible(holding.held_by(found, other))}"
    holder = f"by {visible(found.holder)} " if found.holder else ""
    why = {
        QueueState.ANSWERING: f"is being answered {holder}in another inbox",
        QueueState.ANSWERED: "is answered already",
        QueueState.WITHDRAWN: "was withdrawn by its asker",
    }.get(found.state, "is not waiting")
    return f"question #{question_id} {why}"


def say_wrapped(conv: Conversation, text: str, *, warn: bool = False) -> None:
    """``text`` (escaped already) in lines wrapped at spaces to the terminal's width, from
    the start of a line (a prompt left open is ended first)."""
    if conv.open_line:
        conv.say("\n")
    for row in wrap(text, conv.style.width, rest=queue_screens.INDENT):
        conv.say((conv.style.warn(row) if warn else row) + "\n")


def error(conv: Conversation, message: str) -> None:
    """``askcli: message`` (escaped), wrapped at spaces to the terminal's width."""
    say_wrapped(conv, f"askcli: {visible(message)}")


def _number(word: str) -> int | None:
    word = word.removeprefix("#")
    return int(word) if word.isascii() and word.isdigit() and len(word) < 19 else None


class Inbox:
    """One ``askcli inbox`` session on ``store``, talking through ``conv``. ``notice``
    (``--notify``) is written when a question arrives; ``command`` (``--notify-command``) is
    run for each arrival, in ``env`` (None: the inbox's). ``person`` is who answers here: the
    inbox sees the questions for anyone, for them and for their teams (None: every question).
    :meth:`run` returns the exit status."""

    def __init__(
        self,
        store: Store,
        conv: Conversation,
        *,
        notice: Notice | None = None,
        command: str | None = None,
        period: float | None = None,
        person: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.store = store
        self.person = person
        self.conv = conv
        self.notice = notice
        self.id = inbox_id()
        self.current: QueuedQuestion | None = None
        self.asking = False  # in a question's screens (not at the inbox prompt)
        self.pending: list[QueueEvent] = []
        self.commands = Commands(command, self._problem, env=env) if command else None
        kwargs = {} if period is None else {"period": period}
        self.watch = Watch(store, self.id, on_arrival=self.commands, person=person, **kwargs)
        self._idle_said = False
        self._offered: int | None = None  # the question the last offer prompt was for
        self._own: set[int] = set()  # questions of agents this inbox runs under: never taken
        self._unsent: tuple[int, bool] | None = None  # an answer being sent (journal kept)
        self.others = Others(store, self.id, person)  # the person's other inboxes

    # -- the watch, seen from the main thread ----------------------------------------

    def _problem(self, text: str) -> None:  # from a --notify-command thread
        self.watch.put(QueueEvent(QueueChange.PROBLEM, text=text))

    def _collect(self) -> None:
        events = self.watch.events()
        if self.notice is not None and any(e.kind is QueueChange.ARRIVED for e in events):
            self.conv.attention(self.notice)  # --notify
        self.pending += events

    def _ready(self) -> bool:
        """Called while a line is awaited and the watch has news."""
        self._collect()
        held = self.current
        if self.asking:
            for event in self.pending:
                gone = (
                    event.question
                    if event.kind in (QueueChange.WITHDRAWN, QueueChange.TAKEN)
                    else None
                )
                if gone is not None and held is not None and gone.id == held.id:
                    self.pending.remove(event)
                    if event.kind is QueueChange.TAKEN:
                        raise TakenAway(gone)
                    raise AskerWithdrew(gone)
            return True
        if any(self._news(e) for e in self.pending):
            raise _Wake
        return True

    def _news(self, event: QueueEvent) -> bool:
        if event.kind is QueueChange.RETURNED:  # wakes an inbox that has nothing to show
            return self.current is None and event.question is not None
        if event.kind is QueueChange.TAKEN:  # of the question shown (not one sent from here)
            return event.question is not None and self._holds(event.question)
        if event.kind is QueueChange.MOVED:  # the offer to take one over is out of date
            return self.current is None
        return True

    def _tell(self) -> None:
        """Say what happened since the last look, one line each."""
        self._collect()
        events, self.pending = self.pending, []
        for event in events:
            question = event.question
            if event.kind is QueueChange.PROBLEM:
                self._say_line(self._folded(f"askcli: {visible(event.text)}"))
            elif question is None:
                continue
            elif event.kind is QueueChange.ARRIVED:
                if self.current is None or question.id != self.current.id:
                    self._say_line(queue_screens.arrival(question, self.conv.style, self._teams()))
            elif event.kind is QueueChange.WITHDRAWN:
                if not self._mine(question):
                    continue  # never this person's to answer: nothing to say
                self._say_line(queue_screens.withdrew(question, self.conv.style))
                if self.current is not None and self.current.id == question.id:
                    self.current = None
            elif event.kind is QueueChange.TAKEN and self._holds(question):
                self._taken(question)

    def _taken(self, question: QueuedQuestion, typed: str | None = None) -> None:
        """Say that ``question``, held here, is another inbox's now, and let it go (it is
        not offered back from there); ``typed``: the line being typed was kept."""
        self.current = None
        self.watch.current = None
        why = self.others.taken(question) or not_waiting(self.store, question.id, self.person)
        kept = (
            " (the line you were typing is kept: Up at a question brings it back)" if typed else ""
        )
        if self.conv.open_line:
            self.conv.say("\n")
        error(self.conv, f"{why}; nothing was sent from here{kept}")
        self._idle_said = False

    def _holds(self, question: QueuedQuestion) -> bool:
        return self.current is not None and self.current.id == question.id

    def _mine(self, question: QueuedQuestion) -> bool:
        """Whether this inbox's person may answer ``question`` (or holds it)."""
        if self.person is None or question.to is None:
            return True
        if self.current is not None and self.current.id == question.id:
            return True
        return routing.may_answer(question, self.person, self._teams())

    def _teams(self) -> queue_screens.Teams:
        """The teams, as a line saying who a question is for needs them."""
        return self.store.teams.all()

    def _folded(self, text: str) -> str:
        """``text`` (escaped) wrapped at spaces to the terminal's width."""
        return "\n".join(wrap(text, self.conv.style.width, rest=queue_screens.INDENT))

    def _say_line(self, text: str) -> None:
        if self.conv.open_line:
            self.conv.say("\n")
        self.conv.say(text + "\n")
        self._idle_said = False

    # -- the session -----------------------------------------------------------------

    def run(self) -> int:
        reader = self.conv.reader
        watching = isinstance(reader, FdLineReader)
        refused = self.store.refusal()
        if refused is not None:  # an agent's role: it asks, it never answers
            error(self.conv, refused)
            return ExitStatus.INVALID
        try:
            self.store.heartbeat(self.id, self.person)
            # before the watch's first look: questions of askers that died meanwhile are
            # said once, and claims of dead inboxes wait again for this one
            self.pending += [QueueEvent(QueueChange.WITHDRAWN, q) for q in self.store.tidy()]
            self.watch.start()
            if watching:
                assert isinstance(reader, FdLineReader)
                reader.watch(self.watch.fd, self._ready)
            return self._loop()
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP at the inbox prompt
            if self.conv.open_line:
                self.conv.say("\n")
            self._left(signals.stop_notice())
            return signals.exit_status(ExitStatus.INTERRUPTED)
        finally:
            if watching:
                assert isinstance(reader, FdLineReader)
                reader.watch(None)
            self.watch.stop()
            if self.commands is not None:
                self.commands.close()
            self.store.deadline = time.monotonic()  # a server out of reach: tried briefly
            with contextlib.suppress(InboxError):
                self.store.leave(self.id)

    def _left(self, why: str) -> None:
        held = self.current
        if self._unsent is not None:
            unsent, journal = self._unsent
            kept = " (kept for Resume)" if journal else ""
            error(self.conv, f"{why}; your answer to #{unsent} was not sent{kept}")
        elif held is not None:
            error(self.conv, f"{why}; #{held.id} waits again for an inbox")
        else:
            error(self.conv, why)

    def _loop(self) -> int:
        while True:
            self._tell()
            if self.current is None:
                self.current = self._claim(None)
                self.watch.current = None if self.current is None else self.current.id
            held = self.current
            if held is not None and queue_screens.asks_nothing(held.call):
                status = self._answer(held)  # a todo list: shown, accepted at once
                if status is not None:
                    return status
                continue
            try:
                status = self._idle() if held is None else self._offer(held)
            except _Wake:
                continue
            if status is not None:
                return status

    def _claim(self, number: int | None) -> QueuedQuestion | None:
        """Claim the oldest question (or ``number``) for this inbox, never one of an agent
        this inbox runs under: that one is given back, said once, and passed from then on."""
        while True:
            held = self.store.claim(self.id, number, person=self.person, skip=self._own)
            why = None if held is None else own_question(held)
            if held is None or why is None:
                return held
            self.store.release(self.id, held.id)
            self._own.add(held.id)
            say_wrapped(self.conv, f"! {visible(why)}", warn=True)
            if number is not None:
                return None

    def _read(self, prompt: str, *, fresh: bool = True) -> str | None:
        self.asking = False
        return self.conv.read_answer(
            self.conv.style.strong(prompt), command=False, fresh=fresh, history=editing.INBOX
        )

    def _idle(self) -> int | None:
        elsewhere = self._held_elsewhere()
        if elsewhere is not None:
            return self._offer_takeover(*elsewhere)
        if not self._idle_said:
            say_wrapped(self.conv, "(nothing waits in the inbox)")
            self._idle_said = True
        # waiting with nothing shown: what is typed here is for this prompt (q, l), kept
        # across arrivals' lines; a question that arrives drops it (its prompt is fresh)
        line = self._read(queue_screens.prompt(None, self.conv.style.width), fresh=False)
        if line is None:
            self._left("left the inbox")
            return ExitStatus.OK
        self._command(line.strip(), None)
        return None

    def _held_elsewhere(self) -> tuple[QueuedQuestion, OwnInbox] | None:
        """The oldest question to offer to take over from the person's other inbox."""
        for question, other in self.others.to_offer():
            if question.id in self._own or own_question(question) is not None:
                self._own.add(question.id)  # an agent's this inbox runs under: never offered
                continue
            return question, other
        return None

    def _offer_takeover(self, question: QueuedQuestion, other: OwnInbox) -> int | None:
        """Offer to take ``question`` over from ``other``: ``y`` takes it, Enter (or ``n``)
        leaves it there, anything else is an inbox prompt's word (and the offer comes again)."""
        teams = self._teams() if question.to is not None else queue_screens.NO_TEAMS
        self.conv.say(holding.offer_text(question, other, self.conv.style, teams) + "\n")
        self.watch.offered = question.id, other.id  # answered there meanwhile: it wakes
        try:
            line = self._read(holding.offer_prompt(question.id, self.conv.style.width))
        finally:
            self.watch.offered = None
        if line is None:
            self._left("left the inbox")
            return ExitStatus.OK
        word = line.strip().lower()
        if word in ("y", "yes"):
            self._take(question.id, other.id, None)
        elif word in ("", "n", "no"):
            self.others.left.add((question.id, other.id))
        else:
            self._command(word, None)
        return None

    def _take(self, number: int, holder: str, held: QueuedQuestion | None) -> None:
        """Take question ``number`` over from ``holder``, another inbox of this person's,
        instead of ``held``; said in one line when it is not that inbox's any more."""
        taken = self.others.take(number, holder)
        if taken is None:
            why = not_waiting(self.store, number, self.person, self.id)
            say_wrapped(self.conv, f"! {why}", warn=True)
            return
        if held is not None:
            self.store.release(self.id, held.id)
        self.current = taken
        self.watch.current = taken.id

    def _offer(self, held: QueuedQuestion) -> int | None:
        waiting = 1 + len(self.store.ids(person=self.person))
        teams = self._teams() if held.to is not None else queue_screens.NO_TEAMS
        if self.conv.open_line:  # the prompt it woke from (a question given back)
            self.conv.say("\n")
        self.conv.say(queue_screens.line(held, waiting, self.conv.style, teams) + "\n")
        # the offer of a question newly on screen drops what was typed before it; the same
        # offer shown again (after an arrival's or a notice's line) keeps what is typed
        fresh, self._offered = held.id != self._offered, held.id
        line = self._read(queue_screens.prompt(held, self.conv.style.width), fresh=fresh)
        if line is None:
            self._left("left the inbox")
            return ExitStatus.OK
        word = line.strip().lower()
        if word in ("", "y", "yes", "a"):
            return self._answer(held)
        if word in ("q", "quit"):
            self._decline(held)
            return None
        self._command(word, held)
        return None

    def _command(self, word: str, held: QueuedQuestion | None) -> None:
        """The words both prompts take: ``l``, ``?``, a question's number."""
        style = self.conv.style
        number = _number(word)
        taking = _number(word[1:].strip()) if word.startswith("t") else None
        if word in ("l", "list", "ls"):
            self._list(held)
        elif taking is not None:
            self._take_listed(taking, held)
        elif word in ("?", "h", "help"):
            below = 1  # the prompt, after the question's line(s) when one is shown
            if held is not None:
                below += queue_screens.line(held, 1, style).count("\n") + 1
            paging.page(self.conv, queue_screens.help_text(style.width), below)
        elif number is not None:
            self._pick(number, held)
        elif held is None and word in ("", "q", "quit", "y"):
            say_wrapped(self.conv, "Nothing to answer yet; Ctrl-D leaves the inbox.")
        else:
            what = visible(word)
            say_wrapped(self.conv, f"! {what!s} means nothing here; ? shows what does", warn=True)

    def _list(self, held: QueuedQuestion | None) -> None:
        """``l``: the questions waiting and being answered; those the person's other inboxes
        hold say which (and ``t N`` takes one over)."""
        shown = self.store.questions(states=queue_screens.STATES_SHOWN, person=self.person)
        if not shown:
            self.conv.say("  (no questions waiting)\n")
        mine = held.id if held is not None else None
        teams = self._teams()
        shown, elsewhere = self.others.listed(shown)
        for question in shown:
            line = queue_screens.list_line(question, self.conv.style, mine=mine, teams=teams)
            self.conv.say(line + "\n")
        if elsewhere:
            say_wrapped(self.conv, holding.list_hint(elsewhere))

    def _take_listed(self, number: int, held: QueuedQuestion | None) -> None:
        """``t N``: take question N over from the person's other inbox that holds it (any
        other is picked, as ``N`` picks it)."""
        other = self.others.holder(self.store.get(number))
        if other is None:
            self._pick(number, held)
        else:
            self._take(number, other.id, held)

    def _pick(self, number: int, held: QueuedQuestion | None) -> None:
        if held is not None and number == held.id:
            return
        if number in self._own:
            return
        picked = self._claim(number)
        if picked is None:
            if number in self._own:
                return
            why = not_waiting(self.store, number, self.person, self.id)
            if self.others.holder(self.store.get(number)) is not None:
                why += f"; t {number} takes it over"
            say_wrapped(self.conv, f"! {why}", warn=True)
            return
        if held is not None:
            self.store.release(self.id, held.id)
        self.current = picked
        self.watch.current = picked.id

    def _decline(self, held: QueuedQuestion) -> None:
        reply = decline_reply(held, self.conv.options.wording)
        self._deliver(held, reply, "declined", [])

    def _deliver(
        self, held: QueuedQuestion, reply: Reply, done: str, settle: list[Callable[[], None]]
    ) -> None:
        style = self.conv.style
        secret = queue_screens.has_secret(held.call)
        kept = reply_to_json(reply)
        decided = audit.decision(held.call, kept)
        journal = " (kept for Resume)" if settle else ""

        def away() -> None:
            self._say_line(
                self._folded(
                    f"askcli: the inbox server cannot be reached; your answer to #{held.id}"
                    f" is kept and is sent when it is back{journal}; Ctrl-C leaves"
                )
            )

        self._unsent = held.id, bool(settle)
        sent = send(
            self.store,
            self.id,
            held,
            kept,
            secret=secret,
            decision=decided,
            rules=audit.rules(kept),
            person=self.person,
            away=away,
        )
        self._unsent = None
        self.current = None
        self.watch.current = None
        if sent:
            for finish in settle:  # delivered: nothing left to resume
                finish()
            self.conv.say(
                queue_screens.about(held, style, f"#{held.id} {done}: sent to ", after=True)
            )
            self.conv.say("\n")
            return
        found = self.store.get(held.id)
        if found is not None and found.state is QueueState.WITHDRAWN:
            for finish in settle:  # nobody to resume it for
                finish()
            words = f" withdrew #{held.id} while you answered; your answer was not sent"
            self.conv.say(queue_screens.about(held, style, words, before="askcli: ") + "\n")
        else:
            why = not_waiting(self.store, held.id, self.person)
            error(self.conv, f"{why}; your answer was not sent{journal}")

    def _told(self, found: list[str]) -> None:
        self.conv = self.conv.with_options(self.conv.options.told(found))

    def _answer(self, held: QueuedQuestion) -> int | None:
        """Ask ``held``; an exit status when the inbox must end."""
        # asked in the asking agent's session; what a Claude Code line says it supports is
        # kept for the questions after it
        settle: list[Callable[[], None]] = []  # the journal's, once the answer is sent
        options = self.conv.options._replace(session=held.agent.session, settle=settle)
        asking = self.conv.with_options(options)
        self.asking = True
        try:
            reply = answer_document(Document(held.call), asking, held.id, told=self._told)
        except AskerWithdrew as gone:
            self.asking = False
            self.current = None
            self.watch.current = None
            words = f" withdrew #{held.id} while you answered; nothing was sent"
            self._say_line(queue_screens.about(gone.question, self.conv.style, words))
            return None
        except TakenAway as taken:
            self.asking = False
            self._taken(taken.question, editing.shelve())
            return None
        finally:
            self.asking = False
        if reply.status is ExitStatus.INTERRUPTED:
            self._left(signals.stop_notice())
            return signals.exit_status(ExitStatus.INTERRUPTED)
        if reply.status is ExitStatus.NO_ANSWER:
            self._left("the answers ended")
            return ExitStatus.NO_ANSWER
        done = {
            ExitStatus.ANSWERED: "answered",
            ExitStatus.DECLINED: "declined",
        }.get(reply.status, "refused (an invalid call)")
        self._deliver(held, reply, done, settle)
        return None


# -- inbox answer ID ---------------------------------------------------------------------


def answer_by_id(
    store: Store,
    question_id: int,
    conv: Conversation,
    out: TextIO,
    *,
    output: Output = Output.RESULT,
    person: str | None = None,
) -> int:
    """``inbox answer ID``: claim question ``question_id`` (one ``person`` may answer), ask
    it through ``conv`` (answer lines on stdin), store the reply and print it on ``out`` as
    ``ask`` would. The exit status of ``ask``; 2 when the question is not waiting (or not
    for ``person``, or is withdrawn meanwhile); after the answers ended or a signal nothing
    is printed and the question waits again."""
    refused = store.refusal()  # an agent's role asks, it never answers
    asked = store.get(question_id) if refused is None else None
    refused = refused or (own_question(asked) if asked is not None else None)
    if refused is not None:
        error(conv, refused)
        return ExitStatus.INVALID
    inbox = inbox_id()
    store.heartbeat(inbox, person)
    store.tidy()  # a question whose asker died is withdrawn, never answered into the void
    held = store.claim(inbox, question_id, person=person)
    if held is None:
        error(conv, not_waiting(store, question_id, person))
        with contextlib.suppress(InboxError):
            store.leave(inbox)
        return ExitStatus.INVALID
    watch = Watch(store, inbox, person=person)
    watch.current = held.id
    reader = conv.reader
    watching = isinstance(reader, FdLineReader)

    def ready() -> bool:
        for event in watch.events():
            gone = (
                event.question if event.kind in (QueueChange.WITHDRAWN, QueueChange.TAKEN) else None
            )
            if gone is not None and gone.id == held.id:
                raise (
                    AskerWithdrew(gone) if event.kind is QueueChange.WITHDRAWN else TakenAway(gone)
                )
        return True

    watch.start()
    try:
        if watching:
            assert isinstance(reader, FdLineReader)
            reader.watch(watch.fd, ready)
        asking = conv.with_options(conv.options._replace(session=held.agent.session))
        try:
            reply = answer_document(Document(held.call), asking, held.id)
        except (AskerWithdrew, TakenAway):
            conv.say("\n")
            why = not_waiting(store, held.id, inbox=inbox)
            error(conv, f"{why} while you answered; nothing was sent")
            return ExitStatus.INVALID
        if reply.status is ExitStatus.INTERRUPTED:
            error(conv, f"{signals.stop_notice()}; #{held.id} waits again for an inbox")
            return signals.exit_status(ExitStatus.INTERRUPTED)
        if reply.status is ExitStatus.NO_ANSWER:
            error(conv, f"the answers ended; #{held.id} waits again for an inbox")
            return ExitStatus.NO_ANSWER
        secret = queue_screens.has_secret(held.call)
        kept = reply_to_json(reply)
        decided = audit.decision(held.call, kept)
        where = store.where

        def away() -> None:
            error(
                conv,
                f"the inbox {where} cannot be reached; the answer to #{held.id} is kept and"
                " is sent when it is back; Ctrl-C leaves",
            )

        if not send(
            store,
            inbox,
            held,
            kept,
            secret=secret,
            decision=decided,
            rules=audit.rules(kept),
            person=person,
            away=away,
        ):
            error(conv, f"{not_waiting(store, held.id)}; your answer was not sent")
            return ExitStatus.INVALID
        for line in output_lines(reply.replies, reply.results, output):
            out.write(line + "\n")
        out.flush()
        return int(reply.status)
    finally:
        if watching:
            assert isinstance(reader, FdLineReader)
            reader.watch(None)
        watch.stop()
        store.deadline = time.monotonic()  # a server out of reach: tried briefly
        with contextlib.suppress(InboxError):
            store.leave(inbox)


# -- inbox list --------------------------------------------------------------------------


def list_questions(
    store: Store,
    echo: Callable[[str], None],
    *,
    as_json: bool = False,
    every: bool = False,
    width: int = 80,
    said: Callable[[str], None] = lambda _: None,
    person: str | None = None,
) -> int:
    """``inbox list``: a line per question waiting or being answered (``every``: all
    kept; two lines on a narrow terminal), oldest first; ``as_json``: one JSON object per
    line; ``person``: only those that person may answer. The questions of askers that died
    are withdrawn first. When there is none, ``said`` gets ``nothing waits in the inbox``
    (nothing is printed). Exit status 0."""
    from ...terminal.rendering import Style
    from ...wire.envelopes import json_line

    states = tuple(QueueState) if every else queue_screens.STATES_SHOWN
    style = Style(width=width)
    store.tidy()  # askers that died withdrawn, claims whose lease ran out waiting again
    now = time.time()
    found = store.questions(states=states, person=person)
    if not as_json:  # (the JSON says the holder's name, as the store keeps it)
        found = yours(store, found)
    teams = store.teams.all() if any(q.to is not None for q in found) else {}
    if not found:
        said("nothing waits in the inbox" if not every else "the inbox holds no questions")
    for question in found:
        if as_json:
            echo(json_line(queue_screens.as_json(question)))
        else:
            echo(queue_screens.list_line(question, style, now=now, teams=teams))
    return ExitStatus.OK
