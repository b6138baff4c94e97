"""``askcli claude``: host Claude Code in plain lines, answering it through askcli's prompts.

Claude Code runs as ``claude -p --input-format stream-json --output-format stream-json
--verbose --permission-prompt-tool stdio``. askcli sends the ``initialize`` control request
and the person's prompts, shows what Claude Code says as plain lines on stderr, answers its
``can_use_tool`` control requests with askcli's own prompts (the question UI for
AskUserQuestion, the permission prompt for any other tool), and prints each turn's result
text on stdout. The link to Claude Code is an object with ``send``/``receive``/``close``, so a
recorded session can stand in for the real process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import IO, Any, Protocol, TextIO

from . import signals
from .conversation import Conversation
from .envelopes import ToolCall
from .errors import UsageError
from .rendering import visible, wrap
from .results import Status, ToolResult
from .todos import checklist
from .tools import run_call

FLAGS = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-prompt-tool",
    "stdio",
]
INSTALL_HINT = (
    "Claude Code was not found: install it with `npm install -g @anthropic-ai/claude-code`, "
    "or pass --claude-bin PATH"
)
MAX_LINE = 64 * 1024 * 1024  # Claude Code's own lines (a tool result may be a whole file)
EXIT_CLAUDE_FAILED = 1


class Link(Protocol):
    """The stream-json connection to Claude Code."""

    def send(self, message: dict[str, Any]) -> None: ...

    def receive(self) -> dict[str, Any] | str | None:
        """The next line: a JSON object, text that is not one, or None when it ended."""

    def close(self) -> int | None:
        """End Claude Code (if it still runs); its exit status when known."""


def find_claude(claude_bin: str | None) -> str:
    """The Claude Code executable; UsageError saying how to install it when missing."""
    path = claude_bin or shutil.which("claude")
    if path is None or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(INSTALL_HINT if claude_bin is None else f"{claude_bin}: {INSTALL_HINT}")
    return path


def _die_with_parent() -> None:
    """In the child: receive SIGTERM when askcli dies, even by SIGKILL (Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ChildClaude:
    """Claude Code as a child process in its own session: Ctrl-C at the terminal reaches
    askcli, which decides what to do (interrupt the turn, or end); the child is ended on
    every path out, and dies with askcli if askcli is killed."""

    def __init__(self, command: Sequence[str], *, stderr: IO[bytes] | None = None) -> None:
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # Claude Code is gone: receive() will say so

    def receive(self) -> dict[str, Any] | str | None:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline(MAX_LINE)
        if not line:
            return None
        if not line.endswith(b"\n"):  # over the limit: drop the rest of it
            while True:
                more = self.proc.stdout.readline(MAX_LINE)
                if not more or more.endswith(b"\n"):
                    break
            return "(a line too long to show)"
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, dict) else text

    def close(self) -> int | None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        for action, wait in ((None, 2.0), (self.proc.terminate, 3.0), (self.proc.kill, 3.0)):
            if action is not None and self.proc.poll() is None:
                action()
            try:
                return self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        return self.proc.poll()


class Recorder:
    """A link that keeps what passed through it, for ``askcli claude --record``."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.received: list[Any] = []
        self.sent: list[dict[str, Any]] = []
        self.exit_status: int | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self.link.send(message)

    def receive(self) -> dict[str, Any] | str | None:
        line = self.link.receive()
        if line is not None:
            self.received.append(line)
        return line

    def close(self) -> int | None:
        self.exit_status = self.link.close()
        return self.exit_status


class Scripted:
    """Recorded Claude Code lines in place of the process (``askcli replay``)."""

    def __init__(self, lines: Sequence[Any], status: int | None = 0) -> None:
        self.lines = list(lines)
        self.sent: list[dict[str, Any]] = []
        self.status = status

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def receive(self) -> dict[str, Any] | str | None:
        return self.lines.pop(0) if self.lines else None

    def close(self) -> int | None:
        return self.status


def tool_line(name: str, tool_input: Any) -> str:
    """One line for a tool use: ``Bash: npm test``, ``Edit: src/app.py``."""
    data = tool_input if isinstance(tool_input, dict) else {}
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "query"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{name}: {value}"
    for key in ("subject", "description", "prompt", "skill"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{name}: {value}"
    if name == "TaskUpdate" and "taskId" in data:
        return f"{name}: #{data.get('taskId')} {data.get('status', '')}".rstrip()
    return name


class Host:
    """One hosted Claude Code session: the person's side, in plain lines."""

    def __init__(
        self,
        link: Link,
        conv: Conversation,
        out: TextIO,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
    ) -> None:
        self.link = link
        self.conv = conv
        self.out = out
        self.allow = set(allow)
        self.deny = set(deny)
        self.serial = 0
        self.failed = False
        self.creating: dict[str, dict[str, Any]] = {}  # TaskCreate inputs by tool_use id
        self.tasks: dict[str, dict[str, Any]] = {}  # Claude Code's task list, by task id

    def _id(self, what: str) -> str:
        self.serial += 1
        return f"askcli-{what}-{self.serial}"

    def _request(self, subtype: str) -> None:
        request = {"subtype": subtype}
        self.link.send(
            {"type": "control_request", "request_id": self._id(subtype), "request": request}
        )

    def say_line(self, text: str, prefix: str = "") -> None:
        lines = wrap(visible(text, multiline=True), self.conv.style.width, first=prefix, rest="  ")
        self.conv.say("\n".join(lines) + "\n")

    def show(self, message: dict[str, Any]) -> None:
        """Show one of Claude Code's messages that needs no answer."""
        kind = message.get("type")
        if kind == "assistant" and isinstance(message.get("message"), dict):
            content = message["message"].get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    if block["text"].strip():
                        self.say_line(block["text"].strip(), "Claude: ")
                elif block.get("type") == "tool_use":
                    self._show_tool_use(str(block.get("name")), block.get("input"), block.get("id"))
        elif kind == "user":
            self._track_tasks(message)
        elif kind == "system" and message.get("subtype") == "init":
            model = message.get("model", "?")
            self.conv.say(
                visible(f"(Claude Code session {message.get('session_id', '?')}, model {model})")
                + "\n"
            )
        elif kind == "result":
            self._show_result(message)

    def _track_tasks(self, message: dict[str, Any]) -> None:
        """Follow Claude Code's task list (TaskCreate/TaskUpdate) from the results it
        reports, and show it as a checklist when a task's status changes."""
        done = message.get("tool_use_result")
        if not isinstance(done, dict):
            return
        content = (message.get("message") or {}).get("content")
        ids = [b.get("tool_use_id") for b in content or [] if isinstance(b, dict)]
        task = done.get("task")
        if isinstance(task, dict) and ids and ids[0] in self.creating:
            created = self.creating.pop(ids[0])
            self.tasks[str(task.get("id"))] = {
                "content": created.get("subject") or task.get("subject", ""),
                "status": "pending",
                "activeForm": created.get("activeForm"),
            }
            return
        change = done.get("statusChange")
        task_id = str(done.get("taskId"))
        if isinstance(change, dict) and task_id in self.tasks:
            if change.get("to") == "deleted":
                del self.tasks[task_id]
            else:
                self.tasks[task_id]["status"] = change.get("to")
            items = list(self.tasks.values())
            self.conv.say(checklist(items, self.conv.style, title="Task list"))

    def _show_tool_use(self, name: str, tool_input: Any, tool_id: Any = None) -> None:
        if name == "AskUserQuestion":
            return  # asked next, through the can_use_tool request
        if name == "TaskCreate" and isinstance(tool_input, dict) and isinstance(tool_id, str):
            self.creating[tool_id] = tool_input
        todos = tool_input.get("todos") if isinstance(tool_input, dict) else None
        if name == "TodoWrite" and isinstance(todos, list):
            items = [t for t in todos if isinstance(t, dict)]
            self.conv.say(checklist(items, self.conv.style, title="Todo list"))
            return
        self.say_line(tool_line(name, tool_input), "  -> ")

    def _show_result(self, message: dict[str, Any]) -> None:
        turns = message.get("num_turns", "?")
        cost = message.get("total_cost_usd")
        seconds = (message.get("duration_ms") or 0) / 1000
        money = f", ${cost:.4f}" if isinstance(cost, int | float) else ""
        ending = (
            "done" if not message.get("is_error") else f"ended: {message.get('subtype', 'error')}"
        )
        self.conv.say(visible(f"-- turn {ending}: {turns} turns{money}, {seconds:.1f} s") + "\n")
        self.failed = bool(message.get("is_error"))
        result = message.get("result")
        if isinstance(result, str) and result:
            self.out.write(result + "\n")
            self.out.flush()

    def decide(self, request_id: Any, request: dict[str, Any]) -> None:
        """Answer a ``can_use_tool`` request with a permission decision."""
        name = str(request.get("tool_name", ""))
        call = ToolCall(
            request.get("tool_use_id") if isinstance(request.get("tool_use_id"), str) else None,
            name,
            request.get("input"),
        )
        if name in self.deny:
            self.say_line(tool_line(name, call.input) + "  (denied: --deny)", "  -> ")
            decision: dict[str, Any] = {
                "behavior": "deny",
                "message": f"The user does not allow {name} in this session.",
            }
        elif name in self.allow:
            self.say_line(tool_line(name, call.input) + "  (allowed)", "  -> ")
            decision = {"behavior": "allow", "updatedInput": call.input}
        else:
            result = run_call(call, self.conv)
            decision = result.decision()
            if _always(result):
                self.allow.add(name)
        self.link.send(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": decision},
            }
        )

    def refuse(self, request_id: Any, subtype: Any) -> None:
        self.link.send(
            {
                "type": "control_response",
                "response": {
                    "subtype": "error",
                    "request_id": request_id,
                    "error": f"askcli does not serve {json.dumps(subtype)} control requests",
                },
            }
        )

    def turn(self) -> bool:
        """Read Claude Code's lines until the turn's result; False when it ended early.

        Ctrl-C sends the interrupt control request and waits for the turn to end; a second
        Ctrl-C (or a SIGTERM/SIGHUP) ends the session.
        """
        interrupting = False
        while True:
            try:
                line = self.link.receive()
            except KeyboardInterrupt:
                if interrupting or signals.received_other_than_sigint():
                    raise
                self.conv.say("\n(interrupting Claude Code; Ctrl-C again ends the session)\n")
                self._request("interrupt")
                interrupting = True
                continue
            if line is None:
                return False
            if isinstance(line, str):
                if line.strip():
                    self.say_line(line)
                continue
            kind = line.get("type")
            request = line.get("request")
            if kind == "control_request" and isinstance(request, dict):
                if request.get("subtype") == "can_use_tool":
                    self.decide(line.get("request_id"), request)
                else:
                    self.refuse(line.get("request_id"), request.get("subtype"))
                continue
            self.show(line)
            if kind == "result":
                return True

    def start(self) -> bool:
        """Send ``initialize`` and wait for its answer; False if Claude Code ended."""
        self._request("initialize")
        while True:
            line = self.link.receive()
            if line is None:
                return False
            if isinstance(line, dict) and line.get("type") == "control_response":
                return True
            if isinstance(line, dict):
                self.show(line)

    def prompt(self, text: str) -> None:
        self.link.send(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "parent_tool_use_id": None,
                "session_id": "",
            }
        )


def _always(result: ToolResult) -> bool:
    return bool(result.allowed and result.data and result.data.get("always"))


def host(
    link: Link,
    conv: Conversation,
    out: TextIO,
    *,
    prompt: str | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
) -> int:
    """Hold a Claude Code session over ``link``; the exit status.

    With ``prompt``, one turn; else prompts are read at ``> `` until the input ends.
    """
    session = Host(link, conv, out, allow=allow, deny=deny)
    conv.permission_always = True
    died = interrupted = False
    try:
        died = not session.start()
        while not died:
            text = prompt if prompt is not None else _next_prompt(conv)
            if text is None:
                break
            if text.strip():
                session.prompt(text)
                died = not session.turn()
                if prompt is not None:
                    break
    except KeyboardInterrupt:
        conv.say("\n")
        conv.error("session ended")
        interrupted = True
    finally:
        code = link.close()  # on every way out: no Claude Code outlives askcli
    if interrupted:
        return int(Status.INTERRUPTED)
    if died:
        conv.error(f"Claude Code ended unexpectedly (exit status {code})")
        return EXIT_CLAUDE_FAILED
    if session.failed:
        return EXIT_CLAUDE_FAILED
    if code not in (None, 0):
        conv.error(f"Claude Code exited with status {code}")
        return EXIT_CLAUDE_FAILED
    return int(Status.ANSWERED)


def _next_prompt(conv: Conversation) -> str | None:
    """A prompt typed at ``> ``; None when the input ended or the person pressed Ctrl-C."""
    try:
        return conv.read_answer("> ", command=False)
    except KeyboardInterrupt:
        conv.say("\n")
        return None
