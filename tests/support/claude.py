"""Claude Code as the tests meet it: its lines scripted in process, the stand-in fake-claude, and
the real Claude Code against the stand-in Anthropic API."""

from __future__ import annotations

import io
import json
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.hosts.claude import ScriptedClaude, host
from askcli.inbox.store import QueueState, open_store
from askcli.lines import TextLineReader
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.wire.wording import texts

from tests.support import calls, processes
from tests.support.mcp import answer_next
from tests.support.paths import PEERS
from tests.support.processes import askcli_path
from tests.support.real_agents import CURRENT, REAL, start_stand_in

FAKE = PEERS / "fake-claude"


# what askcli puts on Claude Code's command line, written out: no more, no less
CLAUDE_ARGV = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-prompt-tool",
    "stdio",
]


QUESTIONS = {
    "questions": [
        {
            "question": "Which runtime?",
            "header": "Runtime",
            "options": [
                {"label": "Node", "description": "n"},
                {"label": "Bun", "description": "b"},
            ],
        },
        {
            "question": "Which extras?",
            "header": "Extras",
            "multiSelect": True,
            "options": [
                {"label": "Lint", "description": "l"},
                {"label": "Tests", "description": "t"},
            ],
        },
    ]
}


def can_use_tool(rid: str, name: str, tool_input: Any, tool_use_id: str = "toolu_1") -> dict:
    request = {"subtype": "can_use_tool", "tool_name": name, "input": tool_input}
    return {
        "type": "control_request",
        "request_id": rid,
        "request": {**request, "tool_use_id": tool_use_id},
    }


INIT_OK = {"type": "control_response", "response": {"subtype": "success", "request_id": "x"}}


RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "num_turns": 2,
    "result": "Done.",
}


def hosted(
    lines: list[Any],
    answers: list[str],
    *,
    prompt: str | None = "go",
    style: Style | None = None,
    **kw: Any,
) -> tuple[int, str, str, list[dict]]:
    out, err = io.StringIO(), io.StringIO()
    link = ScriptedClaude(lines)
    reader = TextLineReader(io.StringIO("".join(a + "\n" for a in answers)))
    conv = Conversation(reader, err, style or Style())
    status = host(link, conv, out, prompt=prompt, **kw)
    return status, out.getvalue(), err.getvalue(), link.sent


def responses(sent: list[dict]) -> list[Any]:
    return [m["response"]["response"] for m in sent if m["type"] == "control_response"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


needs_claude = pytest.mark.skipif(
    not REAL.exists(), reason="Claude Code is not installed (make claude-code needs npm)"
)


class Api:
    """The stand-in Anthropic API, with a log of what Claude Code sent it."""

    def __init__(
        self,
        tmp_path: Path,
        turns: list[dict],
        claude_bin: Path = REAL,
        stand_in_args: tuple[str, ...] = (),
    ) -> None:
        self.claude_bin = claude_bin  # the Claude Code that run and spawn start
        self.proc, self.port, self.log = start_stand_in(tmp_path, turns, args=stand_in_args)
        home = tmp_path / "home"
        home.mkdir()
        self.env = {
            **os.environ,
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}",
            "ANTHROPIC_API_KEY": "test-key",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "NO_COLOR": "1",
            "XDG_STATE_HOME": str(tmp_path / "state"),
        }

    def tool_results(self) -> dict[str, dict]:
        """Every tool_result Claude Code sent back to the model, by tool_use_id."""
        found = {}
        for line in self.log.read_text().splitlines():
            for message in json.loads(line)["request"].get("messages", []):
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if block.get("type") == "tool_result":
                        found[block["tool_use_id"]] = block
        return found

    def run(self, work: Path, *args: str, input: str = "") -> Any:
        """askcli claude with the real Claude Code, in ``work``, against this API."""
        work.mkdir(exist_ok=True)
        return processes.run_askcli(
            "claude",
            "--claude-bin",
            str(self.claude_bin),
            *args,
            input=input,
            env=self.env,
            timeout=120,
            cwd=work,
        )

    def spawn(self, cwd: Path, *args: str, columns: int = 80) -> tuple[pexpect.spawn, io.StringIO]:
        """askcli claude with the real Claude Code in a pty ``columns`` wide; what it showed
        is logged."""
        child = pexpect.spawn(
            str(askcli_path()),
            ["claude", "--claude-bin", str(self.claude_bin), *args],
            env=self.env,
            cwd=str(cwd),
            timeout=60,
            encoding="utf-8",
            dimensions=(24, columns),
        )
        log = io.StringIO()
        child.logfile_read = log
        return child, log

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def answer_once_logged(api: Api, inbox: Path, seen: str, lines: str) -> threading.Thread:
    """A person (a started thread) who answers the next question in ``inbox`` with
    ``lines`` once the stand-in's log holds ``seen`` (within 60 s)."""

    def person() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if api.log.exists() and seen in api.log.read_text():
                answer_next(inbox, lines)
                return
            time.sleep(0.05)

    answering = threading.Thread(target=person)
    answering.start()
    return answering


def text(s: str) -> dict:
    return {"type": "text", "text": s}


def use(tool_id: str, name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


VERSION = texts.VERSION  # the release the Makefile installs for these tests


# what the outer environment must not decide for Claude Code (a test run inside a Claude Code
# session has some of these): which schema it gives the model
FOREIGN = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")


@pytest.fixture(scope="module", autouse=True)
def current_claude_code() -> None:
    """Skip, saying why, unless CURRENT is Claude Code of the release the texts are taken from."""
    if not CURRENT.exists():
        pytest.skip(
            f"Claude Code {VERSION} is not installed at {CURRENT} "
            "(make claude-code-current needs npm; or set ASKCLI_CLAUDE_CURRENT_BIN)"
        )
    try:
        shown = subprocess.run(
            [str(CURRENT), "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"{CURRENT} --version failed: {e}")
    if shown.split(" ")[0] != VERSION:
        pytest.skip(f"{CURRENT} is {shown!r}; these tests pin Claude Code {VERSION}")


COLOR = {"questions": [calls.COLOR]}


def turns(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    """The model calls each tool in turn, then ends."""
    found = [{"content": [text("Working."), call], "stop_reason": "tool_use"} for call in calls]
    return [*found, {"content": [text("Thanks.")], "stop_reason": "end_turn"}]


def settings(tmp_path: Path, *args: str, timeout: int = 60) -> Path:
    """Claude Code settings with askcli hook as the PreToolUse hook for AskUserQuestion
    and the PermissionRequest hook for Bash; its stderr kept in ``hook.err``. A hook
    left behind by a failing test gives up after 90 seconds (``--timeout``)."""
    err = tmp_path / "hook.err"
    if "--timeout" not in args:
        args = (*args, "--timeout", "90")
    command = " ".join(shlex.quote(a) for a in [str(askcli_path()), "hook", *args])
    entry = [{"type": "command", "command": f"{command} 2>>{shlex.quote(str(err))}"}]
    entry[0]["timeout"] = timeout  # type: ignore[assignment]
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [{"matcher": "AskUserQuestion", "hooks": entry}],
                    "PermissionRequest": [{"matcher": "Bash", "hooks": entry}],
                }
            }
        )
    )
    return path


class Headless:
    """``claude -p`` in stream-json with the hooks: every line it writes, as it comes."""

    def __init__(
        self,
        api: Api,
        work: Path,
        settings_file: Path | None,
        *,
        prompt_tool: str = "stdio",
        mcp_config: dict[str, Any] | None = None,
    ) -> None:
        work.mkdir(exist_ok=True)
        extra = [] if settings_file is None else ["--settings", str(settings_file)]
        if mcp_config is not None:  # its servers connected before the first turn
            extra += ["--mcp-config", json.dumps(mcp_config)]
        self.proc = subprocess.Popen(
            [
                str(api.claude_bin),
                *("-p", "--input-format", "stream-json", "--output-format", "stream-json"),
                *("--verbose", "--permission-prompt-tool", prompt_tool),
                *extra,
            ],
            cwd=work,
            env={**api.env, "MCP_CONNECTION_NONBLOCKING": "0"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.send(
            {
                "type": "control_request",
                "request_id": "init-1",
                "request": {"subtype": "initialize", "hooks": None},
            }
        )
        self.send({"type": "user", "message": {"role": "user", "content": "ask me"}})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def until_result(self, prompts: str = "wait", deadline: float = 60) -> dict[str, Any]:
        """Read until the turn's result. A ``can_use_tool`` is left unanswered (``wait``:
        the hook decides), denied (``deny``) or allowed (``allow``) at once, or ends the
        test (``fail``: the PreToolUse hook should have decided before Claude Code asks)."""
        end = time.monotonic() + deadline
        while True:
            try:
                message = self.lines.get(timeout=max(end - time.monotonic(), 0.01))
            except queue.Empty:
                pytest.fail(f"Claude Code gave no result; it wrote {self.summary()}")
            if message is None:
                pytest.fail(f"Claude Code ended without a result; it wrote {self.summary()}")
            self.seen.append(message)
            request = message.get("request") or {}
            if request.get("subtype") == "can_use_tool" and prompts == "fail":
                pytest.fail(f"the hook did not decide; Claude Code asked: {json.dumps(request)}")
            if request.get("subtype") == "can_use_tool" and prompts in ("deny", "allow"):
                decision: dict[str, Any] = {"behavior": "deny", "message": "denied at the prompt"}
                if prompts == "allow":
                    decision = {"behavior": "allow", "updatedInput": request["input"]}
                self.send(
                    {
                        "type": "control_response",
                        "response": {
                            "subtype": "success",
                            "request_id": message["request_id"],
                            "response": decision,
                        },
                    }
                )
            if message.get("type") == "result":
                return message

    def summary(self) -> str:
        """What Claude Code wrote, each line cut short."""
        return "\n".join(json.dumps(m)[:300] for m in self.seen)

    def prompts(self) -> list[str]:
        """The tools Claude Code asked its stdio prompt about."""
        return [
            m["request"]["tool_name"]
            for m in self.seen
            if m.get("type") == "control_request" and m["request"].get("subtype") == "can_use_tool"
        ]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def waiting(inbox: Path, within: float = 60) -> Any:
    """The first question waiting in ``inbox``."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        if inbox.exists():
            store = open_store(inbox)
            try:
                found = store.questions(states=(QueueState.WAITING,))
            finally:
                store.close()
            if found:
                return found[0]
        time.sleep(0.05)
    pytest.fail("no question arrived in the inbox")


def answer_in_inbox(api: Api, inbox: Path, lines: str, status: int = 0) -> str:
    """A person answers the waiting question with ``lines`` (``askcli inbox answer ID``,
    exiting with ``status``); what they saw."""
    question = waiting(inbox)
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "answer", str(question.id)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=30,
        env={**api.env, "NO_COLOR": "1"},
    )
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stderr


# Claude Code 2.1.332's can_use_tool request for a tool of an MCP server whose name starts
# claude_ai_ (recorded): it needs a person (requires_user_interaction)
CONNECTOR_REQUEST = {
    "subtype": "can_use_tool",
    "tool_name": "mcp__claude_ai_probe__ping",
    "mcp_server": {"name": "claude_ai_probe", "source": "user"},
    "display_name": "Ping",
    "input": {"text": "a"},
    "permission_suggestions": [],
    "server_policy_ask_only": False,
    "tool_use_id": "t1",
    "suppress_always_allow_rule": True,
    "requires_user_interaction": True,
}
# a request the person's own ask rule forced (built from 2.1.332's schema)
ASK_RULE_REQUEST = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "input": {"command": "rm -rf build"},
    "matched_ask_rule": {"source": "userSettings", "tool_name": "Bash", "rule_content": "rm:*"},
    "tool_use_id": "t2",
}


# --- Claude Code's full-screen interface in a pty ----------------------------------------

KEY = "sk-ant-offline-test-key-0123456789abcdef"


def spawn_claude(api: Api, work: Path, args: list[str]) -> tuple[pexpect.spawn, io.StringIO]:
    """Claude Code with ``args`` in a pty 150 columns wide, in ``work``; what it showed is
    logged."""
    work.mkdir(exist_ok=True)
    child = pexpect.spawn(
        str(api.claude_bin),
        args,
        env={**api.env, "TERM": "xterm-256color"},
        cwd=str(work),
        timeout=60,
        encoding="utf-8",
        dimensions=(50, 150),
    )
    log = io.StringIO()
    child.logfile_read = log
    return child, log


def interactive(api: Api, work: Path) -> None:
    """Claude Code's full-screen interface starts with no dialog in the way (recipe 2)."""
    work.mkdir()
    home = Path(api.env["HOME"])
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "numStartups": 1,
                "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                "projects": {
                    str(work): {
                        "hasTrustDialogAccepted": True,
                        "hasCompletedProjectOnboarding": True,
                    }
                },
            }
        )
    )
    api.env["ANTHROPIC_API_KEY"] = KEY


def until(
    child: pexpect.spawn,
    log: io.StringIO,
    done: Callable[[], bool],
    why: str,
    end: float | None = None,
) -> None:
    """Let Claude Code's full-screen interface run until ``done()`` (at most 60 seconds,
    or until ``end``); the test fails with ``why`` and what the terminal showed."""
    end = end if end is not None else time.monotonic() + 60
    while not done():
        if time.monotonic() > end:
            pytest.fail(f"{why}; the terminal showed:\n{log.getvalue()}")
        try:
            child.expect(pexpect.TIMEOUT, timeout=0.2)
        except pexpect.EOF:
            pytest.fail(f"Claude Code ended; the terminal showed:\n{log.getvalue()}")


def end_interactive(child: pexpect.spawn) -> None:
    child.sendcontrol("c")
    child.sendcontrol("c")
    child.close(force=True)
