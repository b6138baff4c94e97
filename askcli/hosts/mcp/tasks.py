"""The MCP tasks extension (``io.modelcontextprotocol/tasks``, MCP 2026-07-28) in ``askcli
mcp``: a ``tools/call`` of a client that lists the extension in its request's
``_meta`` capabilities returns at once with a task (``resultType: "task"``); ``tasks/get``
says ``working`` while the question waits in the inbox and ``completed`` with the result a
blocking call gets once the person answered; ``tasks/cancel`` withdraws the question.

A task is its question in the inbox store: its id is the question's ticket, and only the
conversation that asked finds it (:func:`conversation`: the same bearer credential and the
same conversation named in ``_meta``; on stdio, the same folder or ``--session``): a client
that reconnects or restarts polls on, and so does one whose ``askcli mcp`` was restarted
(the question outlives its server for :data:`~askcli.inbox.store.kept.TASK_TTL`). Pure
functions of the queue and of the request: the SDK's side is :mod:`.server`.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Mapping
from typing import Any

from ...inbox.store import QueuedQuestion, QueueState
from ...inbox.store.kept import TASK, TASK_TTL
from .asker import QueueSide, ToolOutcome

EXTENSION = "io.modelcontextprotocol/tasks"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"  # the request's _meta key
POLL_MS = 2000  # how often a client is asked to poll, in milliseconds
METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
MISSING_CAPABILITY = -32021  # MCP 2026-07-28's Missing Required Client Capability
UNKNOWN_TASK = -32602  # INVALID_PARAMS, as the extension has it for an unknown taskId
WAITING = (QueueState.WAITING, QueueState.ANSWERING)


class TaskError(Exception):
    """A tasks request the server refuses: its JSON-RPC ``code``, message and ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


def asked_for(params: Any) -> bool:
    """Whether a request's ``_meta`` lists the tasks extension among its client's
    capabilities (the per-request capabilities of MCP 2026-07-28)."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    found = meta.get(CLIENT_CAPABILITIES) if isinstance(meta, Mapping) else None
    extensions = found.get("extensions") if isinstance(found, Mapping) else None
    return isinstance(extensions, Mapping) and isinstance(extensions.get(EXTENSION), Mapping)


def conversation(credential: str | None, named: str | None, where: str) -> str:
    """The conversation of a task, the same after a restart of the client or of the
    server: over HTTP (``credential``, the ``Authorization`` header), that credential and
    the conversation ``named`` in ``_meta``; on stdio (None), the server's ``where`` (its
    ``--session`` or folder) and ``named``. Hashed: the store keeps no credential."""
    seed = f"stdio\0{where}" if credential is None else f"http\0{credential}"
    digest = hashlib.sha256(f"{seed}\0{named or ''}".encode("utf-8", "surrogatepass"))
    return TASK.conversation(digest.hexdigest())


def missing_capability() -> TaskError:
    return TaskError(
        MISSING_CAPABILITY,
        "Missing required client capability",
        {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def _iso(seconds: float | None) -> str:
    moment = datetime.datetime.fromtimestamp(seconds or 0.0, tz=datetime.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def task_of(question: QueuedQuestion) -> dict[str, Any]:
    """The task's fields (no result), as ``tasks/get`` and the created task give them."""
    state = question.state
    if state in WAITING:
        status = "working"
        message = (
            "The question is being answered in the user's askcli inbox"
            if state is QueueState.ANSWERING
            else "The question waits in the user's askcli inbox"
        )
    elif state is QueueState.WITHDRAWN:
        status, message = "cancelled", "The question was withdrawn from the user's askcli inbox"
    else:
        status, message = "completed", "The user answered in their askcli inbox"
    return {
        "taskId": question.ticket,
        "status": status,
        "statusMessage": message,
        "createdAt": _iso(question.arrived),
        "lastUpdatedAt": _iso(question.finished or question.arrived),
        "ttlMs": int(TASK_TTL * 1000),
        "pollIntervalMs": POLL_MS,
    }


def created(question: QueuedQuestion) -> dict[str, Any]:
    """The ``CreateTaskResult`` of a call queued as a task."""
    return {"resultType": "task", **task_of(question)}


def _result(outcome: ToolOutcome) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error}


class Tasks:
    """``tasks/get``, ``tasks/update`` and ``tasks/cancel`` of the queue side's questions."""

    def __init__(self, asker: QueueSide) -> None:
        self.asker = asker

    def _find(self, params: Any, owner: str) -> QueuedQuestion:
        if not asked_for(params):
            raise missing_capability()
        task_id = params.get("taskId") if isinstance(params, Mapping) else None
        found = None
        if isinstance(task_id, str) and 0 < len(task_id) <= 100:
            found = self.asker.store.by_task(task_id, owner)
        if found is None:  # unknown, or another conversation's: the same words
            raise TaskError(UNKNOWN_TASK, "No task of this conversation has that taskId")
        return found

    def get(self, params: Any, owner: str) -> dict[str, Any]:
        """``tasks/get`` in the conversation ``owner``: the task, with the result once the
        person answered."""
        question = self._find(params, owner)
        task = task_of(question)
        if task["status"] == "completed":
            task["result"] = _result(self.asker.settled(question))
        return task

    def update(self, params: Any, owner: str) -> dict[str, Any]:
        """``tasks/update``: no task of askcli asks the client for input; acknowledged."""
        self._find(params, owner)
        return {}

    def cancel(self, params: Any, owner: str) -> dict[str, Any]:
        """``tasks/cancel``: the question is withdrawn from the inbox (an answered one
        stays answered)."""
        question = self._find(params, owner)
        if self.asker.store.withdraw(question.id):
            self.asker.say(f"question {question.id} was withdrawn: its task was cancelled")
        return {}
