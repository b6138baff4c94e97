"""The agent's requests asked of the person: permission requests and elicitation forms,
here or in the inbox (:class:`Asking`, a part of the session's :class:`~.session.Host`).
Answers that Ctrl-C interrupted are held until session/cancel is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import AnswerTimeout
from ...escaping import visible
from ...questions.conclusion import Ending
from ...schema.names import ELICITATION
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.conversation import Conversation
from ...terminal.rendering import wrap
from ...tools.permission import show_whole
from ...tools.registry import check_call, run_call
from ...wire.envelopes import ToolCall
from ...wire.results import ToolResult
from ..child import Ended, as_dict, as_text
from . import permission_options as acp_options
from .content import permission_lines, tool_details
from .forms import auq_content, auq_input

INTERRUPT = "\x03"  # a recorded answer line: Ctrl-C at that question (askcli replay)


class Asking:
    """The session's questions for the person on the agent's behalf."""

    conv: Conversation
    ended: Ended | None
    # ``--inbox``: a document in, its Reply out (askcli.inbox.asker_side.ask_inbox)
    inbox: Callable[[Any], Any] | None
    asked: int  # documents sent to the inbox
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
        tool_call = as_dict(params.get("toolCall"))
        options = [as_dict(o) for o in params.get("options") or [] if isinstance(o, dict)]
        if not options:
            self.conv.error("the agent's permission request has no options: answered cancelled")
            answer({})
            return
        allow, reject = acp_options.once(options)  # y and n never select an "always"
        if self.inbox is not None:
            self.permission_in_inbox(tool_call, options, allow, reject, answer)
            return
        keys = acp_options.keys(len(options), allow, reject)
        try:
            self.conv.call_starts()
            paged = show_whole(permission_lines(tool_call, options, self.conv), self.conv)
            if paged.denied and reject is not None:
                answer({"optionId": options[reject].get("optionId")})
                return
            while not paged.ended:
                line = self.conv.read_answer(f"Choose {keys}: ")
                if line is None:
                    break
                chosen = acp_options.pick(line, len(options), allow, reject)
                if isinstance(chosen, int):
                    answer({"optionId": options[chosen].get("optionId")})
                    return
                self.conv.say(self.conv.style.warn(chosen) + "\n")
        except AnswerTimeout:
            self.conv.say("\n")
            why = self.conv.why(Ending.TIMEOUT)
        except KeyboardInterrupt:
            self.hold(answer, {})  # cancelled, never allowed
            typed_interrupt(self.conv)
            raise
        else:
            why = self.conv.why(Ending.ENDED)
        finally:
            self.conv.call_starts(False)
        self.conv.error(f"no answer ({why}): the request is answered cancelled")
        answer({})
        self.ended = Ended(int(ExitStatus.NO_ANSWER))

    def _document(self, name: str, tool_input: dict[str, Any], tool_id: str | None) -> Any:
        """A Claude-Code-like can_use_tool control request for the inbox."""
        self.asked += 1
        request: dict[str, Any] = {
            "subtype": "can_use_tool",
            "tool_name": name,
            "input": tool_input,
        }
        if tool_id:
            request["tool_use_id"] = tool_id
        return {"type": "control_request", "request_id": f"acp_{self.asked}", "request": request}

    def _in_inbox(self, document: dict[str, Any]) -> ToolResult:
        """The inbox's result for a document of one call (KeyboardInterrupt withdraws it)."""
        from ...wire.documents import Document

        assert self.inbox is not None
        reply = self.inbox(Document(document))
        if reply.results:
            return reply.results[0]  # type: ignore[no-any-return]
        return ToolResult(None, "no answer", reply.status, is_error=True)

    def permission_in_inbox(
        self,
        tool_call: dict[str, Any],
        options: list[dict[str, Any]],
        allow: int | None,
        reject: int | None,
        answer: Callable[[dict[str, Any]], None],
    ) -> None:
        title = as_text(tool_call.get("title")) or as_text(tool_call.get("toolCallId"), "tool")
        shown = dict(tool_details(tool_call))
        if allow is None or reject is None:  # Yes or No could not say: by number (as chosen())
            self.asked += 1
            result = self._in_inbox(acp_options.form(self.asked, title, shown, options))
        else:
            shown["options"] = "\n".join(
                f"{as_text(o.get('name'), '?')} ({as_text(o.get('kind'), '?')})" for o in options
            )
            tool_id = as_text(tool_call.get("toolCallId")) or None
            result = self._in_inbox(self._document(title, shown, tool_id))
        if result.status is ExitStatus.INTERRUPTED:
            self.hold(answer, {})
            raise KeyboardInterrupt
        answer(acp_options.chosen(result, options, allow, reject))
        if result.status is ExitStatus.NO_ANSWER:
            self.ended = Ended(int(ExitStatus.NO_ANSWER))

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
            if self.inbox is None:
                result = run_call(call, self.conv)
            elif call.name == "AskUserQuestion":
                result = self._in_inbox(self._document(call.name, dict(call.input), tool_id))
            else:
                self.asked += 1
                document = {
                    "jsonrpc": "2.0",
                    "id": self.asked,
                    "method": "elicitation/create",
                    "params": dict(call.input),
                }
                result = self._in_inbox(document)
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
        else:
            reply = dict(result.reply) if result.reply is not None else {"action": "decline"}
            if result.reply is None:
                self.conv.error(f"askcli cannot ask this form: {result.content}")
        if result.status is ExitStatus.INTERRUPTED:
            self.hold(answer, {"action": "cancel"})
            if self.inbox is None:
                typed_interrupt(self.conv)
            raise KeyboardInterrupt
        answer(reply)
        if result.status is ExitStatus.NO_ANSWER:
            self.ended = Ended(int(ExitStatus.NO_ANSWER))


def typed_interrupt(conv: Conversation) -> None:
    """Ctrl-C at a question or at ``> ``: --record keeps it among the answer lines."""
    typed = getattr(conv.reader, "transcript", None)
    if isinstance(typed, bytearray) and not signals.received_other_than_sigint():
        typed += INTERRUPT.encode() + b"\n"
