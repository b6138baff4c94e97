"""One Claude Code permission prompt, asked once when two askers serve it.

Claude Code 2.1.332 runs its PermissionRequest hooks beside the ``--permission-prompt-tool``
(the first decision wins): with ``askcli hook`` and ``askcli mcp``'s permission tool both
configured, both would queue the same prompt. The second to submit finds the first's
question instead (:meth:`~.store.Store.submit` with ``joins``, in the same transaction that
would queue it), waits for it and hands on the person's decision in its own shape: one
question, one answer, whichever asker Claude Code hears first. A question withdrawn by its
asker (its hook was ended, its server stopped) is asked again by the one still waiting.

Two calls are the same when both are Claude Code ``can_use_tool`` requests, queued by two
kinds of asker (their request ids differ: a hook and the permission tool), of the same
session (``session_id``, which neither may leave out), the same tool and the same input, and
the same ``tool_use_id`` when both know it (the hook's input carries none: the hook finds
it in Claude Code's transcript), asked on this machine by another process. A question
answered a moment ago is joined too (the decision is handed on at once), but only by the
same ``tool_use_id``: an identical call made again is asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from . import asker_identity
from .store import QueuedQuestion, QueueState


class ClaudeCall(NamedTuple):
    """What tells one Claude Code permission prompt from another."""

    session: str
    tool: str
    input: Any
    tool_use_id: str | None
    asker: Any = None  # the request id, which names the kind of asker (hook, permission tool)


def claude_call(document: Any) -> ClaudeCall | None:
    """The call of a ``can_use_tool`` control request that names its session; None else."""
    if not isinstance(document, Mapping) or document.get("type") != "control_request":
        return None
    session, request = document.get("session_id"), document.get("request")
    if not isinstance(session, str) or not session or not isinstance(request, Mapping):
        return None
    tool, tool_use_id = request.get("tool_name"), request.get("tool_use_id")
    if request.get("subtype") != "can_use_tool" or not isinstance(tool, str):
        return None
    use_id = tool_use_id if isinstance(tool_use_id, str) else None
    return ClaudeCall(session, tool, request.get("input"), use_id, document.get("request_id"))


def same(a: ClaudeCall, b: ClaudeCall, *, answered: bool = False) -> bool:
    """The same call: one of them may not know its tool_use id, unless it was
    ``answered`` already (an identical call made again is another call)."""
    if a.tool_use_id is None or b.tool_use_id is None:
        ids_agree = not answered
    else:
        ids_agree = a.tool_use_id == b.tool_use_id
    two_askers = a.asker != b.asker  # two hooks of identical calls are two questions
    return (a.session, a.tool, a.input) == (b.session, b.tool, b.input) and ids_agree and two_askers


def joins_for(document: Any) -> Callable[[QueuedQuestion], bool] | None:
    """What accepts another asker's question of the same call as ``document`` (None: a
    document that names no session is never one)."""
    mine = claude_call(document)
    if mine is None:
        return None
    host = asker_identity.me().host

    def joins(question: QueuedQuestion) -> bool:
        theirs = claude_call(question.call)
        answered = question.state is QueueState.ANSWERED
        if question.asker_host != host or theirs is None:
            return False
        return same(mine, theirs, answered=answered)

    return joins


def is_mine(question: QueuedQuestion) -> bool:
    """This process queued ``question`` (else it joined another asker's)."""
    me = asker_identity.me()
    return (question.asker_host, question.asker_pid) == (me.host, me.pid)
