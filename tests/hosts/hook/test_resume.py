"""askcli resume: waits for the answers of the deferred questions and runs Claude Code again
for each (here a stand-in that, as Claude Code does on --resume, runs askcli hook with the
deferred call's hook input and prints what it decided); every way it ends: done, nothing
deferred, --timeout, a run that did not take its answer, a command that cannot run, stdin at
its end or closed, and Ctrl-C, SIGTERM and SIGHUP while it waits and while a resumed run goes
on (the questions stay deferred; the run is stopped)."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.inbox.store import QueueState, open_store

from tests.support.hook import PRINT_MODE, inbox_env, print_mode_input
from tests.support.inbox import answer_queued, queued, tamper
from tests.support.processes import askcli_path, poll, run_askcli

pytestmark = pytest.mark.process

STAND_IN = """
import json, os, subprocess, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps({"argv": args, "cwd": os.getcwd(), "eof": sys.stdin.read() == ""}) + "\\n")
mode = os.environ.get("FAKE_MODE", "hook")
if mode == "sleep":
    with open(os.environ["FAKE_PID"], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
if mode == "fail":
    sys.exit(5)
if mode == "gate":  # the hook runs once the test opens the gate
    with open(os.environ["FAKE_PID"], "w") as f:
        f.write(str(os.getpid()))
    while not os.path.exists(os.environ["FAKE_GATE"]):
        time.sleep(0.01)
with open(os.environ["FAKE_INPUT"]) as f:
    value = f.read()
done = subprocess.run([os.environ["ASKCLI"], "hook", "--defer-after", "5"], input=value,
                      capture_output=True, text=True)
print(json.dumps({"session": args[args.index("--resume") + 1], "hook": json.loads(done.stdout)}))
"""


def setup(tmp_path: Path, mode: str = "hook") -> tuple[dict[str, str], str]:
    """A question deferred by askcli hook in claude -p; the environment of askcli resume and
    the stand-in, and its command."""
    value = print_mode_input(tmp_path)
    (tmp_path / "input.json").write_text(json.dumps(value))
    (tmp_path / "claude.py").write_text(STAND_IN)
    env = {
        **os.environ,
        **inbox_env(tmp_path),
        **PRINT_MODE,
        "NO_COLOR": "1",
        "FAKE_LOG": str(tmp_path / "claude.log"),
        "FAKE_INPUT": str(tmp_path / "input.json"),
        "FAKE_PID": str(tmp_path / "claude.pid"),
        "FAKE_GATE": str(tmp_path / "gate"),
        "FAKE_MODE": mode,
        "ASKCLI": str(askcli_path()),
    }
    deferred = run_askcli("hook", "--defer-after", "0.1", input=json.dumps(value), env=env)
    assert json.loads(deferred.stdout)["hookSpecificOutput"]["permissionDecision"] == "defer"
    return env, shlex.join([sys.executable, str(tmp_path / "claude.py")])


def inbox(tmp_path: Path) -> Path:
    return Path(inbox_env(tmp_path)["ASKCLI_INBOX"])


def answer(tmp_path: Path) -> None:
    store = open_store(inbox(tmp_path))
    try:
        assert answer_queued(store, "2\n", 1)
    finally:
        store.close()


def runs(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "claude.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def still_deferred(tmp_path: Path) -> bool:
    return [q.deferred for q in queued(inbox(tmp_path))] == ["5e55-1011/toolu_a1"]


def claimed(tmp_path: Path) -> list[Any]:
    """Who claims the resuming of each question (None: nobody)."""
    store = open_store(inbox(tmp_path))
    try:
        return [row[0] for row in tamper(store, "SELECT resumed_by FROM questions ORDER BY id")]
    finally:
        store.close()


def resume(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(askcli_path()), "resume", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_answered_session_is_resumed_and_its_output_printed(tmp_path: Path) -> None:
    env, command = setup(tmp_path)
    answer(tmp_path)
    done = run_askcli("resume", "--command", command, "--", "--x", env=env)  # stdin at its end
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["session"] == "5e55-1011"
    decided = printed["hook"]["hookSpecificOutput"]
    assert (decided["permissionDecision"], decided["updatedInput"]["answers"]) == (
        "allow",
        {"Which color?": "Blue"},
    )
    (run,) = runs(tmp_path)
    assert run == {
        "argv": ["-p", "--resume", "5e55-1011", "--x"],
        "cwd": str(tmp_path),
        "eof": True,
    }
    assert f"question 1 was answered: {command} -p --resume 5e55-1011 --x" in done.stderr
    (question,) = queued(inbox(tmp_path))
    assert (question.state, question.deferred) == (QueueState.ANSWERED, None)


def test_resume_waits_for_the_answer_with_stdin_closed(tmp_path: Path) -> None:
    env, command = setup(tmp_path)
    shell = f"exec {shlex.quote(str(askcli_path()))} resume --command {shlex.quote(command)} <&-"
    child = subprocess.Popen(
        ["sh", "-c", shell], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stderr is not None
    assert "waiting for the answer to deferred question #1" in child.stderr.readline()
    answer(tmp_path)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    assert json.loads(out)["hook"]["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_inbox_that_cannot_be_used(tmp_path: Path) -> None:
    (tmp_path / "inbox.db").mkdir()
    done = run_askcli("resume", env={**inbox_env(tmp_path)})
    assert (done.returncode, done.stdout) == (1, "")
    assert "is a directory, not an inbox file" in done.stderr
    assert done.stderr.count("\n") == 1


def test_nothing_deferred(tmp_path: Path) -> None:
    done = run_askcli("resume", env={**inbox_env(tmp_path)})
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "askcli resume: no deferred question is waiting in the inbox\n"


def test_sessions_of_another_machine_are_left_alone(tmp_path: Path) -> None:
    env, command = setup(tmp_path)
    answer(tmp_path)
    store = open_store(inbox(tmp_path))
    try:
        tamper(store, "UPDATE questions SET asker_host = 'elsewhere'")
    finally:
        store.close()
    done = run_askcli("resume", "--command", command, env=env)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "askcli resume: no deferred question is waiting in the inbox\n"
    assert runs(tmp_path) == []


def test_timeout_leaves_the_question_deferred(tmp_path: Path) -> None:
    env, command = setup(tmp_path)
    done = run_askcli("resume", "--timeout", "0.3", "--command", command, env=env)
    assert done.returncode == 3
    assert done.stderr.endswith(
        "askcli resume: no answer within 0.3 seconds; question #1 stays deferred in the inbox\n"
    )
    assert runs(tmp_path) == [] and still_deferred(tmp_path)


def test_run_that_does_not_take_its_answer(tmp_path: Path) -> None:
    env, command = setup(tmp_path, mode="fail")
    answer(tmp_path)
    done = run_askcli("resume", "--command", command, env=env)
    assert done.returncode == 1
    assert (
        "question 1: the resumed run (exit status 5) did not take its answer; it stays in "
        "the inbox" in done.stderr
    )
    assert len(runs(tmp_path)) == 1 and still_deferred(tmp_path)  # run once, not again
    assert claimed(tmp_path) == [None]  # released: another askcli resume may try again


@pytest.mark.parametrize(
    ("command", "status", "said"),
    [
        ("'unclosed", 2, "askcli resume: --command cannot be read: No closing quotation\n"),
        (
            "",
            2,
            "askcli resume: --command is empty: name Claude Code's command (default: claude)\n",
        ),
        (
            "/no/such/claude",
            1,
            "askcli resume: cannot run /no/such/claude: No such file or directory\n",
        ),
    ],
)
def test_command_that_cannot_run(tmp_path: Path, command: str, status: int, said: str) -> None:
    env, _ = setup(tmp_path)
    answer(tmp_path)
    done = run_askcli("resume", "--command", command, env=env)
    assert (done.returncode, done.stdout) == (status, "")
    assert done.stderr.endswith(said)


@pytest.mark.parametrize(
    ("sig", "status", "said"),
    [
        (signal.SIGTERM, 143, "stopped (SIGTERM)"),
        (signal.SIGHUP, 129, "the terminal hung up (SIGHUP)"),
    ],
)
def test_signal_while_waiting(tmp_path: Path, sig: signal.Signals, status: int, said: str) -> None:
    env, command = setup(tmp_path)
    child = resume(env, "--command", command)
    assert child.stderr is not None
    assert "waiting for the answer" in child.stderr.readline()
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert (child.returncode, out) == (status, "")
    assert err.endswith(f"askcli resume: {said}: the deferred questions stay in the inbox\n")
    assert still_deferred(tmp_path) and runs(tmp_path) == []


@pytest.mark.parametrize(
    ("sig", "status", "said"),
    [
        (signal.SIGTERM, 143, "stopped (SIGTERM)"),
        (signal.SIGHUP, 129, "the terminal hung up (SIGHUP)"),
    ],
)
def test_signal_while_a_resumed_run_goes_on_stops_it(
    tmp_path: Path, sig: signal.Signals, status: int, said: str
) -> None:
    env, command = setup(tmp_path, mode="sleep")
    answer(tmp_path)
    child = resume(env, "--command", command)
    pid_file = tmp_path / "claude.pid"
    poll(lambda: pid_file.exists() and pid_file.read_text() != "", "the resumed run")
    run_pid = int(pid_file.read_text())
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert out == ""
    assert child.returncode == status, err
    assert err.endswith(f"askcli resume: {said}: the deferred questions stay in the inbox\n")
    with pytest.raises(ProcessLookupError):
        os.kill(run_pid, 0)  # stopped, and reaped
    assert still_deferred(tmp_path) and claimed(tmp_path) == [None]


def spawn(env: dict[str, str], command: str) -> tuple[pexpect.spawn, io.StringIO]:
    child = pexpect.spawn(
        str(askcli_path()),
        ["resume", "--command", command],
        env=env,
        timeout=5,
        encoding="utf-8",
    )
    log = io.StringIO()
    child.logfile_read = log
    return child, log


@pytest.mark.pty
def test_ctrl_c_while_waiting(tmp_path: Path) -> None:
    env, command = setup(tmp_path)
    child, log = spawn(env, command)
    try:
        child.expect_exact("waiting for the answer to deferred question #1")
        child.sendintr()
        child.expect_exact("interrupted: the deferred questions stay in the inbox")
        child.expect(pexpect.EOF)
    except pexpect.ExceptionPexpect:
        pytest.fail(f"askcli resume showed:\n{log.getvalue()}")
    finally:
        child.close()
    assert child.exitstatus == 130, log.getvalue()
    assert still_deferred(tmp_path)


@pytest.mark.pty
def test_ctrl_c_while_a_resumed_run_goes_on(tmp_path: Path) -> None:
    env, command = setup(tmp_path, mode="sleep")
    answer(tmp_path)
    child, log = spawn(env, command)
    pid_file = tmp_path / "claude.pid"
    try:
        child.expect_exact("question 1 was answered")
        poll(lambda: pid_file.exists() and pid_file.read_text() != "", "the resumed run")
        child.sendintr()  # to the terminal's foreground group: askcli and the run
        child.expect_exact("interrupted: the deferred questions stay in the inbox")
        child.expect(pexpect.EOF)
    except pexpect.ExceptionPexpect:
        pytest.fail(f"askcli resume showed:\n{log.getvalue()}")
    finally:
        child.close()
    assert child.exitstatus == 130, log.getvalue()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert still_deferred(tmp_path) and claimed(tmp_path) == [None]


def test_two_resumes_at_once_resume_the_session_once(tmp_path: Path) -> None:
    env, command = setup(tmp_path, mode="gate")
    first, second = resume(env, "--command", command), resume(env, "--command", command)
    children = [first, second]
    try:
        for child in children:
            assert child.stderr is not None
            assert "waiting for the answer to deferred question #1" in child.stderr.readline()
        answer(tmp_path)
        pid_file = tmp_path / "claude.pid"
        poll(lambda: pid_file.exists() and pid_file.read_text() != "", "the resumed run")
        # the one that did not get the claim says who has it, and ends
        poll(lambda: any(c.poll() is not None for c in children), "a resume that ends")
        loser = next(c for c in children if c.poll() is not None)
        winner = second if loser is first else first
        assert winner.poll() is None  # its run waits at the gate
        out, err = loser.communicate()
        assert loser.returncode == 0, err
        assert out == ""
        assert (
            f"askcli resume: question 1: session 5e55-1011 is being resumed by another askcli"
            f" resume (pid {winner.pid}, since "
        ) in err
        assert err.endswith("; not run here\n") and err.count("\n") == 1, err
        (tmp_path / "gate").touch()
        out, err = winner.communicate(timeout=30)
        assert winner.returncode == 0, err
        assert json.loads(out)["hook"]["hookSpecificOutput"]["permissionDecision"] == "allow"
    finally:
        (tmp_path / "gate").touch()
        for child in children:
            if child.poll() is None:
                child.kill()
            child.communicate()
    assert len(runs(tmp_path)) == 1  # exactly one run
    assert claimed(tmp_path) == [None]


def test_a_dead_resume_s_claim_lapses(tmp_path: Path) -> None:
    env, command = setup(tmp_path, mode="gate")
    answer(tmp_path)
    first = resume(env, "--command", command)
    pid_file = tmp_path / "claude.pid"
    try:
        poll(lambda: pid_file.exists() and pid_file.read_text() != "", "the resumed run")
        assert claimed(tmp_path) != [None]
        first.kill()  # no release: its claim lapses with its process
        os.kill(int(pid_file.read_text()), signal.SIGKILL)  # (it holds first's pipes)
        first.communicate()
        (tmp_path / "gate").touch()
        done = run_askcli("resume", "--command", command, env=env)
    finally:
        (tmp_path / "gate").touch()
        if first.poll() is None:
            first.kill()
        first.communicate()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hook"]["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert len(runs(tmp_path)) == 2 and claimed(tmp_path) == [None]
