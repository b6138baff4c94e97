"""The SDK's Client for :class:`~.agent.AgentLink`: each message the agent sends goes to the
main thread as an :class:`~.events.Event`; with ``--fs`` and ``--terminal`` it serves the
agent's file and terminal requests (:mod:`askcli.hosts.acp.workspace`) on the loop thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .events import Event, EventKind
from .workspace import RequestRefused, Terminals

if TYPE_CHECKING:
    import queue

    from .workspace import Files

TERMINAL_REPLIES = {  # --terminal: the SDK's model of each reply
    "terminal/create": "CreateTerminalResponse",
    "terminal/output": "TerminalOutputResponse",
    "terminal/release": "ReleaseTerminalResponse",
    "terminal/wait_for_exit": "WaitForTerminalExitResponse",
    "terminal/kill": "KillTerminalResponse",
}


def dump(value: Any) -> Any:
    """A model from the SDK as the JSON it came as (aliases, no nulls)."""
    model_dump = getattr(value, "model_dump", None)
    if model_dump is None:
        return value
    return model_dump(by_alias=True, exclude_none=True, mode="json")


class ClientSide(Protocol):
    """What the Client uses of its link (an :class:`~.agent.AgentLink` is one): the SDK, the
    workspace, the main thread's queue and how a reply gets back to the agent; a protocol,
    so that the client does not import the link that imports it."""

    acp: Any
    files: Files | None
    terminals: Terminals | None
    events: queue.Queue[Event]
    requests: int

    def show(self, text: str) -> None: ...

    def answer_soon(self, future: asyncio.Future[Any], value: dict[str, Any]) -> None: ...


class Client:
    """The SDK's Client: each message goes to the main thread as an :class:`Event`."""

    def __init__(self, link: ClientSide) -> None:
        self.link = link

    async def _ask(self, kind: EventKind, params: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.link.requests += 1
        answer = lambda v: self.link.answer_soon(future, v)  # noqa: E731
        self.link.events.put(Event(kind, params, answer, self.link.requests))
        return await future

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.link.events.put(
            Event(EventKind.UPDATE, {"sessionId": session_id, "update": dump(update)})
        )

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        schema = self.link.acp.schema
        params = {
            "sessionId": session_id,
            "toolCall": dump(tool_call),
            "options": [dump(o) for o in options],
        }
        reply = await self._ask(EventKind.PERMISSION, params)
        if "optionId" in reply:
            outcome: Any = schema.AllowedOutcome(outcome="selected", option_id=reply["optionId"])
        else:
            outcome = schema.DeniedOutcome(outcome="cancelled")
        return schema.RequestPermissionResponse(outcome=outcome)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        schema = self.link.acp.schema
        shape = dump(mode)
        params = {"message": message, **(shape if isinstance(shape, dict) else {})}
        params["mode"] = "url" if "url" in params else "form"
        reply = await self._ask(EventKind.ELICITATION, params)
        action = reply.get("action")
        if action == "accept":
            return schema.AcceptElicitationResponse(action="accept", content=reply.get("content"))
        if action == "decline":
            return schema.DeclineElicitationResponse(action="decline")
        return schema.CancelElicitationResponse(action="cancel")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def _refuse(self, what: str) -> Any:
        self.link.events.put(Event(EventKind.REFUSED, {"method": what}))
        raise self.link.acp.RequestError.method_not_found(what)

    def _failed(self, what: str, exc: RequestRefused) -> Exception:
        """The JSON-RPC error for a request askcli could not serve, shown to the person."""
        self.link.show(f"  -> {what}: refused: {exc}")
        return self.link.acp.RequestError(-32603, str(exc))  # type: ignore[no-any-return]

    def _not_found(self, path: str) -> Exception:
        """ACP's error for a missing file, as its TypeScript library words it (the agents'
        own): code -32002, "Resource not found: PATH", data ``{"uri": PATH}``."""
        error = self.link.acp.RequestError
        return error(-32002, f"Resource not found: {path}", {"uri": path})  # type: ignore[no-any-return]

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
        except RequestRefused as exc:
            if not exc.missing:
                raise self._failed(what, exc) from None
            if not files.missing_as_empty:
                self.link.show(f"  -> {what}: not found")
                raise self._not_found(path) from None
            self.link.show(f"  -> {what}: not found (an empty text for Gemini CLI)")
            return self.link.acp.schema.ReadTextFileResponse(content="")
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
        except RequestRefused as exc:
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
        except RequestRefused as exc:
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
        variables = [dump(e) for e in env or []]

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
