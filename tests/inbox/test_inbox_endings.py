"""A call nobody answers prints the same with ``--inbox`` as without it (issue 29, item 7):
``askcli ask`` stopped by SIGTERM or SIGHUP while it waits at the person's end, or given up
after ``--timeout``, against ``askcli ask --inbox`` stopped the same way while its question
waits in the inbox. Both are real processes, signalled as a harness or a shell would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.asker_side import no_answer
from askcli.inbox.store import QueueState, open_store
from askcli.questions.outcome import Outcome
from askcli.status import ExitStatus
from askcli.terminal.options import RunOptions

from tests.support.calls import call, example, question
from tests.support.processes import askcli_path, poll

LOGIN = example("login.json")  # a message: a text, a single- and a multi-select question
PERMISSION = {"type": "tool_use", "id": "toolu_01Bash", "name": "Bash", "input": {"command": "ls"}}


STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _ended() -> Iterator[None]:
    """Every asker a test started has ended after it, whatever happened."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=5)


class Asker:
    """``askcli ask ARGS`` with its stdin left open (a person who types nothing), stderr
    kept in a file so that a test can wait for what it says."""

    def __init__(self, tmp: Path, where: str, document: Any, args: list[str], name: str) -> None:
        source = tmp / f"{name}.json"
        source.write_text(json.dumps(document))
        self.err = tmp / f"{name}.err"
        env = {
            **os.environ,
            "ASKCLI_INBOX": where,
            "XDG_STATE_HOME": str(tmp / "state"),
            "NO_COLOR": "1",
            "COLUMNS": "80",
        }
        with self.err.open("w") as err:
            self.proc = subprocess.Popen(
                [str(askcli_path()), "ask", *args, str(source)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env=env,
            )
        STARTED.append(self.proc)

    def said(self) -> str:
        return self.err.read_text()

    def wait_for(self, text: str) -> None:
        poll(lambda: text in self.said(), f"{text!r} on stderr", timeout=10)

    def printed(self) -> tuple[int, list[Any]]:
        """Its exit status and its stdout lines as JSON, once it ended."""
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.proc.wait(timeout=20)  # its stdin open until it ends: nobody typed, no end
        out, _ = self.proc.communicate(timeout=5)
        assert "Traceback" not in self.said(), self.said()
        return self.proc.returncode, [json.loads(line) for line in out.splitlines()]


def both(
    tmp: Path, where: str, document: Any, args: list[str], *, end: signal.Signals | None
) -> tuple[tuple[int, list[Any]], tuple[int, list[Any]]]:
    """What ``ask ARGS`` and ``ask --inbox ARGS`` print when nobody answers: each is sent
    ``end`` while it waits (None: they wait until their ``--timeout``)."""
    here = Asker(tmp, where, document, args, "here")
    here.wait_for("Choose ")
    inboxed = Asker(tmp, where, document, ["--inbox", *args], "inboxed")
    inboxed.wait_for("is waiting in the inbox")
    if end is not None:
        here.proc.send_signal(end)
        inboxed.proc.send_signal(end)
    return here.printed(), inboxed.printed()


@pytest.mark.process
@pytest.mark.parametrize("output", ["answers", "result", "sdk"])
@pytest.mark.parametrize(
    ("end", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["sigterm", "sighup"]
)
def test_a_signal_prints_the_same_with_the_inbox_as_without(
    inbox_where: str, tmp_path: Path, output: str, end: signal.Signals, status: int
) -> None:
    here, inboxed = both(tmp_path, inbox_where, LOGIN, ["--output", output], end=end)
    assert here[0] == status
    assert inboxed == here
    if output == "answers":
        (data,) = [line for line in here[1] if "questions" in line]
        assert set(data) == {"questions", "answers", "annotations", "status", "error"}
        assert set(data["status"].values()) == {"dismissed"}


@pytest.mark.process
@pytest.mark.parametrize("wording", ["claude-code-2.1.88", "claude-code"])
def test_a_timeout_prints_the_same_with_the_inbox_as_without(
    inbox_where: str, tmp_path: Path, wording: str
) -> None:
    document = call(question("Which color?", "Color", ("Red", "Blue")), id="toolu_01Color")
    args = ["--timeout", "1", "--wording", wording]
    for output in ("answers", "result"):
        started = time.monotonic()
        here, inboxed = both(tmp_path, inbox_where, document, [*args, "--output", output], end=None)
        assert time.monotonic() - started < 15
        assert here[0] == 3
        assert inboxed == here
    found = open_store(inbox_where).questions(states=tuple(QueueState))
    assert {q.state for q in found} == {QueueState.WITHDRAWN}


@pytest.mark.process
def test_a_permission_prompt_stopped_prints_the_same_with_the_inbox_as_without(
    inbox_where: str, tmp_path: Path
) -> None:
    here = Asker(tmp_path, inbox_where, PERMISSION, ["--output", "answers"], "here")
    here.wait_for("Allow? ")
    inboxed = Asker(tmp_path, inbox_where, PERMISSION, ["--inbox", "--output", "answers"], "in")
    inboxed.wait_for("is waiting in the inbox")
    here.proc.send_signal(signal.SIGTERM)
    inboxed.proc.send_signal(signal.SIGTERM)
    assert inboxed.printed() == here.printed()


# -- the same code, in process: what asks nothing, what cannot be asked -------------------


def test_a_todo_list_nobody_saw_is_no_answer_not_accepted() -> None:
    todos = {"type": "tool_use", "id": "toolu_01Todo", "name": "TodoWrite", "input": {"todos": []}}
    reply = no_answer(todos, Outcome.TIMED_OUT, options=RunOptions(timeout=2))
    assert reply.status is ExitStatus.NO_ANSWER
    (result,) = reply.results
    assert result.content == "No answer from the user (no reply within 2 seconds)."
    assert result.is_error and result.answers() == {"error": result.content}


def test_an_invalid_call_nobody_answered_keeps_the_status_of_how_the_wait_ended() -> None:
    invalid = call(question(labels=("Only",)), id="toolu_01Bad")
    reply = no_answer(invalid, Outcome.INTERRUPTED)
    assert reply.status is ExitStatus.INTERRUPTED  # so the asker still exits 130 / 143
    assert reply.results[0].is_error


def test_a_reason_of_the_inbox_is_said_as_the_input_s_end_is() -> None:
    document = call(question("Which color?", "Color", ("Red", "Blue")), id="toolu_01Gone")
    why = "the question was withdrawn"
    reply = no_answer(document, Outcome.ENDED, why=why)
    (result,) = reply.results
    assert result.content == "No answer from the user (the question was withdrawn)."
    assert result.answers()["status"] == {"Which color?": "dismissed"}
    assert reply.status is ExitStatus.NO_ANSWER
