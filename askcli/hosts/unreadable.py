"""``askcli mcp``: a message the SDK cannot read gets a JSON-RPC error with its request's id.

The SDK's stdio transport hands a line it cannot parse or validate to the server as an
exception, which the server drops (``JSONRPCDispatcher._dispatch`` logs it at debug
level): a request nested deeper than pydantic-core's JSON parser takes (about 200 levels,
"recursion limit exceeded"), or one that is not JSON, was never answered and its client
waited forever. :class:`UnreadableAnswering` sits between the transport and the server and answers
such a line with a JSON-RPC error, -32700 (parse error) or -32600 (invalid request),
carrying the request's id when the line's top level shows one (and a method), else
``null``. A blank line is not a message and gets no answer. Over HTTP the SDK answers such
a POST itself (HTTP status 400, id ``null``); :class:`WithId` puts the request's id in it.

The SDK is imported only in these functions' bodies, called once :func:`serve` runs.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_BODY = 4 * 1024 * 1024  # the SDK's own limit on a POST's body
MAX_MEMBERS = 64  # top-level members looked at (a JSON-RPC message has four or five)
NESTED = "[...]"  # the value top_level gives a member that is an array or object
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_SCALAR = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null')
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)  # a string left open ends the text


def _space(text: str, pos: int) -> int:
    """``pos`` past JSON's white space."""
    while pos < len(text) and text[pos] in " \t\n\r":
        pos += 1
    return pos


def _skip_nested(text: str, pos: int) -> int | None:
    """The end of the array or object starting at ``pos``, found without recursion (any
    depth); None when it does not end."""
    depth = 0
    for token in _NESTING.finditer(text, pos):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
        elif mark in ("]", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None


def top_level(text: str) -> dict[str, Any]:
    """The members of the JSON object ``text`` holds at its top level (the first
    :data:`MAX_MEMBERS`), read up to the first thing that is not JSON; an array or object
    is skipped at any depth, its value given as :data:`NESTED`."""
    found: dict[str, Any] = {}
    pos = _space(text, 0)
    if not text.startswith("{", pos):
        return found
    pos += 1
    for _ in range(MAX_MEMBERS):
        pos = _space(text, pos)
        key = _STRING.match(text, pos)
        if key is None:
            return found
        pos = _space(text, key.end())
        if not text.startswith(":", pos):
            return found
        pos = _space(text, pos + 1)
        if text.startswith(("{", "["), pos):
            end = _skip_nested(text, pos)
            if end is None:
                return found
            with contextlib.suppress(ValueError):
                found[json.loads(key.group())] = NESTED
            pos = end
        else:
            value = _SCALAR.match(text, pos)
            if value is None:
                return found
            with contextlib.suppress(ValueError):
                found[json.loads(key.group())] = json.loads(value.group())
            pos = value.end()
        pos = _space(text, pos)
        if not text.startswith(",", pos):
            return found
        pos += 1
    return found


def request_id(members: Any) -> int | str | None:
    """The id of a request (a message with a method), if it has a usable one."""
    if not isinstance(members, dict) or "method" not in members:
        return None
    found = members.get("id")
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None


def rejection(exc: Exception) -> tuple[int, int | str | None, str] | None:
    """The error (code, id, message) that answers a line the transport could not read,
    given as ``exc``; None for a blank line."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return PARSE_ERROR, None, "Parse error"
    errors = exc.errors(include_url=False)
    first: Any = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        line = first.get("input")
        if isinstance(line, str) and not line.strip():
            return None
        why = str(first.get("msg", "")).removeprefix("Invalid JSON: ")
        rid = request_id(top_level(line)) if isinstance(line, str) else None
        return PARSE_ERROR, rid, f"Parse error: {why}" if why else "Parse error"
    # valid JSON that is no JSON-RPC message: the whole object is the input of an error
    whole = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)
    message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
    return INVALID_REQUEST, request_id(whole), message


class UnreadableAnswering:
    """The server's read stream: what ``inner`` (the stdio transport's) gives, but for a
    line it could not read, answered on ``write`` with :func:`rejection`'s error."""

    def __init__(self, inner: Any, write: Any, say: Callable[[str], None]) -> None:
        self.inner = inner
        self.write = write
        self.say = say

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK looks for
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    async def _answer(self, exc: Exception) -> None:
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError

        found = rejection(exc)
        if found is None:
            return
        code, rid, message = found
        self.say(f"a message that cannot be read gets the error {code} ({message})")
        error = JSONRPCError(jsonrpc="2.0", id=rid, error=ErrorData(code=code, message=message))
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.write.send(SessionMessage(error))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> UnreadableAnswering:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> UnreadableAnswering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class WithId:
    """ASGI: the SDK's answer to a POST it could not read (status 400, a JSON-RPC error
    whose id is ``null``) gets the id of the request the body shows, if it shows one."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()
        held: list[Any] = []  # the start of a 400 answer, until its body is seen

        async def recording() -> Any:
            message = await receive()
            if message.get("type") == "http.request" and len(body) <= MAX_BODY:
                body.extend(message.get("body", b""))
            return message

        async def sending(message: Any) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 400:
                held.append(message)
                return
            if held and message.get("type") == "http.response.body":
                start = held.pop()
                if not message.get("more_body") and len(body) <= MAX_BODY:
                    content = with_id(bytes(message.get("body", b"")), bytes(body))
                    headers = [
                        (k, str(len(content)).encode() if k.lower() == b"content-length" else v)
                        for k, v in start.get("headers", [])
                    ]
                    start = {**start, "headers": headers}
                    message = {**message, "body": content}
                await send(start)
            await send(message)

        await self.app(scope, recording, sending)


def with_id(answer: bytes, request: bytes) -> bytes:
    """``answer`` (a JSON-RPC error whose id is null) with the id ``request`` shows; the
    same bytes when it is something else or no id shows."""
    try:
        found = json.loads(answer)
    except ValueError:
        return answer
    if not (isinstance(found, dict) and "error" in found and found.get("id", 0) is None):
        return answer
    rid = request_id(top_level(request.decode("utf-8", "replace")))
    if rid is None:
        return answer
    fixed = {k: (rid if k == "id" else v) for k, v in found.items()}
    return json.dumps(fixed, ensure_ascii=False, separators=(",", ":")).encode()
