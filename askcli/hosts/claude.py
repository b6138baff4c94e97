"""``askcli claude``: host Claude Code in plain lines, answering it through askcli's prompts.

Claude Code runs as ``claude -p --input-format stream-json --output-format stream-json
--verbose --permission-prompt-tool stdio``. askcli sends the ``initialize`` control request
and the person's prompts (as stream-json messages, never on the command line), shows what
Claude Code says as plain lines on stderr, answers its ``can_use_tool`` control requests
with askcli's own prompts (the question UI for AskUserQuestion, the permission prompt for
any other tool) and the ``elicitation`` requests of its MCP servers (their forms), and prints
each turn's result text on stdout. The link to Claude Code is an
object with ``send``/``receive``/``close``, so a recorded session can stand in for the real
process.

Every line from Claude Code is untrusted: it is read in bounded memory, fields are taken
with typed accessors, and a line askcli cannot use is reported in one escaped line and
skipped. Whatever it shows passes through :func:`~askcli.escaping.visible` (one line per
item) and the terminal gate.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, TextIO

from ..errors import UsageError, Withdrawn
from ..escaping import visible
from ..lines import CHUNK, each_line
from ..terminal import signals
from ..terminal.conversation import Conversation
from ..terminal.rendering import terminal_text, truncate, wrap
from ..terminal.screens import context_text, tool_line
from ..tools.registry import run_call
from ..tools.todos import checklist
from ..wire.care import care_of
from ..wire.documents import MAX_DEPTH as DOCUMENT_DEPTH
from ..wire.documents import TooDeep, nesting_depth, parse_json
from ..wire.envelopes import Context, ToolCall, capabilities, detect
from ..wire.results import (
    EXIT_OUTPUT_FAILED,
    EXIT_STDOUT_GONE,
    Status,
    ToolResult,
)
from .child import (
    MAX_LINE,
    MAX_NAMES,
    SHOWN,
    as_dict,
    as_text,
    describe_exit,
    die_with_parent,
    same_terminal,
    shorten,
)

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
MAX_DEPTH = 200  # a line nesting deeper is skipped
ENDING_GRACE = 2.0  # seconds Claude Code has to end by itself once its input is closed
TERM_GRACE = 3.0  # seconds its process group has between SIGTERM and SIGKILL
EXIT_CLAUDE_FAILED = 1
TOO_DEEP = "<tool_use_error>InputValidationError: the input nests too deep</tool_use_error>"
# tools whose results askcli shows in its own form (answers, checklists): shown when failed
SHOWN_BY_ASKCLI = frozenset({"AskUserQuestion", "TodoWrite", "TaskCreate", "TaskUpdate"})


class Skipped(NamedTuple):
    """A line from Claude Code that askcli cannot use; ``reason`` says why."""

    reason: str


class Link(Protocol):
    """The stream-json connection to Claude Code."""

    def send(self, message: dict[str, Any]) -> None: ...

    def receive(self) -> Any:
        """The next line: a JSON object, text that is not JSON, a :class:`Skipped`, or None
        when it ended (recorded lines may be any JSON value)."""

    def close(self, *, at_once: bool = False) -> int | None:
        """End Claude Code (if it still runs), at once or after a grace period for it to end
        by itself; its own exit status, or None when askcli had to end it."""


def find_claude(claude_bin: str | None) -> str:
    """The Claude Code executable; UsageError saying how to install it when missing."""
    path = claude_bin or shutil.which("claude")
    if path is None or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(INSTALL_HINT if claude_bin is None else f"{claude_bin}: {INSTALL_HINT}")
    return path


def parse_line(data: bytes) -> dict[str, Any] | str | Skipped:
    """One line from Claude Code: a JSON object, text that is not JSON, or why it is
    skipped (JSON that is not an object, or nests deeper than :data:`MAX_DEPTH`)."""
    text = data.decode("utf-8", "replace").rstrip("\r\n")
    if not text.lstrip().startswith(("{", "[")):
        return text
    try:
        value = parse_json(text, MAX_DEPTH)
    except TooDeep:
        return Skipped(f"it nests deeper than {MAX_DEPTH} levels")
    except ValueError:
        return text
    if not isinstance(value, dict):
        return Skipped("it is JSON but not an object")
    return value


def _processes() -> dict[int, tuple[int, int, bool]]:
    """pid -> (parent pid, process group, is a zombie), from /proc (Linux); {} elsewhere."""
    table: dict[int, tuple[int, int, bool]] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                table[int(name)] = (int(fields[1]), int(fields[2]), fields[0] in (b"Z", b"X"))
            except (OSError, IndexError, ValueError):
                continue
    return table


def _left(pgid: int) -> list[int]:
    """The live processes to end: askcli's descendants (Claude Code, what it started, and
    what was orphaned to askcli, its subreaper) and Claude Code's process group."""
    table = _processes()
    if not table:  # no /proc: the process group alone
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [-pgid]
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    found |= {pid for pid, (_, group, _) in table.items() if group == pgid}
    return sorted(pid for pid in found if not table[pid][2])


def _running(pid: int) -> bool:
    """``pid`` (``-pgid``: a process group) still runs: exists and is not a zombie."""
    try:
        if pid < 0:
            os.killpg(-pid, 0)
            return True
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _subreaper() -> None:
    """Make askcli the parent of what Claude Code's processes orphan (Linux), so that a
    background command that outlives Claude Code can still be found and ended."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


class ChildClaude:
    """Claude Code as a child process leading its own process group: Ctrl-C at the
    terminal reaches askcli, which decides what to do (interrupt the turn, or end); the
    whole group (Claude Code and every process it started there) is ended on every path
    out. If askcli is killed, Claude Code gets SIGTERM (Linux), its children do not.

    Its stdout is read in pieces: a line over :data:`MAX_LINE` is skipped without being
    held. Its stderr is read in a thread and each line handed to ``on_stderr``.
    """

    def __init__(
        self, command: Sequence[str], *, on_stderr: Callable[[str, int], None] | None = None
    ) -> None:
        if sys.platform.startswith("linux"):
            _subreaper()
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.buf = bytearray()
        self.scanned = 0
        self.ready: collections.deque[dict[str, Any] | str | Skipped] = collections.deque()
        self.on_stderr = on_stderr
        self.pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self.pump.start()

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        each_line(self.proc.stderr, self.on_stderr or (lambda _text, _more: None), SHOWN * 4)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass  # Claude Code is gone: receive() will say so

    def _read(self) -> bytes:
        """The next bytes; b"" at the end, or once Claude Code has ended and left nothing
        unread (a process it started may hold the pipe open)."""
        try:
            while not select.select([self.fd], [], [], 0.5)[0]:
                if self.proc.poll() is not None and not select.select([self.fd], [], [], 0)[0]:
                    return b""
                self._reap_orphans()
            return os.read(self.fd, CHUNK)
        except (OSError, ValueError):
            return b""

    def take_ready(self) -> bool:
        """Take what Claude Code has written so far, without waiting, as complete lines
        into :attr:`ready` (read while the person answers); False at its end, or when a
        line is too long to take this way (:meth:`receive` deals with it)."""
        try:
            data = os.read(self.fd, CHUNK)
        except OSError:
            return False
        if not data:
            return False
        self.buf += data
        self.scanned = 0
        while (newline := self.buf.find(b"\n")) >= 0:
            self.ready.append(parse_line(bytes(self.buf[:newline])))
            del self.buf[: newline + 1]
        return len(self.buf) <= MAX_LINE

    def receive(self) -> dict[str, Any] | str | Skipped | None:
        if self.ready:
            return self.ready.popleft()
        while True:
            newline = self.buf.find(b"\n", self.scanned)
            if newline >= 0:
                line = bytes(self.buf[:newline])
                del self.buf[: newline + 1]
                self.scanned = 0
                return parse_line(line)
            if len(self.buf) > MAX_LINE:
                return self._skip_long()
            self.scanned = len(self.buf)
            data = self._read()
            if not data:
                if not self.buf:
                    return None
                line, self.buf, self.scanned = bytes(self.buf), bytearray(), 0
                return parse_line(line)
            self.buf += data

    def _skip_long(self) -> Skipped:
        size = len(self.buf)
        self.buf, self.scanned = bytearray(), 0
        while True:
            data = self._read()
            newline = data.find(b"\n")
            if newline >= 0:
                size += newline
                self.buf += data[newline + 1 :]
            else:
                size += len(data)
            if newline >= 0 or not data:
                return Skipped(f"a line of {size} bytes, over the limit of {MAX_LINE}")

    def close(self, *, at_once: bool = False) -> int | None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):  # its input closed, it ends
            code = self.proc.wait(timeout=0.2 if at_once else ENDING_GRACE)
        self._end_group()
        self.pump.join(timeout=1.0)
        with contextlib.suppress(OSError):
            self.proc.stdout.close()  # type: ignore[union-attr]
        return code

    def _reap_orphans(self) -> None:
        """Collect the exit status of orphans askcli adopted (not Claude Code's own)."""
        with contextlib.suppress(ChildProcessError, OSError):
            while True:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if found is None or found.si_pid == self.proc.pid:
                    return
                os.waitpid(found.si_pid, 0)

    def _end_group(self) -> None:
        """SIGTERM to Claude Code's process group and every process it started (its
        commands run in groups of their own), SIGKILL to what is left after a grace
        period."""
        pgid = self.proc.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            self.proc.poll()
            self._reap_orphans()
            left = _left(pgid)
            if not left:
                break
            with contextlib.suppress(OSError):
                os.killpg(pgid, sig)
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + TERM_GRACE
            rounds = 0
            while time.monotonic() < deadline:
                self.proc.poll()
                self._reap_orphans()
                rounds += 1
                # the processes found are watched; all of /proc is read again only now and
                # then (for one started meanwhile), and before saying that none is left
                left = _left(pgid) if rounds % 10 == 0 else [p for p in left if _running(p)]
                if not left and not (left := _left(pgid)):
                    break
                time.sleep(0.02)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1.0)
        self._reap_orphans()


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

    def receive(self) -> Any:
        line = self.link.receive()
        if line is not None:
            self.received.append(f"({line.reason})" if isinstance(line, Skipped) else line)
        return line

    def close(self, *, at_once: bool = False) -> int | None:
        self.exit_status = self.link.close(at_once=at_once)
        return self.exit_status


class Scripted:
    """Recorded Claude Code lines in place of the process (``askcli replay``)."""

    def __init__(self, lines: Sequence[Any], status: int | None = 0) -> None:
        self.lines = list(lines)
        self.sent: list[dict[str, Any]] = []
        self.status = status

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def receive(self) -> Any:
        return self.lines.pop(0) if self.lines else None

    def close(self, *, at_once: bool = False) -> int | None:
        return self.status


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


def same_input(name: str, tool_input: Any) -> str | None:
    """A key for "this tool with exactly this input"; None when it has none."""
    try:
        return name + "\n" + json.dumps(tool_input, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


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
    """One line for a tool result: ``  <- Bash: first line  (+2 lines)``, cut to ``width``;
    a failed one says ``error:``."""
    text = result_text(content).strip("\n")
    first, _, rest = text.partition("\n")
    more = rest.count("\n") + 1 if rest else 0
    extra = f"  (+{more} line{'s' if more != 1 else ''})" if more else ""
    head = f"  <- {truncate(visible(name), 40)}: " + ("error: " if failed else "")
    shown = visible(first[: width * 4]) if first.strip() else "(no output)"
    room = max(width - len(head) - len(extra), 10)
    return head + truncate(shown, room) + extra


class Ended(NamedTuple):
    """Why the session ends early, and with which status."""

    status: int
    message: str | None = None


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
        one_terminal: bool = False,
    ) -> None:
        self.link = link
        self.conv = conv
        self.out = out
        self.allow = set(allow)
        self.deny = set(deny)
        self.same: set[str] = set()  # "always" without a rule: this tool with this input
        self.serial = 0
        self.failed = False
        self.interrupted = False  # a Ctrl-C interrupted the last turn
        self.ended: Ended | None = None
        self.creating: dict[str, dict[str, Any]] = {}  # TaskCreate inputs by tool_use id
        self.tasks: dict[str, dict[str, Any]] = {}  # Claude Code's task list, by task id
        self.names: dict[str, str] = {}  # tool names by tool_use id, for their results
        self.listed: str | None = None  # the tool_use id of the line just shown, if any
        self.session_shown: tuple[str, str] | None = None  # the (session, model) last shown
        self.one_terminal = one_terminal  # stdout and stderr are the same terminal
        self.said: str | None = None  # the text last shown as ``Claude: ...``

    def _id(self, what: str) -> str:
        self.serial += 1
        return f"askcli-{what}-{self.serial}"

    def _request(self, subtype: str) -> None:
        request = {"subtype": subtype}
        self.link.send(
            {"type": "control_request", "request_id": self._id(subtype), "request": request}
        )

    def say_line(self, text: str, prefix: str = "") -> None:
        """Text of several lines; later lines are indented past ``prefix``, so that no line
        of it can pass for one of askcli's own."""
        rest = " " * len(prefix) if prefix else "  "
        lines = wrap(visible(text, multiline=True), self.conv.style.width, first=prefix, rest=rest)
        self.conv.say("\n".join(lines) + "\n")

    def say_item(self, text: str, prefix: str = "") -> None:
        """One item (a tool use, an id) on one line: a newline in it shows as ``\\n``."""
        if not prefix:
            self.conv.say(shorten(text, 2000) + "\n")
            return
        rest = " " * (len(prefix) + 1)
        lines = wrap(shorten(text, 2000), self.conv.style.width, first=prefix, rest=rest)
        self.conv.say("\n".join(lines) + "\n")

    def skipped(self, reason: str) -> None:
        self.conv.error(f"skipped a line from Claude Code: {reason}")

    def next_line(self) -> dict[str, Any] | str | None:
        """The next line worth handling: a JSON object or text; bad lines are reported."""
        while True:
            line = self.link.receive()
            if line is None or isinstance(line, dict | str):
                return line
            if isinstance(line, Skipped):
                self.skipped(line.reason)
            else:
                self.skipped("it is JSON but not an object")

    def handle(self, line: dict[str, Any] | str) -> str | None:
        """Show or answer one line; its ``type`` when it was handled, None when it was a
        line of text or could not be used (then it was reported)."""
        listed, self.listed = self.listed, None
        if isinstance(line, str):
            if line.strip():
                self.say_item(line)
            return None
        try:
            kind = line.get("type")
            request = line.get("request")
            if kind == "control_request" and isinstance(request, dict):
                if request.get("subtype") == "can_use_tool":
                    self.decide(line.get("request_id"), request, listed)
                elif request.get("subtype") == "elicitation":
                    self.elicit(line)
                else:
                    self.refuse(line.get("request_id"), request.get("subtype"))
            else:
                self.show(line)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as e:
            self.skipped(f"askcli cannot read it ({type(e).__name__}: {e})")
            return None
        return kind if isinstance(kind, str) else None

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
            self.conv.capabilities.update(capabilities(message))
            session = as_text(message.get("session_id"), "?")
            model = as_text(message.get("model"), "?")
            if self.session_shown != (session, model):  # once, and again when it changes
                self.session_shown = (session, model)
                self.say_item(f"(Claude Code session {session}, model {model})")
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
                self.ended = Ended(EXIT_STDOUT_GONE, "stdout was closed: the result is lost")
            except (OSError, ValueError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "closed"
                self.ended = Ended(
                    EXIT_OUTPUT_FAILED, f"cannot write the result to stdout: {reason}"
                )

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
        careful = call.care is not None and (call.care.default_to_no or call.care.no_lasting_rule)
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
        elif name in self.allow and not (call.care is not None and call.care.default_to_no):
            # default_to_no: Claude Code says a person must approve this one, --allow or not
            self._decided(tool_line(name, tool_input), "allowed: --allow", shown)
            decision = {"behavior": "allow", "updatedInput": tool_input}
        elif key is not None and key in self.same:
            self._decided(tool_line(name, tool_input), "allowed: same as before", shown)
            decision = {"behavior": "allow", "updatedInput": tool_input}
        else:
            try:
                result = self._ask(request_id, call)
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
            if result.status is Status.NO_ANSWER:
                self.ended = Ended(int(Status.NO_ANSWER))
            elif result.status is Status.INTERRUPTED:
                self.interrupted = True
        self._respond(request_id, decision)
        if signals.received_other_than_sigint():
            raise KeyboardInterrupt  # SIGTERM/SIGHUP: the call is answered; now end

    def _ask(self, request_id: Any, call: ToolCall) -> ToolResult:
        """Ask ``call`` while watching Claude Code's output: a ``control_cancel_request``
        for ``request_id`` withdraws the question (Withdrawn); other lines wait in order."""
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
            result = self._ask(request_id, call)
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
        if result.status is Status.NO_ANSWER:
            self.ended = Ended(int(Status.NO_ANSWER))
        elif result.status is Status.INTERRUPTED:
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

    def turn(self) -> bool:
        """Read Claude Code's lines until the turn's result; False when it ended early.

        Ctrl-C sends the interrupt control request and waits for the turn to end; a second
        Ctrl-C (or a SIGTERM/SIGHUP) ends the session.
        """
        self.interrupted = interrupting = False
        while self.ended is None:
            try:
                line = self.next_line()
            except KeyboardInterrupt:
                if interrupting or signals.received_other_than_sigint():
                    raise
                self.conv.say("\n(interrupting Claude Code; Ctrl-C again ends the session)\n")
                self._request("interrupt")
                self.interrupted = interrupting = True
                continue
            if line is None:
                return False
            if self.handle(line) == "result":
                return True
        return True

    def start(self) -> bool:
        """Send ``initialize`` and wait for its answer; False if Claude Code ended."""
        self._request("initialize")
        while self.ended is None:
            line = self.next_line()
            if line is None:
                return False
            if isinstance(line, dict) and line.get("type") == "control_response":
                self.conv.capabilities.update(capabilities(line))
                return True
            self.handle(line)
        return True

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


def _interrupted() -> dict[str, Any]:
    return {"behavior": "deny", "message": signals.interrupted_text({}), "interrupt": True}


def host(
    link: Link,
    conv: Conversation,
    out: TextIO,
    *,
    prompt: str | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    one_terminal: bool | None = None,
) -> int:
    """Hold a Claude Code session over ``link``; the exit status.

    ``one_terminal`` says that ``out`` and the person's screen are one terminal (found out
    from the streams when None): then a result that repeats the text just shown is not
    printed again.

    With ``prompt``, one turn; else prompts are read at ``> `` until the input ends.
    Ctrl-C at ``> `` (or a second one in a turn), SIGTERM and SIGHUP end the session with
    :attr:`Status.INTERRUPTED`; the input ending at a question or permission prompt ends it
    with NO_ANSWER; a closed stdout with 141, one that cannot be written with 74.
    """
    if one_terminal is None:
        one_terminal = same_terminal(out, conv.out)
    session = Host(link, conv, out, allow=allow, deny=deny, one_terminal=one_terminal)
    conv.permission_always = True
    died = interrupted = False
    try:
        died = not session.start()
        while not died and session.ended is None:
            text = (
                prompt if prompt is not None else conv.read_answer("> ", command=False, fresh=False)
            )
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
        signals.settle()
        # on every way out: no Claude Code outlives askcli
        code = link.close(at_once=interrupted or session.ended is not None)
    if interrupted:
        return int(Status.INTERRUPTED)
    if session.ended is not None:
        if session.ended.message:
            conv.error(session.ended.message)
        return session.ended.status
    if died:
        if code is None:
            how = ""
        elif code >= 0:
            how = f" (exit status {code})"
        else:
            how = f" (it {describe_exit(code)})"
        conv.error(f"Claude Code ended unexpectedly{how}")
        return EXIT_CLAUDE_FAILED
    if session.interrupted and prompt is not None:
        return int(Status.INTERRUPTED)
    if session.failed:
        return EXIT_CLAUDE_FAILED
    if code not in (None, 0):
        conv.error(f"Claude Code {describe_exit(code)}")
        return EXIT_CLAUDE_FAILED
    return int(Status.ANSWERED)
