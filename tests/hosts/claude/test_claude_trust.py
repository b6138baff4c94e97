"""askcli claude under attack (issue 10): the prompt as an option, raw bytes from Claude Code,
signals at its prompts, malformed and huge lines, its children, closed streams, statuses.

The host logic runs in process on scripted Claude Code lines; the command line, the child's
process group and the streams run through the installed askcli with the stand-in
executable; the prompt-injection and signal cases also through the real Claude Code.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from askcli.hosts.child import MAX_LINE, describe_exit
from askcli.hosts.claude import ScriptedClaude, host, parse_line
from askcli.lines import TextLineReader
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style

from tests.support import processes
from tests.support.attacks import ATTACKS
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

# what a terminal must never get raw: C0 but tab/newline, DEL, C1, bidi controls, line
# separators, invisible (default-ignorable and format) characters, lone surrogates
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U000e0000-\U000e0fff]"
)
MORE_ATTACKS = [
    "zero\u200bwidth\u200c\u200djoin",
    "\u2060word joiner\ufeffbom",
    "tags \U000e0041\U000e0042\U000e007f",
    "\u3164\u115f\u1160 hangul fillers",
    "\u034f\u180e\u206a\u206f",
    "\ufff9annotation\ufffb",
    "new\nline  -> Bash: rm -rf ~  (allowed: --allow)",
    "cr\r\nlf",
    "\ud800",
    "\udfff lone",
]
EVERY_ATTACK = ATTACKS + MORE_ATTACKS


def check_bytes(data: bytes, where: str) -> None:
    shown = data.decode("utf-8")  # strict: a lone surrogate would not have been encoded
    found = RAW.search(shown)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}: {shown!r}"


def fake_env(modes: str, **more: str) -> dict[str, str]:
    return {"FAKE_CLAUDE_MODE": modes, **more}


def run_fake(*args: str, modes: str = "echo", input: str = "", **more: str) -> Any:
    """askcli claude with the stand-in Claude Code (no traceback, or the test fails)."""
    return processes.run_askcli(
        "claude", "--claude-bin", str(FAKE), *args, input=input, env=fake_env(modes, **more)
    )


def _gone(pid: int, seconds: float = 8) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _wait_for(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"the stand-in did not write {path}")


# --- 1. the prompt is text, never an option -------------------------------------------

OPTION_LIKE = [
    "--dangerously-skip-permissions",
    "--allowedTools=Bash",
    "--allowed-tools=Bash(*)",
    "--permission-mode=bypassPermissions",
    "--settings={}",
    "--add-dir=/",
    "-p",
    "-x",
]


@pytest.mark.process
@pytest.mark.parametrize("word", OPTION_LIKE)
def test_a_prompt_that_looks_like_an_option_is_a_usage_error(word: str, tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    for line in ([word], ["hello", word], [word, "--", "--model", "opus"]):
        proc = run_fake(*line, FAKE_CLAUDE_ARGS=str(args))
        assert proc.returncode == 2, proc.stderr
        assert f"no such option: {word.split('=')[0]}" in proc.stderr
        assert "go after --" in proc.stderr and "--prompt=TEXT" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert not args.exists(), "Claude Code was started"


@pytest.mark.process
@pytest.mark.parametrize("word", OPTION_LIKE)
def test_a_prompt_beginning_with_a_dash_goes_as_a_message(word: str, tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    given = run_fake(f"--prompt={word}", FAKE_CLAUDE_ARGS=str(args))
    assert (given.returncode, given.stdout) == (0, f"echo: {word}\n")
    assert json.loads(args.read_text()) == CLAUDE_ARGV
    typed = run_fake(input=f"{word}\n", FAKE_CLAUDE_ARGS=str(args))
    assert (typed.returncode, typed.stdout) == (0, f"echo: {word}\n")
    assert json.loads(args.read_text()) == CLAUDE_ARGV


@pytest.mark.process
def test_prompt_words_are_joined_and_only_words_after_the_dashes_reach_claude_code(
    tmp_path: Path,
) -> None:
    args = tmp_path / "args.json"
    proc = run_fake(
        "fix", "the", "tests", "--allow", "Bash", "--", "--model", "opus", "--", "x",
        FAKE_CLAUDE_ARGS=str(args),
    )  # fmt: skip
    assert (proc.returncode, proc.stdout) == (0, "echo: fix the tests\n")
    assert json.loads(args.read_text()) == [*CLAUDE_ARGV, "--model", "opus", "--", "x"]
    both = run_fake("hi", "--prompt", "there", FAKE_CLAUDE_ARGS=str(args))
    assert both.returncode == 2 and "either as PROMPT or with --prompt" in both.stderr


BASH_TOUCH = [
    {
        "content": [use("toolu_01Bash", "Bash", {"command": "touch pwned", "description": "x"})],
        "stop_reason": "tool_use",
    },
    {"content": [text("I did not run it.")], "stop_reason": "end_turn"},
]


@pytest.fixture
def api(tmp_path: Path, request: pytest.FixtureRequest, claude_bin: Path) -> Iterator[Api]:
    server = Api(tmp_path, request.param, claude_bin=claude_bin)
    yield server
    server.stop()


@needs_claude
@pytest.mark.parametrize("api", [BASH_TOUCH, BASH_TOUCH], indirect=True, ids=["given", "typed"])
@pytest.mark.parametrize("word", ["--dangerously-skip-permissions", "--allowedTools=Bash"])
def test_real_claude_code_still_asks_when_the_prompt_looks_like_an_option(
    api: Api, tmp_path: Path, word: str, request: pytest.FixtureRequest
) -> None:
    work = tmp_path / "work"
    refused = api.run(work, word, input="n\n")
    assert refused.returncode == 2 and "no such option" in refused.stderr
    if "given" in request.node.callspec.id:
        proc = api.run(work, f"--prompt={word}", input="n\n")
    else:
        proc = api.run(work, input=f"{word}\nn\n")
    assert proc.returncode == 0, proc.stderr
    assert "Allow?" in proc.stderr
    assert not (work / "pwned").exists(), "the denied Bash command ran"
    assert api.tool_results()["toolu_01Bash"]["is_error"] is True


# --- 4. every string Claude Code sends reaches the terminal escaped ----------------------


def attack_lines(a: str) -> list[Any]:
    """Claude Code lines of every kind with ``a`` in every field askcli may show."""
    todo = {"content": a, "status": "in_progress", "activeForm": a}
    blocks = [
        {"type": "text", "text": a},
        {"type": "tool_use", "id": a, "name": a, "input": {"command": a, a: a}},
        {"type": "tool_use", "id": a, "name": "Edit", "input": {"file_path": a}},
        {"type": "tool_use", "id": a, "name": "TodoWrite", "input": {"todos": [todo]}},
        {"type": "tool_use", "id": "c1", "name": "TaskCreate", "input": {"subject": a}},
        {"type": "tool_use", "id": a, "name": "TaskUpdate", "input": {"taskId": a, "status": a}},
        {"type": "tool_use", "id": a, "name": "Grep", "input": {"pattern": a}},
    ]
    question = copy.deepcopy(QUESTIONS)
    question["questions"][0]["question"] = a + "?"
    question["questions"][0]["options"][0]["label"] = a
    return [
        a,
        {"type": "system", "subtype": a, "session_id": a, "model": a},
        INIT_OK,
        {"type": "system", "subtype": "init", "session_id": a, "model": a, "cwd": a},
        {"type": "assistant", "message": {"content": blocks}},
        {
            "type": "user",
            "message": {"content": [{"tool_use_id": "c1", "type": "tool_result", "content": a}]},
            "tool_use_result": {"task": {"id": a, "subject": a}},
        },
        {
            "type": "user",
            "message": {"content": [{"tool_use_id": a, "type": "tool_result"}]},
            "tool_use_result": {"taskId": a, "statusChange": {"from": a, "to": a}},
        },
        {
            "type": "system",
            "subtype": "api_retry",
            **{k: a for k in ("attempt", "max_retries", "retry_delay_ms", "error_status")},
            "error": a,
        },
        {"type": "system", "subtype": "api_retry", "attempt": 1, "error_status": 529, "error": a},
        {
            "type": "user",
            "message": {
                "content": [
                    {"tool_use_id": a, "type": "tool_result", "is_error": True, "content": a},
                    {"tool_use_id": "c1", "type": "tool_result", "content": [{"type": a}]},
                    {"tool_use_id": a, "type": "tool_result", "content": [text(a), text(a)]},
                ]
            },
        },
        can_use_tool(a, a, {a: a, "command": a}, a),
        can_use_tool("r2", "Bash", {"command": a, "description": a}, a),
        can_use_tool("r3", "AskUserQuestion", question, a),
        {"type": "control_request", "request_id": a, "request": {"subtype": a}},
        {"type": a, "message": a},
        {"type": "result", "subtype": a, "is_error": True, "num_turns": a, "result": a},
    ]


@pytest.mark.parametrize("attack", EVERY_ATTACK, ids=[f"a{n}" for n in range(len(EVERY_ATTACK))])
def test_no_raw_control_from_claude_code_reaches_the_terminal(attack: str) -> None:
    status, out, err, sent = hosted(attack_lines(attack), ["n", "n", "1", "1", ""])
    assert status == 1  # the turn ended in error
    check_bytes(err.encode("utf-8", "surrogatepass"), "stderr")
    check_bytes(out.encode("utf-8", "surrogatepass"), "stdout")
    assert out.count("\n") == out.strip("\n").count("\n") + 1 or out == ""
    answered = [m["response"] for m in sent if m["type"] == "control_response"]
    assert [r["subtype"] for r in answered] == ["success"] * 3 + ["error"]


def test_a_newline_in_a_tool_name_or_id_never_forges_a_line() -> None:
    forged = "X\n  -> Bash: rm -rf ~  (allowed: --allow)"
    lines = [
        INIT_OK,
        {"type": "system", "subtype": "init", "session_id": forged, "model": forged},
        {"type": "assistant", "message": {"content": [text(forged), use(forged, forged, {})]}},
        {"type": "system", "subtype": "api_retry", "error": forged},
        {
            "type": "user",
            "message": {
                "content": [
                    {"tool_use_id": forged, "type": "tool_result", "content": [text(forged)]}
                ]
            },
        },
        {**RESULT, "subtype": forged, "is_error": True, "result": ""},
    ]
    _, _, err, _ = hosted(lines, [])
    assert not [line for line in err.splitlines() if line.startswith("  -> Bash")], err
    assert "(API error: X\\n  -> Bash: rm -rf ~  (allowed: --allow), no response; retry ?)" in err
    assert "  <- X\\n  -> Bash: rm -rf ~  (allowed: --all…: X  (+1 line)\n" in err  # name cut
    assert "  -> X\\n  -> Bash: rm -rf ~" in err
    assert "Claude: X\n          -> Bash" in err  # Claude's text keeps its lines, indented


def test_result_text_is_escaped_on_stdout_always() -> None:
    result = "done\x1b]52;c;ZXZpbA==\x07 \x1b]0;title\x07\x1b[2J\ttab\nnext"
    status, out, _, _ = hosted([INIT_OK, {**RESULT, "result": result}], [])
    assert status == 0
    assert out == "done\\x1b]52;c;ZXZpbA==\\x07 \\x1b]0;title\\x07\\x1b[2J\ttab\nnext\n"


@pytest.mark.process
def test_the_installed_binary_writes_no_raw_control_from_claude_code(tmp_path: Path) -> None:
    lines = tmp_path / "lines"
    with lines.open("wb") as f:
        for attack in EVERY_ATTACK:
            f.write(attack.encode("utf-8", "surrogatepass").replace(b"\n", b" ") + b"\n")
            for line in attack_lines(attack)[3:-1]:
                f.write(json.dumps(line).encode() + b"\n")
        f.write(b"\xff\xfe not utf-8 \xc2\x9b2J\n")
        f.write(json.dumps({**RESULT, "result": "".join(EVERY_ATTACK)}).encode() + b"\n")
    stderr_lines = [*EVERY_ATTACK, "\x1b[?25h", "x" * 100_000]
    proc = subprocess.run(
        [str(askcli_path()), "claude", "--claude-bin", str(FAKE), "go"],
        input=b"n\nn\n1\n1\n\n" * len(EVERY_ATTACK),
        capture_output=True,
        timeout=60,
        env={
            **os.environ,
            "NO_COLOR": "1",
            **fake_env(
                "stderr,lines",
                FAKE_CLAUDE_LINES=str(lines),
                FAKE_CLAUDE_STDERR=json.dumps(stderr_lines),
            ),
        },
    )
    assert b"Traceback" not in proc.stderr
    check_bytes(proc.stderr, "stderr")
    check_bytes(proc.stdout, "stdout")
    err = proc.stderr.decode()
    assert "(Claude Code stderr) \\x1b[31mred\\x1b[0m" in err  # its stderr is shown, escaped
    assert "[?25h" not in err  # a line of nothing but control sequences is left out
    assert "(Claude Code stderr) xxx" in err and "more bytes)" in err  # a long one is cut
    assert max(len(line) for line in err.splitlines()) < 5000
    assert proc.returncode == 0, err


# --- 5. signals at Claude Code's prompts -------------------------------------------------


class Session:
    """askcli claude with the stand-in in a pty; the stand-in logs what it receives."""

    def __init__(self, tmp_path: Path, modes: str, *args: str, tool: str = "Bash") -> None:
        self.log = tmp_path / "received.jsonl"
        self.pidfile = tmp_path / "pid"
        env = {
            **os.environ,
            "NO_COLOR": "1",
            **fake_env(modes, FAKE_CLAUDE_TOOL=tool),
            "FAKE_CLAUDE_LOG": str(self.log),
            "FAKE_CLAUDE_PIDFILE": str(self.pidfile),
            "FAKE_CLAUDE_CHILDPID": str(tmp_path / "childpid"),
        }
        self.child = pexpect.spawn(
            str(askcli_path()),
            ["claude", "--claude-bin", str(FAKE), *args],
            env=env,
            timeout=5,
            encoding="utf-8",
        )
        self.shown = io.StringIO()
        self.child.logfile_read = self.shown

    def expect(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"no {text!r}; the terminal showed:\n{self.shown.getvalue()}")

    def end(self) -> int:
        self.expect(pexpect.EOF)  # type: ignore[arg-type]
        self.child.close()
        assert self.child.signalstatus is None, self.shown.getvalue()
        return int(self.child.exitstatus)

    def responses(self) -> list[dict[str, Any]]:
        received = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [m["response"] for m in received if m["type"] == "control_response"]


PROMPTS = {
    "permission": ("Bash", "Allow?"),
    "question": ("AskUserQuestion", "Choose 1-"),
}


@pytest.mark.pty
@pytest.mark.parametrize("where", PROMPTS)
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_at_a_prompt_denies_the_call_and_ends_the_session(
    where: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    tool, prompt = PROMPTS[where]
    run = Session(tmp_path, "ask", "go", tool=tool)
    run.expect(prompt)
    pid = _wait_for(run.pidfile)
    run.child.kill(sig)
    assert run.end() == status
    (answer,) = run.responses()
    assert answer["request_id"] == "perm-1"
    assert answer["response"]["behavior"] == "deny"
    assert _gone(pid), "Claude Code outlived askcli"


@pytest.mark.pty
@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_signal_at_the_prompt_line_ends_with_its_status(
    sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    run = Session(tmp_path, "echo")
    run.expect("> ")
    run.child.sendline("first")
    run.expect("echo: first")
    run.expect("> ")
    run.child.kill(sig)
    assert run.end() == status


@pytest.mark.pty
@pytest.mark.parametrize(("then", "status"), [("ctrl-c", 130), ("sigterm", 143)])
def test_ctrl_c_interrupts_a_turn_and_a_second_signal_ends(
    then: str, status: int, tmp_path: Path
) -> None:
    run = Session(tmp_path, "hang", "go")
    pid = _wait_for(run.pidfile)
    time.sleep(0.3)  # the prompt was sent: the stand-in hangs in its turn
    run.child.sendintr()
    run.expect("interrupting Claude Code")
    if then == "ctrl-c":
        run.child.sendintr()
    else:
        run.child.kill(signal.SIGTERM)
    assert run.end() == status
    assert _gone(pid)


@pytest.mark.pty
def test_ctrl_c_at_a_permission_prompt_denies_and_interrupts_the_turn(tmp_path: Path) -> None:
    run = Session(tmp_path, "ask")
    run.expect("> ")
    run.child.sendline("go")
    run.expect("Allow?")
    run.child.sendintr()
    run.expect("deny: go")  # the stand-in's result: the session goes on
    run.expect("> ")
    run.child.sendeof()
    assert run.end() == 0
    (answer,) = run.responses()
    assert answer["response"]["behavior"] == "deny" and answer["response"]["interrupt"] is True


@needs_claude
@pytest.mark.parametrize("api", [BASH_TOUCH], indirect=True)
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_real_claude_code_a_signal_at_the_permission_prompt(
    api: Api, tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    child, shown = api.spawn(work, "run it")
    try:
        child.expect_exact("Allow?")
        child.kill(sig)
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{shown.getvalue()}")
    child.close()
    assert child.exitstatus == status, shown.getvalue()
    assert "askcli: session ended" in shown.getvalue()
    assert not (work / "pwned").exists()


# --- 9. malformed lines from Claude Code --------------------------------------------------


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


MALFORMED: list[Any] = [
    {"type": "result", "total_cost_usd": "x", "duration_ms": "x", "num_turns": "x"},
    {"type": "result", "total_cost_usd": 10**400, "duration_ms": float("inf"), "is_error": "x"},
    {"type": "result", "duration_ms": float("nan"), "subtype": 5, "result": 5},
    {"type": "result", "duration_ms": True, "num_turns": [1], "result": ["x"]},
    {"type": "assistant", "message": "x"},
    {"type": "assistant", "message": {"content": 5}},
    {"type": "assistant", "message": {"content": "text"}},
    {"type": "assistant", "message": {"content": [5, "x", None, []]}},
    {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": 5, "input": 5}]}},
    {"type": "assistant", "message": {"content": [{"type": "text", "text": {"a": 1}}]}},
    {"type": "assistant", "message": {"content": [{"type": "text", "text": "\ud800 lone"}]}},
    {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "id": [1], "name": "TaskCreate"}]},
    },
    {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "name": "TodoWrite", "input": {"todos": 5}}]},
    },
    {
        "type": "assistant",
        "message": {
            "content": [{"type": "tool_use", "name": "TodoWrite", "input": {"todos": [5, {}]}}]
        },
    },
    {"type": "user", "message": "x", "tool_use_result": {"task": {"id": 1}}},
    {"type": "user", "message": {"content": 5}, "tool_use_result": {"task": 5}},
    {
        "type": "user",
        "message": {"content": [{"tool_use_id": ["unhashable"]}]},
        "tool_use_result": {"task": {"id": [1]}},
    },
    {
        "type": "user",
        "message": {"content": [{"tool_use_id": {"a": 1}}]},
        "tool_use_result": {"taskId": {"a": 1}, "statusChange": {"to": 5}},
    },
    {"type": "user", "tool_use_result": {"taskId": [1], "statusChange": "x"}},
    {"type": "system", "subtype": "init", "session_id": 5, "model": ["x"]},
    {"type": "control_request", "request_id": {"a": [1]}, "request": {"subtype": 5}},
    {"type": "control_request", "request": {"subtype": "can_use_tool", "tool_name": 5}},
    {"type": "control_request", "request": {"subtype": "can_use_tool", "tool_name": None}},
    {"type": "control_request", "request": "x"},
    can_use_tool("r", "Bash", "not an object", tool_use_id=["x"]),  # type: ignore[arg-type]
    can_use_tool("r", "Bash", {"command": _deep(100_000)}),
    can_use_tool("r", "AskUserQuestion", {"questions": 5}),
    can_use_tool("r", "AskUserQuestion", {"questions": [{"question": _deep(1000)}]}),
    {"type": 5},
    {"type": None, "message": None},
    [1, 2],
    5,
    True,
    "\ud800 a lone surrogate",
    _deep(100_000),
]


@pytest.mark.parametrize("line", MALFORMED, ids=[f"m{n}" for n in range(len(MALFORMED))])
def test_a_malformed_line_never_crashes_the_host(line: Any) -> None:
    status, out, err, sent = hosted([INIT_OK, line, RESULT], ["n"] * 4)
    assert status in (0, 1, 2, 3)
    assert "Traceback" not in err
    check_bytes(err.encode("utf-8", "surrogatepass"), "stderr")
    check_bytes(out.encode("utf-8", "surrogatepass"), "stdout")
    for response in [m["response"] for m in sent if m["type"] == "control_response"]:
        json.dumps(response)  # what goes back to Claude Code is JSON


def test_lines_askcli_cannot_use_are_reported_in_one_line() -> None:
    _, _, err, _ = hosted([INIT_OK, [1, 2], _deep(300), {"type": "user"}, RESULT], [])
    assert err.count("askcli: skipped a line from Claude Code: it is JSON but not an object") == 2


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"type":"x"}', {"type": "x"}),
        (b"plain text\r", "plain text"),
        (b"{not json", "{not json"),
        (b"[1]", "it is JSON but not an object"),
        (b"5", "5"),
        (b"[" * 100_000, "it nests deeper than"),
        (b'{"a":' + b"[" * 300 + b"]" * 300 + b"}", "it nests deeper than"),
        (b'{"t":"\\ud800"}', {"t": "\ud800"}),
        (b'{"t":"\xff"}', {"t": "\ufffd"}),
    ],
)
def test_parse_line(data: bytes, expected: Any) -> None:
    parsed = parse_line(data)
    if isinstance(expected, str) and expected.startswith("it "):
        assert not isinstance(parsed, dict | str) and expected in parsed.reason
    else:
        assert parsed == expected


@pytest.mark.process
def test_malformed_lines_through_the_installed_binary(tmp_path: Path) -> None:
    lines = tmp_path / "lines"
    lines.write_bytes(
        b"\n".join(
            [
                b'{"type":"result","total_cost_usd":"x","duration_ms":"x"',  # cut short
                b'{"type":"assistant","message":"x"}',
                b'{"type":"assistant","message":{"content":5}}',
                b'{"type":"assistant","message":{"content":[{"type":"text","text":"\\ud800"}]}}',
                b'{"type":"user","message":{"content":[{"tool_use_id":[1]}]},'
                b'"tool_use_result":{"task":{"id":1}}}',
                b"\xff\xfe\xfd not UTF-8",
                b"[" * 100_000,
                b"[1,2]",
                b"",
                b'{"type":"result","total_cost_usd":"x","duration_ms":"x","num_turns":"x",'
                b'"result":"\\ud800 after all"}',
            ]
        )
        + b"\n"
    )
    proc = run_fake("go", modes="lines", FAKE_CLAUDE_LINES=str(lines))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "\\ud800 after all\n"
    assert "skipped a line from Claude Code: it nests deeper than 200 levels" in proc.stderr
    assert "-- turn done: ? turns, 0.0 s" in proc.stderr


RECORDED = [
    line
    for name in ("claude-code-session", "claude-code-task-list")
    for line in json.loads((ROOT / "fixtures" / f"{name}.json").read_text())["claude"]["received"]
]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["\ud800", "\x1b]52;c;AA\x07", "x\ny", "", "result", "can_use_tool"]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just(_deep(5000)),
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if len(path) > 12:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value[:5]):
            yield from _paths(item, (*path, n))


def _mutate(line: Any, data: st.DataObject) -> Any:
    """``line`` with one value replaced or one key dropped (containers on the way copied)."""
    path = data.draw(st.sampled_from(list(_paths(line))[:400]))
    junk = data.draw(JUNK)
    if not path:
        return junk
    top = copy.copy(line)
    parent = top
    for step in path[:-1]:
        parent[step] = copy.copy(parent[step])
        parent = parent[step]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    return top


@settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_fuzz_mutated_recorded_lines_always_give_a_status(data: st.DataObject) -> None:
    lines = list(RECORDED)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        lines[at] = _mutate(lines[at], data)
    answers = data.draw(st.sampled_from([["", "1,2", "", "n"], ["n"] * 6, [], ["y"] * 6]))
    out, err = io.StringIO(), io.StringIO()
    reader = TextLineReader(io.StringIO("".join(a + "\n" for a in answers)))
    status = host(ScriptedClaude(lines), Conversation(reader, err, Style()), out, prompt="go")
    assert status in (0, 1, 2, 3, 130)
    check_bytes(err.getvalue().encode("utf-8", "surrogatepass"), "stderr")
    check_bytes(out.getvalue().encode("utf-8", "surrogatepass"), "stdout")


# --- 11. Claude Code's process group ------------------------------------------------------


@pytest.mark.pty
@pytest.mark.parametrize("how", ["done", "died", "sigterm", "ctrl-c-twice", "no-answer"])
def test_claude_codes_children_are_ended_with_it(how: str, tmp_path: Path) -> None:
    childpid = tmp_path / "childpid"
    if how in ("done", "died", "no-answer"):
        modes = {"done": "spawn,echo", "died": "spawn,die", "no-answer": "spawn,ask"}[how]
        proc = run_fake("go", modes=modes, FAKE_CLAUDE_CHILDPID=str(childpid))
        assert proc.returncode == {"done": 0, "died": 1, "no-answer": 3}[how], proc.stderr
    else:
        run = Session(tmp_path, "spawn,hang", "go")
        _wait_for(childpid)
        time.sleep(0.3)
        if how == "sigterm":
            run.child.kill(signal.SIGTERM)
        else:
            run.child.sendintr()
            run.expect("interrupting Claude Code")
            run.child.sendintr()
        assert run.end() == {"sigterm": 143, "ctrl-c-twice": 130}[how]
    grandchild = _wait_for(childpid)
    assert _gone(grandchild, 2), f"Claude Code's child (pid {grandchild}) outlived askcli"


# --- 23. statuses --------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["Bash", "AskUserQuestion"])
def test_the_input_ending_at_a_prompt_is_no_answer(tool: str) -> None:
    tool_input = QUESTIONS if tool == "AskUserQuestion" else {"command": "ls"}
    lines = [INIT_OK, can_use_tool("r1", tool, tool_input), can_use_tool("r2", "Bash", {}), RESULT]
    status, out, _, sent = hosted(lines, [])
    assert (status, out) == (3, "")
    (decision,) = responses(sent)  # the session ended: r2 was never read
    assert decision["behavior"] == "deny"
    assert decision["message"].startswith("No answer from the user (the input ended).")


@pytest.mark.process
def test_the_input_ending_at_a_prompt_through_the_installed_binary(tmp_path: Path) -> None:
    log = tmp_path / "log"
    proc = run_fake("go", modes="ask", FAKE_CLAUDE_LOG=str(log))
    assert proc.returncode == 3, proc.stderr
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    (answer,) = [m["response"]["response"] for m in sent if m["type"] == "control_response"]
    assert answer["behavior"] == "deny" and "No answer from the user" in answer["message"]


@pytest.mark.process
def test_a_killed_claude_code_is_named_by_its_signal() -> None:
    proc = run_fake("go", modes="kill")
    assert proc.returncode == 1
    assert "Claude Code ended unexpectedly (it was killed by SIGKILL)" in proc.stderr
    assert "status -9" not in proc.stderr
    assert describe_exit(-15) == "was killed by SIGTERM"
    assert describe_exit(3) == "exited with status 3"
    killed = ScriptedClaude([INIT_OK, RESULT], -9)
    conv = Conversation(TextLineReader(io.StringIO("")), io.StringIO(), Style())
    assert host(killed, conv, io.StringIO(), prompt="go") == 1
    assert "askcli: Claude Code was killed by SIGKILL" in conv.out.getvalue()  # type: ignore[attr-defined]


# --- 25. closed and full standard streams -------------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize(
    ("redirect", "status", "stdout", "message"),
    [
        (">&-", 141, None, "stdout is closed"),
        (">/dev/full", 74, None, "cannot write the result to stdout: No space left on device"),
        ("2>&-", 0, "echo: go\n", None),
        ("2>/dev/full", 0, "echo: go\n", None),
        ("<&-", 0, "echo: go\n", None),
    ],
)
def test_closed_or_full_standard_streams(
    redirect: str, status: int, stdout: str | None, message: str | None
) -> None:
    command = f'"{askcli_path()}" claude --claude-bin "{FAKE}" go {redirect}'
    proc = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "FAKE_CLAUDE_MODE": "echo"},
    )
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    if stdout is not None:
        assert proc.stdout == stdout
    if message is not None:
        assert message in proc.stderr


# --- 27. a huge line in bounded memory ----------------------------------------------------

MEASURE = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True)
sys.stdout.buffer.write(proc.stdout)
sys.stderr.buffer.write(proc.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, proc.returncode, file=sys.stderr)
"""


@pytest.mark.process
def test_a_70_mb_line_is_skipped_in_bounded_memory() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            MEASURE,
            str(askcli_path()),
            "claude",
            "--claude-bin",
            str(FAKE),
            "go",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "FAKE_CLAUDE_MODE": "long"},
    )
    *err, measured = proc.stderr.splitlines()
    peak_kib, status = (int(n) for n in measured.split())
    assert status == 0, proc.stderr
    assert proc.stdout == "echo: go\n"
    size = 70 * 1024 * 1024
    assert f"skipped a line from Claude Code: a line of {size} bytes, over the limit" in (
        "\n".join(err)
    )
    assert size > MAX_LINE
    assert peak_kib < 100 * 1024, f"askcli peaked at {peak_kib // 1024} MiB"


BACKGROUND = [
    {
        "content": [
            use(
                "toolu_01Bg",
                "Bash",
                {
                    # (not `sleep`: Claude Code 2.1.332 blocks a sleep followed by more)
                    "command": "tail -f /dev/null & echo $! > bg; "
                    "setsid tail -f /dev/null >/dev/null 2>&1 & echo $! >> bg",
                    "description": "start two background commands",
                },
            )
        ],
        "stop_reason": "tool_use",
    },
    {"content": [text("Started.")], "stop_reason": "end_turn"},
]


@needs_claude
@pytest.mark.parametrize("api", [BACKGROUND], indirect=True)
def test_real_claude_codes_background_commands_end_with_the_session(
    api: Api, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    proc = api.run(work, "--allow", "Bash", "start them")
    assert proc.returncode == 0, proc.stderr
    pids = [int(pid) for pid in (work / "bg").read_text().split()]
    assert len(pids) == 2
    for pid in pids:  # Claude Code runs each command in a process group of its own
        assert _gone(pid, 2), f"a background command (pid {pid}) outlived the session"
