"""What the agent says, shown in plain lines: its messages and thoughts, its tool calls and
their status, its plan and its mode (:class:`AcpShowing`, a part of the session's
:class:`~.session.Host`)."""

from __future__ import annotations

from typing import Any

from ...escaping import visible
from ...terminal.conversation import Conversation
from ...terminal.rendering import wrap
from ...tools.todos import checklist
from ..child import MAX_NAMES, as_dict, as_text, shorten
from . import config as configs
from .content import content_mark, content_text

FAILURE_LINES = 20  # lines of a failed tool call's content shown under it
STATUS_WORDS = {
    "pending": "pending",
    "in_progress": "running",
    "completed": "done",
    "failed": "failed",
}


class AcpShowing:
    """The session's lines for what the agent sends: text waits in ``message`` (and
    ``thought``) until something else is shown."""

    conv: Conversation
    message: str  # agent text not shown yet
    thoughts: bool  # show the agent's thoughts (--thoughts)
    thought: str  # thoughts not shown yet
    final: list[str]  # this turn's text since its last tool call
    tools: dict[str, dict[str, Any]]  # title and status by toolCallId
    modes: dict[str, str]  # the session's modes: name by id (session/new)
    mode: str | None  # the current mode's id
    config: dict[str, configs.ConfigOption]  # the session's config options by id

    def flush(self) -> None:
        self.flush_thought()
        text, self.message = self.message.strip(), ""
        if text:
            lines = wrap(
                visible(text, multiline=True), self.conv.style.width, first="Agent: ", rest="  "
            )
            self.conv.say("\n".join(lines) + "\n")

    def flush_thought(self) -> None:
        text, self.thought = self.thought.strip(), ""
        if text:
            lines = wrap(
                visible(text, multiline=True), self.conv.style.width, first="Thinking: ", rest="  "
            )
            self.conv.say("".join(self.conv.style.dim(line) + "\n" for line in lines))

    def say_item(self, text: str) -> None:
        """One item on one line of its own, wrapped at spaces to the width (going on
        indented past where it starts)."""
        lines = wrap(shorten(text, 2000), self.conv.style.width, rest="   ")
        self.conv.say("\n".join(lines) + "\n")

    def update(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk" and _notice(update):
            # claude-agent-acp's notice (a warning of Claude Code's): not the turn's text
            self.flush()
            text = content_text(update.get("content")).strip()
            lines = wrap(visible(text, multiline=True), self.conv.style.width, first="Notice: ")
            self.conv.say("\n".join(lines) + "\n")
            return
        if kind == "agent_message_chunk":
            self.flush_thought()
            block = update.get("content")
            text = content_text(block) or content_mark(block)
            self.message += text
            self.final.append(text)
            return
        if kind == "agent_thought_chunk":
            if self.thoughts:
                if self.message.strip():
                    self.flush()
                self.thought += content_text(update.get("content"))
            return
        if kind in (
            "tool_call",
            "tool_call_update",
            "plan",
            "current_mode_update",
            "config_option_update",
        ):
            self.flush()
        if kind == "tool_call":
            self.final = []
            self.tool(update, new=True)
        elif kind == "tool_call_update":
            self.tool(update, new=False)
        elif kind == "plan":
            items = [
                {
                    "content": as_text(as_dict(e).get("content")),
                    "status": as_text(as_dict(e).get("status"), "pending"),
                }
                for e in update.get("entries") or []
            ]
            self.conv.say(checklist(items, self.conv.style, title="Plan"))
        elif kind == "current_mode_update":
            mode = as_text(update.get("currentModeId"))
            if configs.mode_option(self.config) is not None:
                self.mode = mode or self.mode  # the config option's update shows it
            elif mode and mode != self.mode:
                self.show_mode(mode)
        elif kind == "config_option_update" and isinstance(update.get("configOptions"), list):
            self.show_config(configs.parse(update["configOptions"]))
        # usage, commands and session info are not shown

    def tool(self, update: dict[str, Any], *, new: bool) -> None:
        tool_id = as_text(update.get("toolCallId"), "?")
        known = self.tools.get(tool_id)
        if known is None:
            if len(self.tools) >= MAX_NAMES:
                del self.tools[next(iter(self.tools))]
            known = self.tools[tool_id] = {"title": tool_id, "status": None}
        if isinstance(update.get("title"), str) and update["title"]:
            known["title"] = update["title"]
        status = update.get("status") if isinstance(update.get("status"), str) else None
        if new and status is None:
            status = "pending"
        if status is None or status == known["status"]:
            return
        known["status"] = status
        word = STATUS_WORDS.get(status, status)
        line = f"  -> {known['title']}  ({word})"
        lines: list[str] = []
        if status == "failed":
            text = "\n".join(
                content_text(as_dict(c).get("content")) for c in update.get("content") or []
            ).strip()
            if "\n" not in text and text:
                line += f": {text}"
            elif text:  # what went wrong, on lines of its own under the status
                line += ":"
                lines = text.splitlines()
                if len(lines) > FAILURE_LINES:
                    more = len(lines) - FAILURE_LINES
                    lines = [*lines[:FAILURE_LINES], f"({more} more lines)"]
        self.say_item(line)
        for text_line in lines:
            self.say_item("       " + text_line)

    def show_config(self, options: dict[str, configs.ConfigOption]) -> None:
        """The config options now: those that changed shown, one line each."""
        for option in configs.changed(self.config, options):
            self.conv.say(configs.line(option, self.conv.style.width) + "\n")
        self.config = options

    def show_mode(self, mode: str) -> None:
        self.mode = mode
        self.say_item(f"(mode: {self.modes.get(mode, mode)})")


def _notice(update: dict[str, Any]) -> bool:
    """A message chunk claude-agent-acp marks as a notice (``_meta.claudeCode.kind``
    ``informational``), such as 0.101.0's warning about auto mode's billing."""
    claude = as_dict(as_dict(update.get("_meta")).get("claudeCode"))
    return claude.get("kind") == "informational"
