"""askcli acp against real agents, offline: Gemini CLI (--fake-responses-non-strict) and
Claude Code through claude-agent-acp (the stand-in API of tests/peers/). `make test`
installs both into .cache/ (pinned); without npm these tests skip, saying why."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp_sessions import ASK, mode_default
from tests.support.processes import askcli_path
from tests.support.real_agents import (
    ADAPTERS,
    GEMINI,
    claude_env,
    gemini,
    gemini_reply,
    needs_gemini,
    stand_in,
)

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

_stream = gemini_reply


SHELL_CALL = {
    "functionCall": {
        "name": "run_shell_command",
        "args": {
            "command": "echo tool-ran > shell_out.txt",
            "description": "write a marker file",
        },
    }
}


def shell_session(
    tmp_path: Path, answers: str, *, probe: bool = False, record: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    turns = [_stream(SHELL_CALL)]
    if not probe:
        turns.append(_stream({"text": "All done, final answer."}))
    extra = ["--record", str(record)] if record is not None else []
    return run_gemini(tmp_path, turns, answers, "make the marker", *extra)


def run_gemini(
    tmp_path: Path, turns: list[dict[str, Any]], answers: str, prompt: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One prompt to the real Gemini CLI through askcli acp; ``turns`` are the fake model's
    answers, one per model request, in order."""
    work, env, command = gemini(tmp_path, turns)
    proc = subprocess.run(
        [str(askcli_path()), "acp", "--prompt", prompt, *options, "--", *command],
        input=answers,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=work,
        env=env,
    )
    return proc, work


@needs_gemini
def test_gemini_permission_allowed(tmp_path: Path) -> None:
    proc, work = shell_session(tmp_path, "y\n")
    assert proc.returncode == 0, proc.stderr
    assert "The agent asks to run: echo tool-ran > shell_out.txt" in proc.stderr
    assert "(write a marker file)" in proc.stderr
    assert "1. Allow for this session  (allow_always)" in proc.stderr
    assert "(done)" in proc.stderr
    assert proc.stdout == "All done, final answer.\n"
    assert (work / "shell_out.txt").read_text() == "tool-ran\n"


@needs_gemini
def test_gemini_session_recorded_replays(tmp_path: Path) -> None:
    from askcli import fixtures

    path = tmp_path / "gemini.json"
    proc, _ = shell_session(tmp_path, "y\n", record=path)
    assert proc.returncode == 0, proc.stderr
    assert "does not give what it did" not in proc.stderr
    fixture = fixtures.load(path)
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    assert fixture["stdout"] == ["All done, final answer."]
    allowed = {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
    assert [e["result"] for e in fixture["acp"]["sent"] if "id" in e] == [allowed]


@needs_gemini
def test_gemini_permission_denied_reaches_the_model(tmp_path: Path) -> None:
    # without the closing turn, Gemini CLI's error carries the next model request whole
    proc, work = shell_session(tmp_path, "n\n", probe=True)
    assert not (work / "shell_out.txt").exists()
    assert "was canceled by the user" in proc.stderr, proc.stderr
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr


@needs_gemini
def test_gemini_answers_running_out_is_never_allowed(tmp_path: Path) -> None:
    proc, work = shell_session(tmp_path, "")
    assert proc.returncode == 3, proc.stderr
    assert not (work / "shell_out.txt").exists()


@needs_gemini
@pytest.mark.parametrize("answer", ["y", "n"])
def test_gemini_reads_and_writes_files_through_askcli_fs(tmp_path: Path, answer: str) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("old line\n")
    turns = [
        _stream({"functionCall": {"name": "read_file", "args": {"file_path": "notes.txt"}}}),
        _stream(
            {
                "functionCall": {
                    "name": "write_file",
                    "args": {"file_path": "notes.txt", "content": "new line \u00e9\n"},
                }
            }
        ),
        _stream({"text": "Rewrote the notes."}),
    ]
    proc, work = run_gemini(tmp_path, turns, answer + "\n", "rewrite the notes", "--fs")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    path = work / "notes.txt"
    # the whole edit is shown before it is allowed: the diff of the file askcli read for it
    assert f"content (edit of {path}):\n      --- {path}\n      +++ {path}\n" in err, err
    assert "      -old line\n      +new line \u00e9\n" in err
    assert "  -> read notes.txt (1 line)\n" in err
    if answer == "y":
        assert "  -> wrote notes.txt (1 line)\n" in err
        assert path.read_text() == "new line \u00e9\n"  # written by askcli, for Gemini CLI
    else:
        assert "-> wrote" not in err
        assert path.read_text() == "old line\n"


@needs_gemini
def test_gemini_creates_a_new_file_through_askcli_fs(tmp_path: Path) -> None:
    # Gemini CLI reads a file before it writes it; a missing one must read as missing
    write = {"file_path": "fresh/new.txt", "content": "first line \u00e9\n"}
    turns = [
        _stream({"functionCall": {"name": "write_file", "args": write}}),
        _stream({"text": "Created the file."}),
    ]
    proc, work = run_gemini(tmp_path, turns, "y\n", "create the file", "--fs")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    path = work / "fresh" / "new.txt"
    assert path.read_bytes() == "first line \u00e9\n".encode()  # written by askcli
    assert "  -> read fresh/new.txt: not found (an empty text for Gemini CLI)\n" in err, err
    assert "  -> wrote fresh/new.txt (1 line)\n" in err
    assert "refused" not in err
    assert "Error checking existing file" not in err
    assert proc.stdout == "Created the file.\n"


@needs_gemini
def test_gemini_failing_in_a_turn_shows_its_stderr_once_with_its_end(tmp_path: Path) -> None:
    # no model reply to give: the prompt fails; Gemini CLI writes its stderr as it exits
    proc, _ = run_gemini(tmp_path, [], "", "hi")
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr
    assert "askcli: the agent failed: RequestError: No more mock responses for " in err
    tail = err[err.index("  its last stderr lines (10 of ") :].splitlines()[1:]
    assert len(tail) == 10 and all(line.startswith("  | ") for line in tail), err
    assert all(len(line) <= 240 for line in tail)
    assert "(agent stderr)" not in err  # each line once: with the end, not also as it came


@needs_gemini
def test_gemini_thoughts_are_shown_with_the_flag_only(tmp_path: Path) -> None:
    # Gemini CLI sends a thought as "**subject**\ndescription"
    thought = {"text": "**Weighing** the notes first.", "thought": True}
    turn = _stream(thought, {"text": "My answer."})
    shown, _ = run_gemini(tmp_path / "a", [turn], "", "think", "--thoughts")
    assert shown.returncode == 0, shown.stderr
    assert "Thinking: **Weighing**\n  the notes first.\nAgent: My answer.\n" in shown.stderr
    assert shown.stdout == "My answer.\n"
    hidden, _ = run_gemini(tmp_path / "b", [turn], "", "think")
    assert hidden.returncode == 0, hidden.stderr
    assert "Weighing" not in hidden.stderr
    assert "Agent: My answer.\n" in hidden.stderr


@needs_gemini
def test_gemini_mode_chosen_with_the_flag(tmp_path: Path) -> None:
    turns = [_stream(SHELL_CALL), _stream({"text": "All done, final answer."})]
    # Gemini CLI's read-only "plan" mode refuses the command itself: nothing is asked, the
    # command does not run
    proc, work = run_gemini(tmp_path / "a", turns, "", "make the marker", "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    assert "(mode: Plan)\n" in proc.stderr
    assert "The agent asks" not in proc.stderr
    assert not (work / "shell_out.txt").exists()
    # "yolo" (approve everything) it refuses in a folder it does not trust: its reason shown
    yolo, work = run_gemini(tmp_path / "b", turns, "", "make the marker", "--mode", "yolo")
    assert yolo.returncode == 1, yolo.stderr
    assert (
        "askcli: the agent failed: RequestError: Internal error (Cannot enable privileged "
        "approval modes in an untrusted folder.)\n"
    ) in yolo.stderr
    assert not (work / "shell_out.txt").exists()
    unknown, _ = run_gemini(tmp_path / "c", turns, "", "make the marker", "--mode", "fast")
    assert unknown.returncode == 2, unknown.stderr
    assert "askcli: the agent has no mode 'fast'; its modes: default (Prompts for approval), " in (
        unknown.stderr
    )


@needs_gemini
def test_gemini_without_a_key_says_how_to_sign_in(tmp_path: Path) -> None:
    from askcli import fixtures

    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    (home / ".gemini").mkdir(parents=True)
    record = tmp_path / "auth.json"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_CLI_NO_RELAUNCH": "true"}
    command = [str(askcli_path()), "acp", "--record", str(record), "--prompt", "hi"]
    proc = subprocess.run(
        [*command, "--", str(GEMINI), "--acp"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=work,
        env=env | {"COLUMNS": "200"},
    )
    assert proc.returncode == 1, proc.stderr
    assert (
        "askcli: the agent failed: it needs you to sign in: Gemini API key is missing or not "
        "configured.\n"
        "sign in with the agent itself (or set what it reads, such as its API key), then run "
        "askcli again; the ways it offers:\n"
        "  Log in with Google: Log in with your Google account\n"
        "  Gemini API key: Use an API key with Gemini Developer API\n"
    ) in proc.stderr
    assert "Traceback" not in proc.stderr
    expected, actual = fixtures.replay(fixtures.load(record))
    assert actual == expected


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(
    ("answers", "sent"),
    [
        ("2\n", '"Which database?"="SQLite"'),
        ("3\nMongo, maybe: 'v7' \u00e9\n", '"Which database?"="Mongo, maybe: \'v7\' \u00e9"'),
    ],
)
def test_claude_askuserquestion_through_the_elicitation_form(  # the answer reaches the model
    tmp_path: Path, answers: str, sent: str, adapter: Path
) -> None:
    turns = [
        {
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_ask_1", "name": "AskUserQuestion", "input": ASK},
            ],
            "stop_reason": "tool_use",
        },
        {
            "content": [{"type": "text", "text": "All done, final answer."}],
            "stop_reason": "end_turn",
        },
    ]
    with stand_in(tmp_path, turns) as (port, log):
        work = tmp_path / "work"
        work.mkdir()
        proc = subprocess.run(
            [
                *(str(askcli_path()), "acp", "--prompt", "pick a database"),
                *mode_default(adapter),
                *("--", str(adapter)),
            ],
            input=answers,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=work,
            env=claude_env(tmp_path / "home", port),
        )
    assert proc.returncode == 0, proc.stderr
    assert "[DB] Which database?" in proc.stderr
    assert "  1. Postgres - server\n  2. SQLite - file" in proc.stderr
    assert proc.stdout.strip().endswith("All done, final answer.")
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    results = [
        block
        for request in requests
        for message in request.get("request", request).get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results, requests
    text = json.dumps(results[-1]["content"], ensure_ascii=False)
    assert sent.replace('"', '\\"') in text, text
