"""``askcli mcp``'s queue side: :class:`QueueSide` checks a tool call, queues it in the inbox
and waits for its answer; a call still unanswered after ``wait`` seconds gets the
still-waiting result with its ticket (``get_answer`` waits again). It needs nothing of the
SDK but anyio, which the SDK brings, imported once :func:`~.server.sdk_missing` found it.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from ...errors import InboxError, UnreadableDocument
from ...inbox import asker_identity
from ...inbox.asker_side import collect
from ...inbox.store import Agent, QueuedQuestion, QueueState, Store
from ...schema.names import ASK_USER_QUESTION, TODO_WRITE
from ...tools.registry import checked
from ...wire import results
from ...wire.documents import loads_limited
from ...wire.envelopes import detect, generated_id
from ...wire.results import ToolResult

# Codex's tool_timeout_sec is 300 s by default, the TypeScript SDK's request timeout 60 s;
# Claude Code's MCP_TOOL_TIMEOUT is about 27.8 hours for a stdio server: 50 s is under all
DEFAULT_WAIT = 50.0
DEFAULT_PROGRESS = 10.0  # seconds between progress notifications while a call waits
DEFAULT_REUSE = 600.0  # seconds an answer not collected is kept for the identical call
POLL = 0.05  # seconds between looks at the queue while a call waits
LOOK = 1.0  # seconds between looks when changes are pushed (PostgreSQL), in case one was lost
MAX_CLIENT_NAME = 60
MAX_TICKET = 100

ASK = "ask_user_questions"
TODO = "todo_write"
GET = "get_answer"


class Session(NamedTuple):
    """One conversation with a client: its MCP session in this server (``token``, a
    secret of this process) and its number here (shown beside the client's name over
    HTTP, where one server has many). ``alone``: a call of a stateless client (MCP
    2026-07-28) that named no conversation: a conversation of its own, whose question
    the identical call never finds again."""

    token: str = "stdio"
    number: int = 1
    alone: bool = False


STDIO = Session()  # the one conversation of a server on stdio


class UnknownTool(LookupError):
    """A ``tools/call`` of a tool this server does not have (its name is the message)."""


class ToolOutcome(NamedTuple):
    """A tool call's result for the model: its text, whether it is an error, and the
    ticket of a question that still waits (None once it is settled)."""

    text: str
    is_error: bool = False
    ticket: str | None = None


Progress = Callable[[float, str], Awaitable[None]]


def still_waiting_text(ticket: str, *, again: bool = True) -> str:
    """What the model is told when the person has not answered within ``--wait``
    (``again``: the identical call finds the question again, in a conversation)."""
    call = json.dumps({"ticket": ticket})
    text = (
        "The user has not answered yet: the question is still waiting in their askcli "
        f"inbox (ticket {ticket}). To wait for the answer, call the {GET} tool with {call}; "
        "do not ask the question again in other words."
    )
    if again:
        text += (
            " Asking the identical question again in this conversation also returns its "
            "answer once the user has given it."
        )
    return text


def client_label(name: Any, *, http: bool = False) -> str:
    """The agent's name in the inbox, from the client's ``clientInfo.name``: one short
    line (the inbox escapes what it shows; this keeps the queue's label bounded). An HTTP
    client's name is quoted after ``http client``: whoever holds the token names itself,
    and must not pass for a hook (``claude ~/api``) or a local stdio agent."""
    if not isinstance(name, str) or not name.strip():
        return "http client" if http else "mcp"
    label = " ".join(name.split())
    if len(label) > MAX_CLIENT_NAME:
        label = label[: MAX_CLIENT_NAME - 1] + "…"
    return f"http client {json.dumps(label, ensure_ascii=False)}" if http else label


class QueueSide:
    """The queue side of the server: checks a call, queues it, waits for its answer.

    ``session`` and ``cwd`` label the agent with the client's name (``session``: the
    agent's session, as the inbox keeps its todo list); ``http``: the client came over
    HTTP, and its label says so. A question is this server's, in the conversation
    (:class:`Session`) that asked it: only there does the identical call find it again
    (for ``reuse_for`` seconds once answered) and its ticket work. ``say``
    gets the lines for the server's log (stderr). Questions are addressed ``to`` a person
    or team (None: anyone).
    """

    def __init__(
        self,
        store: Store,
        *,
        wait: float = DEFAULT_WAIT,
        every: float = DEFAULT_PROGRESS,
        session: str | None = None,
        cwd: str | None = None,
        reuse_for: float = DEFAULT_REUSE,
        http: bool = False,
        say: Callable[[str], None] = lambda _: None,
        to: str | None = None,
    ) -> None:
        self.store = store
        self.to = to
        self.reuse_for = reuse_for
        self.http = http
        self.wait = wait
        self.every = every
        self.session = session
        self.cwd = cwd
        self.say = say
        self.mine: set[int] = set()  # questions this server queued that still wait
        self.of: dict[str, set[int]] = {}  # the questions of each conversation (its token)

    def agent(self, client: Any, session: Session = STDIO) -> Agent:
        """The asker as the inbox shows it: the client (over HTTP, said so), the folder,
        and this server's pid (with the conversation's number over HTTP), which tell two
        agents of one folder apart."""
        tag = asker_identity.tag()
        if self.http:
            tag += f", {'call' if session.alone else 'conversation'} {session.number}"
        return Agent(client_label(client, http=self.http), self.session, self.cwd, tag)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        client: Any,
        progress: Progress,
        session: Session = STDIO,
    ) -> ToolOutcome:
        """Answer one ``tools/call`` of ``session``."""
        if name == GET:
            return await self.get_answer(arguments, progress, session)
        question = self.queue(name, arguments, client, session)
        if isinstance(question, ToolOutcome):
            return question
        try:
            return await self._wait(question, progress, again=not session.alone)
        except BaseException:
            # a call of no conversation that ends before its client has the ticket: nobody
            # can ever collect its answer, so it is withdrawn (said in the inbox)
            with contextlib.suppress(InboxError):
                if session.alone and self.store.withdraw(question.id):
                    self.mine.discard(question.id)
                    self.say(f"question {question.id} was withdrawn: its call ended unanswered")
            raise

    def queue(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        client: Any,
        session: Session = STDIO,
        *,
        task: str | None = None,
    ) -> QueuedQuestion | ToolOutcome:
        """Check one call of :data:`ASK` or :data:`TODO` of ``session`` and queue it: the
        question (waiting, or found answered already), or the error result. ``task``: the
        call is a task of that conversation (:data:`~askcli.inbox.store.kept.TASK`...),
        which outlives this server (it is not withdrawn when the server or the MCP session
        ends)."""
        tool = {ASK: ASK_USER_QUESTION, TODO: TODO_WRITE}.get(name)
        if tool is None:
            raise UnknownTool(name)
        checked = self._check(tool, arguments)
        if isinstance(checked, ToolOutcome):
            return checked
        question = self.store.submit(
            checked,
            self.agent(client, session),
            conversation=task or session.token,
            reuse_for=0.0 if session.alone else self.reuse_for,
            to=self.to,
        )
        if question.state in (QueueState.WAITING, QueueState.ANSWERING):
            if task is None:
                self.mine.add(question.id)
            if task is None and not session.alone:
                self.of.setdefault(session.token, set()).add(question.id)
            self.say(f"question {question.id} ({question.ticket}) waits in the inbox")
        else:
            self.say(f"question {question.id} was answered already: its answer goes back")
        return question

    def end(self, session: Session) -> list[int]:
        """A conversation ended (its MCP session was closed, or ended): its questions
        that still wait are withdrawn (an answered one stays answered)."""
        mine = self.of.pop(session.token, set())
        gone = [qid for qid in sorted(mine) if qid in self.mine and self.store.withdraw(qid)]
        self.mine.difference_update(mine)
        return gone

    async def get_answer(
        self, arguments: Mapping[str, Any] | None, progress: Progress, session: Session
    ) -> ToolOutcome:
        ticket = (arguments or {}).get("ticket")
        if not isinstance(ticket, str) or not ticket or len(ticket) > MAX_TICKET:
            text = 'InputValidationError: "ticket" must be the ticket a result named (q_...)'
            return ToolOutcome(f"<tool_use_error>{text}</tool_use_error>", True)
        question = self.store.by_ticket(ticket, session.token)
        if question is None:  # unknown, or asked in another conversation: the same words
            return ToolOutcome(
                f"No question this conversation asked in the user's askcli inbox has the "
                f"ticket {ticket}.",
                True,
            )
        return await self._wait(question, progress, again=not session.alone)

    def _check(
        self, tool: str, arguments: Mapping[str, Any] | None
    ) -> dict[str, Any] | ToolOutcome:
        """The call as the queue keeps it (a ``tool_use`` block whose id is made from its
        input, so that the identical call is the same document), or the error result."""
        try:
            text = json.dumps(arguments or {}, ensure_ascii=False, allow_nan=False)
            text.encode("utf-8")
            data = loads_limited(text)
        except (ValueError, RecursionError, UnicodeError) as exc:
            reason = f"the {tool} input {exc}" if isinstance(exc, ValueError) else "bad text"
            self.say(reason)
            return ToolOutcome(results.unreadable_text(reason), True)
        block = {"type": "tool_use", "id": generated_id(data, 1), "name": tool, "input": data}
        try:
            call = detect(block).calls[0]
        except (LookupError, UnreadableDocument) as error:
            self.say(str(error))
            return ToolOutcome(results.unreadable_text(str(error)), True)
        found = checked(call, self.say)
        if isinstance(found, ToolResult):
            return ToolOutcome(found.content, True)
        return block

    async def _wait(
        self, question: QueuedQuestion, progress: Progress, *, again: bool = True
    ) -> ToolOutcome:
        """Wait up to ``wait`` seconds for ``question`` to be settled, with progress; the
        still-waiting result when it is not."""
        done, found = await self.settling(question, progress, "the question", self.wait)
        if done:
            self.mine.discard(question.id)
            return self.settled(found)
        self.say(f"question {question.id} still waits: the client gets its ticket")
        text = still_waiting_text(question.ticket, again=again)
        return ToolOutcome(text, False, question.ticket)

    async def settling(
        self, question: QueuedQuestion, progress: Progress, what: str, wait: float | None
    ) -> tuple[bool, QueuedQuestion | None]:
        """Wait up to ``wait`` seconds (None: however long) for ``question`` to be settled,
        telling ``progress`` every ``every`` seconds that ``what`` waits. Whether it was
        settled, and the question as it then is (None: gone)."""
        start = told = time.monotonic()
        deadline = None if wait is None else start + wait
        changes = self.store.changes(question.id)
        state: QueueState | None = None
        looked = -LOOK
        while True:  # looked at when a change is pushed (else each time), and every LOOK s
            if changes.pending() or time.monotonic() - looked >= LOOK:
                state = self.store.state(question.id)  # the call itself is not read again
                looked = time.monotonic()
            if state not in (QueueState.WAITING, QueueState.ANSWERING):
                return True, self.store.get(question.id) if state is not None else None
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return False, question
            if self.every > 0 and now - told >= self.every:
                told = now
                being = "is being answered" if state is QueueState.ANSWERING else "waits"
                await progress(round(now - start, 1), f"{what} {being} in the askcli inbox")
            await _sleep(POLL if deadline is None else min(POLL, deadline - now))

    def settled(self, found: QueuedQuestion | None) -> ToolOutcome:
        """The result of a question no longer waiting (None: gone), collected as ``ask
        --inbox`` collects it; a reply taken already (an earlier call of this ticket) is
        given again."""
        try:
            reply = collect(self.store, found, again=True)
        except UnreadableDocument as exc:
            return ToolOutcome(results.no_answer_text(str(exc), {}), True)
        if isinstance(reply, str):
            return ToolOutcome(results.no_answer_text(reply, {}), True)
        if not reply.results:
            return ToolOutcome(results.no_answer_text("the inbox gave no result", {}), True)
        first = reply.results[0]
        assert found is not None
        self.say(f"question {found.id} answered")
        return ToolOutcome(first.content, first.is_error)

    def withdraw_mine(self) -> list[int]:
        """The server ends: the questions it queued that still wait are withdrawn (an
        answered one stays answered; no later conversation is given it)."""
        gone = [qid for qid in sorted(self.mine) if self.store.withdraw(qid)]
        self.mine.clear()
        self.of.clear()
        return gone


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)
