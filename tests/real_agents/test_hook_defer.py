"""askcli hook --defer-after and askcli resume with the real Claude Code 2.1.332 (``claude -p``,
the stand-in Anthropic API): nobody answers in time, the hook answers ``defer`` and Claude Code
stops with ``stop_reason: "tool_deferred"``; the question stays in the inbox, deferred; it is
answered an hour later (the queue's clock is put an hour ahead: ``ASKCLI_TEST_CLOCK_SKEW``),
and ``askcli resume``, waiting meanwhile, runs ``claude -p --resume SESSION``: Claude Code runs
the call again, the hook takes the answer, and the model gets it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.store import QueueState

from tests.support.claude import (
    COLOR,
    Api,
    answer_in_inbox,
    end_interactive,
    interactive,
    settings,
    spawn_claude,
    text,
    turns,
    until,
    use,
)
from tests.support.inbox import queued
from tests.support.processes import askcli_path, run_askcli
from tests.support.real_agents import CURRENT

HOUR = {"ASKCLI_TEST_CLOCK_SKEW": "3600"}
ASK = turns(use("toolu_a1", "AskUserQuestion", COLOR))
# two calls in one message: Claude Code refuses to defer either
TWO = [
    {
        "content": [
            text("Working."),
            use("toolu_a1", "AskUserQuestion", COLOR),
            use("toolu_a2", "AskUserQuestion", COLOR),
        ],
        "stop_reason": "tool_use",
    },
    {"content": [text("Thanks.")], "stop_reason": "end_turn"},
]
PRINT = ("--output-format", "json", "--permission-prompt-tool", "stdio")


@pytest.fixture
def api(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Api]:
    if not CURRENT.exists():
        pytest.skip(f"Claude Code is not installed at {CURRENT}")
    server = Api(tmp_path, request.param, claude_bin=CURRENT)
    server.env["ASKCLI_INBOX"] = str(tmp_path / "inbox.db")
    yield server
    server.stop()


def print_mode(api: Api, tmp_path: Path, hook_settings: Path) -> dict[str, Any]:
    """``claude -p "ask me"`` (json output) with the hooks of ``hook_settings``; its result."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    done = subprocess.run(
        [str(api.claude_bin), "-p", "ask me", "--settings", str(hook_settings), *PRINT],
        cwd=work,
        env=api.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    hook_err = tmp_path / "hook.err"
    said = hook_err.read_text() if hook_err.exists() else ""
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\nhook: {said}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_deferred_question_answered_an_hour_later_reaches_the_resumed_run(
    api: Api, tmp_path: Path
) -> None:
    hooks = settings(tmp_path, "--defer-after", "1")
    first = print_mode(api, tmp_path, hooks)
    assert (first["stop_reason"], first["terminal_reason"]) == ("tool_deferred", "tool_deferred")
    assert first["deferred_tool_use"]["id"] == "toolu_a1"
    session = first["session_id"]
    assert "toolu_a1" not in api.tool_results()  # the model has not got anything yet
    (question,) = queued(tmp_path / "inbox.db")
    assert (question.state, question.deferred) == (QueueState.WAITING, f"{session}/toolu_a1")
    listed = run_askcli("inbox", "list", env=api.env)
    assert "deferred: its agent stopped, and takes the answer when resumed" in listed.stdout
    assert f"session {session[:8]}" in listed.stdout

    # askcli resume waits for the answer, which comes an hour later by the queue's clock
    api.env.update(HOUR)
    resume = subprocess.Popen(
        [
            *(str(askcli_path()), "resume", "--timeout", "90", "--command", str(api.claude_bin)),
            *("--", "--settings", str(hooks), *PRINT),
        ],
        env=api.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert resume.stderr is not None
        waited = resume.stderr.readline()  # its first line: it waits
        screen = answer_in_inbox(api, tmp_path / "inbox.db", "2\n")
        out, err = resume.communicate(timeout=120)
    finally:
        if resume.poll() is None:
            resume.kill()
            resume.wait()
    assert "[Color] Which color?" in screen
    assert resume.returncode == 0, err
    assert "Traceback" not in err
    assert waited.startswith("askcli resume: waiting for the answer to deferred question #1")
    assert f"question 1 was answered: {api.claude_bin} -p --resume {session}" in err
    resumed = json.loads(out)  # the resumed run's own output, as Claude Code printed it
    assert (resumed["session_id"], resumed["stop_reason"]) == (session, "end_turn")
    assert resumed["result"] == "Thanks."
    block = api.tool_results()["toolu_a1"]
    assert block["content"] == (
        'Your questions have been answered: "Which color?"="Blue". You can now continue with '
        "these answers in mind."
    )
    (answered,) = queued(tmp_path / "inbox.db")
    assert answered.state is QueueState.ANSWERED and answered.deferred is None
    assert answered.finished is not None and answered.finished - answered.arrived >= 3600
    said = (tmp_path / "hook.err").read_text()
    assert "question 1 stays in the inbox, deferred" in said
    assert "question 1, deferred, was answered meanwhile" in said


@pytest.mark.parametrize("api", [TWO], indirect=True)
def test_calls_with_a_sibling_are_never_deferred(api: Api, tmp_path: Path) -> None:
    hooks = settings(tmp_path, "--defer-after", "0.5", "--timeout", "2")
    result = print_mode(api, tmp_path, hooks)
    assert result["stop_reason"] != "tool_deferred"
    assert "deferred_tool_use" not in result
    nobody = "No answer from the user (no reply within 2 seconds)."
    found = api.tool_results()
    assert {found[i]["content"] for i in ("toolu_a1", "toolu_a2")} == {
        f"PreToolUse:AskUserQuestion hook error: {nobody}"
    }
    assert [q.deferred for q in queued(tmp_path / "inbox.db")] == [None, None]
    assert [q.state for q in queued(tmp_path / "inbox.db")] == [QueueState.WITHDRAWN] * 2


@pytest.mark.pty
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_interactive_claude_code_is_never_deferred(api: Api, tmp_path: Path) -> None:
    # Claude Code's full-screen interface ignores defer: the hook waits as without
    # --defer-after, here until its --timeout
    work = tmp_path / "work"
    interactive(api, work)
    hooks = settings(tmp_path, "--defer-after", "0.5", "--timeout", "3")
    child, log = spawn_claude(api, work, ["--settings", str(hooks), "ask me"])
    try:
        until(child, log, lambda: "toolu_a1" in api.tool_results(), "no tool_result")
    finally:
        end_interactive(child)
    block = api.tool_results()["toolu_a1"]
    assert block["content"] == (
        "PreToolUse:AskUserQuestion hook error: No answer from the user (no reply within 3 "
        "seconds)."
    )
    (question,) = queued(tmp_path / "inbox.db")
    assert (question.state, question.deferred) == (QueueState.WITHDRAWN, None)
