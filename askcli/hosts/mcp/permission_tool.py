"""``askcli mcp``'s permission tool: Claude Code's ``--permission-prompt-tool``.

``claude -p --permission-prompt-tool mcp__askcli__permission_prompt`` calls this tool where it
would ask the person (a tool not allowed by a rule), with ``{tool_name, input,
tool_use_id}``; it must return one text block whose JSON is ``{"behavior": "allow",
"updatedInput": {...}}`` (``updatedPermissions`` when "don't ask again" chose one) or
``{"behavior": "deny", "message": "..."}``. Anything else Claude Code takes for a deny
(2.1.332: "The permission prompt tool returned an invalid permission result") or an error
(2.1.197). The request is queued as the ``can_use_tool`` control request ``askcli hook``
queues, so the inbox shows the same permission prompt (the tool, its whole input escaped).

The tool waits for the person however long they take (Claude Code's tool timeout for a
stdio server is about 27.8 hours), with progress notifications: a still-waiting result
would be an invalid decision. Claude Code withdrawing the call (``notifications/cancelled``:
its PermissionRequest hook answered first, or the turn was interrupted) withdraws the
question. With ``askcli hook`` configured for PermissionRequest too, the one that comes
second waits for the first one's question (:mod:`askcli.inbox.same_call`): one question,
one answer. The session is Claude Code's ``CLAUDE_CODE_SESSION_ID``, which it gives its
stdio MCP servers.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from typing import Any

from ...errors import InboxError, UnreadableDocument
from ...inbox import same_call
from ...inbox.asker_side import collect, joined_reply
from ...inbox.store import Agent, QueuedQuestion
from ...runners.session import Reply
from ...tools.registry import checked
from ...wire.calls import permission_request
from ...wire.envelopes import detect
from ...wire.permission_request import passed_on
from ...wire.results import ToolResult
from .asker import Progress, QueueSide, Session, ToolOutcome

PERMISSION = "permission_prompt"
REQUEST_ID = "askcli-mcp-permission"  # the request id of the control request queued
SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
MAX_SESSION = 200
DEFINITION = {
    "name": PERMISSION,
    "description": (
        "Claude Code's permission prompt (claude --permission-prompt-tool "
        f"mcp__askcli__{PERMISSION}): asks the user, in their askcli inbox, whether a tool "
        "call may run, and returns the decision as Claude Code reads it: "
        '{"behavior":"allow","updatedInput":{...}} or {"behavior":"deny","message":"..."}.'
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "tool_name": {"type": "string", "description": "The tool asking to run"},
            "input": {"type": "object", "description": "Its input"},
            "tool_use_id": {"type": "string", "description": "Its tool_use id"},
        },
        "required": ["tool_name", "input"],
    },
}


def deny(message: str) -> ToolOutcome:
    return ToolOutcome(json.dumps({"behavior": "deny", "message": message}, ensure_ascii=False))


def claude_session() -> str | None:
    """Claude Code's session, as it tells its stdio MCP servers (None: not told)."""
    found = os.environ.get(SESSION_ENV, "")
    ok = 0 < len(found) <= MAX_SESSION and all("!" <= c <= "~" for c in found)
    return found if ok else None


def request_of(arguments: Mapping[str, Any] | None) -> dict[str, Any] | str:
    """The ``can_use_tool`` request the arguments ask, or what is wrong with them."""
    args = arguments or {}
    if not isinstance(args, Mapping):
        return "the request must be an object"
    tool, tool_input, use_id = args.get("tool_name"), args.get("input"), args.get("tool_use_id")
    if not isinstance(tool, str) or not tool:
        return '"tool_name" must be the name of the tool asking to run'
    if not isinstance(tool_input, Mapping):
        return '"input" must be the tool\'s input, an object'
    if use_id is not None and not isinstance(use_id, str):
        return '"tool_use_id" must be a string'
    return permission_request(
        REQUEST_ID,
        tool,
        dict(tool_input),
        tool_use_id=use_id,
        session_id=claude_session(),
        care=passed_on(args),
    )


def decision_text(result: ToolResult, asked: Mapping[str, Any]) -> str:
    """The decision Claude Code reads: an allow always carries the input to run."""
    chosen = result.decision()
    if result.allowed and not result.updated_input:
        chosen["updatedInput"] = dict(asked)
    chosen.pop("interrupt", None)  # not part of the prompt tool's result
    return json.dumps(chosen, ensure_ascii=False)


async def call(
    asker: QueueSide,
    arguments: Mapping[str, Any] | None,
    client: Any,
    progress: Progress,
    session: Session,
) -> ToolOutcome:
    """Ask one permission prompt in the inbox; the decision, when the person gave it."""
    try:
        document = request_of(json.loads(json.dumps(arguments or {})))
    except (TypeError, ValueError, RecursionError):
        document = "the request cannot be read"
    if isinstance(document, str):
        asker.say(f"a permission request that is not valid: {document}")
        return deny(f"askcli: the permission request is not valid: {document}")
    try:
        (found,) = detect(document).calls
    except (ValueError, UnreadableDocument) as error:
        return deny(f"askcli: the permission request is not valid: {error}")
    invalid = checked(found, asker.say)
    if isinstance(invalid, ToolResult):  # an AskUserQuestion that fails its schema
        return deny(invalid.content)
    agent = asker.agent(client, session)
    if document.get("session_id"):
        agent = agent._replace(session=document["session_id"])
    try:
        return await _ask(asker, document, agent, progress)
    except InboxError as exc:  # the queue file went bad: said as a deny, never an error text
        asker.say(str(exc))
        return deny(f"The user's askcli inbox cannot be used: {exc}")


async def _ask(
    asker: QueueSide, document: dict[str, Any], agent: Agent, progress: Progress
) -> ToolOutcome:
    """Queue the prompt (or find the one ``askcli hook`` queued) and wait for its decision;
    a joined question withdrawn by its asker is asked again."""
    asked = document["request"]["input"]
    joins = same_call.joins_for(document)
    while True:
        question = asker.store.submit(document, agent, to=asker.to, joins=joins)
        mine = same_call.is_mine(question)
        if mine:
            asker.mine.add(question.id)
            asker.say(f"permission prompt {question.id} waits in the inbox")
        else:
            asker.say(f"permission prompt {question.id}, queued by askcli hook, is waited for")
        try:
            _, settled = await asker.settling(question, progress, "the permission prompt", None)
        except BaseException:  # Claude Code went on (its hook answered) or went away
            if mine:
                with contextlib.suppress(InboxError):
                    if asker.store.withdraw(question.id):
                        asker.say(f"permission prompt {question.id} was withdrawn: call ended")
                asker.mine.discard(question.id)
            raise
        asker.mine.discard(question.id)
        reply = _reply(asker, settled, mine)
        if isinstance(reply, Reply):
            return ToolOutcome(decision_text(reply.results[0], asked))
        if mine:
            return deny(f"The user did not decide in their askcli inbox: {reply}.")
        asker.say(f"permission prompt {question.id} was withdrawn by its asker: asked again")


def _reply(asker: QueueSide, found: QueuedQuestion | None, mine: bool) -> Reply | str:
    """The reply of a settled question, or why there is none."""
    if not mine:
        return joined_reply(found) or "withdrawn"
    try:
        got = collect(asker.store, found, again=True)
    except UnreadableDocument as exc:
        return str(exc)
    if isinstance(got, Reply) and not got.results:
        return "the inbox gave no decision"
    return got
