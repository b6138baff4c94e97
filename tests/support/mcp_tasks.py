"""The MCP tasks extension (``io.modelcontextprotocol/tasks``) on the official SDK's client:
the SDK 2.3.0 has no tasks client of its own, but lets an extension claim the
``resultType: "task"`` of ``tools/call`` (``ResultClaim``); this one polls ``tasks/get`` as
the extension's spec says, and its ``tasks/*`` requests go through the SDK's session (which
stamps the 2026-07-28 ``_meta`` and the ``Mcp-Name`` header)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import anyio
from mcp import types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import Request, RequestParams, Result
from pydantic import ConfigDict

EXTENSION = "io.modelcontextprotocol/tasks"


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow")
    task_id: str


class TaskRequest(Request[TaskParams, str]):
    name_param: ClassVar[str | None] = "taskId"


class CreatedTask(Result):
    """The ``CreateTaskResult`` of a ``tools/call`` (flat: ``Result & Task``)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskState(Result):
    """What ``tasks/get`` says (``DetailedTask``)."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    result: dict[str, Any] | None = None


async def task_request(
    session: Any, method: str, task_id: str, meta: dict[str, Any] | None = None
) -> TaskState | Result:
    """``tasks/get`` (a :class:`TaskState`), ``tasks/update`` or ``tasks/cancel``."""
    extra = {"_meta": meta} if meta else {}
    request = TaskRequest(method=method, params=TaskParams(task_id=task_id, **extra))
    if method == "tasks/get":
        return await session.send_request(request, TaskState)
    return await session.send_request(request, Result)


class Tasks(ClientExtension):
    """The tasks extension: a created task is polled until it ends; ``seen`` gets each
    task id and the statuses ``tasks/get`` said; ``meta`` goes in each ``tasks/get``'s
    ``_meta`` (a conversation named); ``poll`` overrides the server's interval."""

    identifier = EXTENSION

    def __init__(self, meta: dict[str, Any] | None = None, poll: float | None = None) -> None:
        self.meta = meta
        self.poll = poll
        self.created: list[CreatedTask] = []
        self.statuses: list[str] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, task: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        self.created.append(task)
        every = self.poll if self.poll is not None else (task.poll_interval_ms or 1000) / 1000
        while True:
            state = await task_request(ctx.session, "tasks/get", task.task_id, self.meta)
            assert isinstance(state, TaskState)
            self.statuses.append(state.status)
            if state.status == "completed" and state.result is not None:
                return types.CallToolResult.model_validate(state.result)
            if state.status not in ("working", "input_required"):
                raise RuntimeError(f"task {task.task_id} ended {state.status}")
            await anyio.sleep(every)
