"""Signals at every prompt: SIGTERM, SIGHUP (a dropped SSH connection), a closed stdout."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from askcli.results import REJECT_MESSAGE

from .helpers import EXAMPLES, askcli_path

LOGIN = EXAMPLES / "login.json"
BASH = EXAMPLES / "bash.json"
# answers typed before the prompt is reached, and the prompt
PROMPTS = {
    "first-question": (LOGIN, [], "Choose 1-4 [1]: "),
    "second-question": (LOGIN, ["2"], "Choose 1-4, several allowed (e.g. 1,3): "),
    "other-text": (LOGIN, ["2", "4"], "Other, type your answer: "),
    "review": (LOGIN, ["2", "1"], "Submit? [y]: "),
    "permission": (BASH, [], "Allow? 1 or 3 (y/n), or type what to do instead: "),
}


class Running:
    """askcli with pipes, its stderr read as it comes so a test can wait for a prompt."""

    def __init__(self, source: Path, tmp_path: Path, stdout: int = subprocess.PIPE) -> None:
        self.proc = subprocess.Popen(
            [str(askcli_path()), "ask", str(source)],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env={**os.environ, "NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path)},
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


def reach(source: Path, answers: list[str], prompt: str, tmp_path: Path, **kw: int) -> Running:
    run = Running(source, tmp_path, **kw)
    for answer in answers:
        run.wait_for(": ")
        run.type(answer)
    run.wait_for(prompt)
    return run


@pytest.mark.parametrize("where", PROMPTS)
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_at_every_prompt_gives_the_decline_result(
    where: str, sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    source, answers, prompt = PROMPTS[where]
    run = reach(source, answers, prompt, tmp_path)
    run.proc.send_signal(sig)
    code, out, err = run.finish()
    assert code == status
    assert b"Traceback" not in err
    reply = json.loads(out)
    block = reply["content"][0] if "role" in reply else reply
    assert block["is_error"] is True
    assert block["content"].startswith(REJECT_MESSAGE)


@pytest.mark.parametrize("where", PROMPTS)
def test_a_closed_stdout_at_every_prompt_ends_quietly(where: str, tmp_path: Path) -> None:
    source, answers, prompt = PROMPTS[where]
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
    assert json.loads(out)["content"][0]["content"].startswith(REJECT_MESSAGE)
