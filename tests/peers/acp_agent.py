"""A scripted ACP agent built on the SDK, for askcli acp's tests.

    python acp_agent.py SCRIPT.json LOG.jsonl

SCRIPT is ``{"turns": [[step, ...], ...]}``: each prompt plays the next turn. A step is
``{"update": {...}}`` (a session/update notification), ``{"request": METHOD, "params":
{...}}`` (its reply is logged; a param ``"$terminal"`` is the terminalId of the last
terminal/create reply), ``{"wait_cancel": true}`` (the turn ends ``cancelled``
when session/cancel comes, within 10 s), ``{"stderr": TEXT}``, ``{"sleep": S}``,
``{"pidfile": PATH}`` (its pid written there), ``{"exit": CODE}``, ``{"fail": DETAILS}``
(the prompt fails: "Internal error" with those details) or ``{"stop": REASON}`` (the turn's
stopReason, end_turn by default). SCRIPT's ``"stderr_at_end"`` lines are written to stderr
as the agent ends (its input closed), as Gemini CLI writes its own. SCRIPT's ``"modes"``,
when given, is session/new's ``modes``; session/set_mode is logged; ``"agent_name"`` is the
name it gives in initialize's agentInfo ("scripted" by default).
LOG gets one JSON line per message from the client: initialize, new_session, prompt,
cancel, and the reply to each request (an error as ``{"error", "code", "data"}``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import acp
from acp import schema


class Scripted:
    def __init__(self, script: dict[str, Any], log: str) -> None:
        self.turns = list(script.get("turns", []))
        self.init = script.get("initialize", {})
        self.script = script
        self.log_path = log
        self.conn: Any = None
        self.cancelled = asyncio.Event()

    def log(self, kind: str, value: Any) -> None:
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps({kind: value}) + "\n")

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kw: Any
    ) -> Any:
        caps = (
            client_capabilities.model_dump(by_alias=True, exclude_none=True)
            if client_capabilities
            else {}
        )
        self.log("initialize", {"protocolVersion": protocol_version, "clientCapabilities": caps})
        return schema.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_info=schema.Implementation(
                name=self.script.get("agent_name", "scripted"), version="1.0"
            ),
        )

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kw: Any) -> Any:
        self.log("new_session", {"cwd": cwd})
        modes = self.script.get("modes")
        if modes is None:
            return schema.NewSessionResponse(session_id="sess-1")
        return schema.NewSessionResponse.model_validate({"sessionId": "sess-1", "modes": modes})

    async def set_session_mode(self, mode_id: str, session_id: str, **kw: Any) -> None:
        self.log("set_mode", mode_id)

    async def prompt(self, prompt: list[Any], session_id: str, **kw: Any) -> Any:
        self.log("prompt", [b.model_dump(by_alias=True, exclude_none=True) for b in prompt])
        self.cancelled.clear()
        steps = self.turns.pop(0) if self.turns else []
        stop = "end_turn"
        raw = self.conn._conn
        terminal = None
        for step in steps:
            if "update" in step:
                await raw.send_notification(
                    "session/update", {"sessionId": session_id, "update": step["update"]}
                )
            elif "request" in step:
                params = {"sessionId": session_id, **step.get("params", {})}
                params = {k: terminal if v == "$terminal" else v for k, v in params.items()}
                try:
                    reply = await raw.send_request(step["request"], params)
                except Exception as exc:
                    data = getattr(exc, "data", None)
                    reply = {"error": str(exc), "code": getattr(exc, "code", None)}
                    reply |= {"data": data} if data else {}
                if isinstance(reply, dict) and "terminalId" in reply:
                    terminal = reply["terminalId"]
                self.log("reply", {"method": step["request"], "result": reply})
            elif "wait_cancel" in step:
                try:
                    await asyncio.wait_for(self.cancelled.wait(), 10)
                    stop = "cancelled"
                except asyncio.TimeoutError:
                    self.log("no_cancel", True)
            elif "stderr" in step:
                sys.stderr.write(step["stderr"] + "\n")
                sys.stderr.flush()
            elif "sleep" in step:
                await asyncio.sleep(step["sleep"])
            elif "pidfile" in step:
                with open(step["pidfile"], "w", encoding="utf-8") as f:
                    f.write(str(os.getpid()))
            elif "exit" in step:
                os._exit(step["exit"])
            elif "stop" in step:
                stop = step["stop"]
            elif "fail" in step:
                raise acp.RequestError.internal_error({"details": step["fail"]})
        return schema.PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kw: Any) -> None:
        self.log("cancel", session_id)
        self.cancelled.set()

    async def authenticate(self, method_id: str, **kw: Any) -> None:
        return None


async def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    await acp.run_agent(Scripted(script, sys.argv[2]), use_unstable_protocol=True)
    for line in script.get("stderr_at_end", []):  # as Gemini CLI, which holds its stderr
        sys.stderr.write(line + "\n")


if __name__ == "__main__":
    asyncio.run(main())
