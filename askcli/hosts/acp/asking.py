"""The agent's requests asked of the person: permission requests and elicitation forms,
here or in the inbox (:class:`Asking`, a part of the session's :class:`~.session.Host`).
Answers that Ctrl-C interrupted are held until session/cancel is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...escaping import visible
from ...runners.session import Asker
from ...schema.names import ACP_PERMISSION, ELICITATION
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.conversation import Conversation
from ...terminal.rendering import wrap
from ...tools.permission_options import NO_OPTIONS
from ...tools.registry import check_call, run_call
from ...wire.calls import permission_request
from ...wire.dialects import acp_permission
from ...wire.dialects.codex import TOOL as CODEX_TOOL
from ...wire.documents import Document
from ...wire.envelopes import ToolCall
from ...wire.results import ToolResult
from ..child import Ended, as_text
from .forms import auq_content, auq_input, codex_content, codex_input

INTERRUPT = "\x03"  # a recorded answer line: Ctrl-C at that question (askcli replay)


class Asking:
    """The session's questions for the person on the agent's behalf."""

    conv: Conversation
    ended: Ended | None
    asker: Asker  # here (Here) or the inbox (``--inbox``)
    asked: int  # documents handed to the asker
    # the answers to requests Ctrl-C interrupted: given after session/cancel is sent
    held: list[Callable[[], None]]

    def hold(self, answer: Callable[[dict[str, Any]], None], value: dict[str, Any]) -> None:
        """Keep a request's answer until session/cancel is sent (:meth:`release`)."""
        self.held.append(lambda: answer(value))

    def release(self) -> None:
        """Give the answers held back (every request Ctrl-C interrupted: cancelled)."""
        held, self.held = self.held, []
        for give in held:
            give()

    def permission(self, params: dict[str, Any], answer: Callable[[dict[str, Any]], None]) -> None:
        """Ask which of the agent's options to select (the permission dialect,
        :mod:`askcli.wire.dialects.acp_permission`), here or in the inbox, where the same
        request is asked as it came."""
        if self.asker.here:
            result = run_call(ToolCall(None, ACP_PERMISSION, params), self.conv)
        elif not acp_permission.parse(params).options:  # nothing to ask in the inbox
            self.conv.error(NO_OPTIONS)
            answer({})
            return
        else:
            result = self._in_inbox(self._request(ACP_PERMISSION, params))
        if result.status is ExitStatus.INTERRUPTED:
            self.hold(answer, {})  # cancelled, never allowed
            if self.asker.here:
                typed_interrupt(self.conv)
            raise KeyboardInterrupt
        picked, option_id = acp_permission.option_id(result.reply)
        answer({"optionId": option_id} if picked else {})
        if result.status is ExitStatus.NO_ANSWER:
            self.ended = Ended.from_outcome(result.outcome)

    def _document(self, name: str, tool_input: dict[str, Any], tool_id: str | None) -> Any:
        """The call as Claude Code's can_use_tool control request, for the asker."""
        self.asked += 1
        return permission_request(f"acp_{self.asked}", name, tool_input, tool_use_id=tool_id)

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The agent's request as a JSON-RPC document of its own, for the asker."""
        self.asked += 1
        return {"jsonrpc": "2.0", "id": self.asked, "method": method, "params": params}

    def _in_inbox(self, document: dict[str, Any]) -> ToolResult:
        """The asker's result for a document of one call (KeyboardInterrupt withdraws it
        from the inbox)."""
        return self.asker.ask(Document(document), self.conv, self.asked).result()

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
        codex = codex_input(params) if call is None and params.get("mode") == "form" else None
        if codex is not None:
            call = ToolCall(tool_id, CODEX_TOOL, codex[0])
            try:
                check_call(call)
            except Exception:
                call = codex = None  # not a question Codex's tool can ask: the general form
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
            if self.asker.here:
                result = run_call(call, self.conv)
            elif call.name in ("AskUserQuestion", CODEX_TOOL):
                result = self._in_inbox(self._document(call.name, dict(call.input), tool_id))
            else:
                result = self._in_inbox(self._request(ELICITATION, dict(call.input)))
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
            elif result.status is ExitStatus.DECLINED:
                reply = {"action": "decline"}
            else:
                reply = {"action": "cancel"}
        elif codex is not None:
            if result.allowed:
                content = codex_content(dict(result.data or {}), codex[1])
                reply = {"action": "accept", "content": content}
            else:  # codex-acp sends Codex no answers for either
                reply = {"action": "decline" if result.status is ExitStatus.DECLINED else "cancel"}
        else:
            reply = dict(result.reply) if result.reply is not None else {"action": "decline"}
            if result.reply is None:
                self.conv.error(f"askcli cannot ask this form: {result.content}")
        if result.status is ExitStatus.INTERRUPTED:
            self.hold(answer, {"action": "cancel"})
            if self.asker.here:
                typed_interrupt(self.conv)
            raise KeyboardInterrupt
        answer(reply)
        if result.status is ExitStatus.NO_ANSWER:
            self.ended = Ended.from_outcome(result.outcome)


def typed_interrupt(conv: Conversation) -> None:
    """Ctrl-C at a question or at ``> ``: --record keeps it among the answer lines."""
    typed = getattr(conv.reader, "transcript", None)
    if isinstance(typed, bytearray) and not signals.received_other_than_sigint():
        typed += INTERRUPT.encode() + b"\n"
