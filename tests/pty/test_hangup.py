"""A terminal that really goes away (issue 29): askcli on a pty whose other end is closed, as
when an SSH connection drops. The kernel then sends SIGHUP to the session's leader, the
terminal's reads end and its writes fail with EIO. Whether askcli gets the SIGHUP or not (a
wrapper that ignores it, ``nohup``), every call read gets its result and askcli exits with
the documented status: 129 when the terminal it reads the answers from hung up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.store import QueueState, open_store

from tests.support.paths import EXAMPLES, PEERS
from tests.support.processes import askcli_path, exit_env, handles, poll
from tests.support.terminals import GoneTerminal

LIBRARY = EXAMPLES / "library.json"
LOGIN = EXAMPLES / "login.json"
HUNG_UP = "No answer from the user (the terminal hung up)."
Q1 = "Which authentication method should the login use?"
FAKE_CLAUDE = PEERS / "fake-claude"
ACP_AGENT = PEERS / "acp_agent.py"


def result_of(out: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(out)
    return reply


@pytest.mark.parametrize("sighup", ["delivered", "ignored", "withheld"])
def test_a_question_whose_terminal_hangs_up_gets_no_answer_and_129(
    sighup: str, tmp_path: Path
) -> None:
    term = GoneTerminal(["ask", str(LIBRARY)], tmp_path, sighup=sighup)
    code, out = term.hung_up_at("Choose 1-4 [1]: ")
    assert code == 129, out
    reply = result_of(out)
    assert reply["content"] == HUNG_UP
    assert reply["is_error"] is True


@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
def test_the_answers_given_before_the_hang_up_are_in_the_result(
    sighup: str, tmp_path: Path
) -> None:
    term = GoneTerminal(["ask", "--output", "sdk", str(LOGIN)], tmp_path, sighup=sighup)
    try:
        term.expect("Choose 1-4 [1]: ")
        os.write(term.master, b"2\r")
        term.expect("several allowed")
        term.hang_up()
        code, out = term.finish()
    finally:
        term.close()
    assert code == 129
    assert result_of(out) == {
        "behavior": "deny",
        "message": f'{HUNG_UP} Answers given before that: "{Q1}"="Session cookie".',
        "interrupt": True,
    }


@pytest.mark.parametrize("sighup", ["delivered", "ignored", "withheld"])
def test_stdout_on_the_terminal_that_hung_up_too_still_exits_129(
    sighup: str, tmp_path: Path
) -> None:
    """The result cannot be written anywhere (stdout is the terminal that went): the status
    still says what happened, not that a disk is full (74)."""
    term = GoneTerminal(["ask", str(LIBRARY)], tmp_path, sighup=sighup, stdout_here=True)
    code, _ = term.hung_up_at("Choose 1-4 [1]: ")
    assert code == 129


@pytest.mark.parametrize("sighup", ["ignored", "withheld"])
def test_answers_from_elsewhere_go_on_when_only_the_screen_went(
    sighup: str, tmp_path: Path
) -> None:
    """Under nohup (SIGHUP ignored) or a wrapper that keeps SIGHUP, with the answers coming
    from a pipe, the terminal that went was only the screen: askcli goes on, the answers
    that come are taken, and it exits 0 (its screens, going nowhere, fail nothing)."""
    read, write = os.pipe()
    term = GoneTerminal(["ask", str(LOGIN)], tmp_path, sighup=sighup, stdin=read)
    os.close(read)
    try:
        term.expect("Choose 1-4 [1]: ")
        term.hang_up()
        time.sleep(0.3)  # the hang-up reaches askcli before its answers
        os.write(write, b"2\n1\n\n")
        os.close(write)
        code, out = term.finish()
    finally:
        term.close()
    assert code == 0, out
    content = result_of(out)["content"][0]["content"]
    assert content.startswith(f'User has answered your questions: "{Q1}"="Session cookie"')


def test_sighup_delivered_still_stops_a_run_whose_answers_come_from_elsewhere(
    tmp_path: Path,
) -> None:
    """Not ignored, SIGHUP keeps its documented meaning: askcli stops, no answer came."""
    read, write = os.pipe()
    term = GoneTerminal(["ask", str(LIBRARY)], tmp_path, stdin=read)
    os.close(read)
    try:
        term.expect("Choose 1-4 [1]: ")
        term.hang_up()
        code, out = term.finish()
    finally:
        os.close(write)
        term.close()
    assert code == 129
    assert result_of(out)["content"] == HUNG_UP


# -- askcli inbox: the person's side ----------------------------------------------------------


def queued(tmp_path: Path) -> subprocess.Popen[bytes]:
    """An ``askcli ask --inbox`` asker whose question waits in the test's inbox."""
    source = tmp_path / "call.json"
    source.write_text(LIBRARY.read_text())
    asker = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", str(source)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=exit_env(tmp_path),
    )
    poll(lambda: bool(waiting(tmp_path)), "the question in the inbox")
    return asker


def waiting(tmp_path: Path) -> list[Any]:
    return open_store(str(tmp_path / "inbox.db")).questions(states=(QueueState.WAITING,))


@pytest.mark.parametrize("where", ["inbox prompt", "question"])
@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
def test_the_inbox_whose_terminal_hangs_up_exits_129_and_the_question_waits_again(
    sighup: str, where: str, tmp_path: Path
) -> None:
    asker = queued(tmp_path)
    term = GoneTerminal(["inbox"], tmp_path, sighup=sighup)
    try:
        term.expect("[y]: ")
        if where == "question":
            os.write(term.master, b"\r")
            term.expect("Choose 1-4 [1]: ")
        term.hang_up()
        code, _ = term.finish()
        assert code == 129
        poll(lambda: bool(waiting(tmp_path)), "the question waiting again")
        assert asker.poll() is None, "the asker gave up"
    finally:
        term.close()
        asker.kill()
        asker.wait()


# -- the hosts: askcli claude and askcli acp --------------------------------------------------


@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
def test_claude_denies_the_open_question_when_the_terminal_hangs_up(
    sighup: str, tmp_path: Path
) -> None:
    log = tmp_path / "received.jsonl"
    env = {
        "FAKE_CLAUDE_MODE": "ask",
        "FAKE_CLAUDE_TOOL": "AskUserQuestion",
        "FAKE_CLAUDE_LOG": str(log),
    }
    args = ["claude", "--claude-bin", str(FAKE_CLAUDE), "go"]
    term = GoneTerminal(args, tmp_path, sighup=sighup, env=env)
    code, _ = term.hung_up_at("Choose 1-")
    assert code == 129
    received = [json.loads(line) for line in log.read_text().splitlines()]
    (answer,) = [m["response"] for m in received if m["type"] == "control_response"]
    assert answer["response"] == {"behavior": "deny", "message": HUNG_UP, "interrupt": True}


@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
def test_claude_at_its_message_prompt_exits_129_when_the_terminal_hangs_up(
    sighup: str, tmp_path: Path
) -> None:
    """At ``> `` the end of the input is the person leaving (0); a terminal that hung up is
    not: 129."""
    args = ["claude", "--claude-bin", str(FAKE_CLAUDE)]
    term = GoneTerminal(args, tmp_path, sighup=sighup)
    code, _ = term.hung_up_at("> ")
    assert code == 129


ACP_PERMISSION = {
    "request": "session/request_permission",
    "params": {
        "toolCall": {"toolCallId": "t1", "title": "echo hi", "kind": "execute"},
        "options": [
            {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
        ],
    },
}


@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
def test_acp_cancels_the_open_permission_when_the_terminal_hangs_up(
    sighup: str, tmp_path: Path
) -> None:
    pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")
    script, log = tmp_path / "script.json", tmp_path / "log.jsonl"
    script.write_text(json.dumps({"turns": [[ACP_PERMISSION]]}))
    agent = [sys.executable, str(ACP_AGENT), str(script), str(log)]
    term = GoneTerminal(["acp", "--prompt", "go", "--", *agent], tmp_path, sighup=sighup)
    code, _ = term.hung_up_at("Choose 1-2, y = 1, n = 2: ")
    assert code == 129
    replies = [json.loads(line) for line in log.read_text().splitlines()]
    assert {"outcome": {"outcome": "cancelled"}} in [
        r["reply"]["result"] for r in replies if "reply" in r
    ]


# -- nohup: a SIGHUP ignored from the start stays ignored ---------------------------------------


def test_the_mcp_server_started_by_nohup_outlives_a_sighup(tmp_path: Path) -> None:
    """``nohup askcli mcp --http ...`` is meant to outlive the login: SIGHUP, ignored from the
    start, stays ignored; SIGTERM still stops it (143)."""
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'askcli[mcp]')")
    proc = subprocess.Popen(
        [str(askcli_path()), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=exit_env(tmp_path),
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    try:
        assert proc.stderr is not None
        assert b"MCP over stdio" in proc.stderr.readline()
        poll(lambda: handles(proc.pid, signal.SIGTERM), "the server's signal handlers")
        proc.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(2)  # the server stops within a second of a SIGHUP it takes
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
        assert proc.returncode == 143, err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize("sighup", ["delivered", "withheld"])
@pytest.mark.parametrize("host", ["claude", "acp"])
def test_a_host_whose_stdout_is_the_terminal_that_hung_up_exits_129(
    host: str, sighup: str, tmp_path: Path
) -> None:
    """``askcli claude`` and ``askcli acp`` as a person runs them over SSH: every stream on
    the one terminal, which goes away at a question."""
    if host == "claude":
        args = ["claude", "--claude-bin", str(FAKE_CLAUDE), "go"]
        env = {"FAKE_CLAUDE_MODE": "ask", "FAKE_CLAUDE_TOOL": "AskUserQuestion"}
        prompt = "Choose 1-"
    else:
        pytest.importorskip("acp", reason="the ACP SDK is not installed")
        script, log = tmp_path / "script.json", tmp_path / "log.jsonl"
        script.write_text(json.dumps({"turns": [[ACP_PERMISSION]]}))
        args = [
            "acp",
            "--prompt",
            "go",
            "--",
            sys.executable,
            str(ACP_AGENT),
            str(script),
            str(log),
        ]
        env, prompt = {}, "Choose 1-2, y = 1, n = 2: "
    term = GoneTerminal(args, tmp_path, sighup=sighup, env=env, stdout_here=True)
    code, _ = term.hung_up_at(prompt)
    assert code == 129
