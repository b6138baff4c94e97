"""``askcli acp``: a plain-line client for any Agent Client Protocol agent.

The agent runs as a child in its own process group and speaks ACP (JSON-RPC on stdio) with
askcli through the official Python SDK (``agent-client-protocol``, imported as ``acp``),
whose connection runs on an asyncio loop in a thread of its own. Everything the agent sends
(session updates, permission requests, elicitations) comes to the main thread as a plain
dict on a queue, where askcli shows it and asks the person, as ``askcli claude`` does: the
main thread is the only one that reads the answers and receives the signals.

askcli advertises only what it implements: elicitation forms and URL consent, and with
``--fs`` / ``--terminal`` text files under the session's folder and terminals
(:mod:`askcli.hosts.workspace`). Without them, file system and terminal requests stay with
the agent (they are refused if an agent sends them anyway).

Every string from the agent is untrusted: it is shown through
:func:`~askcli.escaping.visible` (a permission request whole, never shortened).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import difflib
import os
import queue
import re
import signal
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, NamedTuple, TextIO

from ..errors import AnswerTimeout, UsageError
from ..escaping import visible
from ..lines import each_line
from ..questions.conclusion import Ending
from ..schema.names import ELICITATION
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.rendering import terminal_text, wrap
from ..tools.permission import input_lines, show_whole
from ..tools.registry import check_call, run_call
from ..tools.todos import checklist
from ..wire.envelopes import ToolCall
from ..wire.results import EXIT_OUTPUT_FAILED, EXIT_STDOUT_GONE, Status, ToolResult
from . import acp_options, child
from .child import (
    MAX_LINE,
    MAX_NAMES,
    SHOWN,
    as_dict,
    as_text,
    describe_exit,
    die_with_parent,
    same_terminal,
    shorten,
)
from .workspace import Files, Refused, Terminals

INSTALL_HINT = (
    "askcli acp needs the Agent Client Protocol SDK: pip install 'askcli[acp]' "
    "(agent-client-protocol)"
)
EXIT_AGENT_FAILED = 1
EXIT_USAGE = 2
STEP = 0.1  # seconds between looks at the queue, so that signals are seen at once
CANCEL_SENT = 1.0  # seconds session/cancel has to be written before the answers after it
FAILURE_LINES = 20  # lines of a failed tool call's content shown under it
INTERRUPT = "\x03"  # a recorded answer line: Ctrl-C at that question (askcli replay)
START_TIMEOUT = 60.0  # seconds the agent has to answer initialize and session/new
END_GRACE = 2.0  # seconds the agent has to end once its input is closed
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
STATUS_WORDS = {
    "pending": "pending",
    "in_progress": "running",
    "completed": "done",
    "failed": "failed",
}
_QUESTION = re.compile(r"question_(\d+)")


def _sdk() -> Any:
    try:
        import acp
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return acp


def _dump(value: Any) -> Any:
    """A model from the SDK as the JSON it came as (aliases, no nulls)."""
    dump = getattr(value, "model_dump", None)
    if dump is None:
        return value
    return dump(by_alias=True, exclude_none=True, mode="json")


class Event(NamedTuple):
    """What the agent sent: ``kind`` is ``update``, ``permission``, ``elicitation``,
    ``refused`` (a request askcli does not serve) or ``shown`` (a line saying what askcli did
    for the agent: a file read or written, a terminal's command, output and exit); ``answer``
    takes the reply of a request,
    ``id`` numbers the requests (1, 2, ...) in the order they came."""

    kind: str
    params: dict[str, Any]
    answer: Callable[[dict[str, Any]], None] | None = None
    id: int | None = None


METHODS = {
    "update": "session/update",
    "permission": "session/request_permission",
    "elicitation": "elicitation/create",
}
KINDS = {method: kind for kind, method in METHODS.items()}
TERMINAL_REPLIES = {  # --terminal: the SDK's model of each reply
    "terminal/create": "CreateTerminalResponse",
    "terminal/output": "TerminalOutputResponse",
    "terminal/release": "ReleaseTerminalResponse",
    "terminal/wait_for_exit": "WaitForTerminalExitResponse",
    "terminal/kill": "KillTerminalResponse",
}


class AgentLink:
    """The agent as a child process, and the SDK's connection to it on a loop thread.

    ``call(method, params)`` sends an ACP request (``initialize``, ``session/new``,
    ``session/prompt``, ``session/cancel``, its params as JSON) through the SDK's
    ``ClientSideConnection`` and returns a concurrent future of the result; what the agent
    sends arrives on ``events``. ``close()`` ends the
    agent (its input closed, then SIGTERM and SIGKILL to its process group) on every path.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        on_stderr: Callable[[str, int], None] | None = None,
        cwd: str | None = None,
        fs: bool = False,
        terminal: bool = False,
    ) -> None:
        self.acp = _sdk()
        self.command = list(command)
        self.cwd = cwd
        root = cwd if cwd is not None else os.getcwd()
        self.files = Files(root) if fs else None
        self.terminals = Terminals(root, self.show) if terminal else None
        self.on_stderr = on_stderr
        self.events: queue.Queue[Event] = queue.Queue()
        self.loop = asyncio.new_event_loop()
        self.conn: Any = None
        self.proc: Any = None
        self.pgid: int | None = None
        self.started = threading.Event()
        self.start_error: BaseException | None = None
        self.stop: asyncio.Event | None = None
        self.exit_code: int | None = None
        self.requests = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.started.wait()
        if self.start_error is not None:
            raise UsageError(f"cannot start the agent: {self.start_error}")

    # --- the loop thread ---------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(self._main())
        self.started.set()

    async def _main(self) -> None:
        self.stop = asyncio.Event()
        read_fd, write_fd = os.pipe()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=write_fd,
                cwd=self.cwd,
                start_new_session=True,
                limit=MAX_LINE,
                preexec_fn=die_with_parent(),
            )
        except (OSError, ValueError) as exc:
            os.close(read_fd)
            self.start_error = exc
            return
        finally:
            os.close(write_fd)
        self.pgid = self.proc.pid
        threading.Thread(target=self._pump_stderr, args=(read_fd,), daemon=True).start()
        self.conn = self.acp.ClientSideConnection(
            _Client(self), self.proc.stdin, self.proc.stdout, use_unstable_protocol=True
        )
        self.started.set()
        await self.stop.wait()
        await self._shutdown()

    async def _shutdown(self) -> None:
        if self.terminals is not None:
            with contextlib.suppress(Exception):
                await self.terminals.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        proc = self.proc
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), self.grace)
        if proc.returncode is None:
            self._signal_group(signal.SIGTERM)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), TERM_GRACE)
        if proc.returncode is None:
            self._signal_group(signal.SIGKILL)
            await proc.wait()
            self.exit_code = None
        else:
            self.exit_code = proc.returncode
        self._signal_group(signal.SIGKILL)  # what it started in its group, if anything

    grace = END_GRACE

    def _signal_group(self, sig: int) -> None:
        if self.pgid is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.pgid, sig)

    def _pump_stderr(self, fd: int) -> None:
        """Read the agent's stderr in bounded lines, handing each to ``on_stderr``."""
        with open(fd, "rb") as stream:
            each_line(stream, self.on_stderr or (lambda _text, _more: None), SHOWN * 4)

    def show(self, text: str) -> None:
        """A line for the person about what askcli did for the agent (printed, escaped, by
        the main thread)."""
        self.events.put(Event("shown", {"text": text}))

    # --- the main thread ----------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any]) -> concurrent.futures.Future[Any]:
        """Send ``method`` with ``params`` (JSON); a future of the result (JSON)."""
        s = self.acp.schema
        if method == "initialize":
            coro: Coroutine[Any, Any, Any] = self.conn.initialize(
                protocol_version=self.acp.PROTOCOL_VERSION,
                client_capabilities=s.ClientCapabilities.model_validate(
                    params.get("clientCapabilities") or {}
                ),
                client_info=s.Implementation.model_validate(params["clientInfo"]),
            )
        elif method == "session/new":
            coro = self.conn.new_session(cwd=params["cwd"], mcp_servers=[])
        elif method == "session/prompt":
            blocks = [self.acp.text_block(as_text(b.get("text"))) for b in params["prompt"]]
            coro = self.conn.prompt(session_id=params["sessionId"], prompt=blocks)
        elif method == "session/cancel":
            coro = self.conn.cancel(session_id=params["sessionId"])
        elif method == "session/set_mode":
            coro = self.conn.set_session_mode(
                session_id=params["sessionId"], mode_id=params["modeId"]
            )
        else:
            raise ValueError(f"askcli does not send {method}")
        future = asyncio.run_coroutine_threadsafe(_dumped(coro), self.loop)
        if method == "session/cancel":
            # on the wire before the requests it cancels are answered: an agent that hears
            # "cancelled" first takes it for a denial and goes on with the turn
            with contextlib.suppress(Exception):
                future.result(CANCEL_SENT)
        return future

    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def gone(self) -> bool:
        """The agent has ended and the connection with it."""
        return not self.alive() and not self.thread.is_alive()

    def elapsed(self, began: float) -> float:
        """Seconds since ``began`` (time.monotonic), for a turn's line."""
        return time.monotonic() - began

    def answer_soon(self, future: asyncio.Future[Any], value: dict[str, Any]) -> None:
        def settle() -> None:
            if not future.done():
                future.set_result(value)

        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(settle)

    def close(self, *, at_once: bool = False) -> int | None:
        """End the agent; its exit status (negative: the signal), None when askcli had to
        kill it."""
        if self.stop is not None and self.thread.is_alive():
            self.grace = 0.2 if at_once else END_GRACE
            stop = self.stop
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(stop.set)
            self.thread.join(END_GRACE + 2 * TERM_GRACE + 2)
        if self.thread.is_alive():  # the loop is stuck: end the group from here
            self._signal_group(signal.SIGKILL)
        return self.exit_code


class _Client:
    """The SDK's Client: each message goes to the main thread as an :class:`Event`."""

    def __init__(self, link: AgentLink) -> None:
        self.link = link

    async def _ask(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.link.requests += 1
        answer = lambda v: self.link.answer_soon(future, v)  # noqa: E731
        self.link.events.put(Event(kind, params, answer, self.link.requests))
        return await future

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.link.events.put(Event("update", {"sessionId": session_id, "update": _dump(update)}))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        schema = self.link.acp.schema
        params = {
            "sessionId": session_id,
            "toolCall": _dump(tool_call),
            "options": [_dump(o) for o in options],
        }
        reply = await self._ask("permission", params)
        if "optionId" in reply:
            outcome: Any = schema.AllowedOutcome(outcome="selected", option_id=reply["optionId"])
        else:
            outcome = schema.DeniedOutcome(outcome="cancelled")
        return schema.RequestPermissionResponse(outcome=outcome)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        schema = self.link.acp.schema
        shape = _dump(mode)
        params = {"message": message, **(shape if isinstance(shape, dict) else {})}
        params["mode"] = "url" if "url" in params else "form"
        reply = await self._ask("elicitation", params)
        action = reply.get("action")
        if action == "accept":
            return schema.AcceptElicitationResponse(action="accept", content=reply.get("content"))
        if action == "decline":
            return schema.DeclineElicitationResponse(action="decline")
        return schema.CancelElicitationResponse(action="cancel")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def _refuse(self, what: str) -> Any:
        self.link.events.put(Event("refused", {"method": what}))
        raise self.link.acp.RequestError.method_not_found(what)

    def _failed(self, what: str, exc: Refused) -> Exception:
        """The JSON-RPC error for a request askcli could not serve, shown to the person."""
        self.link.show(f"  -> {what}: refused: {exc}")
        if exc.missing:
            return self.link.acp.RequestError.resource_not_found(str(exc))  # type: ignore[no-any-return]
        return self.link.acp.RequestError(-32603, str(exc))  # type: ignore[no-any-return]

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> Any:
        files = self.link.files
        if files is None:
            return await self._refuse("fs/read_text_file")
        what = f"read {files.name(path)}"
        try:
            text = await asyncio.to_thread(files.read, path, line, limit)
        except Refused as exc:
            raise self._failed(what, exc) from None
        span = "" if line is None and limit is None else f" from line {line or 1}"
        self.link.show(f"  -> {what}{span} ({_count_lines(text)})")
        return self.link.acp.schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> Any:
        files = self.link.files
        if files is None:
            return await self._refuse("fs/write_text_file")
        what = f"wrote {files.name(path)}"
        try:
            await asyncio.to_thread(files.write, path, content)
        except Refused as exc:
            raise self._failed(what, exc) from None
        self.link.show(f"  -> {what} ({_count_lines(content)})")
        return self.link.acp.schema.WriteTextFileResponse()

    async def _terminal(self, what: str, work: Callable[[Terminals], Any]) -> Any:
        """Serve the terminal request ``what`` with ``work`` (the reply as a dict, or a
        coroutine of it)."""
        terminals = self.link.terminals
        if terminals is None:
            return await self._refuse(what)
        try:
            value = work(terminals)
            if asyncio.iscoroutine(value):
                value = await value
        except Refused as exc:
            raise self._failed(what, exc) from None
        return getattr(self.link.acp.schema, TERMINAL_REPLIES[what]).model_validate(value or {})

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kw: Any,
    ) -> Any:
        variables = [_dump(e) for e in env or []]

        async def made(t: Terminals) -> dict[str, Any]:
            return {"terminalId": await t.create(command, args, variables, cwd, output_byte_limit)}

        return await self._terminal("terminal/create", made)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        return await self._terminal("terminal/output", lambda t: t.output(terminal_id))

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        return await self._terminal("terminal/release", lambda t: t.release(terminal_id))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        return await self._terminal("terminal/wait_for_exit", lambda t: t.wait(terminal_id))

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        return await self._terminal("terminal/kill", lambda t: t.kill(terminal_id))

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self._refuse(str(method))  # type: ignore[no-any-return]

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None


def _count_lines(text: str) -> str:
    n = len(text.splitlines())
    return "1 line" if n == 1 else f"{n} lines"


async def _dumped(coro: Coroutine[Any, Any, Any]) -> Any:
    return _dump(await coro)


class Ended(NamedTuple):
    status: int
    message: str | None = None


def content_text(block: Any) -> str:
    """The text of a content block (text, or a resource's text); "" for others."""
    block = as_dict(block)
    if block.get("type") == "text":
        return as_text(block.get("text"))
    resource = as_dict(block.get("resource"))
    return as_text(resource.get("text"))


def content_mark(block: Any) -> str:
    """A line's worth for a content block with no text to show: ``[image image/png]``,
    ``[audio ...]``, ``[link NAME: URI]``, ``[resource URI]``; "" for text."""
    block = as_dict(block)
    kind = as_text(block.get("type"))
    if kind in ("image", "audio"):
        mime = as_text(block.get("mimeType"))
        return f"[{kind}{' ' + mime if mime else ''}]"
    if kind == "resource_link":
        name, uri = as_text(block.get("name")), as_text(block.get("uri"), "?")
        return f"[link {name}: {uri}]" if name and name != uri else f"[link {uri}]"
    if kind == "resource":
        resource = as_dict(block.get("resource"))
        if not isinstance(resource.get("text"), str):
            return f"[resource {as_text(resource.get('uri'), '?')}]"
    return ""


def tool_details(tool_call: dict[str, Any]) -> dict[str, Any]:
    """Everything a permission request says the call will do, for the whole display."""
    shown: dict[str, Any] = {}
    if tool_call.get("kind") is not None:
        shown["kind"] = tool_call.get("kind")
    for n, item in enumerate(tool_call.get("content") or [], 1):
        item = as_dict(item)
        key = f"content {n}" if len(tool_call.get("content") or []) > 1 else "content"
        if item.get("type") == "diff":
            old = as_text(item.get("oldText")).splitlines()
            new = as_text(item.get("newText")).splitlines()
            path = as_text(item.get("path"), "?")
            lines = difflib.unified_diff(
                old,
                new,
                path if path.startswith("/") else f"a/{path}",
                path if path.startswith("/") else f"b/{path}",
                lineterm="",
                n=max(len(old), len(new)),
            )
            shown[f"{key} (edit of {path})"] = "\n".join(lines) or "(no change)"
        elif item.get("type") == "content":
            block = as_dict(item.get("content"))
            text = content_text(block)
            shown[key] = text if text or block.get("type") == "text" else block
        elif item.get("type") == "terminal":
            shown[key] = f"terminal {as_text(item.get('terminalId'), '?')}"
        else:
            shown[key] = item
    locations = [
        as_text(as_dict(loc).get("path"), "?")
        + (f":{as_dict(loc).get('line')}" if as_dict(loc).get("line") is not None else "")
        for loc in tool_call.get("locations") or []
    ]
    if locations:
        shown["locations"] = "\n".join(locations)
    if "rawInput" in tool_call:
        shown["input"] = tool_call["rawInput"]
    return shown


def permission_lines(
    tool_call: dict[str, Any], options: list[dict[str, Any]], conv: Conversation
) -> list[str]:
    style = conv.style
    title = as_text(tool_call.get("title")) or as_text(tool_call.get("toolCallId"), "a tool call")
    lines = ["", style.strong("The agent asks to run: " + visible(title))]
    lines += input_lines(tool_details(tool_call), style)
    for n, option in enumerate(options, 1):
        name = visible(as_text(option.get("name"), "?"))
        kind = visible(as_text(option.get("kind"), "?"))
        lines += wrap(f"{n}. {name}  ({kind})", style.width, first="  ", rest="     ")
    return lines


def auq_input(params: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, bool]]] | None:
    """An adapter's AskUserQuestion form (``question_<n>`` choice fields, with
    ``question_<n>_custom`` for Other) as AskUserQuestion's input, and each question's field
    name and whether it is multiSelect; None for any other form."""
    schema = as_dict(params.get("requestedSchema"))
    props = as_dict(schema.get("properties"))
    if not props:
        return None
    numbers = []
    for key in props:
        m = _QUESTION.fullmatch(key)
        if m:
            numbers.append(int(m.group(1)))
        elif not (key.startswith("question_") and key.endswith("_custom")):
            return None
    if not numbers:
        return None
    questions, fields = [], []
    for n in sorted(numbers):
        key = f"question_{n}"
        node = as_dict(props[key])
        multi = node.get("type") == "array"
        choices = as_dict(node.get("items")).get("anyOf") if multi else node.get("oneOf")
        if not isinstance(choices, list) or not choices:
            return None
        options = []
        for choice in choices:
            choice = as_dict(choice)
            label = choice.get("const")
            if not isinstance(label, str):
                return None
            extra = as_dict(as_dict(choice.get("_meta")).get("_claude/askUserQuestionOption"))
            option: dict[str, Any] = {
                "label": label,
                "description": as_text(extra.get("description")),
            }
            if isinstance(extra.get("preview"), str):
                option["preview"] = extra["preview"]
            options.append(option)
        text = as_text(node.get("description")) or as_text(params.get("message"))
        header = as_text(node.get("title")) or f"Q{n + 1}"
        questions.append(
            {"question": text, "header": header, "multiSelect": multi, "options": options}
        )
        fields.append((key, multi))
    return {"questions": questions}, fields


def auq_content(
    data: dict[str, Any], fields: list[tuple[str, bool]], questions: list[dict[str, Any]]
) -> dict[str, Any]:
    """AskUserQuestion's answers as the adapter's form content: a chosen label (a list for
    multiSelect) in ``question_<n>``; anything typed, exactly as typed, in the custom field."""
    answers = as_dict(data.get("answers"))
    content: dict[str, Any] = {}
    for (key, multi), question in zip(fields, questions, strict=False):
        answer = answers.get(question["question"])
        if not isinstance(answer, str):
            continue
        labels = {o["label"] for o in question["options"]}
        if answer in labels:
            content[key] = [answer] if multi else answer
        elif multi and all(part in labels for part in answer.split(", ")):
            content[key] = answer.split(", ")
        else:
            content[f"{key}_custom"] = answer
    return content


class Host:
    """One ACP session: the person's side, in plain lines."""

    def __init__(self, link: Any, conv: Conversation, out: TextIO, *, one_terminal: bool) -> None:
        self.link = link
        self.conv = conv
        self.out = out
        self.one_terminal = one_terminal
        self.session_id: str | None = None
        self.ended: Ended | None = None
        self.failed = False
        self.interrupted = False
        self.cancelling = False
        self.message = ""  # agent text not shown yet
        self.thoughts: bool = False  # show the agent's thoughts (--thoughts)
        self.thought = ""  # thoughts not shown yet
        self.final: list[str] = []  # this turn's text since its last tool call
        self.tools: dict[str, dict[str, Any]] = {}  # title and status by toolCallId
        # ``--inbox``: a document in, its Reply out (askcli.inbox.asking.ask_inbox)
        self.inbox: Callable[[Any], Any] | None = None
        self.asked = 0  # documents sent to the inbox
        self.auth_methods: Any = None  # the ways to sign in the agent offers (initialize)
        self.modes: dict[str, str] = {}  # the session's modes: name by id (session/new)
        self.mode: str | None = None  # the current mode's id
        # the answers to requests Ctrl-C interrupted: given after session/cancel is sent
        self.held: list[Callable[[], None]] = []

    # --- waiting ------------------------------------------------------------------------

    def wait(self, future: concurrent.futures.Future[Any], timeout: float | None = None) -> Any:
        """Handle what the agent sends until ``future`` is done; its result. Raises
        KeyboardInterrupt (signals) and the future's exception."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                try:
                    event: Event | None = self.link.events.get(timeout=STEP)
                except queue.Empty:
                    event = None
                if event is None:
                    if future.done():
                        return future.result()
                    if self.link.gone():
                        raise ConnectionError("the agent ended")
                    if deadline is not None and time.monotonic() > deadline:
                        raise TimeoutError
                    continue
            except KeyboardInterrupt:
                # Ctrl-C between the agent's messages: --record keeps where it came
                mark = getattr(self.link, "interrupt", None)
                if mark is not None and not signals.received_other_than_sigint():
                    mark()
                raise
            self.handle(event)
            if self.ended is not None:
                raise _Stop

    def hold(self, answer: Callable[[dict[str, Any]], None], value: dict[str, Any]) -> None:
        """Keep a request's answer until session/cancel is sent (:meth:`release`)."""
        self.held.append(lambda: answer(value))

    def release(self) -> None:
        """Give the answers held back (every request Ctrl-C interrupted: cancelled)."""
        held, self.held = self.held, []
        for give in held:
            give()

    def drain(self) -> None:
        """Handle what is queued (the updates sent just before a reply)."""
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                return
            self.handle(event)

    # --- showing ------------------------------------------------------------------------

    def flush(self) -> None:
        self.flush_thought()
        text, self.message = self.message.strip(), ""
        if text:
            lines = wrap(
                visible(text, multiline=True), self.conv.style.width, first="Agent: ", rest="  "
            )
            self.conv.say("\n".join(lines) + "\n")

    def flush_thought(self) -> None:
        text, self.thought = self.thought.strip(), ""
        if text:
            lines = wrap(
                visible(text, multiline=True), self.conv.style.width, first="Thinking: ", rest="  "
            )
            self.conv.say("".join(self.conv.style.dim(line) + "\n" for line in lines))

    def say_item(self, text: str) -> None:
        self.conv.say(shorten(text, 2000) + "\n")

    def handle(self, event: Event) -> None:
        if event.kind == "update":
            try:
                self.update(as_dict(event.params.get("update")))
            except (TypeError, ValueError, AttributeError, KeyError) as exc:
                self.conv.error(f"skipped an update from the agent ({type(exc).__name__})")
            return
        self.flush()
        if event.kind == "shown":
            self.say_item(as_text(event.params.get("text")))
            return
        if event.kind == "refused":
            self.conv.error(
                f"refused the agent's {visible(event.params.get('method', '?'))} request "
                "(askcli does not offer it)"
            )
            return
        assert event.answer is not None
        if self.cancelling or self.ended is not None:
            event.answer({"action": "cancel"} if event.kind == "elicitation" else {})
            return
        if event.kind == "permission":
            self.permission(event.params, event.answer)
        elif event.kind == "elicitation":
            self.elicitation(event.params, event.answer)

    def update(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            self.flush_thought()
            block = update.get("content")
            text = content_text(block) or content_mark(block)
            self.message += text
            self.final.append(text)
            return
        if kind == "agent_thought_chunk":
            if self.thoughts:
                if self.message.strip():
                    self.flush()
                self.thought += content_text(update.get("content"))
            return
        if kind in ("tool_call", "tool_call_update", "plan", "current_mode_update"):
            self.flush()
        if kind == "tool_call":
            self.final = []
            self.tool(update, new=True)
        elif kind == "tool_call_update":
            self.tool(update, new=False)
        elif kind == "plan":
            items = [
                {
                    "content": as_text(as_dict(e).get("content")),
                    "status": as_text(as_dict(e).get("status"), "pending"),
                }
                for e in update.get("entries") or []
            ]
            self.conv.say(checklist(items, self.conv.style, title="Plan"))
        elif kind == "current_mode_update":
            mode = as_text(update.get("currentModeId"))
            if mode and mode != self.mode:
                self.show_mode(mode)
        # usage, commands and session info are not shown

    def tool(self, update: dict[str, Any], *, new: bool) -> None:
        tool_id = as_text(update.get("toolCallId"), "?")
        known = self.tools.get(tool_id)
        if known is None:
            if len(self.tools) >= MAX_NAMES:
                del self.tools[next(iter(self.tools))]
            known = self.tools[tool_id] = {"title": tool_id, "status": None}
        if isinstance(update.get("title"), str) and update["title"]:
            known["title"] = update["title"]
        status = update.get("status") if isinstance(update.get("status"), str) else None
        if new and status is None:
            status = "pending"
        if status is None or status == known["status"]:
            return
        known["status"] = status
        word = STATUS_WORDS.get(status, status)
        line = f"  -> {known['title']}  ({word})"
        lines: list[str] = []
        if status == "failed":
            text = "\n".join(
                content_text(as_dict(c).get("content")) for c in update.get("content") or []
            ).strip()
            if "\n" not in text and text:
                line += f": {text}"
            elif text:  # what went wrong, on lines of its own under the status
                line += ":"
                lines = text.splitlines()
                if len(lines) > FAILURE_LINES:
                    more = len(lines) - FAILURE_LINES
                    lines = [*lines[:FAILURE_LINES], f"({more} more lines)"]
        self.say_item(line)
        for text_line in lines:
            self.say_item("       " + text_line)

    # --- asking -------------------------------------------------------------------------

    def permission(self, params: dict[str, Any], answer: Callable[[dict[str, Any]], None]) -> None:
        tool_call = as_dict(params.get("toolCall"))
        options = [as_dict(o) for o in params.get("options") or [] if isinstance(o, dict)]
        if not options:
            self.conv.error("the agent's permission request has no options: answered cancelled")
            answer({})
            return
        allow, reject = acp_options.once(options)  # y and n never select an "always"
        if self.inbox is not None:
            self.permission_in_inbox(tool_call, options, allow, reject, answer)
            return
        keys = acp_options.keys(len(options), allow, reject)
        try:
            self.conv.call_starts()
            paged = show_whole(permission_lines(tool_call, options, self.conv), self.conv)
            if paged.denied and reject is not None:
                answer({"optionId": options[reject].get("optionId")})
                return
            while not paged.ended:
                line = self.conv.read_answer(f"Choose {keys}: ")
                if line is None:
                    break
                word = line.strip().lower()
                chosen: int | None = None
                if word.isdigit() and 1 <= int(word) <= len(options):
                    chosen = int(word) - 1
                elif word in ("y", "yes") and allow is not None:
                    chosen = allow
                elif word in ("n", "no", "q") and reject is not None:
                    chosen = reject
                if chosen is not None:
                    answer({"optionId": options[chosen].get("optionId")})
                    return
                warning = acp_options.not_offered(word, len(options)) or f"! type {keys}"
                self.conv.say(self.conv.style.warn(warning) + "\n")
        except AnswerTimeout:
            self.conv.say("\n")
            why = self.conv.why(Ending.TIMEOUT)
        except KeyboardInterrupt:
            self.hold(answer, {})  # cancelled, never allowed
            typed_interrupt(self.conv)
            raise
        else:
            why = self.conv.why(Ending.ENDED)
        finally:
            self.conv.call_starts(False)
        self.conv.error(f"no answer ({why}): the request is answered cancelled")
        answer({})
        self.ended = Ended(int(Status.NO_ANSWER))

    def _document(self, name: str, tool_input: dict[str, Any], tool_id: str | None) -> Any:
        """A Claude-Code-like can_use_tool control request for the inbox."""
        self.asked += 1
        request: dict[str, Any] = {
            "subtype": "can_use_tool",
            "tool_name": name,
            "input": tool_input,
        }
        if tool_id:
            request["tool_use_id"] = tool_id
        return {"type": "control_request", "request_id": f"acp_{self.asked}", "request": request}

    def _in_inbox(self, document: dict[str, Any]) -> ToolResult:
        """The inbox's result for a document of one call (KeyboardInterrupt withdraws it)."""
        from ..wire.documents import Document

        assert self.inbox is not None
        reply = self.inbox(Document(document))
        if reply.results:
            return reply.results[0]  # type: ignore[no-any-return]
        return ToolResult(None, "no answer", reply.status, is_error=True)

    def permission_in_inbox(
        self,
        tool_call: dict[str, Any],
        options: list[dict[str, Any]],
        allow: int | None,
        reject: int | None,
        answer: Callable[[dict[str, Any]], None],
    ) -> None:
        title = as_text(tool_call.get("title")) or as_text(tool_call.get("toolCallId"), "tool")
        shown = dict(tool_details(tool_call))
        if allow is None or reject is None:  # Yes or No could not say: by number (as chosen())
            self.asked += 1
            result = self._in_inbox(acp_options.form(self.asked, title, shown, options))
        else:
            shown["options"] = "\n".join(
                f"{as_text(o.get('name'), '?')} ({as_text(o.get('kind'), '?')})" for o in options
            )
            tool_id = as_text(tool_call.get("toolCallId")) or None
            result = self._in_inbox(self._document(title, shown, tool_id))
        if result.status is Status.INTERRUPTED:
            self.hold(answer, {})
            raise KeyboardInterrupt
        answer(acp_options.chosen(result, options, allow, reject))
        if result.status is Status.NO_ANSWER:
            self.ended = Ended(int(Status.NO_ANSWER))

    def elicitation(self, params: dict[str, Any], answer: Callable[[dict[str, Any]], None]) -> None:
        tool_id = as_text(params.get("toolCallId")) or None
        shaped = auq_input(params) if params.get("mode") == "form" else None
        call: ToolCall | None = None
        if shaped is not None:
            call = ToolCall(tool_id, "AskUserQuestion", shaped[0])
            try:
                check_call(call)
            except Exception:
                call = None  # not a question AskUserQuestion can ask: the general form
        if call is None:
            message = as_text(params.get("message")) or "(no message)"
            self.conv.say(
                "\n"
                + "\n".join(
                    wrap(
                        visible(message, multiline=True),
                        self.conv.style.width,
                        first="The agent asks: ",
                        rest="  ",
                    )
                )
                + "\n"
            )
            mcp = {
                k: v
                for k, v in params.items()
                if k in ("message", "mode", "requestedSchema", "url", "elicitationId")
            }
            call = ToolCall(tool_id, ELICITATION, mcp)
        try:
            self.conv.call_starts()
            if self.inbox is None:
                result = run_call(call, self.conv)
            elif call.name == "AskUserQuestion":
                result = self._in_inbox(self._document(call.name, dict(call.input), tool_id))
            else:
                self.asked += 1
                document = {
                    "jsonrpc": "2.0",
                    "id": self.asked,
                    "method": "elicitation/create",
                    "params": dict(call.input),
                }
                result = self._in_inbox(document)
        except KeyboardInterrupt:
            self.hold(answer, {"action": "cancel"})
            typed_interrupt(self.conv)
            raise
        finally:
            self.conv.call_starts(False)
        if call.name == "AskUserQuestion" and shaped is not None:
            if result.allowed:
                content = auq_content(dict(result.data or {}), shaped[1], shaped[0]["questions"])
                reply: dict[str, Any] = {"action": "accept", "content": content}
            elif result.status is Status.DECLINED:
                reply = {"action": "decline"}
            else:
                reply = {"action": "cancel"}
        else:
            reply = dict(result.reply) if result.reply is not None else {"action": "decline"}
            if result.reply is None:
                self.conv.error(f"askcli cannot ask this form: {result.content}")
        if result.status is Status.INTERRUPTED:
            self.hold(answer, {"action": "cancel"})
            if self.inbox is None:
                typed_interrupt(self.conv)
            raise KeyboardInterrupt
        answer(reply)
        if result.status is Status.NO_ANSWER:
            self.ended = Ended(int(Status.NO_ANSWER))

    # --- the session --------------------------------------------------------------------

    def start(
        self, capabilities: dict[str, Any], cwd: str | None = None, mode: str | None = None
    ) -> None:
        init = self.wait(
            self.link.call(
                "initialize",
                {
                    "clientCapabilities": capabilities,
                    "clientInfo": {"name": "askcli", "version": "0.1"},
                },
            ),
            START_TIMEOUT,
        )
        info = as_dict(as_dict(init).get("agentInfo"))
        self.auth_methods = as_dict(init).get("authMethods")
        params = {"cwd": cwd if cwd is not None else os.getcwd(), "mcpServers": []}
        session = as_dict(self.wait(self.link.call("session/new", params), START_TIMEOUT))
        self.session_id = as_text(session.get("sessionId"), "?")
        name = as_text(info.get("title")) or as_text(info.get("name"), "agent")
        version = as_text(info.get("version"))
        self.say_item(f"({name}{' ' + version if version else ''} session {self.session_id})")
        modes = as_dict(session.get("modes"))
        for entry in modes.get("availableModes") or []:
            mode_id = as_text(as_dict(entry).get("id"))
            if mode_id:
                self.modes[mode_id] = as_text(as_dict(entry).get("name")) or mode_id
        self.mode = as_text(modes.get("currentModeId")) or None
        if mode is not None and mode != self.mode:
            self.set_mode(mode, modes.get("availableModes"))

    def set_mode(self, mode: str, available: Any) -> None:
        """``--mode``: switch the new session to the agent's mode ``mode``."""
        if mode not in self.modes:
            offered = []
            for entry in available or []:
                about = as_text(as_dict(entry).get("description"))
                name = as_text(as_dict(entry).get("id"), "?")
                offered.append(f"{name} ({about})" if about else name)
            self.conv.error(
                f"the agent has no mode {mode!r}; "
                + (f"its modes: {', '.join(offered)}" if offered else "it offers no modes")
            )
            self.ended = Ended(EXIT_USAGE)
            raise _Stop
        params = {"sessionId": self.session_id, "modeId": mode}
        self.wait(self.link.call("session/set_mode", params), START_TIMEOUT)
        self.show_mode(mode)

    def show_mode(self, mode: str) -> None:
        self.mode = mode
        self.say_item(f"(mode: {self.modes.get(mode, mode)})")

    def turn(self, text: str) -> None:
        self.final, self.cancelling, self.interrupted = [], False, False
        began = time.monotonic()
        future = self.link.call(
            "session/prompt",
            {"sessionId": self.session_id, "prompt": [{"type": "text", "text": text}]},
        )
        while True:
            try:
                response = self.wait(future)
                break
            except KeyboardInterrupt:
                if self.cancelling or signals.received_other_than_sigint():
                    raise
                self.flush()
                self.conv.say("\n(cancelling the turn; Ctrl-C again ends the session)\n")
                self.cancelling = self.interrupted = True
                self.link.call("session/cancel", {"sessionId": self.session_id})
                self.release()  # then the requests Ctrl-C interrupted are answered cancelled
                self.drain()  # and every request still queued
        self.drain()
        self.flush()
        stop = as_text(as_dict(response).get("stopReason"), "?")
        seconds = self.link.elapsed(began)
        ok = stop in ("end_turn", "cancelled")
        word = "done" if stop == "end_turn" else f"ended: {stop}"
        self.say_item(f"-- turn {word}, {seconds:.1f} s")
        self.failed = not ok
        result = "".join(self.final).strip()
        if result and not self.one_terminal and stop != "cancelled":
            try:
                self.out.write(terminal_text(result) + "\n")
                self.out.flush()
            except BrokenPipeError:
                self.ended = Ended(EXIT_STDOUT_GONE, "stdout was closed: the result is lost")
            except (OSError, ValueError):
                self.ended = Ended(EXIT_OUTPUT_FAILED, "cannot write the result to stdout")


def typed_interrupt(conv: Conversation) -> None:
    """Ctrl-C at a question or at ``> ``: --record keeps it among the answer lines."""
    typed = getattr(conv.reader, "transcript", None)
    if isinstance(typed, bytearray) and not signals.received_other_than_sigint():
        typed += INTERRUPT.encode() + b"\n"


def _read_prompt(conv: Conversation) -> str | None:
    """The person's next prompt at ``> ``: --timeout is for the agent's questions only."""
    timeout, conv.timeout = conv.timeout, None
    try:
        return conv.read_answer("> ", command=False, fresh=False)
    except KeyboardInterrupt:
        typed_interrupt(conv)
        raise
    finally:
        conv.timeout = timeout


class _Stop(Exception):
    """The session ends (``Host.ended`` says how)."""


def host(
    link: Any,
    conv: Conversation,
    out: TextIO,
    *,
    prompt: str | None = None,
    capabilities: dict[str, Any] | None = None,
    one_terminal: bool | None = None,
    cwd: str | None = None,
    inbox: Callable[[Any], Any] | None = None,
    thoughts: bool = False,
    mode: str | None = None,
) -> int:
    """Hold an ACP session over ``link``; the exit status (as ``askcli claude``'s).
    With ``inbox`` (a Document in, its Reply out), permission requests and forms are
    asked in the inbox instead of here; with ``thoughts``, the agent's thoughts are shown."""
    if one_terminal is None:
        one_terminal = same_terminal(out, conv.out)
    session = Host(link, conv, out, one_terminal=one_terminal)
    session.inbox = inbox
    session.thoughts = thoughts
    interrupted = died = False
    why = ""
    try:
        session.start(capabilities or {}, cwd, mode)
        while session.ended is None:
            text = prompt if prompt is not None else _read_prompt(conv)
            if text is None:
                break
            if text.strip():
                session.turn(text)
                if prompt is not None:
                    break
    except KeyboardInterrupt:
        conv.say("\n")
        conv.error("session ended")
        interrupted = True
    except _Stop:
        pass
    except TimeoutError:
        died, why = True, "it did not answer in time"
    except ConnectionError:
        died = True
    except Exception as exc:  # the SDK's RequestError and the like: the agent failed
        died, why = True, failure(exc)
    finally:
        signals.settle()
        # answer whatever is still waiting, then end the agent on every way out
        session.cancelling = True
        with contextlib.suppress(Exception):
            session.release()
            session.drain()
        code = link.close(at_once=interrupted or session.ended is not None or died)
    if interrupted:
        return int(Status.INTERRUPTED)
    if session.ended is not None:
        if session.ended.message:
            conv.error(session.ended.message)
        return session.ended.status
    if died:
        how = f": {visible(why)}" if why else ""
        if code is not None and code != 0:
            how += f" ({describe_exit(code)})"
        conv.error(f"the agent failed{how}")
        if why.startswith(SIGN_IN):
            for line in sign_in_lines(session.auth_methods):
                conv.say("\n".join(wrap(visible(line), conv.style.width, rest="    ")) + "\n")
        return EXIT_AGENT_FAILED
    if session.interrupted and prompt is not None:
        return int(Status.INTERRUPTED)
    if session.failed:
        return EXIT_AGENT_FAILED
    return int(Status.ANSWERED)


def show_stderr(conv: Conversation) -> Callable[[str, int], None]:
    """The agent's stderr lines, escaped, one line each: ``(agent stderr) ...``."""
    return child.show_stderr(conv, "agent")


def capabilities(*, fs: bool = False, terminal: bool = False) -> dict[str, Any]:
    """The client capabilities askcli offers: elicitation forms and URL consent, and with
    ``fs`` / ``terminal`` (``--fs``, ``--terminal``) text files and terminals."""
    offered: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
    if fs:
        offered["fs"] = {"readTextFile": True, "writeTextFile": True}
    if terminal:
        offered["terminal"] = True
    return offered


AUTH_REQUIRED = -32000  # ACP's error code: the agent needs the person to sign in first
SIGN_IN = "it needs you to sign in: "


def failure(exc: BaseException) -> str:
    """What a failed request says, as shown (a replayed one says what was recorded)."""
    shown = getattr(exc, "shown", None)
    if isinstance(shown, str):
        return shown
    said = str(exc)
    data = getattr(exc, "data", None)
    details = data if isinstance(data, str) else as_dict(data).get("details")
    if isinstance(details, str) and details.strip() and details.strip() not in said:
        said += f" ({details.strip()})"  # what the agent says of it, past JSON-RPC's words
    if getattr(exc, "code", None) == AUTH_REQUIRED:
        return SIGN_IN + said
    return f"{type(exc).__name__}: {said}"


def sign_in_lines(methods: Any) -> list[str]:
    """What to do when the agent wants a sign-in: the ways it offers (``authMethods``)."""
    lines = []
    for method in methods if isinstance(methods, list) else []:
        name = as_text(as_dict(method).get("name")) or as_text(as_dict(method).get("id"), "?")
        about = as_text(as_dict(method).get("description"))
        lines.append(f"  {name}" + (f": {about}" if about else ""))
    intro = "sign in with the agent itself (or set what it reads, such as its API key), then "
    intro += "run askcli again"
    return [f"{intro}; the ways it offers:", *lines] if lines else [intro]


# --- askcli acp --record, askcli replay ------------------------------------------------
#
# A recorded session is two lists. ``received`` is what askcli took from the agent, in the
# order the session handled it: ``{"notification": "session/update", "params": ...}``,
# ``{"request": METHOD, "id": N, "params": ...}``, ``{"refused": METHOD}``, ``{"shown":
# TEXT}`` (what askcli did for the agent with --fs or --terminal), ``{"interrupt": true}``
# (Ctrl-C while waiting on the agent; one at a question is the answer line "\x03"), the
# result of
# each of askcli's requests as it was taken (``{"reply": METHOD, "result": ...}`` or
# ``{"reply": METHOD, "error": TEXT, "ended": BOOL}``, a turn's with its ``seconds``), the
# agent's stderr lines (``{"stderr": TEXT, "more": N}``) and, where askcli sent a request,
# ``{"sent": METHOD}``: nothing after it is handed out before askcli sends it again.
# ``sent`` is what askcli sent: ``{"request": METHOD, "params": ...}`` and the answers to
# the agent's requests, ``{"id": N, "result": ...}``.


def wire_answer(kind: str, value: dict[str, Any]) -> dict[str, Any]:
    """An answer to the agent's request as it goes on the wire."""
    if kind != "permission":
        return value
    if "optionId" in value:
        return {"outcome": {"outcome": "selected", "optionId": value["optionId"]}}
    return {"outcome": {"outcome": "cancelled"}}


def _event_entry(event: Event) -> dict[str, Any]:
    if event.kind == "shown":
        return {"shown": event.params.get("text", "")}
    if event.kind == "refused":
        return {"refused": event.params.get("method", "?")}
    if event.kind == "update":
        return {"notification": METHODS["update"], "params": event.params}
    return {"request": METHODS[event.kind], "id": event.id, "params": event.params}


class _RecordingQueue:
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def _kept(self, event: Event) -> Event:
        rec = self.recorder
        with rec.lock:
            rec.received.append(_event_entry(event))
        answer = event.answer
        if answer is None:
            return event

        def answered(value: dict[str, Any], answer: Any = answer) -> None:
            rec.sent.append({"id": event.id, "result": wire_answer(event.kind, value)})
            answer(value)

        return event._replace(answer=answered)

    def get(self, timeout: float | None = None) -> Event:
        return self._kept(self.recorder.link.events.get(timeout=timeout))

    def get_nowait(self) -> Event:
        return self._kept(self.recorder.link.events.get_nowait())


class _RecordedFuture:
    """A request's future whose result is recorded when the session takes it."""

    def __init__(self, recorder: Recorder, method: str, future: Any) -> None:
        self.recorder, self.method, self.future = recorder, method, future

    def done(self) -> bool:
        return bool(self.future.done())

    def result(self) -> Any:
        entry: dict[str, Any] = {"reply": self.method}
        try:
            value = self.future.result()
        except Exception as exc:
            entry.update(error=failure(exc), ended=isinstance(exc, ConnectionError))
            with self.recorder.lock:
                self.recorder.received.append(entry)
            raise
        entry["result"] = value
        with self.recorder.lock:
            self.recorder.received.append(entry)
        if self.method == "session/prompt":
            self.recorder.last_turn = entry
        return value


class Recorder:
    """A link that keeps what passed through it, for ``askcli acp --record``.

    Make it first, give :meth:`stderr` to the :class:`AgentLink` as its ``on_stderr``, then
    :meth:`attach` the link."""

    def __init__(self) -> None:
        self.link: Any = None
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.exit_status: int | None = None
        self.lock = threading.Lock()
        self.events = _RecordingQueue(self)
        self.last_turn: dict[str, Any] | None = None

    def attach(self, link: Any) -> Recorder:
        self.link = link
        return self

    def stderr(self, shown: Callable[[str, int], None]) -> Callable[[str, int], None]:
        def kept(text: str, more: int) -> None:
            with self.lock:
                self.received.append({"stderr": text, "more": more})
                shown(text, more)

        return kept

    def call(self, method: str, params: dict[str, Any]) -> Any:
        with self.lock:
            self.sent.append({"request": method, "params": params})
            self.received.append({"sent": method})
        return _RecordedFuture(self, method, self.link.call(method, params))

    def interrupt(self) -> None:
        """Ctrl-C came while the session waited on the agent."""
        with self.lock:
            self.received.append({"interrupt": True})

    def gone(self) -> bool:
        return bool(self.link.gone())

    def elapsed(self, began: float) -> float:
        seconds = float(self.link.elapsed(began))
        if self.last_turn is not None:
            self.last_turn["seconds"] = round(seconds, 3)
        return seconds

    def close(self, *, at_once: bool = False) -> int | None:
        self.exit_status = self.link.close(at_once=at_once)
        return self.exit_status


class ReplayedError(Exception):
    """A request that failed when the session was recorded."""

    def __init__(self, shown: str) -> None:
        super().__init__(shown)
        self.shown = shown


class _Done:
    def __init__(self) -> None:
        self.entry: dict[str, Any] | None = None

    def done(self) -> bool:
        return self.entry is not None

    def result(self) -> Any:
        entry = self.entry or {}
        if "error" in entry:
            text = as_text(entry.get("error"), "?")
            raise ConnectionError(text) if entry.get("ended") else ReplayedError(text)
        return entry.get("result")


class _ScriptQueue:
    def __init__(self, scripted: Scripted) -> None:
        self.scripted = scripted

    def get(self, timeout: float | None = None) -> Event:
        return self.scripted.next_event()

    def get_nowait(self) -> Event:
        return self.scripted.next_event()


class Scripted:
    """A recorded session's agent in place of the process (``askcli replay``)."""

    def __init__(
        self,
        received: Sequence[Any],
        status: int | None = 0,
        on_stderr: Callable[[str, int], None] | None = None,
    ) -> None:
        self.lines = [as_dict(entry) for entry in received]
        self.status = status
        self.on_stderr = on_stderr
        self.sent: list[dict[str, Any]] = []
        self.pending: dict[str, list[_Done]] = {}
        self.calls = 0  # requests sent and not yet reached in the script
        self.seconds = 0.0
        self.events = _ScriptQueue(self)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.sent.append({"request": method, "params": params})
        self.calls += 1
        future = _Done()
        if method == "session/cancel":
            future.entry = {"result": None}
        else:
            self.pending.setdefault(method, []).append(future)
        return future

    def next_event(self) -> Event:
        """The next recorded message, up to the next request askcli has not sent yet;
        queue.Empty in place of a request's result (its future is then done)."""
        while self.lines:
            entry = self.lines[0]
            if "sent" in entry:
                if self.calls == 0:
                    break
                self.calls -= 1
                self.lines.pop(0)
                continue
            if "reply" in entry:
                waiting = self.pending.get(as_text(entry.get("reply")))
                if not waiting:
                    break
                self.lines.pop(0)
                future = waiting.pop(0)
                future.entry = entry
                if isinstance(entry.get("seconds"), int | float):
                    self.seconds = float(entry["seconds"])
                break
            self.lines.pop(0)
            if "interrupt" in entry:
                raise KeyboardInterrupt
            if "stderr" in entry:
                if self.on_stderr is not None:
                    more = entry.get("more")
                    self.on_stderr(
                        as_text(entry.get("stderr")), more if isinstance(more, int) else 0
                    )
                continue
            if "refused" in entry:
                return Event("refused", {"method": as_text(entry.get("refused"), "?")})
            if "shown" in entry:
                return Event("shown", {"text": as_text(entry.get("shown"))})
            method = as_text(entry.get("notification") or entry.get("request"))
            kind = KINDS.get(method)
            if kind is None:
                continue
            params = as_dict(entry.get("params"))
            if kind == "update":
                return Event(kind, params)
            number = entry.get("id") if isinstance(entry.get("id"), int) else None

            def answer(
                value: dict[str, Any], number: int | None = number, kind: str = kind
            ) -> None:
                self.sent.append({"id": number, "result": wire_answer(kind, value)})

            return Event(kind, params, answer, number)
        raise queue.Empty

    def gone(self) -> bool:
        """Asked when nothing came and the request waited for is not done: the script has
        nothing more for it (it ends, or what follows waits on another request), as when
        the agent ended."""
        return True

    def elapsed(self, began: float) -> float:
        return self.seconds

    def close(self, *, at_once: bool = False) -> int | None:
        return self.status
