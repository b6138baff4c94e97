"""Streams of calls through pipes: each result comes out before the next call is read."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import IO

from tests.support.calls import call, question
from tests.support.processes import askcli_path


def read_line(stream: IO[str], timeout: float = 5) -> str:
    """One line from a pipe, failing rather than hanging when none comes."""
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, "no result line came out"
    return stream.readline()


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(askcli_path()), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_each_result_is_read_before_the_next_call_is_written() -> None:
    with start("ask") as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for n in range(3):
            proc.stdin.write(json.dumps(call(id=f"toolu_{n}")) + "\n2\n")
            proc.stdin.flush()
            reply = json.loads(read_line(proc.stdout))  # askcli is still running, stdin open
            assert reply["tool_use_id"] == f"toolu_{n}"
            assert proc.poll() is None
        proc.stdin.close()
        assert proc.wait(timeout=5) == 0


def test_pretty_printed_calls_stream_the_same_way() -> None:
    with start("ask", "--output", "text") as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(call(id="toolu_pretty"), indent=2) + "\n1\n")
        proc.stdin.flush()
        line = read_line(proc.stdout)
        assert line.startswith('User has answered your questions: "Which one?"="A"')
        proc.stdin.close()
        assert proc.wait(timeout=5) == 0


def test_a_bad_call_in_the_middle_of_a_stream_gets_its_error_and_the_stream_goes_on() -> None:
    good = json.dumps(call(id="toolu_good"))
    bad = json.dumps(call(question(labels=("A",)), id="toolu_bad"))
    text = f"{good}\n1\n{bad}\n{{broken\n}}\n{good}\n2\n"
    proc = subprocess.run(
        [str(askcli_path()), "ask"], input=text, capture_output=True, text=True, timeout=10
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["tool_use_id"] for r in replies] == ["toolu_good", "toolu_bad", None, "toolu_good"]
    assert [r.get("is_error", False) for r in replies] == [False, True, True, False]
    assert proc.returncode == 2  # the first call that was not answered was invalid


def test_many_calls_in_one_stream() -> None:
    count = 2000
    text = "".join(json.dumps(call(id=f"toolu_{n}")) + "\n1\n" for n in range(count))
    proc = subprocess.run(
        [str(askcli_path()), "ask", "--output", "sdk"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    replies = proc.stdout.splitlines()
    assert len(replies) == count
    assert all(json.loads(r)["behavior"] == "allow" for r in replies)


def test_answers_from_a_file_while_calls_come_on_stdin(tmp_path: Path) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text("2\n1\n")
    calls = json.dumps(call(id="toolu_1")) + "\n" + json.dumps(call(id="toolu_2")) + "\n"
    proc = subprocess.run(
        [str(askcli_path()), "ask", "--answers", str(answers), "--output", "answers"],
        input=calls,
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 0
    picked = [json.loads(line)["answers"]["Which one?"] for line in proc.stdout.splitlines()]
    assert picked == ["B", "A"]


def test_answers_file_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(askcli_path()), "ask", "--answers", str(tmp_path / "missing")],
        input="",
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 2
    assert "cannot read answers from" in proc.stderr
    assert proc.stdout == ""
