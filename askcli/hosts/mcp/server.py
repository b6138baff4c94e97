"""``askcli mcp``: an MCP server whose tools are answered through the inbox's queue.

Three tools: ``ask_user_questions`` (AskUserQuestion's input schema and result text),
``todo_write`` (TodoWrite's schema; the checklist is shown in the inbox) and ``get_answer``
(waits again on a ticket); and ``permission_prompt``, Claude Code's
``--permission-prompt-tool`` (:mod:`.permission_tool`). A call is checked here, queued
(:class:`~askcli.inbox.store.base.Store`) with the MCP client's name as its agent, and
waited for; an inbox (``askcli inbox``) asks the person and stores the reply, whose result
text goes back to the model.

MCP clients give up on long tool calls (Codex after ``tool_timeout_sec``, 300 s by default;
clients built on the TypeScript SDK after 60 s; Claude Code after ``MCP_TOOL_TIMEOUT``). The
answer is never lost: a call still unanswered after ``wait`` seconds returns a result telling
the model that the question still waits, with its ticket, and how to call ``get_answer``; an
identical call asked again in the same conversation (this server process and MCP session)
is the same question, and returns its answer at once when it was given meanwhile, for
``reuse_for`` seconds after it was given. A ticket is good only in the conversation that
asked; an answer nobody collected is never handed to a later conversation (a restarted
client, another server). Progress notifications are sent while a call waits.

The official SDK (``mcp`` on PyPI, the ``askcli[mcp]`` extra) is imported only here, and only
by :func:`serve`; :class:`~.asker.QueueSide` (the queue side) needs nothing but anyio, which the SDK
brings, imported once :func:`sdk_missing` found the SDK.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import hmac
import itertools
import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InboxError, UsageError
from ...escaping import visible
from ...inbox.store import open_store
from ...schema.models import TodoWriteInput
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.signals import STATUS_OF_SIGNAL
from ...wire.definitions import DESCRIPTION as ASK_DESCRIPTION
from ...wire.definitions import input_schema, schema_of
from . import permission_tool as permission
from . import tasks
from .asker import ASK, DEFAULT_REUSE, GET, TODO, QueueSide, Session, ToolOutcome, UnknownTool
from .shutdown import Deadline, client_gone

if TYPE_CHECKING:  # anyio comes with the SDK: imported where it is used, after the check
    import anyio

MAX_SESSIONS = 1000  # HTTP conversations remembered, the ones used last
SERVER_NAME = "askcli"
CONVERSATION = "askcli/conversation"  # the _meta key a stateless client names its own with
MIN_CONVERSATION, MAX_CONVERSATION = 16, 200  # characters of such a name
SDK_MISSING = (
    "askcli mcp needs the MCP SDK: pip install 'askcli[mcp]' (or pip install 'mcp>=2.3,<3')"
)


def tool_definitions() -> list[dict[str, Any]]:
    """The four tools as MCP's ``tools/list`` gives them (``name``, ``description``,
    ``inputSchema``)."""
    ask_schema = input_schema()
    ask_schema.pop("$schema", None)
    waits = (
        "\n\nThe question is answered by the user in their askcli inbox. When they take "
        "long, the result says that the question still waits and gives a ticket: call "
        f"{GET} with it to wait for the answer."
    )
    return [
        {"name": ASK, "description": ASK_DESCRIPTION + waits, "inputSchema": ask_schema},
        {
            "name": TODO,
            "description": (
                "Create and update the task list of this session, which the user follows "
                "in their askcli inbox: each item has content (what to do), activeForm "
                "(the same in the present continuous) and a status, pending, in_progress "
                "or completed; send the whole updated list each time." + waits
            ),
            "inputSchema": schema_of(TodoWriteInput),
        },
        {
            "name": GET,
            "description": (
                f"Wait for the answer to a question asked with {ASK} (or {TODO}) that was "
                "still waiting in the user's askcli inbox: give the ticket that result "
                "named. Returns the user's answer, or says again that it still waits."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "ticket": {
                        "type": "string",
                        "description": "The ticket of the waiting question (q_...)",
                    }
                },
                "required": ["ticket"],
                "additionalProperties": False,
            },
        },
        permission.DEFINITION,
    ]


# -- the SDK's side ------------------------------------------------------------------------


def sdk_missing() -> str | None:
    """None when the SDK can be imported, else the one-line error."""
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        return SDK_MISSING
    return None


def _server(asker: QueueSide) -> Any:
    """The SDK's low-level server with the four tools."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = [
        types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
        for t in tool_definitions()
    ]
    sessions: collections.OrderedDict[str, Session] = collections.OrderedDict()
    numbers = itertools.count(1)
    calls = itertools.count(1)
    watched: set[str] = set()  # the MCP sessions whose end withdraws their questions

    def session_of(ctx: Any) -> Session:
        """The conversation of a request: the one of a server on stdio; over HTTP, the
        client's MCP session (its ``Mcp-Session-Id``), or, from a stateless client (MCP
        2026-07-28: no session), the conversation it names in ``_meta`` (:data:`CONVERSATION`)
        with the bearer credential it sent; a stateless call that names none is a
        conversation of its own, whose ticket only that credential redeems. Each has a
        secret token of this process and a number. The :data:`MAX_SESSIONS` used last
        are kept: an older one asking again is a new conversation."""
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        key = "stdio"
        mcp_session = _mcp_session(ctx)
        if mcp_session is not None:
            key = "session:" + mcp_session
        elif headers is not None:  # stateless: the credential, and the conversation named
            credential = hashlib.sha256(str(headers.get("authorization", "")).encode())
            named = _conversation_named(getattr(ctx, "params", None))
            if named is None:
                token = "alone:" + credential.hexdigest()  # the same for its get_answer
                return Session(token, next(calls), alone=True)
            credential.update(b"\0" + named.encode())
            key = "named:" + credential.hexdigest()
        found = sessions.pop(key, None)
        sessions[key] = found or Session(secrets.token_urlsafe(16), next(numbers))
        while len(sessions) > MAX_SESSIONS:
            sessions.popitem(last=False)
        return sessions[key]

    def watch_end(ctx: Any, session: Session) -> None:
        """When the MCP session of ``session`` ends (the client's DELETE, its idle end,
        the server stopping), its questions that still wait are withdrawn."""
        connection = getattr(ctx.session, "_connection", None)
        key = _mcp_session(ctx)
        if connection is None or key is None or session.token in watched:
            return
        watched.add(session.token)

        def ended() -> None:
            watched.discard(session.token)
            sessions.pop("session:" + key, None)
            for qid in asker.end(session):
                asker.say(f"question {qid} was withdrawn: its MCP session ended")

        connection.exit_stack.callback(ended)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        client_params = ctx.session.client_params
        client = client_params.client_info.name if client_params is not None else None

        async def progress(done: float, message: str) -> None:
            # a client that went away gets no progress; the wait goes on
            with contextlib.suppress(Exception):
                await ctx.session.report_progress(done, None, message)

        try:
            session = session_of(ctx)
            watch_end(ctx, session)
            if params.name == permission.PERMISSION:
                outcome = await permission.call(asker, params.arguments, client, progress, session)
            elif params.name in (ASK, TODO) and _modern(ctx) and tasks.asked_for(ctx.params):
                task = _task_conversation(ctx, asker)
                queued = asker.queue(params.name, params.arguments, client, session, task=task)
                if not isinstance(queued, ToolOutcome):
                    asker.say(f"question {queued.id} is a task: the client polls tasks/get")
                    return tasks.created(queued)
                outcome = queued
            else:
                outcome = await asker.call(params.name, params.arguments, client, progress, session)
        except UnknownTool as exc:  # a protocol error, as the MCP spec has it: not a result
            from mcp.shared.exceptions import MCPError
            from mcp_types import INVALID_PARAMS

            raise MCPError(INVALID_PARAMS, f"Unknown tool: {exc}") from None
        except InboxError as exc:  # the queue file went bad while serving: the model is told
            asker.say(str(exc))
            outcome = ToolOutcome(f"The user's askcli inbox cannot be used: {exc}", True)
        except anyio.get_cancelled_exc_class():
            asker.say("the client stopped waiting for a call; its question stays in the inbox")
            raise
        return types.CallToolResult(
            content=[types.TextContent(text=outcome.text)], is_error=outcome.is_error
        )

    from ...version import __version__

    server = Server(
        SERVER_NAME,
        version=__version__,
        instructions=(
            "Questions for the user are answered in their askcli inbox; a question still "
            f"waiting returns a ticket for {GET}."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    _serve_tasks(server, tasks.Tasks(asker))
    return server


def _task_conversation(ctx: Any, asker: QueueSide) -> str:
    """The conversation of a task asked or polled by a request (:func:`.tasks.conversation`)."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    credential = None if headers is None else str(headers.get("authorization", ""))
    named = _conversation_named(getattr(ctx, "params", None))
    return tasks.conversation(credential, named, asker.session or asker.cwd or "")


def _serve_tasks(server: Any, served: tasks.Tasks) -> None:
    """The tasks extension's methods, served to MCP 2026-07-28 requests that list it."""
    from mcp import types
    from mcp.shared.exceptions import MCPError
    from mcp_types import HEADER_MISMATCH, INTERNAL_ERROR, METHOD_NOT_FOUND

    server.extensions[tasks.EXTENSION] = {}
    answer = {"tasks/get": served.get, "tasks/update": served.update, "tasks/cancel": served.cancel}

    def handler(method: str) -> Any:
        async def handle(ctx: Any, params: Any) -> dict[str, Any]:
            if not _modern(ctx):
                raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
            if not _named_right(ctx):
                raise MCPError(HEADER_MISMATCH, "mcp-name header does not match the taskId")
            try:
                return answer[method](ctx.params, _task_conversation(ctx, served.asker))
            except tasks.TaskError as exc:
                raise MCPError(exc.code, str(exc), exc.data) from None
            except InboxError as exc:  # the queue file went bad while serving: said in one line
                served.asker.say(str(exc))
                text = f"The user's askcli inbox cannot be used: {exc}"
                raise MCPError(INTERNAL_ERROR, text) from None

        return handle

    for method in tasks.METHODS:
        server.add_request_handler(method, types.RequestParams, handler(method))


def _named_right(ctx: Any) -> bool:
    """Over HTTP, a ``tasks/*`` request's ``Mcp-Name`` header is its ``taskId`` (the
    extension's routing header; the SDK checks it for the methods it knows alone)."""
    from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value

    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is None:
        return True
    params = ctx.params if isinstance(ctx.params, Mapping) else {}
    value = headers.get(MCP_NAME_HEADER)
    return value is not None and decode_header_value(value.strip()) == params.get("taskId")


def _modern(ctx: Any) -> bool:
    """Whether a request is of MCP 2026-07-28 (stateless, capabilities in ``_meta``)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def _mcp_session(ctx: Any) -> str | None:
    """The MCP session (2025-11-25 and before, over HTTP) of a request: the one the SDK
    made for the connection, never a header a stateless request may carry as it likes."""
    connection = getattr(getattr(ctx, "session", None), "_connection", None)
    found = getattr(connection, "session_id", None)
    return found if isinstance(found, str) else None


def _conversation_named(params: Any) -> str | None:
    """The conversation a stateless client's request names in its ``_meta``: 16 to 200
    visible ASCII characters (it chose them at random and keeps them), else None."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    named = meta.get(CONVERSATION) if isinstance(meta, Mapping) else None
    if not isinstance(named, str) or not MIN_CONVERSATION <= len(named) <= MAX_CONVERSATION:
        return None
    return named if all("!" <= c <= "~" for c in named) else None


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[::1]:PORT``, ``:PORT`` or ``PORT`` (loopback); UsageError else."""
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"--http {value!r}: give HOST:PORT, e.g. 127.0.0.1:8765") from None
    if not 0 < port < 65536:
        raise UsageError(f"--http {value!r}: the port must be 1-65535")
    return host, port


LOOPBACK = ("127.0.0.1", "localhost", "::1")


class _Bearer:
    """ASGI: every HTTP request must carry ``Authorization: Bearer TOKEN``; others get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.want = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            got = b""
            for key, value in scope.get("headers", []):
                if key.lower() == b"authorization":
                    got = value
            if not hmac.compare_digest(got, self.want):
                body = b'{"error":"unauthorized","error_description":"a bearer token is needed"}'
                headers = [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="askcli"'),
                ]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def new_token() -> str:
    return secrets.token_urlsafe(32)


MIN_TOKEN = 16  # characters of a bearer token given with --token or $ASKCLI_MCP_TOKEN


def token_problem(token: str) -> str | None:
    """What is wrong with a bearer token given to ``--http`` (never the token itself);
    None for a good one: 16 or more visible ASCII characters, which an HTTP header carries
    as they are (its spaces at the ends are dropped; other characters clients refuse)."""
    if not token.strip():
        return "the bearer token is blank"
    if len(token) < MIN_TOKEN:
        return f"the bearer token is shorter than {MIN_TOKEN} characters"
    if not all("!" <= c <= "~" for c in token):
        return "the bearer token has a space, a control character or a non-ASCII character"
    return None


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket at ``host``:``port``; OSError when it cannot be had."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(
    asker: QueueSide,
    *,
    sock: socket.socket | None = None,
    token: str = "",
    say: Callable[[str], None],
) -> int:
    """Serve over stdio (or Streamable HTTP on the listening ``sock``) until the client
    closes stdin (0) or a signal stops the server (130, 143, 129); the questions this server
    queued that still wait are then withdrawn."""
    import anyio

    server = _server(asker)
    status = [0]
    web: list[Any] = []  # the HTTP server, once it runs

    async def watch_signals(scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(*signals.handled()) as received:
            async for signum in received:
                status[0] = STATUS_OF_SIGNAL.get(signal.Signals(signum), ExitStatus.TERMINATED)
                say(f"stopped ({signal.Signals(signum).name})")
                deadline.start(status[0], asker.store, lambda: asker.mine, say)
                if web:
                    web[0].should_exit = True  # uvicorn ends its connections, then returns
                else:
                    scope.cancel()
                return

    async def stdio() -> None:
        from mcp.server.stdio import stdio_server

        from ..unreadable import UnreadableAnswering

        async with stdio_server() as (read, write):
            # a line it cannot read gets a JSON-RPC error
            read = UnreadableAnswering(read, write, say)
            await server.run(read, write, server.create_initialization_options())

    async def over_http(sock: socket.socket) -> None:
        import uvicorn

        from ..unreadable import WithId

        host = sock.getsockname()[0]
        app = _Bearer(WithId(server.streamable_http_app(host=host)), token)
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
        web.append(uvicorn.Server(config))
        # _serve: serve() without uvicorn's own signal handlers (watch_signals has them)
        await web[0]._serve(sockets=[sock])

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_signals, group.cancel_scope)
            if sock is None:
                await stdio()
            else:
                await over_http(sock)
            group.cancel_scope.cancel()

    deadline = Deadline()
    try:
        anyio.run(main)
    except BaseException as exc:  # an exception group of the SDK's tasks, or one exception
        if not client_gone(exc):
            raise
        say("the client went away (its end of the connection is closed)")
        status[0] = ExitStatus.STDOUT_GONE
    finally:
        deadline.cancel()
        for qid in asker.withdraw_mine():
            say(f"question {qid} was withdrawn: this server ends")
    return status[0]


def run(
    *,
    wait: float,
    every: float,
    http: str | None,
    token: str | None,
    session: str | None,
    say: Callable[[str], None],
    reuse_for: float = DEFAULT_REUSE,
    token_from: str = "--token",
    to: str | None = None,
    inbox_url: str | None = None,
) -> int:
    """``askcli mcp``: the exit status. ``token_from`` says where ``token`` came from
    (``--token`` or ``$ASKCLI_MCP_TOKEN``), for the usage error of a weak one;
    ``inbox_url`` names the inbox (None: the default)."""
    missing = sdk_missing()
    if missing is not None:
        say(missing)
        return ExitStatus.USAGE
    where = parse_http(http) if http is not None else None
    problem = token_problem(token) if where is not None and token is not None else None
    if problem is not None:
        raise UsageError(
            f"{token_from}: {problem}; give one of {MIN_TOKEN} or more letters, digits "
            "and punctuation, or none and a new one is made"
        )
    cwd = os.getcwd()
    store = open_store(inbox_url)
    store.ids()  # a file that cannot be an inbox is said now (InboxError), in one line
    asker = QueueSide(
        store,
        wait=wait,
        every=every,
        session=session if session is not None else (cwd if where is None else None),
        cwd=cwd if where is None else None,
        reuse_for=reuse_for,
        http=where is not None,
        say=say,
        to=to,
    )
    if where is None:
        say(f"serving MCP over stdio; questions wait in the inbox {store.where}")
        return serve(asker, say=say)
    secret = token if token is not None else new_token()
    host, port = where
    try:
        sock = listen(host, port)
    except OSError as exc:
        say(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return ExitStatus.USAGE
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    say(f"serving MCP (Streamable HTTP) at {url}; questions wait in the inbox {store.where}")
    if token is None:
        say(f"clients send the header: Authorization: Bearer {secret}")
    if host not in LOOPBACK:
        say(
            f"warning: listening on {host}, not loopback: this is meant for an SSH tunnel "
            "(ssh -L 8765:127.0.0.1:8765 ...) to a server on 127.0.0.1"
        )
    return serve(asker, sock=sock, token=secret, say=say)


def stderr_say(line: str) -> None:
    """One line of the server's log on stderr (the client keeps it), escaped."""
    try:
        sys.stderr.write(f"askcli mcp: {visible(line)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
