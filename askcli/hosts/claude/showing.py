"""What Claude Code does, shown as plain lines: its text, tool uses and results, task
lists, and each turn's result on stdout."""

from __future__ import annotations

import math
import re
from typing import Any, TextIO

from ...escaping import visible
from ...status import ExitStatus
from ...terminal.conversation import Conversation
from ...terminal.rendering import display_width, terminal_text, truncate, wrap
from ...terminal.screens import tool_line
from ...tools.todos import checklist
from ...wire.envelopes import capabilities
from ..child import MAX_NAMES, Ended, as_dict, as_text, shorten

# tools whose results askcli shows in its own form (answers, checklists): shown when failed
SHOWN_BY_ASKCLI = frozenset({"AskUserQuestion", "TodoWrite", "TaskCreate", "TaskUpdate"})


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


_SUFFIX = re.compile(r"\[[^\[\]]*\]\)")  # a line that is a model's suffix alone: "[1m])"


def session_line(session: str, model: str, width: int) -> str:
    """``(Claude Code session ID, model NAME)``, folded to ``width`` before ``model`` when it
    does not fit, so that the name stays whole with its suffix: Claude Code names a model
    with a 1M context ``claude-opus-4-5[1m]``, and ``[1m]`` alone on a line reads as a
    leaked escape sequence. A name wider than a line is cut, never just before its suffix."""
    session, model = shorten(session, 200), shorten(model, 200)
    whole = f"(Claude Code session {session}, model {model})"
    if display_width(whole) <= width:
        return whole
    tail = f"model {model})"
    named = [tail] if display_width(tail) <= width else wrap(tail, width)
    if len(named) > 1 and _SUFFIX.fullmatch(named[-1]):
        named[-2], named[-1] = named[-2][:-4], named[-2][-4:] + named[-1]
    return "\n".join([*wrap(f"(Claude Code session {session},", width), *named])


def retry_line(message: dict[str, Any]) -> str:
    """One line for Claude Code's ``api_retry`` message (attempt, delay, error)."""
    attempt, most = _number(message.get("attempt")), _number(message.get("max_retries"))
    count = f"{attempt:.0f}" if attempt is not None else "?"
    if most is not None:
        count += f" of {most:.0f}"
    delay = _number(message.get("retry_delay_ms"))
    when = f" in {delay / 1000:.1f} s" if delay is not None and delay >= 0 else ""
    error = as_text(message.get("error"), "error")
    status = _number(message.get("error_status"))
    how = f"HTTP {status:.0f}" if status is not None else "no response"
    return f"(API error: {error}, {how}; retry {count}{when})"


def result_text(content: Any) -> str:
    """The text of a tool_result's content: a string, or blocks of text (others named)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in _list(content):
        block = as_dict(block)
        kind = as_text(block.get("type"), "?")
        parts.append(as_text(block.get("text")) if kind == "text" else f"[{kind}]")
    return "\n".join(parts)


def result_line(name: str, content: Any, failed: bool, width: int) -> str:
    """One line for a tool result: ``  <- Bash: first line  (+2 lines)``, cut after a
    whole word to ``width``; a failed one says ``error:``."""
    text = result_text(content).strip("\n")
    first, _, rest = text.partition("\n")
    more = rest.count("\n") + 1 if rest else 0
    extra = f"  (+{more} line{'s' if more != 1 else ''})" if more else ""
    head = f"  <- {truncate(visible(name), 40)}: " + ("error: " if failed else "")
    shown = visible(first[: width * 4]) if first.strip() else "(no output)"
    room = max(width - len(head) - len(extra), 10)
    return head + truncate(shown, room, words=True) + extra


class ClaudeShowing:
    """The showing part of a hosted session (:class:`~askcli.hosts.claude.session.Host`)."""

    conv: Conversation
    out: TextIO
    failed: bool
    ended: Ended | None
    creating: dict[str, dict[str, Any]]
    tasks: dict[str, dict[str, Any]]
    names: dict[str, str]
    listed: str | None
    session_shown: tuple[str, str] | None
    one_terminal: bool
    said: str | None

    def say_line(self, text: str, prefix: str = "") -> None:
        """Text of several lines; later lines are indented past ``prefix``, so that no line
        of it can pass for one of askcli's own."""
        rest = " " * len(prefix) if prefix else "  "
        lines = wrap(visible(text, multiline=True), self.conv.style.width, first=prefix, rest=rest)
        self.conv.say("\n".join(lines) + "\n")

    def say_item(self, text: str, prefix: str = "") -> None:
        """One item (a tool use, an id): a newline in it shows as ``\\n``; wrapped at spaces
        to the width, going on indented past where it starts."""
        rest = " " * (len(prefix) + 1) if prefix else "  "
        lines = wrap(shorten(text, 2000), self.conv.style.width, first=prefix, rest=rest)
        self.conv.say("\n".join(lines) + "\n")

    def told(self, found: list[str]) -> None:
        """Claude Code said it supports ``found``: the calls from now on are answered with
        options that say so."""
        if found:
            self.conv = self.conv.with_options(self.conv.options.told(found))

    def skipped(self, reason: str) -> None:
        self.conv.error(f"skipped a line from Claude Code: {reason}")

    def show(self, message: dict[str, Any]) -> None:
        """Show one of Claude Code's messages that needs no answer."""
        kind = message.get("type")
        if kind == "assistant":
            for block in _list(as_dict(message.get("message")).get("content")):
                block = as_dict(block)
                if block.get("type") == "text":
                    text = as_text(block.get("text")).strip()
                    if text:
                        self.say_line(text, "Claude: ")
                        self.said, self.listed = text, None
                elif block.get("type") == "tool_use":
                    name = as_text(block.get("name"), "?")
                    self._show_tool_use(name, block.get("input"), block.get("id"))
        elif kind == "user":
            self._track_tasks(message)
            self._show_tool_results(message)
        elif kind == "system" and message.get("subtype") == "init":
            self.told(capabilities(message))
            session = as_text(message.get("session_id"), "?")
            model = as_text(message.get("model"), "?")
            if self.session_shown != (session, model):  # once, and again when it changes
                self.session_shown = (session, model)
                self.conv.say(session_line(session, model, self.conv.style.width) + "\n")
        elif kind == "system" and message.get("subtype") == "api_retry":
            self.say_item(retry_line(message))
        elif kind == "result":
            self._show_result(message)

    def _track_tasks(self, message: dict[str, Any]) -> None:
        """Follow Claude Code's task list (TaskCreate/TaskUpdate) from the results it
        reports, and show it as a checklist when a task's status changes."""
        done = message.get("tool_use_result")
        if not isinstance(done, dict):
            return
        content = _list(as_dict(message.get("message")).get("content"))
        ids = [as_dict(b).get("tool_use_id") for b in content]
        first = ids[0] if ids and isinstance(ids[0], str) else None
        task = done.get("task")
        if isinstance(task, dict) and first is not None and first in self.creating:
            created = self.creating.pop(first)
            self.tasks[str(task.get("id"))] = {
                "content": as_text(created.get("subject")) or as_text(task.get("subject")),
                "status": "pending",
                "activeForm": as_text(created.get("activeForm")) or None,
            }
            return
        change = done.get("statusChange")
        task_id = done.get("taskId")
        if isinstance(change, dict) and isinstance(task_id, str | int):
            task_id = str(task_id)
            if task_id not in self.tasks:
                return
            if change.get("to") == "deleted":
                del self.tasks[task_id]
            else:
                self.tasks[task_id]["status"] = as_text(change.get("to"), "pending")
            items = list(self.tasks.values())
            self.conv.say(checklist(items, self.conv.style, title="Task list"))

    def _show_tool_results(self, message: dict[str, Any]) -> None:
        """One line per tool result; those of :data:`SHOWN_BY_ASKCLI` only when failed."""
        for block in _list(as_dict(message.get("message")).get("content")):
            block = as_dict(block)
            if block.get("type") != "tool_result":
                continue
            tool_id = block.get("tool_use_id")
            name = self.names.pop(tool_id, "tool") if isinstance(tool_id, str) else "tool"
            failed = block.get("is_error") is True
            if not failed and name in SHOWN_BY_ASKCLI:
                continue
            width = self.conv.style.width
            self.conv.say(result_line(name, block.get("content"), failed, width) + "\n")

    def _show_tool_use(self, name: str, tool_input: Any, tool_id: Any = None) -> None:
        if isinstance(tool_id, str):
            if len(self.names) >= MAX_NAMES:  # results that never came: forget the oldest
                del self.names[next(iter(self.names))]
            self.names[tool_id] = name
        if name == "AskUserQuestion":
            return  # asked next, through the can_use_tool request
        if name == "TaskCreate" and isinstance(tool_input, dict) and isinstance(tool_id, str):
            self.creating[tool_id] = tool_input
        todos = as_dict(tool_input).get("todos")
        if name == "TodoWrite" and isinstance(todos, list):
            items = [t for t in todos if isinstance(t, dict)]
            self.conv.say(checklist(items, self.conv.style, title="Todo list"))
            return
        self.say_item(tool_line(name, tool_input), "  -> ")
        self.listed = tool_id if isinstance(tool_id, str) else None

    def _show_result(self, message: dict[str, Any]) -> None:
        turns = message.get("num_turns")
        count = str(turns) if isinstance(turns, int) and not isinstance(turns, bool) else "?"
        cost = _number(message.get("total_cost_usd"))
        seconds = (_number(message.get("duration_ms")) or 0) / 1000
        money = f", ${cost:.4f}" if cost is not None else ""
        failed = message.get("is_error") is True
        ending = f"ended: {as_text(message.get('subtype'), 'error')}" if failed else "done"
        self.say_item(f"-- turn {ending}: {count} turns{money}, {seconds:.1f} s")
        self.failed = failed
        result = as_text(message.get("result"))
        said, self.said = self.said, None
        if self.one_terminal and result.strip() == said:
            return  # the person read it as ``Claude: ...`` on this very terminal
        if result:
            try:
                self.out.write(terminal_text(result) + "\n")
                self.out.flush()
            except BrokenPipeError:
                self.ended = Ended(ExitStatus.STDOUT_GONE, "stdout was closed: the result is lost")
            except (OSError, ValueError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "closed"
                self.ended = Ended(
                    ExitStatus.OUTPUT_FAILED, f"cannot write the result to stdout: {reason}"
                )
