"""askcli claude: hosting Claude Code in plain lines.

Three kinds of tests: the host logic on recorded Claude Code lines (in process); odd paths
with a stand-in executable (it dies, it hangs); and the real Claude Code from npm, talking
to a stand-in for the Anthropic API whose request log shows what Claude Code sent back to
the model.
"""

from __future__ import annotations

import io
import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.hosts.child import same_terminal
from askcli.hosts.claude.showing import result_line
from askcli.questions.outcome import Outcome
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style, display_width
from askcli.terminal.screens import tool_line
from askcli.wire.envelopes import ToolCall
from askcli.wire.results import ToolResult

from tests.support import processes
from tests.support.claude import (
    CLAUDE_ARGV,
    FAKE,
    INIT_OK,
    QUESTIONS,
    RESULT,
    Api,
    _alive,
    can_use_tool,
    hosted,
    needs_claude,
    responses,
    text,
    use,
)
from tests.support.paths import ROOT
from tests.support.processes import askcli_path

PEERS = ROOT / "tests" / "peers"


def test_initialize_then_the_prompt_then_the_result_on_stdout() -> None:
    assistant = {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "text", "text": "Working on it."},
                {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "npm test"}},
            ]
        },
    }
    status, out, err, sent = hosted([INIT_OK, assistant, RESULT], [])
    assert status == 0
    assert out == "Done.\n"
    assert "Claude: Working on it.\n  -> Bash: npm test\n-- turn done: 2 turns, 0.0 s\n" in err
    assert sent[0] == {
        "type": "control_request",
        "request_id": "askcli-initialize-1",
        "request": {"subtype": "initialize"},
    }
    assert sent[1]["type"] == "user" and sent[1]["message"] == {"role": "user", "content": "go"}


def test_ask_user_question_is_answered_with_updated_input() -> None:
    lines = [INIT_OK, can_use_tool("r1", "AskUserQuestion", QUESTIONS), RESULT]
    status, _, err, sent = hosted(lines, ["2", "n keep it small", "2,3", "Docs", ""])
    assert status == 0
    assert "[Runtime] Which runtime?" in err
    (decision,) = responses(sent)
    assert decision == {
        "behavior": "allow",
        "updatedInput": {
            **QUESTIONS,
            "answers": {"Which runtime?": "Bun", "Which extras?": "Tests, Docs"},
            "annotations": {"Which extras?": {"notes": "keep it small"}},
        },
    }
    assert sent[-1]["response"]["request_id"] == "r1"


def _asked(monkeypatch: pytest.MonkeyPatch, always: bool = True) -> list[ToolCall]:
    """Stand in for the permission prompt: every call asked is allowed with "always"."""
    asked: list[ToolCall] = []

    def allow(call: ToolCall, conv: Conversation) -> ToolResult:
        asked.append(call)
        data = {"allowed": True, **({"always": True} if always else {})}
        return ToolResult(call.id, "ok", Outcome.ANSWERED, data=data, updated_input=call.input)

    monkeypatch.setattr("askcli.hosts.claude.answering.run_call", allow)
    return asked


def test_always_without_a_rule_covers_only_the_identical_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = _asked(monkeypatch)
    write = {"file_path": "a.txt", "content": "x"}
    lines = [
        INIT_OK,
        can_use_tool("r1", "Bash", {"command": "git status"}),
        can_use_tool("r2", "Bash", {"command": "git status"}),
        can_use_tool("r3", "Bash", {"command": "rm -rf ~"}),
        can_use_tool("r4", "Write", write),
        can_use_tool("r5", "Write", {"content": "x", "file_path": "a.txt"}),  # same, reordered
        can_use_tool("r6", "Write", {**write, "content": "y"}),
        RESULT,
    ]
    status, _, err, sent = hosted(lines, [])
    assert status == 0
    assert [c.input for c in asked] == [
        {"command": "git status"},
        {"command": "rm -rf ~"},
        write,
        {**write, "content": "y"},
    ]
    assert "-> Bash: git status  (allowed: same as before)" in err
    assert "-> Write: a.txt  (allowed: same as before)" in err
    assert "rm -rf ~  (allowed" not in err
    assert [r["behavior"] for r in responses(sent)] == ["allow"] * 6


def test_always_with_suggestions_is_left_to_claude_codes_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = _asked(monkeypatch)
    rule = [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "git:*"}]}]
    request = can_use_tool("r1", "Bash", {"command": "git status"})
    request["request"]["permission_suggestions"] = rule
    lines = [INIT_OK, request, {**request, "request_id": "r2"}, RESULT]
    status, _, err, _ = hosted(lines, [])
    assert status == 0
    assert len(asked) == 2  # Claude Code applies the rule it suggested; askcli keeps none
    assert asked[0].suggestions == rule
    assert "same as before" not in err


def test_allow_and_deny_decide_ahead_of_time() -> None:
    lines = [
        INIT_OK,
        can_use_tool("r1", "Bash", {"command": "ls"}),
        can_use_tool("r2", "WebFetch", {"url": "http://x"}),
        RESULT,
    ]
    status, _, err, sent = hosted(lines, [], allow=["Bash"], deny=["WebFetch"])
    assert status == 0
    assert responses(sent) == [
        {"behavior": "allow", "updatedInput": {"command": "ls"}},
        {"behavior": "deny", "message": "The user does not allow WebFetch in this session."},
    ]
    assert "Allow?" not in err
    assert "-> Bash: ls  (allowed: --allow)" in err


def test_other_control_requests_get_an_error_response() -> None:
    hook = {"type": "control_request", "request_id": "h1", "request": {"subtype": "hook_callback"}}
    _, _, _, sent = hosted([INIT_OK, hook, RESULT], [])
    assert sent[-1]["response"]["subtype"] == "error"
    assert sent[-1]["response"]["request_id"] == "h1"


def test_todo_lists_are_shown_as_checklists() -> None:
    todos = [
        {"content": "a", "status": "completed", "activeForm": "A-ing"},
        {"content": "b", "status": "in_progress", "activeForm": "B-ing"},
    ]
    assistant = {
        "type": "assistant",
        "message": {
            "content": [{"type": "tool_use", "name": "TodoWrite", "input": {"todos": todos}}]
        },
    }
    _, _, err, _ = hosted([INIT_OK, assistant, RESULT], [])
    assert "  [x] a\n  [>] B-ing\n  1/2 done\n" in err


def test_prompts_are_read_at_a_prompt_until_the_input_ends() -> None:
    lines = [INIT_OK, RESULT, {**RESULT, "result": "Again."}]
    status, out, err, sent = hosted(lines, ["first", "", "second"], prompt=None)
    assert status == 0
    assert out == "Done.\nAgain.\n"
    assert [m["message"]["content"] for m in sent if m["type"] == "user"] == ["first", "second"]
    assert err.count("> ") == 4


def test_claude_code_ending_in_the_middle_is_an_error() -> None:
    status, _, err, _ = hosted([INIT_OK, {"type": "assistant", "message": {"content": []}}], [])
    assert status == 1
    assert "askcli: Claude Code ended unexpectedly" in err


def test_an_error_result_is_a_failure_status() -> None:
    failed = {**RESULT, "is_error": True, "subtype": "error_max_turns", "result": ""}
    status, out, err, _ = hosted([INIT_OK, failed], [])
    assert (status, out) == (1, "")
    assert "-- turn ended: error_max_turns" in err


@pytest.mark.parametrize(
    ("name", "tool_input", "line"),
    [
        ("Bash", {"command": "npm test"}, "Bash: npm test"),
        ("Edit", {"file_path": "src/app.py"}, "Edit: src/app.py"),
        ("Grep", {"pattern": "TODO"}, "Grep: TODO"),
        ("Task", {"description": "Review"}, "Task: Review"),
        ("TaskUpdate", {"taskId": "2", "status": "completed"}, "TaskUpdate: #2 completed"),
        ("Mystery", {}, "Mystery"),
    ],
)
def test_tool_lines(name: str, tool_input: dict, line: str) -> None:
    assert tool_line(name, tool_input) == line


# --- a stand-in executable ------------------------------------------------------------


def run_askcli(*args: str, input: str = "", env: dict[str, str] | None = None) -> Any:
    return processes.run_askcli("claude", *args, input=input, env=env, timeout=30)


@pytest.mark.process
def test_a_missing_claude_says_how_to_install_it() -> None:
    proc = run_askcli("--claude-bin", "/nonexistent/claude", "hi")
    assert proc.returncode == 2
    assert "npm install -g @anthropic-ai/claude-code" in proc.stderr
    on_path = subprocess.run(
        [str(askcli_path()), "claude", "hi"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PATH": "/nonexistent"},
    )
    assert on_path.returncode == 2 and "Claude Code was not found" in on_path.stderr


@pytest.mark.process
def test_prompts_through_a_stand_in_and_extra_arguments(tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    env = {"FAKE_CLAUDE_MODE": "echo", "FAKE_CLAUDE_ARGS": str(args)}
    proc = run_askcli(
        "--claude-bin", str(FAKE), "--", "--model", "opus", input="hello\nworld\n", env=env
    )
    assert proc.returncode == 0
    assert proc.stdout == "echo: hello\necho: world\n"
    assert json.loads(args.read_text()) == [*CLAUDE_ARGV, "--model", "opus"]
    one = run_askcli("--claude-bin", str(FAKE), "just once", "--", "--verbose", env=env)
    assert one.stdout == "echo: just once\n"
    assert json.loads(args.read_text()) == [*CLAUDE_ARGV, "--verbose"]


@pytest.mark.process
def test_claude_code_dying_is_a_clear_error() -> None:
    proc = run_askcli("--claude-bin", str(FAKE), "go", env={"FAKE_CLAUDE_MODE": "die"})
    assert proc.returncode == 1
    assert "Claude Code ended unexpectedly (exit status 3)" in proc.stderr


def _wait_for(path: Path) -> int:
    for _ in range(100):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError("the stand-in did not start")


@pytest.mark.pty
@pytest.mark.parametrize("how", ["sigterm", "sigkill", "ctrl-c-twice"])
def test_no_orphaned_claude_code(how: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    env = {**os.environ, "FAKE_CLAUDE_MODE": "hang", "FAKE_CLAUDE_PIDFILE": str(pidfile)}
    child = pexpect.spawn(
        str(askcli_path()), ["claude", "--claude-bin", str(FAKE), "go"], env=env, timeout=10
    )
    pid = _wait_for(pidfile)
    time.sleep(0.3)  # the prompt has been sent: the stand-in now hangs in its turn
    if how == "sigterm":
        child.kill(signal.SIGTERM)
    elif how == "sigkill":
        child.kill(signal.SIGKILL)
    else:
        child.sendintr()
        child.expect_exact("interrupting Claude Code")
        child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    for _ in range(100):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid), f"Claude Code (pid {pid}) outlived askcli ({how})"


# --- the real Claude Code -------------------------------------------------------------


SESSION = [
    {
        "content": [text("Two questions first."), use("toolu_01Ask", "AskUserQuestion", QUESTIONS)],
        "stop_reason": "tool_use",
    },
    {
        "content": [use("toolu_01Write", "Write", {"file_path": "server.js", "content": "x"})],
        "stop_reason": "tool_use",
    },
    {"content": [text("Set up with Bun.")], "stop_reason": "end_turn"},
]


@needs_claude
@pytest.mark.parametrize("api", [SESSION], indirect=True)
def test_answers_reach_the_model_exactly_as_typed(api: Api, tmp_path: Path) -> None:
    work = tmp_path / "work"
    answers = "2\nn keep it small\n2,3\n Docs, not tests\n\n3\nuse TypeScript instead\n"
    proc = api.run(work, "set up the server", input=answers)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Set up with Bun.\n"
    results = api.tool_results()
    asked = results["toolu_01Ask"]["content"]
    assert '"Which runtime?"="Bun"' in asked
    assert '"Which extras?"="Tests,  Docs, not tests"' in asked
    assert "keep it small" in asked
    denied = results["toolu_01Write"]
    assert denied["is_error"] is True
    assert denied["content"].endswith("the user said:\nuse TypeScript instead")
    assert not (work / "server.js").exists()
    assert "Claude: Two questions first." in proc.stderr
    assert "-- turn done: 3 turns" in proc.stderr


@needs_claude
@pytest.mark.parametrize(
    "api",
    [
        [
            {
                "content": [
                    use("toolu_01Write", "Write", {"file_path": "out.txt", "content": "hi\n"})
                ],
                "stop_reason": "tool_use",
            },
            {"content": [text("Wrote it.")], "stop_reason": "end_turn"},
        ]
    ],
    indirect=True,
)
def test_allow_ahead_of_time_lets_claude_code_run_the_tool(api: Api, tmp_path: Path) -> None:
    work = tmp_path / "work"
    proc = api.run(work, "--allow", "Write", "write it")
    assert proc.returncode == 0, proc.stderr
    assert (work / "out.txt").read_text() == "hi\n"
    assert "Allow?" not in proc.stderr


@needs_claude
@pytest.mark.parametrize(
    "api",
    [
        [
            {
                "content": [text("Thinking for a long time.")],
                "stop_reason": "end_turn",
                "delay": 30,
            },
            {"content": [text("Second turn.")], "stop_reason": "end_turn"},
        ]
    ],
    indirect=True,
)
def test_ctrl_c_interrupts_the_turn_and_returns_to_the_prompt(api: Api, tmp_path: Path) -> None:
    child, log = api.spawn(tmp_path)
    try:
        child.expect_exact("> ")
        child.sendline("take your time")
        time.sleep(2)  # Claude Code now waits for the (slow) model
        child.sendintr()
        child.expect_exact("interrupting Claude Code")
        child.expect_exact("-- turn ended")
        child.expect_exact("> ")
        child.sendline("again")
        child.expect_exact("Second turn.")
        child.expect_exact("> ")
        child.sendeof()
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
    assert child.exitstatus == 0, log.getvalue()


def test_claude_codes_task_list_is_shown_as_a_checklist() -> None:
    create = {
        "type": "assistant",
        "message": {
            "content": [
                {
                    "type": "tool_use",
                    "id": "c1",
                    "name": "TaskCreate",
                    "input": {"subject": "Build", "activeForm": "Building"},
                },
                {
                    "type": "tool_use",
                    "id": "c2",
                    "name": "TaskCreate",
                    "input": {"subject": "Test", "activeForm": "Testing"},
                },
            ]
        },
    }
    created = [
        {
            "type": "user",
            "message": {"content": [{"tool_use_id": f"c{n}", "type": "tool_result"}]},
            "tool_use_result": {"task": {"id": str(n)}},
        }
        for n in (1, 2)
    ]
    update = {
        "type": "user",
        "message": {"content": [{"tool_use_id": "u1", "type": "tool_result"}]},
        "tool_use_result": {
            "success": True,
            "taskId": "1",
            "statusChange": {"from": "pending", "to": "in_progress"},
        },
    }
    _, _, err, _ = hosted([INIT_OK, create, *created, update, RESULT], [])
    assert "  -> TaskCreate: Build\n  -> TaskCreate: Test\n" in err
    assert "Task list\n  [>] Building\n  [ ] Test\n  0/2 done\n" in err


# --- issue 12: what a real session showed wrong -----------------------------------------


def retry(attempt: int, delay: float, status: int | None, error: str = "overloaded") -> dict:
    return {
        "type": "system",
        "subtype": "api_retry",
        "attempt": attempt,
        "max_retries": 10,
        "retry_delay_ms": delay,
        "error_status": status,
        "error": error,
        "session_id": "s",
        "uuid": "u",
    }


def test_api_retries_are_shown_one_escaped_line_each() -> None:
    lines = [
        INIT_OK,
        retry(1, 601.5, 529),
        retry(2, 1070.9, None, "unknown"),
        retry(3, 2000, 500, "\x1b]0;pwned\x07server\nerror"),
        {"type": "system", "subtype": "api_retry", "attempt": "x", "retry_delay_ms": -1},
        RESULT,
    ]
    status, _, err, _ = hosted(lines, [])
    assert status == 0
    assert "(API error: overloaded, HTTP 529; retry 1 of 10 in 0.6 s)\n" in err
    assert "(API error: unknown, no response; retry 2 of 10 in 1.1 s)\n" in err
    assert (
        "(API error: \\x1b]0;pwned\\x07server\\nerror, HTTP 500; retry 3 of 10 in 2.0 s)\n" in err
    )
    assert "(API error: error, no response; retry ?)\n" in err
    assert "\x1b" not in err


def tool_result(tool_id: str, content: Any, is_error: bool = False) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    return {
        "type": "user",
        "message": {"role": "user", "content": [{**block, "is_error": is_error}]},
    }


def assistant_uses(*blocks: dict) -> dict:
    return {"type": "assistant", "message": {"content": list(blocks)}}


def test_tool_results_are_shown_one_line_each_errors_always() -> None:
    lines = [
        INIT_OK,
        assistant_uses(
            {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "ls"}},
            {"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": "x"}},
            {"type": "tool_use", "id": "q", "name": "AskUserQuestion", "input": {}},
            {"type": "tool_use", "id": "q2", "name": "AskUserQuestion", "input": {}},
            {"type": "tool_use", "id": "l", "name": "Grep", "input": {"pattern": "x"}},
            {"type": "tool_use", "id": "e", "name": "Bash", "input": {"command": "true"}},
        ),
        tool_result("r", "File does not exist.", is_error=True),
        tool_result("b", "a\nb\nc"),
        tool_result("q", "User has answered your questions: ..."),
        tool_result("q2", "The user doesn't want to proceed", is_error=True),
        tool_result("l", [{"type": "text", "text": "\x1b[2J" + "y" * 300}, {"type": "image"}]),
        tool_result("e", ""),
        tool_result("nobody", "orphan\n"),
        RESULT,
    ]
    status, _, err, _ = hosted(lines, [])
    assert status == 0
    assert "  <- Read: error: File does not exist.\n" in err
    assert "  <- Bash: a  (+2 lines)\n" in err
    assert "User has answered" not in err  # askcli asked it: its answer is no news
    assert "  <- AskUserQuestion: error: The user doesn't want to proceed\n" in err
    grep = next(line for line in err.splitlines() if line.startswith("  <- Grep"))
    assert grep.startswith("  <- Grep: \\x1b[2Jyyy") and grep.endswith("…  (+1 line)")
    assert len(grep) == 80  # the width of the conversation
    assert "  <- Bash: (no output)\n" in err
    assert "  <- tool: orphan\n" in err
    assert "\x1b" not in err


def test_result_line_cuts_to_the_width_and_counts_the_rest() -> None:
    line = result_line("Bash", "x" * 500 + "\n2\n3", False, 40)
    assert line == "  <- Bash: " + "x" * 16 + "…  (+2 lines)"
    assert len(line) == 40
    assert result_line("\x1b[31mT", "ok", True, 40) == "  <- \\x1b[31mT: error: ok"


def test_a_call_allowed_without_asking_is_listed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _asked(monkeypatch)
    status_use = {"type": "tool_use", "name": "Bash", "input": {"command": "git status"}}
    lines = [
        INIT_OK,
        assistant_uses({**status_use, "id": "t1"}),
        can_use_tool("r1", "Bash", {"command": "git status"}, "t1"),
        assistant_uses({**status_use, "id": "t2"}),
        can_use_tool("r2", "Bash", {"command": "git status"}, "t2"),
        assistant_uses({"type": "tool_use", "id": "t3", "name": "Read", "input": {"path": "a"}}),
        can_use_tool("r3", "Read", {"path": "a"}, "t3"),
        # not right after its tool use line: then the line names the call again
        assistant_uses({**status_use, "id": "t4"}, {**status_use, "id": "t5"}),
        can_use_tool("r4", "Bash", {"command": "git status"}, "t4"),
        RESULT,
    ]
    status, _, err, sent = hosted(lines, [], allow=["Read"])
    assert status == 0
    assert len(asked) == 1
    assert "  -> Bash: git status\n  -> Bash: git status\n     (allowed: same as before)\n" in err
    assert "  -> Read: a\n     (allowed: --allow)\n" in err
    t4_and_t5 = "  -> Bash: git status\n" * 2 + "  -> Bash: git status  (allowed: same as before)\n"
    assert t4_and_t5 in err
    assert err.count("-> Bash: git status") == 5  # t1, t2, t4, t5, and t4 named again
    assert [r["behavior"] for r in responses(sent)] == ["allow"] * 4


def test_the_final_text_is_printed_once_on_one_terminal() -> None:
    said = {"type": "assistant", "message": {"content": [text("Done.")]}}
    lines = [INIT_OK, said, RESULT, said, {**RESULT, "result": "Other."}]
    _, out, err, _ = hosted(lines, ["a", "b"], prompt=None, one_terminal=True)
    assert out == "Other.\n"  # stdout gets what the person has not read yet
    assert err.count("Claude: Done.") == 2
    _, out, _, _ = hosted(lines, ["a", "b"], prompt=None, one_terminal=False)
    assert out == "Done.\nOther.\n"  # stdout elsewhere (a file, a pipe): every result


def test_same_terminal_compares_the_devices(tmp_path: Path) -> None:
    main, tty = os.openpty()
    other_main, other_tty = os.openpty()
    read, write = os.pipe()
    again = os.open(os.ttyname(tty), os.O_WRONLY | os.O_NOCTTY)
    try:
        with (
            open(tty, "w", closefd=False) as a,
            open(again, "w", closefd=False) as b,
            open(other_tty, "w", closefd=False) as c,
            open(write, "w", closefd=False) as p,
            open(tmp_path / "f", "w") as f,
        ):
            assert same_terminal(a, b)
            assert not same_terminal(a, c)
            assert not same_terminal(p, p)  # one pipe: a reader may want stdout alone
            assert not same_terminal(f, a)
            assert not same_terminal(io.StringIO(), a)
    finally:
        for fd in (main, tty, other_main, other_tty, read, write, again):
            os.close(fd)


@pytest.mark.pty
def test_dev_tty_is_the_same_terminal_as_the_controlling_one() -> None:
    """``askcli claude > /dev/tty``: /dev/tty has a device number of its own, yet it is the
    terminal stderr writes to (a process whose controlling terminal is a pty checks)."""
    check = (
        "import os, sys; from askcli.hosts.child import same_terminal\n"
        "tty = open('/dev/tty', 'w')\n"
        "other_main, other = os.openpty()\n"
        "with open(other, 'w') as elsewhere:\n"
        "    ok = same_terminal(tty, sys.stderr) and not same_terminal(tty, elsewhere)\n"
        "sys.exit(0 if ok else 1)\n"
    )
    pid, main = pty.fork()
    if pid == 0:  # the pty is this child's controlling terminal
        os.execv(sys.executable, [sys.executable, "-c", check])
    try:
        while True:  # drained, so that nothing written there blocks
            try:
                if not os.read(main, 1024):
                    break
            except OSError:
                break
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(main)
    assert os.waitstatus_to_exitcode(status) == 0


def test_the_session_line_is_shown_once_and_again_when_it_changes() -> None:
    def init(session: str, model: str) -> dict:
        return {"type": "system", "subtype": "init", "session_id": session, "model": model}

    lines = [
        INIT_OK,
        init("s1", "opus"),
        RESULT,
        init("s1", "opus"),
        RESULT,
        init("s1", "sonnet"),
        RESULT,
        init("s2", "sonnet"),
        RESULT,
    ]
    _, _, err, _ = hosted(lines, ["a", "b", "c", "d"], prompt=None)
    assert err.count("(Claude Code session") == 3
    assert "session s1, model opus)" in err
    assert "session s1, model sonnet)" in err
    assert "session s2, model sonnet)" in err


SESSION_ID = "45d27c10-273c-41b4-be76-c4b662c3746b"


@pytest.mark.parametrize("width", [40, 80])
@pytest.mark.parametrize(
    "model", ["claude-opus-4-8[1m]", "claude-opus-4-5[1m]", "claude-sonnet-4-5-20250929[1m]"]
)
def test_a_model_name_keeps_its_context_suffix_on_its_line(width: int, model: str) -> None:
    """Claude Code names a 1M-context model ``claude-opus-4-5[1m]``: the line folds before
    ``model``, never inside the name, so ``[1m]`` is never a line of its own (where it reads
    as a leaked escape sequence)."""
    init = {"type": "system", "subtype": "init", "session_id": SESSION_ID, "model": model}
    _, _, err, _ = hosted([INIT_OK, init, RESULT], ["a"], style=Style(width=width, colour=False))
    start = err.index("(Claude Code session")
    shown = err[start : err.index(")", start) + 1].split("\n")
    assert all(display_width(line) <= width for line in shown), shown
    assert shown[-1] == f"model {model})" or shown == [
        f"(Claude Code session {SESSION_ID}, model {model})"
    ]
    assert "".join(shown).replace(" ", "") == f"(ClaudeCodesession{SESSION_ID},model{model})"


@pytest.mark.parametrize("width", [20, 24, 30])
def test_a_model_name_wider_than_the_line_is_cut_but_never_before_its_suffix(width: int) -> None:
    # "model " and the name fill two lines exactly: a cut at the width leaves [1m] alone
    model = "claude-" + "x" * (2 * width - 13) + "[1m]"
    init = {"type": "system", "subtype": "init", "session_id": "s", "model": model}
    _, _, err, _ = hosted([INIT_OK, init, RESULT], ["a"], style=Style(width=width, colour=False))
    start = err.index("(Claude Code session")
    shown = err[start : err.index("])", start) + 2].split("\n")
    assert all(display_width(line) <= width for line in shown), shown
    assert not any(line.strip().startswith("[1m]") for line in shown), shown


@needs_claude
@pytest.mark.parametrize("api", [[]], indirect=True)
def test_real_claude_code_api_retries_are_shown(api: Api, tmp_path: Path) -> None:
    api.stop()  # nothing answers at its port: every request fails, no response
    api.env["CLAUDE_CODE_MAX_RETRIES"] = "2"
    proc = api.run(tmp_path / "work", "hello")
    assert proc.returncode == 1, proc.stderr
    assert "(API error: unknown, no response; retry 1 of 2 in " in proc.stderr
    assert "(API error: unknown, no response; retry 2 of 2 in " in proc.stderr


@needs_claude
@pytest.mark.parametrize(
    "api",
    [
        [
            {
                "content": [
                    use("toolu_b", "Bash", {"command": "printf 'a\\nb\\nc\\n'"}),
                    use("toolu_r", "Read", {"file_path": "/nonexistent/askcli-test"}),
                ],
                "stop_reason": "tool_use",
            },
            {"content": [text("Looked.")], "stop_reason": "end_turn"},
        ]
    ],
    indirect=True,
)
def test_real_claude_code_tool_results_are_shown(api: Api, tmp_path: Path) -> None:
    proc = api.run(tmp_path / "work", "--allow", "Bash", "--allow", "Read", "look")
    assert proc.returncode == 0, proc.stderr
    assert "  <- Bash: a  (+2 lines)\n" in proc.stderr
    assert "  <- Read: error: File does not exist." in proc.stderr
    assert proc.stdout == "Looked.\n"


@needs_claude
@pytest.mark.parametrize(
    "api",
    [
        [
            {"content": [text("First answer.")], "stop_reason": "end_turn"},
            {"content": [text("Second answer.")], "stop_reason": "end_turn"},
        ]
    ],
    indirect=True,
)
def test_real_claude_code_at_a_terminal_says_each_thing_once(api: Api, tmp_path: Path) -> None:
    child, log = api.spawn(tmp_path)
    try:
        child.expect_exact("> ", timeout=30)  # Claude Code starts: slow on a busy machine
        child.sendline("one")
        child.expect_exact("-- turn done", timeout=5)
        child.expect_exact("> ", timeout=5)
        child.sendline("two")
        child.expect_exact("-- turn done", timeout=5)
        child.expect_exact("> ", timeout=5)
        child.sendeof()
        child.expect(pexpect.EOF, timeout=10)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
    shown = log.getvalue()
    assert child.exitstatus == 0, shown
    assert shown.count("First answer.") == 1, shown
    assert shown.count("Second answer.") == 1, shown
    assert shown.count("(Claude Code session") == 1, shown


@needs_claude
@pytest.mark.parametrize("columns", [40, 80])
@pytest.mark.parametrize(
    "api", [[{"content": [text("Hello.")], "stop_reason": "end_turn"}]], indirect=True
)
def test_real_claude_codes_model_is_shown_whole_on_its_line(
    api: Api, tmp_path: Path, columns: int
) -> None:
    """The real Claude Code's model (2.1.197's ``claude-opus-4-8[1m]``, 2.1.332's
    ``claude-opus-5-5``) at a terminal 40 and 80 columns wide: the name and its suffix on
    one line of the width."""
    (tmp_path / "work").mkdir()
    child, log = api.spawn(tmp_path / "work", "hi", columns=columns)
    try:
        child.expect(pexpect.EOF, timeout=60)
    except pexpect.TIMEOUT:
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
    lines = log.getvalue().replace("\r\n", "\n").split("\n")
    (named,) = [line for line in lines if "model " in line]
    assert named.startswith(("model ", "(Claude Code session")) and named.endswith(")"), lines
    assert named.rpartition("model ")[2].startswith("claude-"), named  # with its suffix if any
    assert not any(line.lstrip().startswith("[") for line in lines), lines
    assert all(display_width(line) <= columns for line in lines), lines
