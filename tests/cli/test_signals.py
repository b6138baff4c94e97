"""Signals at every prompt: SIGTERM and SIGHUP (a dropped SSH connection) mean no answer came,
Ctrl-C is the person's decline; a closed stdout ends quietly."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.terminal import signals
from askcli.terminal.signals import interrupted_text
from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES, PEERS
from tests.support.processes import askcli_path

LOGIN = EXAMPLES / "login.json"
BASH = EXAMPLES / "bash.json"
Q1 = "Which authentication method should the login use?"
Q2 = "Which extras should come with it?"
# answers typed before the prompt is reached, the prompt, and the answers given by then
PROMPTS: dict[str, tuple[Path, list[str], str, str]] = {
    "first-question": (LOGIN, [], "Choose 1-4 [1]: ", ""),
    "second-question": (
        LOGIN,
        ["2"],
        "Choose 1-4, several allowed (e.g. 1,3): ",
        f' Answers given before that: "{Q1}"="Session cookie".',
    ),
    "other-text": (
        LOGIN,
        ["2", "4"],
        "Other, type your answer: ",
        f' Answers given before that: "{Q1}"="Session cookie".',
    ),
    "review": (
        LOGIN,
        ["2", "1"],
        "Submit? [y]: ",
        f' Answers given before that: "{Q1}"="Session cookie", "{Q2}"="Rate limiting".',
    ),
    "permission": (BASH, [], "Allow? 1 or 3 (y/n): ", ""),
}
SIGNALS = [(signal.SIGTERM, 143), (signal.SIGHUP, 129)]
WHY = {signal.SIGTERM: "askcli was stopped", signal.SIGHUP: "the terminal hung up"}
NOTICE = {
    signal.SIGTERM: "askcli: stopped (SIGTERM)",
    signal.SIGHUP: "askcli: the terminal hung up (SIGHUP)",
}


def no_answer(sig: signal.Signals, before: str = "") -> str:
    return f"No answer from the user ({WHY[sig]})." + before


class Running:
    """askcli with pipes, its stderr read as it comes so a test can wait for a prompt."""

    def __init__(
        self,
        args: list[str],
        tmp_path: Path,
        stdout: int = subprocess.PIPE,
        env: dict[str, str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            [str(askcli_path()), *args],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env={**os.environ, "NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path), **(env or {})},
        )
        self.err = b""

    def wait_for(self, text: str, timeout: float = 5) -> None:
        assert self.proc.stderr is not None
        end = time.monotonic() + timeout
        while text.encode() not in self.err:
            left = end - time.monotonic()
            assert left > 0, f"no {text!r} in:\n{self.err.decode()}"
            ready, _, _ = select.select([self.proc.stderr], [], [], left)
            if ready:
                chunk = os.read(self.proc.stderr.fileno(), 4096)
                assert chunk, f"askcli ended before {text!r}:\n{self.err.decode()}"
                self.err += chunk

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def finish(self) -> tuple[int, bytes, bytes]:
        out, rest = self.proc.communicate(timeout=10)
        return self.proc.returncode, out or b"", self.err + rest


def reach(
    source: Path, answers: list[str], prompt: str, tmp_path: Path, *more: str, **kw: Any
) -> Running:
    run = Running(["ask", *more, str(source)], tmp_path, **kw)
    for answer in answers:
        run.wait_for(": ")
        run.type(answer)
    run.wait_for(prompt)
    return run


def signalled(run: Running, sig: signal.Signals) -> tuple[int, bytes, str]:
    run.proc.send_signal(sig)
    code, out, err = run.finish()
    assert b"Traceback" not in err, err.decode()
    return code, out, err.decode()


@pytest.mark.parametrize("where", PROMPTS)
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_a_signal_at_every_prompt_is_no_answer_with_the_answers_so_far(
    where: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    source, answers, prompt, before = PROMPTS[where]
    code, out, err = signalled(reach(source, answers, prompt, tmp_path), sig)
    assert code == status
    reply = json.loads(out)
    block = reply["content"][0] if "role" in reply else reply
    assert block["is_error"] is True
    assert block["content"] == no_answer(sig, before)
    assert "doesn't want to proceed" not in out.decode()
    assert err.rstrip().endswith(NOTICE[sig])


@pytest.mark.parametrize("mode", ["result", "answers", "sdk", "text"])
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_every_output_mode_says_no_answer(
    mode: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    source, answers, prompt, before = PROMPTS["second-question"]
    code, out, _ = signalled(reach(source, answers, prompt, tmp_path, "--output", mode), sig)
    assert code == status
    text = no_answer(sig, before)
    if mode == "text":
        assert out.decode() == text + "\n"
        return
    got = json.loads(out)
    if mode == "result":
        assert got["content"][0]["content"] == text and got["content"][0]["is_error"] is True
    elif mode == "answers":
        assert got["error"] == text
        assert got["answers"] == {Q1: "Session cookie"}
    else:  # the person is gone: the agent is stopped too
        assert got == {"behavior": "deny", "message": text, "interrupt": True}


@pytest.mark.parametrize("mode", ["answers", "sdk"])
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_the_permission_prompt_says_no_answer_in_every_mode(
    mode: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    source, answers, prompt, _ = PROMPTS["permission"]
    code, out, _ = signalled(reach(source, answers, prompt, tmp_path, "--output", mode), sig)
    assert code == status
    got = json.loads(out)
    if mode == "answers":
        assert got["error"] == no_answer(sig) and got["allowed"] is False
    else:
        assert got == {"behavior": "deny", "message": no_answer(sig), "interrupt": True}


ENVELOPES = {
    "bare": ("bare.json", "Choose 1-"),
    "tool_use": ("library.json", "Choose 1-"),
    "message": ("login.json", "Choose 1-"),
    "stream-json": ("stream-json.jsonl", "Choose 1-"),
    "control_request": ("control-request.json", "Choose 1-"),
    "openai": ("openai-message.json", "Choose 1-"),
    "responses": ("responses-call.json", "Choose 1-"),
}


def _texts(reply: Any) -> list[str]:
    """Every result text in a reply line, whatever its envelope."""
    if isinstance(reply, dict):
        found = []
        for key in ("content", "output", "message"):
            if isinstance(reply.get(key), str):
                found.append(reply[key])
        for value in reply.values():
            found += _texts(value)
        return found
    if isinstance(reply, list):
        return [text for item in reply for text in _texts(item)]
    return []


@pytest.mark.parametrize("envelope", ENVELOPES)
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_every_envelope_says_no_answer_for_every_call_of_the_message(
    envelope: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    name, prompt = ENVELOPES[envelope]
    code, out, _ = signalled(reach(EXAMPLES / name, [], prompt, tmp_path), sig)
    assert code == status
    lines = [json.loads(line) for line in out.decode().splitlines()]
    texts = [text for line in lines for text in _texts(line)]
    # the OpenAI message holds two calls: the Bash call after the question gets it too
    assert texts == [no_answer(sig)] * (2 if envelope == "openai" else 1), lines
    assert all(line.get("is_error", True) is True for line in lines if "is_error" in line)


@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_the_other_calls_of_a_message_get_the_same_text(
    sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    first, second = call(question("First?"), id="toolu_a"), call(question("Second?"), id="toolu_b")
    message = {"role": "assistant", "content": [first, second]}
    path = tmp_path / "message.json"
    path.write_text(json.dumps(message))
    code, out, _ = signalled(reach(path, [], "Choose 1-", tmp_path), sig)
    assert code == status
    blocks = json.loads(out)["content"]
    assert [(b["tool_use_id"], b["content"], b["is_error"]) for b in blocks] == [
        ("toolu_a", no_answer(sig), True),
        ("toolu_b", no_answer(sig), True),
    ]


def test_ctrl_c_stays_the_persons_decline(tmp_path: Path) -> None:
    source, answers, prompt, before = PROMPTS["second-question"]
    run = reach(source, answers, prompt, tmp_path, "--output", "sdk")
    code, out, err = signalled(run, signal.SIGINT)
    assert code == 130
    decision = json.loads(out)
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE + before, "interrupt": True}
    assert err.rstrip().endswith("askcli: interrupted")


def test_ctrl_c_at_the_permission_prompt_stays_a_decline(tmp_path: Path) -> None:
    source, answers, prompt, _ = PROMPTS["permission"]
    code, out, _ = signalled(reach(source, answers, prompt, tmp_path), signal.SIGINT)
    assert code == 130
    assert json.loads(out)["content"] == REJECT_MESSAGE


@pytest.mark.parametrize("where", PROMPTS)
def test_a_closed_stdout_at_every_prompt_ends_quietly(where: str, tmp_path: Path) -> None:
    source, answers, prompt, _ = PROMPTS[where]
    run = reach(source, answers, prompt, tmp_path)
    assert run.proc.stdout is not None
    run.proc.stdout.close()  # the agent reading the results went away
    run.proc.send_signal(signal.SIGTERM)  # askcli now has a result to write
    code = run.proc.wait(timeout=10)
    assert run.proc.stderr is not None
    err = run.err + run.proc.stderr.read()
    run.proc.stderr.close()
    assert run.proc.stdin is not None
    run.proc.stdin.close()
    assert code == 141
    assert b"Traceback" not in err and b"Exception ignored" not in err


def test_a_closed_stdout_after_answering_ends_quietly(tmp_path: Path) -> None:
    run = reach(EXAMPLES / "library.json", [], "Choose 1-4 [1]: ", tmp_path)
    assert run.proc.stdout is not None
    run.proc.stdout.close()
    run.type("2")
    code = run.proc.wait(timeout=10)
    assert run.proc.stderr is not None and run.proc.stdin is not None
    err = run.err + run.proc.stderr.read()
    run.proc.stderr.close()
    run.proc.stdin.close()
    assert code == 141
    assert b"Traceback" not in err


def test_a_second_signal_while_the_result_is_written_changes_nothing(tmp_path: Path) -> None:
    run = reach(LOGIN, ["2"], "several allowed", tmp_path)
    run.proc.send_signal(signal.SIGTERM)
    time.sleep(0.05)  # delivered together, Python would run SIGINT's handler first
    if run.proc.poll() is None:
        run.proc.send_signal(signal.SIGINT)
    code, out, err = run.finish()
    assert code == 143
    assert b"Traceback" not in err
    content = json.loads(out)["content"][0]["content"]
    assert content.startswith(no_answer(signal.SIGTERM))


# --- askcli claude: the open can_use_tool call -------------------------------------------

FAKE = PEERS / "fake-claude"


@pytest.mark.parametrize(("tool", "prompt"), [("Bash", "Allow?"), ("AskUserQuestion", "Choose 1-")])
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_claude_denies_the_open_call_with_the_no_answer_text(
    tool: str, prompt: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    log = tmp_path / "received.jsonl"
    env = {"FAKE_CLAUDE_MODE": "ask", "FAKE_CLAUDE_TOOL": tool, "FAKE_CLAUDE_LOG": str(log)}
    run = Running(["claude", "--claude-bin", str(FAKE), "go"], tmp_path, env=env)
    run.wait_for(prompt)
    code, _, err = signalled(run, sig)
    assert code == status, err
    received = [json.loads(line) for line in log.read_text().splitlines()]
    (answer,) = [m["response"] for m in received if m["type"] == "control_response"]
    assert answer["request_id"] == "perm-1"
    assert answer["response"] == {"behavior": "deny", "message": no_answer(sig), "interrupt": True}


# --- in process --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("received", "why"),
    [
        ([], None),
        ([signal.SIGINT], None),
        ([signal.SIGHUP], "the terminal hung up"),
        ([signal.SIGTERM], "askcli was stopped"),
        ([signal.SIGINT, signal.SIGTERM], "askcli was stopped"),  # askcli claude: after a turn
        ([signal.SIGHUP, signal.SIGTERM], "the terminal hung up"),
    ],
)
def test_the_reason_is_the_first_signal_that_is_not_ctrl_c(
    received: list[int], why: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(signals, "_received", list(received))
    assert signals.no_answer_reason() == why
    answers = {"Q?": "A"}
    text = interrupted_text(answers)
    if why is None:
        assert text == REJECT_MESSAGE + ' Answers given before that: "Q?"="A".'
        assert signals.stop_notice() == "interrupted"
    else:
        assert text == f'No answer from the user ({why}). Answers given before that: "Q?"="A".'
        assert signals.stop_notice() != "interrupted"


# --- a Claude Code that takes the answer states: a stop is a dismissal -------------------

UNANSWERED_Q = "Which color?"


def _stream(tmp_path: Path, capabilities: list[str]) -> Path:
    """A stream-json session: system/init, then a can_use_tool request for AskUserQuestion."""
    init = {"type": "system", "subtype": "init", "session_id": "s1", "capabilities": capabilities}
    request = {
        "type": "control_request",
        "request_id": "req_1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "AskUserQuestion",
            "input": {"questions": [question(UNANSWERED_Q)]},
            "tool_use_id": "toolu_s",
        },
    }
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (init, request)))
    return path


@pytest.mark.parametrize("told", [True, False], ids=["capability", "no-capability"])
@pytest.mark.parametrize(("sig", "status"), SIGNALS)
def test_a_signal_is_a_dismissal_for_a_claude_code_that_takes_it(
    told: bool, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    source = _stream(tmp_path, ["ask_user_question_unanswered_v1"] if told else [])
    run = reach(source, [], "Choose 1-", tmp_path, "--wording", "claude-code")
    code, out, err = signalled(run, sig)
    assert code == status, err
    (line,) = [json.loads(text) for text in out.decode().splitlines()]
    assert line["type"] == "control_response"
    assert line["response"]["request_id"] == "req_1"
    decision = line["response"]["response"]
    if told:
        assert decision["behavior"] == "allow", decision
        assert decision["updatedInput"]["annotations"] == {
            UNANSWERED_Q: {"unanswered": "dismissed"}
        }
        assert decision["updatedInput"]["answers"] == {}
    else:
        assert decision == {"behavior": "deny", "message": no_answer(sig), "interrupt": True}
    assert err.rstrip().endswith(NOTICE[sig])
