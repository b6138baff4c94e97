"""Envelopes: the shapes a tool call arrives in, and the shape its reply goes back in.

- bare input ``{"questions"}`` / ``{"todos"}``: a ``tool_result`` with a generated id
- a ``tool_use`` block: its ``tool_result`` block; a block without ``id`` (exporters drop
  it) gets a generated one, as bare input does, with a notice
- an assistant message / Messages API response: a user message listing the tool_results
- a Claude Code stream-json ``assistant`` line: ``{"type":"user","message":{...}}``
- a Claude Code ``control_request``: a ``control_response`` with the permission decision
- an OpenAI chat tool call, or an assistant message with ``tool_calls``: one
  ``{"role":"tool","tool_call_id","content"}`` per call
- an OpenAI Responses ``function_call``: its ``function_call_output``
- a Gemini ``functionCall`` part, a ``content`` of parts or a ``generateContent``
  response: the ``functionResponse`` part(s), in a ``user`` content when they came in one
- a bare Gemini function call ``{"name", "args", "id"?}`` (what Gemini CLI's logs, session
  transcripts and the SDK's ``functionCalls`` show): the bare ``{"id"?, "name", "response"}``
- a JSON-RPC ``elicitation/create`` request (an MCP server asking): its JSON-RPC response
- a JSON-RPC ``session/request_permission`` request (an ACP agent asking before a tool
  call): its JSON-RPC response, ``{"outcome": {"outcome": "selected", "optionId"}}`` or
  ``{"outcome": {"outcome": "cancelled"}}``
- a Codex app-server ``item/tool/requestUserInput``, ``item/commandExecution/requestApproval``
  or ``item/fileChange/requestApproval`` request (JSON-RPC without the ``jsonrpc`` key, as
  Codex sends it, or with it): its JSON-RPC response
- a Claude Code ``control_request`` of subtype ``elicitation`` (an MCP server asking
  through Claude Code): a ``control_response`` carrying ``{action, content}``
- an OpenCode ``question.asked`` event (or a ``GET /question`` request object): the
  ``question.replied`` event with the answers, or ``question.rejected``; OpenCode's other
  events (``session.updated``, ...) are passed over

Unknown extra keys (``caller``, ``usage``, ...) are ignored; stream-json lines of other
types (``system``, ``result``, ``stream_event``, ...) are passed over.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..errors import UnreadableDocument
from ..escaping import LONE_VS16, UNSAFE_BEYOND_C0, escape_controls
from ..schema.names import (
    ACP_PERMISSION,
    ASK_USER_QUESTION,
    CODEX_METHODS,
    ELICITATION,
    JSONRPC_METHODS,
    OPENCODE_QUESTION,
    TODO_WRITE,
)
from ..status import ExitStatus
from .documents import loads_limited, wrap_hint
from .permission_request import Care, care_of
from .results import CANCEL_MESSAGE, DISMISSED, QUEUED_CANCELLED, ToolResult

JSONRPC_INVALID_PARAMS = -32602
JSONRPC_NO_METHOD = -32601

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# characters JSON may carry raw but a terminal could act on: escaped in every output line
_UNSAFE_IN_JSON = re.compile(f"[{UNSAFE_BEYOND_C0}]|{LONE_VS16}")

# ACP's answer to a permission request when no option is selected
ACP_CANCELLED: dict[str, Any] = {"outcome": {"outcome": "cancelled"}}


class Output(enum.Enum):
    """What stdout carries for each document (``--output``)."""

    RESULT = "result"  # the reply envelope(s)
    ANSWERS = "answers"  # each call's data ({"questions", "answers", "annotations"})
    SDK = "sdk"  # each call's Agent SDK permission decision
    TEXT = "text"  # each call's result text alone


class EnvelopeKind(enum.Enum):
    BARE = "bare"
    TOOL_USE = "tool_use"
    MESSAGE = "message"
    STREAM_JSON = "stream-json"
    CONTROL = "control"
    OPENAI = "openai"
    RESPONSES = "responses"
    GEMINI = "gemini"  # a functionCall part on its own
    GEMINI_CONTENT = "gemini-content"  # a content (or response) holding parts
    GEMINI_CALL = "gemini-call"  # {"name", "args"}: a FunctionCall without its part
    JSONRPC = "jsonrpc"
    OPENCODE = "opencode"  # a question.asked event: question.replied / question.rejected
    PASSED_OVER = "passed-over"


class ToolCall(NamedTuple):
    """One tool call; ``problem`` says why a malformed one cannot be run. ``session_id``
    and ``agent_id`` come from envelopes that carry them (stream-json, control requests)."""

    id: str | None
    name: str
    input: Any
    problem: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    suggestions: Any = None  # a can_use_tool request's permission_suggestions, as sent
    notice: str | None = None  # told the person before the call is asked (a made-up id)
    care: Care | None = None  # a can_use_tool request's own words and requests to be careful

    @property
    def default_to_no(self) -> bool:
        """No single key may approve this call (Claude Code's ``default_to_no``)."""
        return self.care is not None and self.care.default_to_no

    @property
    def no_lasting_rule(self) -> bool:
        """No "don't ask again" may be offered (``suppress_always_allow_rule``)."""
        return self.care is not None and self.care.no_lasting_rule

    @property
    def needs_person(self) -> bool:
        """Only a person at a terminal may approve this call (:attr:`Care.needs_person`)."""
        return self.care is not None and self.care.needs_person

    @property
    def person_only(self) -> bool:
        """No single key may approve, and only at a terminal (``requires_user_interaction``)."""
        return self.care is not None and self.care.person_only


class Context(NamedTuple):
    """Text the assistant wrote next to its tool calls, shown to the person; ``label``
    says whose words they are (an MCP server's, for an elicitation)."""

    text: str
    label: str = "Assistant"


class Envelope(NamedTuple):
    """A recognised document: its calls and context text, and how to reply.

    ``request_id`` is a control request's; ``refusal`` is set for a control request askcli
    does not serve (answered with an error response, nothing asked).
    """

    kind: EnvelopeKind
    items: tuple[ToolCall | Context, ...] = ()
    request_id: Any = None
    refusal: str | None = None
    sent_ids: tuple[Any, ...] = ()  # Gemini: each call's own id (None: it had none)

    @property
    def calls(self) -> list[ToolCall]:
        return [item for item in self.items if isinstance(item, ToolCall)]

    def replies(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """The reply objects carrying ``results`` (one per call, in order)."""
        if self.kind is EnvelopeKind.CONTROL:
            if self.refusal is not None:
                response: dict[str, Any] = {
                    "subtype": "error",
                    "request_id": self.request_id,
                    "error": self.refusal,
                }
            else:
                (result,) = results
                response = {
                    "subtype": "success",
                    "request_id": self.request_id,
                    "response": result.decision() if result.reply is None else dict(result.reply),
                }
                if result.reply is None and self.calls and self.calls[0].name == ELICITATION:
                    response = {  # an elicitation that could not be asked
                        "subtype": "error",
                        "request_id": self.request_id,
                        "error": _invalid_params(result.content)["message"],
                    }
            return [{"type": "control_response", "response": response}]
        if self.kind is EnvelopeKind.JSONRPC:
            return [_jsonrpc(self.request_id, self.refusal, results, self.calls)]
        if self.kind is EnvelopeKind.OPENCODE:
            return [_opencode_reply(self.request_id, self.calls, results)]
        if not results:
            return []
        if self.kind in (
            EnvelopeKind.GEMINI,
            EnvelopeKind.GEMINI_CONTENT,
            EnvelopeKind.GEMINI_CALL,
        ):
            ids = self.sent_ids or tuple(r.tool_use_id for r in results)
            calls = self.calls
            parts = [_gemini(r, c.name, i) for r, c, i in zip(results, calls, ids, strict=False)]
            if self.kind is EnvelopeKind.GEMINI_CALL:  # the FunctionResponse, as the call came bare
                return [part.get("functionResponse", part) for part in parts]
            if self.kind is EnvelopeKind.GEMINI:
                return parts
            return [{"role": "user", "parts": parts + _gemini_words(results)}]
        if self.kind is EnvelopeKind.OPENAI:
            return [_openai(r) for r in results]
        if self.kind is EnvelopeKind.RESPONSES:
            return [_responses(r) for r in results]
        blocks = [_anthropic(r) for r in results]
        if self.kind is EnvelopeKind.MESSAGE:
            return [{"role": "user", "content": blocks}]
        if self.kind is EnvelopeKind.STREAM_JSON:
            return [{"type": "user", "message": {"role": "user", "content": blocks}}]
        return blocks


def _jsonrpc(
    request_id: Any, refusal: str | None, results: Sequence[ToolResult], calls: list[ToolCall]
) -> dict[str, Any]:
    """A JSON-RPC response: the result object, or an error for a request not served. An
    ACP permission request nobody answered (an inbox's timeout, a declined or withdrawn
    question) is ACP's cancelled outcome, never an error and never an option."""
    head: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if refusal is not None:
        return {**head, "error": {"code": JSONRPC_NO_METHOD, "message": refusal}}
    (result,) = results
    permission = bool(calls) and calls[0].name == ACP_PERMISSION
    if result.reply is None and permission and result.status is not ExitStatus.INVALID:
        return {**head, "result": ACP_CANCELLED}
    if result.reply is None:  # the params could not be asked
        return {**head, "error": _invalid_params(result.content)}
    return {**head, "result": dict(result.reply)}


_WRAPPED = ("<tool_use_error>InputValidationError: ", "</tool_use_error>")


def _invalid_params(text: str) -> dict[str, Any]:
    """JSON-RPC's -32602 for params that could not be asked: the dialect's text (see
    :func:`askcli.wire.dialects.elicitation.invalid_text`), or a malformed request's reason."""
    head, tail = _WRAPPED
    if text.startswith(head) and text.endswith(tail):
        text = f"Invalid params: {text[len(head) : -len(tail)]}"
    return {"code": JSONRPC_INVALID_PARAMS, "message": text}


def _opencode_reply(
    request_id: Any, calls: Sequence[ToolCall], results: Sequence[ToolResult]
) -> dict[str, Any]:
    """The event OpenCode itself emits when its question is answered (the body of ``POST
    /question/{requestID}/reply`` is ``{"answers"}``) or dismissed (``.../reject``). A call
    not answered, or not valid, is dismissed, as OpenCode dismisses what it stops waiting
    for; the person's words of "chat about this" go with it as ``message``."""
    (result,) = results
    head = {"sessionID": calls[0].session_id if calls else None, "requestID": request_id}
    metadata = (result.data or {}).get("metadata")
    if result.allowed and isinstance(metadata, dict):
        return {"type": "question.replied", "properties": {**head, "answers": metadata["answers"]}}
    if result.status is ExitStatus.DECLINED and result.content != DISMISSED:
        head["message"] = result.content
    return {"type": "question.rejected", "properties": head}


def _opencode_envelope(document: dict[str, Any]) -> Envelope | None:
    """An OpenCode ``question.asked`` event, a pending question request as ``GET /question``
    lists it, or another OpenCode event (passed over); None for anything else."""
    kind = document.get("type")
    if kind == "question.asked" and isinstance(document.get("properties"), dict):
        request = document["properties"]
    elif kind is None and "sessionID" in document and "questions" in document:
        request = document
    elif isinstance(kind, str) and "." in kind and isinstance(document.get("properties"), dict):
        return Envelope(EnvelopeKind.PASSED_OVER)
    else:
        return None
    request_id = _text_id(request.get("id"))
    session_id = _text_id(request.get("sessionID"))
    if request_id is None:
        call = ToolCall(None, OPENCODE_QUESTION, None, 'the question request has no string "id"')
    else:
        value = {"questions": request["questions"]} if "questions" in request else {}
        call = _call(request_id, OPENCODE_QUESTION, value, session_id=session_id)
    return Envelope(EnvelopeKind.OPENCODE, (call,), request_id=request_id)


def _gemini(result: ToolResult, name: str, sent_id: Any) -> dict[str, Any]:
    """A ``functionResponse`` part; ``id`` only when the call had one."""
    if result.deferred:
        return result.permission("id")
    if result.reply is not None:
        response = dict(result.reply)
    else:
        response = {"error" if result.is_error else "output": _gemini_text(result)}
    part: dict[str, Any] = {"name": name, "response": response}
    if sent_id is not None:
        part = {"id": sent_id, **part}
    return {"functionResponse": part}


def _gemini_text(result: ToolResult) -> str:
    """Gemini CLI's own words where the shared results have Claude Code's: a call of the
    batch that was not asked because an earlier one was declined."""
    if result.content == CANCEL_MESSAGE:
        return QUEUED_CANCELLED
    return result.content


def _gemini_words(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """The person's words of "chat about this" at an ``ask_user`` call, as the text part
    that follows the functionResponse parts: what Gemini CLI sends as the person's next
    message after a dismissed dialog."""
    words = [(r.data or {}).get("clarification") for r in results if r.reply is not None]
    return [{"text": w} for w in words if isinstance(w, str) and w]


def _anthropic(result: ToolResult) -> dict[str, Any]:
    return result.permission("tool_use_id") if result.deferred else result.block()


def _openai(result: ToolResult) -> dict[str, Any]:
    if result.deferred:
        return result.permission("tool_call_id")
    return {"role": "tool", "tool_call_id": result.tool_use_id, "content": result.content}


def _responses(result: ToolResult) -> dict[str, Any]:
    if result.deferred:
        return result.permission("call_id")
    return {"type": "function_call_output", "call_id": result.tool_use_id, "output": result.content}


def generated_id(document: dict[str, Any], seq: int, place: int | None = None) -> str:
    """A ``toolu_`` id for bare input (or a ``tool_use`` block without one), derived from
    the call and its place in the source, so that replaying the same session gives the
    same id. ``place``: the block's index in its message, so that equal blocks differ."""
    import hashlib  # only bare input needs it: not at start-up

    canonical = json.dumps(document, sort_keys=True, ensure_ascii=True)
    where = str(seq) if place is None else f"{seq}.{place}"
    digest = int.from_bytes(hashlib.sha256(f"{where}:{canonical}".encode()).digest()[:18], "big")
    chars = []
    for _ in range(22):
        digest, rem = divmod(digest, 62)
        chars.append(_BASE62[rem])
    return "toolu_01" + "".join(chars)


def _text_id(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _call(call_id: str | None, name: str, value: Any, **context: Any) -> ToolCall:
    """A call with its input; input that is its items without their object is told how to
    wrap them, and not run."""
    whole = isinstance(value, dict) and ("questions" in value or "todos" in value)
    hint = None if whole else wrap_hint(value, name)  # the usual call needs no look
    problem = None if hint is None else f"the input is {hint}"
    return ToolCall(call_id, name, value, problem, **context)


def json_kind(value: Any) -> str:
    """What a JSON value is, for a message: ``null``, ``a number (7)``, ``an array``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, int) and value.bit_length() > 64:  # str() of a huge int is slow
        return "a number"
    if isinstance(value, int | float):
        text = repr(value) if isinstance(value, float) else str(value)
        return f"a number ({text if len(text) <= 20 else text[:19] + '…'})"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _tool_use(
    block: dict[str, Any], seq: int, place: int | None = None, **context: Any
) -> ToolCall:
    """A ``tool_use`` block's call; one without ``id`` is given one, as bare input is."""
    name = block.get("name")
    notice = None
    if "id" not in block:
        call_id: str | None = generated_id(block, seq, place)
        notice = f'the tool_use block has no "id"; answering it as {call_id}'
    else:
        call_id = _text_id(block["id"])
    if call_id is None:
        problem = f'the tool_use block\'s "id" is {json_kind(block["id"])}, not a string'
        return ToolCall(None, str(name), None, problem, **context)
    if not isinstance(name, str):
        problem = 'the tool_use block has no string "name"'
        return ToolCall(call_id, "", None, problem, **context, notice=notice)
    if "input" not in block:
        problem = 'the tool_use block has no "input"'
        return ToolCall(call_id, name, None, problem, **context, notice=notice)
    return _call(call_id, name, block["input"], **context, notice=notice)


def _arguments(call_id: str | None, name: Any, arguments: Any, what: str) -> ToolCall:
    """An OpenAI call: ``arguments`` is a JSON string (a model wrote it; it may be broken)."""
    if call_id is None:
        return ToolCall(None, str(name), None, f'the {what} has no string "id"')
    if not isinstance(name, str):
        return ToolCall(call_id, "", None, f'the {what} has no string "name"')
    if isinstance(arguments, dict):
        return _call(call_id, name, arguments)
    if not isinstance(arguments, str):
        return ToolCall(call_id, name, None, f'the {what} has no "arguments" string')
    try:
        value = loads_limited(arguments) if arguments.strip() else {}
    except ValueError as exc:
        return ToolCall(call_id, name, None, f"the arguments string {exc}")
    return _call(call_id, name, value)


def _chat_call(call: dict[str, Any]) -> ToolCall:
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    assert isinstance(function, dict)
    return _arguments(
        _text_id(call.get("id")), function.get("name"), function.get("arguments"), "tool call"
    )


def _responses_call(item: dict[str, Any]) -> ToolCall:
    return _arguments(
        _text_id(item.get("call_id")), item.get("name"), item.get("arguments"), "function_call"
    )


def _texts(content: Any) -> list[Context]:
    """Context from a content string or a list of text parts (any API's spelling)."""
    if isinstance(content, str):
        return [Context(content)] if content.strip() else []
    out = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") in ("text", "output_text"):
            text = part.get("text")
            if isinstance(text, str) and text.strip():
                out.append(Context(text))
    return out


def _message_items(
    message: dict[str, Any], seq: int, **context: str | None
) -> list[ToolCall | Context]:
    if message.get("role", "assistant") != "assistant":
        raise UnreadableDocument('a message whose "role" is not "assistant" holds no tool call')
    content = message.get("content")
    if isinstance(content, str):
        return list(_texts(content))
    if not isinstance(content, list):
        raise UnreadableDocument('the assistant message has no "content" list')
    items: list[ToolCall | Context] = []
    for place, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            items += _texts([block])
        elif block.get("type") == "tool_use":
            items.append(_tool_use(block, seq, place, **context))
    return items


def _stream_json(document: dict[str, Any], seq: int) -> Envelope:
    message = document.get("message")
    if not isinstance(message, dict):
        raise UnreadableDocument('the stream-json "assistant" line has no "message" object')
    agent = document.get("parent_tool_use_id")
    context = {"session_id": _text_id(document.get("session_id")), "agent_id": _text_id(agent)}
    return Envelope(EnvelopeKind.STREAM_JSON, tuple(_message_items(message, seq, **context)))


def _control(document: dict[str, Any]) -> Envelope:
    request_id = document.get("request_id")
    request = document.get("request")
    if not isinstance(request, dict):
        raise UnreadableDocument('the control_request has no "request" object')
    subtype = request.get("subtype")
    if subtype == "elicitation":
        items = elicitation_items(_elicitation(document, request))
        return Envelope(EnvelopeKind.CONTROL, items, request_id=request_id)
    if subtype != "can_use_tool":
        refusal = (
            f"control requests of subtype {json.dumps(subtype)} are not served "
            "(only can_use_tool and elicitation)"
        )
        return Envelope(EnvelopeKind.CONTROL, request_id=request_id, refusal=refusal)
    name = request.get("tool_name")
    tool_use_id = _text_id(request.get("tool_use_id"))
    context = {
        "session_id": _text_id(document.get("session_id")),
        "agent_id": _text_id(request.get("agent_id")),
    }
    if not isinstance(name, str):
        call = ToolCall(tool_use_id, "", None, 'the can_use_tool request has no "tool_name"')
    else:
        suggestions = request.get("permission_suggestions")
        call = _call(
            tool_use_id,
            name,
            request.get("input"),
            **context,
            suggestions=suggestions,
            care=care_of(request),
        )
    return Envelope(EnvelopeKind.CONTROL, (call,), request_id=request_id)


_ELICITATION_KEYS = {  # Claude Code's spelling -> MCP's
    "requested_schema": "requestedSchema",
    "elicitation_id": "elicitationId",
}


def _elicitation(document: dict[str, Any], request: dict[str, Any]) -> ToolCall:
    """An MCP server's elicitation forwarded by Claude Code, as MCP ``elicitation/create``
    params (``mcp_server_name`` and the other extras kept, to say who asks)."""
    params = {
        _ELICITATION_KEYS.get(key, key): value
        for key, value in request.items()
        if key != "subtype" and value is not None
    }
    call_id = generated_id(document, 0)
    session = _text_id(document.get("session_id"))
    return ToolCall(call_id, ELICITATION, params, session_id=session)


def asked_by(params: Any) -> Context | None:
    """Who asks and why, shown whole before an elicitation is asked (the MCP spec: make clear
    which server is requesting information): ``MCP server "github" asks: ...``."""
    if not isinstance(params, dict):
        return None
    from ..schema.issues import MAX_TEXT

    server = params.get("mcp_server_name")
    named = isinstance(server, str) and 0 < len(server) <= MAX_TEXT
    who = f"MCP server {json.dumps(server, ensure_ascii=False)}" if named else "The MCP server"
    message = params.get("message")
    if not isinstance(message, str) or not message.strip():
        return Context("(no message)", f"{who} asks")
    return Context(message, f"{who} asks")


def elicitation_items(call: ToolCall) -> tuple[ToolCall | Context, ...]:
    """An elicitation call, after who asks and their message."""
    said = asked_by(call.input) if call.problem is None else None
    return (call,) if said is None else (said, call)


_PASSED_OVER = frozenset(
    {
        "system",
        "result",
        "stream_event",
        "user",
        "control_response",
        "control_cancel_request",
        "keep_alive",
    }
)


_BY_TYPE: dict[str, Callable[[dict[str, Any], int], Envelope]] = {
    "tool_use": lambda d, seq: Envelope(EnvelopeKind.TOOL_USE, (_tool_use(d, seq),)),
    "message": lambda d, seq: Envelope(EnvelopeKind.MESSAGE, tuple(_message_items(d, seq))),
    "assistant": _stream_json,
    "control_request": lambda d, _: _control(d),
    "function": lambda d, _: Envelope(EnvelopeKind.OPENAI, (_chat_call(d),)),
    "function_call": lambda d, _: Envelope(EnvelopeKind.RESPONSES, (_responses_call(d),)),
}


def _by_type(document: dict[str, Any], seq: int) -> Envelope | None:
    kind = document.get("type")
    if not isinstance(kind, str):
        return None
    handler = _BY_TYPE.get(kind)
    if handler is not None:
        return handler(document, seq)
    if kind in _PASSED_OVER:
        return Envelope(EnvelopeKind.PASSED_OVER)
    return None


def _gemini_call(part: dict[str, Any], seq: int, place: int) -> tuple[ToolCall, Any]:
    """A ``functionCall`` part's call and its own id (None when it has none: the Gemini
    API often sends none; one is made up for askcli's own use, as for bare input)."""
    call = part["functionCall"]
    if not isinstance(call, dict):
        return ToolCall(None, "", None, 'the "functionCall" is not an object'), None
    sent = call.get("id")
    call_id = sent if isinstance(sent, str) and sent else generated_id(call, seq, place)
    name = call.get("name")
    if not isinstance(name, str):
        return ToolCall(call_id, "", None, 'the functionCall has no string "name"'), sent
    args = call.get("args", {})
    return _call(call_id, name, args), sent


def _gemini_content(content: Any, seq: int) -> Envelope:
    if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
        raise UnreadableDocument('the Gemini content has no "parts" list')
    if content.get("role", "model") != "model":
        raise UnreadableDocument('a content whose "role" is not "model" holds no function call')
    items: list[ToolCall | Context] = []
    sent: list[Any] = []
    for place, part in enumerate(content["parts"]):
        if not isinstance(part, dict):
            continue
        if "functionCall" in part:
            call, own = _gemini_call(part, seq, place)
            items.append(call)
            sent.append(own)
        elif isinstance(part.get("text"), str) and part["text"].strip() and not part.get("thought"):
            items.append(Context(part["text"]))
    return Envelope(EnvelopeKind.GEMINI_CONTENT, tuple(items), sent_ids=tuple(sent))


def _gemini_envelope(document: dict[str, Any], seq: int) -> Envelope | None:
    """A Gemini API ``functionCall`` part, ``content`` or ``generateContent`` response, or a
    bare ``{"name", "args"}`` call."""
    if "functionCall" in document:
        call, own = _gemini_call(document, seq, 0)
        return Envelope(EnvelopeKind.GEMINI, (call,), sent_ids=(own,))
    if isinstance(document.get("name"), str) and "args" in document:
        call, own = _gemini_call({"functionCall": document}, seq, 0)
        return Envelope(EnvelopeKind.GEMINI_CALL, (call,), sent_ids=(own,))
    if isinstance(document.get("candidates"), list):
        first = document["candidates"][0] if document["candidates"] else None
        content = first.get("content") if isinstance(first, dict) else None
        return _gemini_content(content, seq)
    parts = document.get("parts")
    calls = isinstance(parts, list) and any(
        isinstance(p, dict) and "functionCall" in p for p in parts
    )
    if "parts" in document and ("role" in document or calls):  # role is optional in a content
        return _gemini_content(document, seq)
    return None


def _jsonrpc_envelope(document: dict[str, Any], seq: int) -> Envelope:
    """A JSON-RPC 2.0 message: ``elicitation/create``, ACP's ``session/request_permission``
    and Codex's app-server requests are asked; another request is answered "method not
    found"; notifications and responses are passed over."""
    method = document.get("method")
    if "id" not in document or not isinstance(method, str):
        return Envelope(EnvelopeKind.PASSED_OVER)
    request_id = document["id"]
    if method not in JSONRPC_METHODS:
        served = ", ".join(JSONRPC_METHODS)
        refusal = f"askcli serves only {served}, not {json.dumps(method)}"
        return Envelope(EnvelopeKind.JSONRPC, request_id=request_id, refusal=refusal)
    params = document.get("params")
    call_id = generated_id(document, seq)
    if not isinstance(params, dict):
        call = ToolCall(call_id, method, None, 'the request has no "params" object')
    else:
        call = ToolCall(call_id, method, params)
    items = elicitation_items(call) if method == ELICITATION else (call,)
    return Envelope(EnvelopeKind.JSONRPC, items, request_id=request_id)


def detect(document: dict[str, Any], seq: int = 1) -> Envelope:
    """Recognise the envelope of one JSON object; UnreadableDocument if it is none."""
    # JSON-RPC; a Codex app-server request to its client comes without the "jsonrpc" key
    if document.get("jsonrpc") == "2.0" or document.get("method") in CODEX_METHODS:
        return _jsonrpc_envelope(document, seq)
    found = _by_type(document, seq)  # the usual call: known by its "type"
    if found is not None:
        return found
    opencode = _opencode_envelope(document)
    if opencode is not None:
        return opencode
    gemini = _gemini_envelope(document, seq)
    if gemini is not None:
        return gemini
    if document.get("object") == "chat.completion" and isinstance(document.get("choices"), list):
        first = document["choices"][0] if document["choices"] else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise UnreadableDocument('the chat completion has no "message" in its first choice')
        document = message
    if document.get("role") == "assistant" and "tool_calls" in document:
        calls = document["tool_calls"]
        if not isinstance(calls, list):
            raise UnreadableDocument('the assistant message\'s "tool_calls" is not a list')
        items: list[ToolCall | Context] = list(_texts(document.get("content")))
        items += [_chat_call(c) for c in calls if isinstance(c, dict)]
        return Envelope(EnvelopeKind.OPENAI, tuple(items))
    if document.get("object") == "response" and isinstance(document.get("output"), list):
        items = []
        for item in document["output"]:
            if isinstance(item, dict) and item.get("type") == "message":
                items += _texts(item.get("content"))
            elif isinstance(item, dict) and item.get("type") == "function_call":
                items.append(_responses_call(item))
        return Envelope(EnvelopeKind.RESPONSES, tuple(items))
    if document.get("role") == "assistant":
        return Envelope(EnvelopeKind.MESSAGE, tuple(_message_items(document, seq)))
    if "hook_event_name" in document:  # a hook input given as a call (read only then)
        from .hook_inputs import hook_input_hint

        hook = hook_input_hint(document)
        if hook is not None:
            raise UnreadableDocument(hook)
    kind = document.get("type")
    if kind is not None or "role" in document:
        what = f'"type": {json.dumps(kind)}' if kind is not None else '"role": ...'
        raise UnreadableDocument(f"a document with {what} is not a tool call askcli knows")
    if "questions" in document or "todos" in document:
        todos = "todos" in document and "questions" not in document
    else:  # perhaps one item on its own: the tool it belongs to says how to wrap it
        todos = "content" in document and "status" in document and "question" not in document
    name = TODO_WRITE if todos else ASK_USER_QUESTION
    return Envelope(EnvelopeKind.BARE, (_call(generated_id(document, seq), name, document),))


def _json_escape(match: re.Match[str]) -> str:
    """A ``\\u`` escape as JSON spells it: a pair of surrogates beyond U+FFFF."""
    code = ord(match.group())
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


# json.dumps with these settings would build its encoder again for every line
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def json_line(value: Any) -> str:
    """Compact JSON on one line; characters a terminal could act on are ``\\u`` escaped.

    Always RFC 8259 JSON: a float that is not finite is a ValueError, never ``Infinity``."""
    text = _LINE_ENCODER.encode(value)
    if text.isascii() and "\x7f" not in text:  # json.dumps escaped every other control
        return text
    return _UNSAFE_IN_JSON.sub(_json_escape, text)


def json_document(value: Any) -> str:
    """Indented JSON for files, with the same characters escaped as :func:`json_line`."""
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return _UNSAFE_IN_JSON.sub(_json_escape, text) + "\n"


def capabilities(document: dict[str, Any]) -> list[str]:
    """The protocol capabilities a Claude Code line lists: a ``system`` ``init`` line's
    ``capabilities``, or those of the ``initialize`` response; none for any other line."""
    found: Any = None
    if document.get("type") == "system" and document.get("subtype") == "init":
        found = document.get("capabilities")
    elif document.get("type") == "control_response":
        response = document.get("response")
        inner = response.get("response") if isinstance(response, dict) else None
        found = inner.get("capabilities") if isinstance(inner, dict) else None
    if not isinstance(found, list):
        return []
    return [c for c in found if isinstance(c, str) and len(c) <= 200]


def _refusal(reply: dict[str, Any]) -> str:
    """The error text of a reply that carries no tool result (an unserved request)."""
    response = reply.get("response")
    error = response.get("error") if isinstance(response, dict) else None
    return error if isinstance(error, str) else "the request was not served"


def output_lines(
    replies: Sequence[dict[str, Any]], results: Sequence[ToolResult], output: Output
) -> list[str]:
    """The stdout lines for one document's ``replies`` and ``results``."""
    if output is Output.RESULT:
        return [json_line(reply) for reply in replies]
    if not results:  # a control request askcli does not serve still gets its one line
        refusals = [_refusal(reply) for reply in replies]
        if output is Output.TEXT:
            return [escape_controls(text) for text in refusals]
        return [json_line({"error": text}) for text in refusals]
    if output is Output.ANSWERS:
        return [json_line(r.answers()) for r in results]
    if output is Output.SDK:
        return [json_line(r.decision()) for r in results]
    return [escape_controls(r.content) for r in results]
