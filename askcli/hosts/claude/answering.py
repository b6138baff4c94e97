"""Claude Code's control requests answered: permissions (``can_use_tool``) through askcli's
prompts, MCP servers' forms (``elicitation``), and a refusal for the rest."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...errors import Withdrawn
from ...runners.session import Asker
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.screens import context_text, tool_line
from ...tools.registry import run_call
from ...wire.calls import permission_request
from ...wire.documents import MAX_DEPTH as DOCUMENT_DEPTH
from ...wire.documents import Document, nesting_depth
from ...wire.envelopes import Context, ToolCall, detect
from ...wire.permission_request import care_of, passed_on
from ...wire.results import ToolResult
from ..child import Ended
from .showing import ClaudeShowing
from .stream_json import StreamLink

TOO_DEEP = "<tool_use_error>InputValidationError: the input nests too deep</tool_use_error>"


def same_input(name: str, tool_input: Any) -> str | None:
    """A key for "this tool with exactly this input"; None when it has none."""
    try:
        return name + "\n" + json.dumps(tool_input, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


class Answering(ClaudeShowing):
    """The answering part of a hosted session (:class:`~askcli.hosts.claude.session.Host`)."""

    link: StreamLink
    asker: Asker  # here (the prompts below) or the inbox (``--inbox``)
    allow: set[str]
    deny: set[str]
    same: set[str]
    interrupted: bool

    def _respond(self, request_id: Any, decision: dict[str, Any]) -> None:
        self.link.send(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": decision},
            }
        )

    def _decided(self, line: str, why: str, shown: bool) -> None:
        """Say how a call was decided without asking: on the line of its tool use when
        that line was just shown, else in a line of its own."""
        if shown:
            self.conv.say(f"     ({why})\n")
        else:
            self.say_item(f"{line}  ({why})", "  -> ")

    def decide(self, request_id: Any, request: dict[str, Any], listed: str | None = None) -> None:
        """Answer a ``can_use_tool`` request with a permission decision.

        A SIGTERM or SIGHUP at the prompt denies the call and ends the session; the answer
        input ending does too (no answer). A Ctrl-C denies it and interrupts the turn.
        """
        name = request.get("tool_name")
        if not isinstance(name, str):
            self.refuse(request_id, "can_use_tool", "the request has no tool_name")
            return
        tool_input = request.get("input")
        tool_id = request.get("tool_use_id")
        suggestions = request.get("permission_suggestions")
        call = ToolCall(
            tool_id if isinstance(tool_id, str) else None,
            name,
            tool_input,
            suggestions=suggestions,
            care=care_of(request),
        )
        careful = call.default_to_no or call.no_lasting_rule or call.needs_person
        key = None if careful else same_input(name, tool_input)  # "same as before" is a rule
        shown = listed is not None and listed == tool_id
        if nesting_depth(tool_input, DOCUMENT_DEPTH) > DOCUMENT_DEPTH:
            self.say_item(tool_line(name, None) + "  (denied: its input nests too deep)", "  -> ")
            self._respond(request_id, {"behavior": "deny", "message": TOO_DEEP})
            return
        if name in self.deny:
            self._decided(tool_line(name, tool_input), "denied: --deny", shown)
            decision: dict[str, Any] = {
                "behavior": "deny",
                "message": f"The user does not allow {name} in this session.",
            }
        elif name in self.allow and not (call.default_to_no or call.needs_person):
            # default_to_no, requires_user_interaction, matched_ask_rule: Claude Code says a
            # person must approve this one, --allow or not
            self._decided(tool_line(name, tool_input), "allowed: --allow", shown)
            decision = {"behavior": "allow", "updatedInput": tool_input}
        elif key is not None and key in self.same:
            self._decided(tool_line(name, tool_input), "allowed: same as before", shown)
            decision = {"behavior": "allow", "updatedInput": tool_input}
        else:
            try:
                result = self._ask(
                    request_id,
                    call,
                    lambda: permission_request(
                        str(request_id),
                        name,
                        tool_input,
                        tool_use_id=call.id,
                        suggestions=suggestions,
                        care=passed_on(request),
                    ),
                )
            except KeyboardInterrupt:  # between prompts: the call still gets its answer
                self._respond(request_id, _interrupted())
                raise
            except Withdrawn:
                asked = (
                    "the question" if name == "AskUserQuestion" else f"its request to use {name}"
                )
                self._withdrawn(asked)
                return
            decision = result.decision()
            if _always(result) and not suggestions and key is not None:
                self.same.add(key)
            if result.status is ExitStatus.NO_ANSWER:
                self.ended = Ended.from_outcome(result.outcome)
            elif result.status is ExitStatus.INTERRUPTED:
                self.interrupted = True
        self._respond(request_id, decision)
        if signals.received_other_than_sigint():
            raise KeyboardInterrupt  # SIGTERM/SIGHUP: the call is answered; now end

    def _ask(
        self, request_id: Any, call: ToolCall, queued: Callable[[], dict[str, Any]]
    ) -> ToolResult:
        """Ask ``call`` here while watching Claude Code's output: a ``control_cancel_request``
        for ``request_id`` withdraws the question (Withdrawn); other lines wait in order.
        Asked elsewhere (the inbox), the asker gets the document ``queued`` makes (made only
        then)."""
        if not self.asker.here:
            return self.asker.ask(Document(queued()), self.conv).result(call.id)
        watch = getattr(self.conv.reader, "watch", None)
        take = getattr(self.link, "take_ready", None)
        ready = getattr(self.link, "ready", None)
        fd = getattr(self.link, "fd", None)
        if watch is None or take is None or ready is None or not isinstance(fd, int):
            return run_call(call, self.conv)  # a recorded session: nothing can come

        def check() -> bool:
            alive = bool(take())
            for line in list(ready):
                if (
                    isinstance(line, dict)
                    and line.get("type") == "control_cancel_request"
                    and line.get("request_id") == request_id
                ):
                    ready.remove(line)
                    raise Withdrawn
            return alive

        watch(fd, check)
        try:
            return run_call(call, self.conv)
        finally:
            watch(None)

    def _withdrawn(self, what: str) -> None:
        """Said when Claude Code took back the request being answered."""
        self.conv.say("\n")
        self.conv.error(f"Claude Code withdrew {what} (control_cancel_request); nothing was sent")

    def elicit(self, line: dict[str, Any]) -> None:
        """Answer an MCP server's ``elicitation`` that Claude Code passes on: its form (or
        URL consent) is asked like any question, and the reply is ``{action, content}``;
        a request askcli cannot ask is refused with the reason."""
        request_id = line.get("request_id")
        envelope = detect(line)
        for item in envelope.items:
            if isinstance(item, Context):
                self.conv.say(context_text(item.text, self.conv.style, item.label))
        (call,) = envelope.calls
        try:
            result = self._ask(request_id, call, lambda: line)
        except KeyboardInterrupt:  # between prompts: the server is told the person left
            self._respond(request_id, {"action": "cancel"})
            raise
        except Withdrawn:
            self._withdrawn("the form")
            return
        if result.reply is None:
            self.refuse(request_id, "elicitation", result.content)
            return
        self._respond(request_id, dict(result.reply))
        if result.status is ExitStatus.NO_ANSWER:
            self.ended = Ended.from_outcome(result.outcome)
        elif result.status is ExitStatus.INTERRUPTED:
            self.interrupted = True
        if signals.received_other_than_sigint():
            raise KeyboardInterrupt

    def refuse(self, request_id: Any, subtype: Any, why: str | None = None) -> None:
        what = json.dumps(subtype) if isinstance(subtype, str) else "such"
        self.link.send(
            {
                "type": "control_response",
                "response": {
                    "subtype": "error",
                    "request_id": request_id,
                    "error": why or f"askcli does not serve {what} control requests",
                },
            }
        )


def _always(result: ToolResult) -> bool:
    return bool(result.allowed and result.data and result.data.get("always"))


def _interrupted() -> dict[str, Any]:
    return {"behavior": "deny", "message": signals.interrupted_text({}), "interrupt": True}
