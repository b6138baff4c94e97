"""askcli hook in the real Claude Code 2.1.197, against the stand-in Anthropic API.

Claude Code runs headless (``-p``, stream-json, ``--permission-prompt-tool stdio`` so that
AskUserQuestion exists there) with ``askcli hook`` in its ``--settings``; the scripted model
calls a tool; a person answers the queued question in the inbox (``askcli inbox answer
ID``); what they typed must be in Claude Code's next request to the model, byte for byte.
The ``can_use_tool`` requests Claude Code sends in parallel with a PermissionRequest hook
are left unanswered, so that the hook's decision is the one that counts (recipe 2).
``--here`` is driven in a pty around ``claude -p``, and refused in one line in Claude
Code's full-screen interface.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from askcli.inbox.store import QueueState
from askcli.wire import results

from tests.support.claude import (
    COLOR,
    Api,
    Headless,
    answer_in_inbox,
    end_interactive,
    interactive,
    needs_claude,
    settings,
    spawn_claude,
    turns,
    until,
    use,
    waiting,
)
from tests.support.inbox import queued
from tests.support.real_agents import CURRENT

BASH = {"command": 'python3 -c "print(6*7)"', "description": "compute"}


@pytest.fixture
def api(tmp_path: Path, request: pytest.FixtureRequest, claude_bin: Path) -> Iterator[Api]:
    server = Api(tmp_path, request.param, claude_bin=claude_bin)
    server.env["ASKCLI_INBOX"] = str(tmp_path / "inbox.db")
    yield server
    server.stop()


def states(inbox: Path) -> list[QueueState]:
    return [q.state for q in queued(inbox)]


def denied(api: Api, reason: str) -> str:
    """What the model reads when the hook denies AskUserQuestion with ``reason``: Claude Code
    2.1.332 labels it as the hook's (2.1.197 gives the reason alone)."""
    return (
        f"PreToolUse:AskUserQuestion hook error: {reason}" if api.claude_bin == CURRENT else reason
    )


ASK = turns(use("toolu_a1", "AskUserQuestion", COLOR))
RUN = turns(use("toolu_b1", "Bash", BASH))
RUN_SLOWLY = [*RUN[:-1], {**RUN[-1], "delay": 6}]  # the model takes 6 s after the tool


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_pre_tool_use_answers_reach_the_model_as_typed(api: Api, tmp_path: Path) -> None:
    claude = Headless(api, tmp_path / "work", settings(tmp_path))
    try:
        screen = answer_in_inbox(
            api, tmp_path / "inbox.db", 'n keep it small\n3\nTeal — "not green"\n'
        )
        result = claude.until_result("fail")
    finally:
        claude.close()
    assert "[Color] Which color?" in screen
    assert result["subtype"] == "success"
    block = api.tool_results()["toolu_a1"]
    answered = '"Which color?"="Teal — "not green"" notes: keep it small.'
    if api.claude_bin == CURRENT:  # Claude Code's own words since 2.1.318 for a typed answer
        assert block["content"] == (
            f"The user answered: {answered} Read the answers carefully — they may request "
            "clarification, changes, or that you not proceed — and follow what they actually say."
        )
    else:
        assert block["content"] == (
            f"Your questions have been answered: {answered} You can now continue with these "
            "answers in mind."
        )
    assert "is_error" not in block
    assert claude.prompts() == []  # the hook decided: no can_use_tool for AskUserQuestion
    assert states(tmp_path / "inbox.db") == [QueueState.ANSWERED]


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_pre_tool_use_declined_is_claude_codes_rejection(api: Api, tmp_path: Path) -> None:
    claude = Headless(api, tmp_path / "work", settings(tmp_path))
    try:
        answer_in_inbox(api, tmp_path / "inbox.db", "q\n", status=1)
        claude.until_result("fail")
    finally:
        claude.close()
    block = api.tool_results()["toolu_a1"]
    assert (block["content"], block["is_error"]) == (denied(api, results.REJECT_MESSAGE), True)


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_pre_tool_use_timeout_tells_the_model_nobody_answered(api: Api, tmp_path: Path) -> None:
    claude = Headless(api, tmp_path / "work", settings(tmp_path, "--timeout", "1.5"))
    try:
        claude.until_result("fail")
    finally:
        claude.close()
    block = api.tool_results()["toolu_a1"]
    assert block["content"] == denied(api, "No answer from the user (no reply within 1.5 seconds).")
    assert block["is_error"] is True
    assert states(tmp_path / "inbox.db") == [QueueState.WITHDRAWN]


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_claude_code_ending_the_hook_withdraws_the_question(api: Api, tmp_path: Path) -> None:
    # the hook's own timeout (3 s) passes: Claude Code stops it with SIGTERM and asks at
    # its own prompt, which this driver denies
    claude = Headless(api, tmp_path / "work", settings(tmp_path, timeout=3))
    try:
        claude.until_result("deny")
    finally:
        claude.close()
    assert api.tool_results()["toolu_a1"]["content"] == "denied at the prompt"
    assert claude.prompts() == ["AskUserQuestion"]
    assert states(tmp_path / "inbox.db") == [QueueState.WITHDRAWN]
    said = (tmp_path / "hook.err").read_text()
    assert "askcli hook: stopped (SIGTERM): no decision; Claude Code goes on without" in said


@needs_claude
@pytest.mark.parametrize("api", [RUN], indirect=True)
def test_permission_request_denied_with_the_persons_words(api: Api, tmp_path: Path) -> None:
    claude = Headless(api, tmp_path / "work", settings(tmp_path))
    try:
        screen = answer_in_inbox(api, tmp_path / "inbox.db", "3\nrun « the tests » first\n", 1)
        claude.until_result()
    finally:
        claude.close()
    assert "Tool use: Bash" in screen and 'command: python3 -c "print(6*7)"' in screen
    block = api.tool_results()["toolu_b1"]
    assert block["content"] == results.REJECT_WITH_WORDS_PREFIX + "run « the tests » first"
    assert block["is_error"] is True
    cancels = [m for m in claude.seen if m.get("type") == "control_cancel_request"]
    assert len(cancels) == 1  # the hook answered first: Claude Code took back its prompt


@needs_claude
@pytest.mark.parametrize("api", [RUN], indirect=True)
def test_permission_request_always_runs_and_keeps_the_rule(api: Api, tmp_path: Path) -> None:
    work = tmp_path / "work"
    claude = Headless(api, work, settings(tmp_path))
    try:
        screen = answer_in_inbox(api, tmp_path / "inbox.db", "2\n")
        claude.until_result()
    finally:
        claude.close()
    assert '2. Yes, and don\'t ask again for Bash(python3 -c "print(6*7)")' in screen
    assert api.tool_results()["toolu_b1"]["content"] == "42"
    kept = json.loads((work / ".claude" / "settings.local.json").read_text())
    assert kept["permissions"]["allow"] == ['Bash(python3 -c "print\\(6*7\\)")']


# -- --here ----------------------------------------------------------------------------------


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_here_asks_at_claude_codes_terminal(api: Api, tmp_path: Path) -> None:
    given = settings(tmp_path, "--here")
    child, log = spawn_claude(
        api,
        tmp_path / "work",
        ["-p", "ask me", "--settings", str(given), "--permission-prompt-tool", "stdio"],
    )
    try:
        for shown in ("askcli: Claude Code asks (askcli hook --here)", "Choose 1-3: "):
            child.expect_exact(shown)
        child.sendline("2")
        child.expect_exact("Thanks.")
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}\nhook: {hook_err(tmp_path)}")
    finally:
        child.close(force=True)
    assert api.tool_results()["toolu_a1"]["content"] == (
        'Your questions have been answered: "Which color?"="Blue". You can now continue with'
        " these answers in mind."
    )
    assert not (tmp_path / "inbox.db").exists()


def hook_err(tmp_path: Path) -> str:
    path = tmp_path / "hook.err"
    return path.read_text() if path.exists() else ""


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_interactive_claude_code_answered_from_another_terminal(api: Api, tmp_path: Path) -> None:
    work = tmp_path / "work"
    interactive(api, work)
    child, log = spawn_claude(api, work, ["--settings", str(settings(tmp_path)), "ask me"])
    try:
        answer_in_inbox(api, tmp_path / "inbox.db", "1\n")
        until(child, log, lambda: "toolu_a1" in api.tool_results(), "no tool_result")
    finally:
        end_interactive(child)
    assert api.tool_results()["toolu_a1"]["content"] == (
        'Your questions have been answered: "Which color?"="Red". You can now continue with'
        " these answers in mind."
    )


@needs_claude
@pytest.mark.parametrize("api", [ASK], indirect=True)
def test_here_leaves_claude_codes_own_screen_alone(api: Api, tmp_path: Path) -> None:
    work = tmp_path / "work"
    interactive(api, work)
    given = settings(tmp_path, "--here")
    child, log = spawn_claude(api, work, ["--settings", str(given), "ask me"])
    try:
        end = time.monotonic() + 60
        until(
            child,
            log,
            lambda: "full-screen program" in hook_err(tmp_path),
            "the hook said nothing",
            end,
        )
        # Claude Code's own dialog asks instead
        # (2.1.332 moves the cursor between the words it draws)
        shown = re.compile(r"Which(?: |\x1b\[[0-9;]*[A-Za-z])+color\?")
        until(child, log, lambda: shown.search(log.getvalue()) is not None, "no dialog", end)
    finally:
        end_interactive(child)
    said = hook_err(tmp_path)
    assert said.startswith("askcli hook: --here: a full-screen program holds the terminal")
    assert said.count("\n") == 1


@needs_claude
@pytest.mark.parametrize("api", [RUN_SLOWLY], indirect=True)
def test_an_answer_at_claude_codes_own_prompt_withdraws_the_question_at_once(
    api: Api, tmp_path: Path
) -> None:
    # the prompt Claude Code sends beside the hook is answered first: Claude Code runs the
    # tool and goes on (the model takes 6 s more), telling the hook nothing; the tool's
    # result in its transcript does
    claude = Headless(api, tmp_path / "work", settings(tmp_path))
    ended: list[float] = []
    try:
        waiting(tmp_path / "inbox.db")
        turn = threading.Thread(
            target=lambda: (claude.until_result("allow"), ended.append(time.monotonic()))
        )
        turn.start()
        end = time.monotonic() + 30
        while states(tmp_path / "inbox.db") != [QueueState.WITHDRAWN]:
            if time.monotonic() > end:
                pytest.fail(
                    f"the question stayed {states(tmp_path / 'inbox.db')}: {hook_err(tmp_path)}"
                )
            time.sleep(0.05)
        withdrawn = time.monotonic()
        turn.join(timeout=60)
    finally:
        claude.close()
    assert ended and withdrawn < ended[0]  # while Claude Code's turn went on
    assert api.tool_results()["toolu_b1"]["content"] == "42"
    assert "Claude Code went on without this hook (answered at its own prompt)" in hook_err(
        tmp_path
    )
