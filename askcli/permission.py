"""The fallback permission prompt: any tool askcli does not serve itself (Bash, Edit, ...).

The seed's FallbackPermissionRequest in plain lines: the tool's name and its input, then
``Allow? [y]es / [n]o / or type what to do instead``. askcli never runs the tool: allowing
gives the permission decision (``updatedInput``) for the host to run it; ``n`` gives the
rejection result; typed words give the rejection with the person's words.
"""

from __future__ import annotations

import json
from typing import Any

from . import results
from .conversation import Conversation, Ending
from .envelopes import ToolCall
from .errors import AnswerTimeout, InvalidCall
from .issues import zod_type
from .rendering import Style, visible, wrap
from .results import Status, ToolResult

PROMPT = "Allow? [y]es / [n]o / or type what to do instead: "
PROMPT_ALWAYS = "Allow? [y]es / [a]lways / [n]o / or type what to do instead: "
ALLOWED_TEXT = "The user allowed this tool use."
MAX_CHARS = 400  # a longer value is shortened
MAX_LINES = 16  # a value of more lines is shortened
HELP_ALLOW = (
    "  y        allow: the agent's host runs the tool with this input (askcli never runs it)\n"
)
HELP_ALWAYS = "  a        allow, and allow this tool for the rest of the session\n"
HELP_REST = """\
  n        deny: the agent is told to stop and wait
  TEXT     deny, and tell the agent what to do instead
  ?        this help
"""


def parse_any(data: Any) -> dict[str, Any]:
    """A tool askcli does not know takes any JSON object as input."""
    if not isinstance(data, dict):
        received = zod_type(data) if data is not None else "null"
        issue = {
            "code": "invalid_type",
            "expected": "object",
            "received": received,
            "path": [],
            "message": f"Expected object, received {received}",
        }
        raise InvalidCall("tool", [issue])
    return data


def _shorten(text: str) -> str:
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        text = "\n".join(lines[:MAX_LINES]) + f"\n… ({len(lines) - MAX_LINES} more lines)"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"… ({len(text) - MAX_CHARS} more characters)"
    return text


def input_lines(value: Any, style: Style) -> list[str]:
    """The input as ``key: value`` lines: long values shortened, controls escaped."""
    if not isinstance(value, dict):
        return [visible(_shorten(json.dumps(value, ensure_ascii=False)))]
    lines: list[str] = []
    for key, item in value.items():
        label = f"  {visible(str(key))}: "
        if isinstance(item, str):
            text = visible(_shorten(item), multiline=True)
        else:
            text = visible(_shorten(json.dumps(item, indent=2, ensure_ascii=False)), multiline=True)
        if "\n" in text:  # shown as it is, indented, so code keeps its shape
            lines.append(label.rstrip())
            lines += ["      " + row if row else "" for row in text.rstrip("\n").split("\n")]
        else:
            lines += wrap(text, style.width, first=label, rest="      ")
    return lines or ["  (no input)"]


def request_block(call: ToolCall, style: Style) -> str:
    title = f"Tool use: {visible(call.name)}"
    lines = ["", style.strong(title), *input_lines(call.input, style)]
    return "\n".join(lines) + "\n"


def fallback(call: ToolCall, data: dict[str, Any], conv: Conversation) -> ToolResult:
    """Ask whether the host may run ``call``; the answer is a permission decision."""
    facts: dict[str, Any] = {"tool_name": call.name, "input": data, "allowed": False}

    def denied(text: str, status: Status = Status.DECLINED, **more: Any) -> ToolResult:
        return ToolResult(call.id, text, status, is_error=True, data={**facts, **more})

    try:
        conv.show(request_block(call, conv.style))
        while True:
            line = conv.read_answer(PROMPT_ALWAYS if conv.permission_always else PROMPT)
            if line is None:
                ending = Ending.ENDED
                break
            word = line.strip().lower()
            always = conv.permission_always and word in ("a", "always")
            if word in ("y", "yes") or always:
                allowed = {**facts, "allowed": True, **({"always": True} if always else {})}
                return ToolResult(
                    call.id,
                    ALLOWED_TEXT,
                    Status.ANSWERED,
                    data=allowed,
                    updated_input=data,
                    deferred=True,
                )
            if word in ("n", "no", "q"):
                return denied(results.REJECT_MESSAGE)
            if word in ("?", "help"):
                conv.say(HELP_ALLOW + (HELP_ALWAYS if conv.permission_always else "") + HELP_REST)
            elif not word:
                conv.say(
                    conv.style.warn("! type y to allow, n to deny, or what to do instead") + "\n"
                )
            else:
                words = line.strip()
                return denied(results.REJECT_WITH_WORDS_PREFIX + words, feedback=words)
    except AnswerTimeout:
        conv.say("\n")
        ending = Ending.TIMEOUT
    except KeyboardInterrupt:
        conv.say("\n")
        return denied(results.REJECT_MESSAGE, Status.INTERRUPTED)
    why = conv.why(ending)
    conv.error(f"no answer ({why})")
    return denied(results.no_answer_text(why, {}), Status.NO_ANSWER)
