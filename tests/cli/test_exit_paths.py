"""Every command ends with its documented status whatever its stderr and stdout can still take
(issue 29): a stderr that is a terminal gone away (EIO), a pipe nobody reads (EPIPE) or a
full disk (ENOSPC) changes neither the status nor stdout; a stdout that refuses what is
written gives 141 (closed) or 74 (cannot be written), never a traceback or Python's 120."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import EXAMPLES, PEERS, ROOT
from tests.support.processes import UNWRITABLE, askcli_path, exit_env, handles, poll, unwritable

LIBRARY = str(EXAMPLES / "library.json")
FAKE_CLAUDE = str(PEERS / "fake-claude")
ACP_AGENT = str(PEERS / "acp_agent.py")
FIXTURE = str(ROOT / "fixtures" / "back-skip-and-reopen.json")
HOOK = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Read",  # not a tool the hook serves: no output, status 0
    "tool_input": {"file_path": "x"},
    "session_id": "s",
    "cwd": "/",
}

# name: (the arguments, stdin, the documented status); "{tmp}" is the test's folder
COMMANDS: dict[str, tuple[list[str], str, int]] = {
    "ask answered": (["ask", LIBRARY], "2\n", 0),
    "ask declined": (["ask", LIBRARY], "q\n", 1),
    "ask invalid": (["ask", "-"], '{"questions": []}\n', 2),
    "ask no answer": (["ask", LIBRARY], "", 3),
    "ask usage": (["ask", "--no-such-option"], "", 2),
    "record": (["record", LIBRARY, "-o", "{tmp}/f.json"], "2\n", 0),
    "replay": (["replay", FIXTURE], "", 0),
    "check": (["check", LIBRARY], "", 0),
    "check invalid": (["check", "-"], '{"questions": []}\n', 2),
    "schema": (["schema"], "", 0),
    "todo show": (["todo", "show"], "", 0),
    "inbox": (["inbox"], "", 0),
    "inbox list": (["inbox", "list"], "", 0),
    "inbox answer": (["inbox", "answer", "7"], "", 2),
    "hook": (["hook"], json.dumps(HOOK), 0),
    "hook unusable": (["hook"], "{}", 1),
    "mcp": (["mcp"], "", 0),
    "claude": (["claude", "--claude-bin", FAKE_CLAUDE, "hello"], "", 0),
    "acp": (
        ["acp", "--prompt", "go", "--", sys.executable, ACP_AGENT, "{tmp}/s.json", "{tmp}/log"],
        "",
        0,
    ),
    "version": (["--version"], "", 0),
    "help": (["ask", "--help"], "", 0),
}
# what prints on stdout, and what each stdout that cannot be written then gives
SILENT = {"ask usage", "inbox", "inbox list", "inbox answer", "hook", "hook unusable", "mcp"}
PRINTING = [name for name in COMMANDS if name not in SILENT | {"acp"}]  # acp: an empty turn
STDOUT_STATUS = {"gone-terminal": 74, "closed-pipe": 141, "full": 74}


def run(name: str, tmp_path: Path, stdout: int, stderr: int) -> int:
    args, given, _ = COMMANDS[name]
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    (tmp_path / "s.json").write_text(json.dumps({"turns": [[]]}))
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=given.encode(),
        stdout=stdout,
        stderr=stderr,
        env=exit_env(tmp_path, COLUMNS="80"),
        cwd=tmp_path,
        timeout=60,
    )
    return proc.returncode


def to_file(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def run_with(
    name: str, tmp_path: Path, *, stdout: str | None = None, stderr: str | None = None
) -> tuple[int, str, str]:
    """Run command ``name`` with stdout and stderr each a file, or unwritable as said; its
    status, stdout and stderr (what the files got)."""
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    out = to_file(out_path) if stdout is None else unwritable(stdout)
    err = to_file(err_path) if stderr is None else unwritable(stderr)
    try:
        code = run(name, tmp_path, out, err)
    finally:
        os.close(out)
        os.close(err)
    return code, got(out_path, stdout), got(err_path, stderr)


def got(path: Path, unwritable_kind: str | None) -> str:
    """What the file at ``path`` got; nothing when the stream was an unwritable one."""
    return path.read_text() if unwritable_kind is None and path.exists() else ""


@pytest.mark.parametrize("name", COMMANDS)
def test_the_documented_status_with_stderr_and_stdout_working(name: str, tmp_path: Path) -> None:
    code, _, err = run_with(name, tmp_path)
    assert "Traceback" not in err, err
    assert code == COMMANDS[name][2], err


@pytest.mark.parametrize("broken", UNWRITABLE)
@pytest.mark.parametrize("name", COMMANDS)
def test_a_stderr_that_cannot_be_written_changes_neither_status_nor_stdout(
    name: str, broken: str, tmp_path: Path
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    expected_code, expected_out, _ = run_with(name, first)
    code, out, _ = run_with(name, tmp_path, stderr=broken)
    assert code == expected_code == COMMANDS[name][2]
    assert comparable(out) == comparable(expected_out)


def comparable(out: str) -> list[Any]:
    """stdout without what differs from run to run (generated ids, the fixture's path)."""
    lines = []
    for line in out.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        if isinstance(value, dict) and str(value.get("tool_use_id", "")).startswith("toolu_01"):
            value["tool_use_id"] = "generated"
        lines.append(value)
    return lines


@pytest.mark.parametrize("broken", UNWRITABLE)
@pytest.mark.parametrize("name", PRINTING)
def test_a_stdout_that_cannot_be_written_gives_141_or_74(
    name: str, broken: str, tmp_path: Path
) -> None:
    code, _, err = run_with(name, tmp_path, stdout=broken)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert code == STDOUT_STATUS[broken], err
    if broken != "closed-pipe":  # nobody is left to read: nothing to say
        assert "cannot write" in err and len(err.splitlines()) >= 1


@pytest.mark.parametrize("broken", UNWRITABLE)
@pytest.mark.parametrize("name", ["ask answered", "schema", "todo show", "version"])
def test_neither_stream_can_be_written(name: str, broken: str, tmp_path: Path) -> None:
    code, _, _ = run_with(name, tmp_path, stdout=broken, stderr=broken)
    assert code == STDOUT_STATUS[broken]


# -- signals for the commands that ask nothing ------------------------------------------------


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
@pytest.mark.parametrize("stderr", [None, "gone-terminal"])
def test_a_signal_while_check_reads_gives_its_status(
    sig: signal.Signals, status: int, stderr: str | None, tmp_path: Path
) -> None:
    err = to_file(tmp_path / "stderr") if stderr is None else unwritable(stderr)
    proc = subprocess.Popen(
        [str(askcli_path()), "check", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        env=exit_env(tmp_path),
    )
    os.close(err)
    # askcli's handlers are in (Python's own for SIGINT is there from the start)
    poll(lambda: handles(proc.pid, signal.SIGTERM), "askcli's signal handlers", timeout=10)
    proc.send_signal(sig)
    _, _ = proc.communicate(timeout=10)
    assert proc.returncode == status
    if stderr is None:
        assert "Traceback" not in (tmp_path / "stderr").read_text()


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_while_a_command_is_set_up_gives_its_status(
    sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    """``askcli doctor`` waiting for a PostgreSQL server that never answers: a command that
    asks nothing and runs no guarded work. Its status is the signal's, said by askcli (an
    exit, not a death by the signal), and no traceback."""
    pytest.importorskip(
        "psycopg", reason="psycopg is not installed (pip install 'askcli[postgres]')"
    )
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(20)
        port = server.getsockname()[1]
        url = f"postgresql://nobody@127.0.0.1:{port}/db?connect_timeout=30&sslmode=disable"
        proc = subprocess.Popen(
            [str(askcli_path()), "doctor"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=exit_env(tmp_path, ASKCLI_INBOX=url),
        )
        connection, _ = server.accept()  # askcli is waiting for the server's first word
        with connection:
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=10)
    assert proc.returncode == status, err.decode()
    assert b"Traceback" not in err
