"""``askcli claude --inbox`` with the real Claude Code, against the stand-in Anthropic API.

Claude Code's question and its permission request wait in the inbox instead of being asked
at askcli claude's own input; a person answers them there (``askcli inbox answer ID``);
the answer must be what Claude Code sends the model next (the ``tool_result`` the stand-in
received). SPEC section 7: the question belongs to its asker (two sessions asking the same
call are two questions, and an answer goes only to the one it was given for), and a line
at askcli claude's own input never answers a question that waits in the inbox.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from askcli.inbox.store import QueueState, open_store

from tests.support.claude import COLOR, Api, answer_in_inbox, turns, use, waiting
from tests.support.inbox import queued
from tests.support.processes import askcli_path

BASH = {"command": 'python3 -c "print(6*7)"', "description": "compute"}
ASK = turns(use("toolu_a1", "AskUserQuestion", COLOR))
RUN = turns(use("toolu_b1", "Bash", BASH))
ANSWERED_RED = '"Which color?"="Red"'
ANSWERED_BLUE = '"Which color?"="Blue"'


@pytest.fixture
def inbox_api(tmp_path: Path, request: pytest.FixtureRequest, claude_bin: Path) -> Iterator[Api]:
    """The stand-in API, with the test's inbox in Claude Code's (and askcli's) environment."""
    server = Api(tmp_path, request.param, claude_bin=claude_bin)
    server.env["ASKCLI_INBOX"] = str(tmp_path / "inbox.db")
    server.env.pop("ASKCLI_TO", None)
    yield server
    server.stop()


def in_inbox(api: Api, work: Path, *args: str, typed: str = "") -> subprocess.Popen[str]:
    """``askcli claude --inbox`` for one prompt in ``work``; ``typed``: what its own stdin
    holds (never an answer: its questions wait in the inbox)."""
    work.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [str(askcli_path()), "claude", "--claude-bin", str(api.claude_bin), "--inbox", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=api.env,
        cwd=work,
    )
    assert proc.stdin is not None
    proc.stdin.write(typed)
    proc.stdin.close()
    proc.stdin = None  # communicate() has nothing more to write
    return proc


def ended(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"askcli claude --inbox did not end; it said:\n{err}")
    return proc.returncode, out, err


def states(inbox: Path) -> list[QueueState]:
    return [q.state for q in queued(inbox)]


@pytest.mark.parametrize("inbox_api", [ASK], indirect=True)
def test_a_question_waits_in_the_inbox_and_its_answer_reaches_the_model(
    inbox_api: Api, tmp_path: Path
) -> None:
    # "2" on askcli claude's own stdin: read as it comes were it asked here; it is not
    proc = in_inbox(inbox_api, tmp_path / "work", "pick a color", typed="2\n")
    try:
        screen = answer_in_inbox(inbox_api, tmp_path / "inbox.db", "1\n")
    finally:
        status, out, err = ended(proc)
    assert status == 0, err
    assert "[Color] Which color?" in screen
    assert "question 1 is waiting in the inbox" in err
    assert "Which color?" not in err  # not asked here
    block = inbox_api.tool_results()["toolu_a1"]
    assert ANSWERED_RED in block["content"] and ANSWERED_BLUE not in block["content"]
    assert "is_error" not in block
    assert "Thanks." in out
    assert states(tmp_path / "inbox.db") == [QueueState.ANSWERED]


@pytest.mark.parametrize("inbox_api", [RUN], indirect=True)
def test_a_permission_request_is_answered_in_the_inbox(inbox_api: Api, tmp_path: Path) -> None:
    proc = in_inbox(inbox_api, tmp_path / "work", "compute it")
    try:
        question = waiting(tmp_path / "inbox.db")
        assert question.agent.client == "claude"
        screen = answer_in_inbox(inbox_api, tmp_path / "inbox.db", "y\n")
    finally:
        status, _, err = ended(proc)
    assert status == 0, err
    assert "Tool use: Bash" in screen and 'python3 -c "print(6*7)"' in screen
    assert "Allow?" not in err
    assert inbox_api.tool_results()["toolu_b1"]["content"] == "42"


@pytest.mark.parametrize("inbox_api", [RUN], indirect=True)
def test_a_permission_denied_in_the_inbox_is_denied(inbox_api: Api, tmp_path: Path) -> None:
    proc = in_inbox(inbox_api, tmp_path / "work", "compute it")
    try:
        answer_in_inbox(inbox_api, tmp_path / "inbox.db", "n: use uv instead\n", status=1)
    finally:
        status, _, err = ended(proc)
    assert status == 0, err
    denied = inbox_api.tool_results()["toolu_b1"]
    assert denied.get("is_error") is True
    assert denied["content"].endswith("the user said:\nuse uv instead")


@pytest.mark.parametrize("inbox_api", [ASK], indirect=True)
def test_each_session_gets_only_the_answer_given_for_its_own_question(
    inbox_api: Api, tmp_path: Path, claude_bin: Path
) -> None:
    (tmp_path / "other").mkdir()
    other = Api(tmp_path / "other", ASK, claude_bin=claude_bin)
    other.env["ASKCLI_INBOX"] = inbox_api.env["ASKCLI_INBOX"]
    inbox = tmp_path / "inbox.db"
    work = tmp_path / "work"
    first = in_inbox(inbox_api, work, "pick a color")
    try:
        waiting(inbox)
        second = in_inbox(other, work, "pick a color")
        try:
            store = open_store(inbox)
            try:
                end = time.monotonic() + 60
                while len(store.questions(states=(QueueState.WAITING,))) < 2:
                    assert second.poll() is None and time.monotonic() < end
                    time.sleep(0.05)
                mine, theirs = store.questions(states=(QueueState.WAITING,))
            finally:
                store.close()
            # the identical call of two sessions: two questions, each labelled with its asker
            assert mine.call["request"]["input"] == theirs.call["request"]["input"]
            assert mine.agent.tag != theirs.agent.tag
            answered = subprocess.run(
                [str(askcli_path()), "inbox", "answer", str(theirs.id)],
                input="2\n",
                capture_output=True,
                text=True,
                timeout=30,
                env=inbox_api.env,
            )
            assert answered.returncode == 0, answered.stderr
            status, _, err = ended(second)
            assert status == 0, err
            assert ANSWERED_BLUE in other.tool_results()["toolu_a1"]["content"]
            assert first.poll() is None  # the first session still waits for its own
            assert inbox_api.tool_results() == {}
            assert open_store(inbox).get(mine.id).state is QueueState.WAITING  # type: ignore[union-attr]
            answer_in_inbox(inbox_api, inbox, "1\n")
        finally:
            if second.poll() is None:
                second.kill()
                second.communicate()
        status, _, err = ended(first)
        assert status == 0, err
        assert ANSWERED_RED in inbox_api.tool_results()["toolu_a1"]["content"]
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
        other.stop()


@pytest.mark.parametrize("inbox_api", [ASK], indirect=True)
def test_ctrl_c_withdraws_the_waiting_question(inbox_api: Api, tmp_path: Path) -> None:
    import signal

    proc = in_inbox(inbox_api, tmp_path / "work", "pick a color")
    try:
        waiting(tmp_path / "inbox.db")
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)  # a second Ctrl-C ends the session
    finally:
        status, _, err = ended(proc)
    assert status == 130, err
    assert states(tmp_path / "inbox.db") == [QueueState.WITHDRAWN]


@pytest.mark.pty
@pytest.mark.parametrize("inbox_api", [ASK], indirect=True)
def test_a_line_typed_at_the_terminal_does_not_answer_the_question_in_the_inbox(
    inbox_api: Api, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    child, log = inbox_api.spawn(work, "--inbox", "pick a color")
    try:
        child.expect_exact("is waiting in the inbox")
        child.sendline("2")  # at askcli claude's own terminal, while the question waits
        answer_in_inbox(inbox_api, tmp_path / "inbox.db", "1\n")
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
    assert child.exitstatus == 0, log.getvalue()
    content = inbox_api.tool_results()["toolu_a1"]["content"]
    assert ANSWERED_RED in content and ANSWERED_BLUE not in content
    assert "Which color?" not in log.getvalue()
