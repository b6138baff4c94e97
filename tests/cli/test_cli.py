"""The installed askcli, driven through pipes: streams, exit statuses, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path, run_askcli

LIBRARY = EXAMPLES / "library.json"


def askcli(
    *args: str, input: str = "", env: dict[str, str] | None = None, timeout: float = 10
) -> subprocess.CompletedProcess[str]:
    return run_askcli(*args, input=input, env=env, timeout=timeout)


def result(proc: subprocess.CompletedProcess[str]) -> Any:
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def test_file_source_answers_on_stdin() -> None:
    proc = askcli("ask", str(LIBRARY), input="2\n")
    assert proc.returncode == 0
    assert result(proc) == {
        "type": "tool_result",
        "tool_use_id": "toolu_01ABC123",
        "content": 'User has answered your questions: "Which library should we use for date '
        'formatting?"="dayjs". You can now continue with the user\'s answers in mind.',
    }
    assert "  2. dayjs - Moment.js compatible" in proc.stderr
    assert "Choose 1-4 [1]: " in proc.stderr
    assert "Moment.js" not in proc.stdout  # menus stay on stderr


def test_call_and_answers_in_one_stdin_stream() -> None:
    text = LIBRARY.read_text()  # pretty-printed, over several lines
    proc = askcli("ask", input=text + "3\n")
    assert proc.returncode == 0
    assert '"Temporal"' in result(proc)["content"]


def test_printf_style_one_line_call_then_answers() -> None:
    one_line = json.dumps(call(question(labels=("A", "B", "C"), multi=True)))
    proc = askcli("ask", "-", input=f"{one_line}\n1,3\n\n")
    assert proc.returncode == 0
    assert '"Which one?"="A, C"' in result(proc)["content"]


def test_no_answer_lines_exit_3_with_a_result() -> None:
    started = time.monotonic()
    proc = askcli("ask", str(LIBRARY), input="")
    assert time.monotonic() - started < 5
    assert proc.returncode == 3
    assert result(proc)["content"] == "No answer from the user (the input ended)."
    assert result(proc)["is_error"] is True


def test_decline_exits_1() -> None:
    proc = askcli("ask", str(LIBRARY), input="q\n")
    assert proc.returncode == 1
    assert result(proc)["content"] == REJECT_MESSAGE


def test_invalid_call_exits_2_and_says_why_on_stderr() -> None:
    bad = call(question(labels=("Only",)))
    proc = askcli("ask", input=json.dumps(bad) + "\n")
    assert proc.returncode == 2
    content = result(proc)["content"]
    assert content.startswith("<tool_use_error>InputValidationError: [")
    assert "questions[0].options: Array must contain at least 2 element(s)" in proc.stderr
    assert "Choose" not in proc.stderr  # nothing was asked


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"questions": [}\n', "not valid JSON"),
        ("hello\n", "not a JSON object"),
        ('{"questions": [\n', "ended inside a JSON document"),
        ("[1, 2]\n", "not a JSON object"),
    ],
)
def test_unreadable_input_exits_2_with_a_null_id_result(text: str, reason: str) -> None:
    proc = askcli("ask", input=text)
    assert proc.returncode == 2
    assert result(proc)["tool_use_id"] is None
    assert reason in result(proc)["content"]
    assert reason in proc.stderr


def test_unknown_envelope_keys_are_ignored() -> None:
    doc = {**call(), "caller": {"type": "direct"}, "usage": {"input_tokens": 3}}
    proc = askcli("ask", input=json.dumps(doc) + "\n1\n")
    assert proc.returncode == 0


def test_assistant_message_gets_one_user_message_back() -> None:
    proc = askcli("ask", str(EXAMPLES / "login.json"), input="2\n1,2\ny\n")
    assert proc.returncode == 0
    reply = result(proc)
    assert reply["role"] == "user"
    (block,) = reply["content"]
    assert block["tool_use_id"] == "toolu_01LoginAuth"
    assert '"Which extras should come with it?"="Rate limiting, 2FA"' in block["content"]
    assert "Assistant: Before I add login" in proc.stderr


def test_a_stream_of_calls_answers_each_and_exits_with_the_first_failure() -> None:
    first = json.dumps(call(id="toolu_1"))
    second = json.dumps(call(id="toolu_2"))
    third = json.dumps(call(id="toolu_3"))
    proc = askcli("ask", input=f"{first}\n1\n{second}\nq\n{third}\n2\n")
    assert proc.returncode == 1
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["tool_use_id"] for r in replies] == ["toolu_1", "toolu_2", "toolu_3"]
    assert [r.get("is_error", False) for r in replies] == [False, True, False]


def test_too_few_answers_then_the_next_call_resynchronises() -> None:
    two = json.dumps(call(question("One?"), question("Two?"), id="toolu_2q"))
    nxt = json.dumps(call(id="toolu_next"))
    proc = askcli("ask", input=f"{two}\n1\n{nxt}\n2\n")
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert replies[0]["content"].startswith("No answer from the user (the input ended).")
    assert '"One?"="A"' in replies[0]["content"]
    assert replies[1]["tool_use_id"] == "toolu_next" and "is_error" not in replies[1]
    assert proc.returncode == 3


def test_leftover_answer_lines_between_calls_are_skipped_with_a_notice() -> None:
    first = json.dumps(call(id="toolu_1"))
    proc = askcli("ask", input=f"{first}\nq\n1\n2\n{first}\n1\n")
    assert len(proc.stdout.splitlines()) == 2
    assert proc.stderr.count("skipping lines that do not begin a JSON call") == 1


def test_timeout_gives_up_on_a_silent_person() -> None:
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--timeout", "0.5", str(LIBRARY)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    started = time.monotonic()
    out, err = _wait_open_stdin(proc)
    assert time.monotonic() - started < 5
    assert proc.returncode == 3
    assert json.loads(out)["content"] == "No answer from the user (no reply within 0.5 seconds)."
    assert "no reply within 0.5 seconds" in err


def _wait_open_stdin(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for the process while its stdin stays open (a person who types nothing)."""
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    proc.wait(timeout=10)
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()
    return out, err


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_bad_timeout_is_a_usage_error(value: str) -> None:
    proc = askcli("ask", "--timeout", value, str(LIBRARY))
    assert proc.returncode == 2
    assert "--timeout" in proc.stderr
    assert proc.stdout == ""


def test_missing_file_and_directory_are_usage_errors(tmp_path: Path) -> None:
    missing = askcli("ask", str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr and "No such file" in missing.stderr
    directory = askcli("ask", str(tmp_path))
    assert directory.returncode == 2
    assert "it is a directory" in directory.stderr


def test_works_in_the_c_locale_with_non_ascii_text() -> None:
    doc = call(question("用哪个库？", "库", ("甲", "乙")))
    text = json.dumps(doc, ensure_ascii=False) + "\n2\n"
    proc = askcli("ask", input=text, env={"LC_ALL": "C", "LANG": "C"})
    assert proc.returncode == 0
    assert '"用哪个库？"="乙"' in result(proc)["content"]


def test_version_and_help() -> None:
    assert askcli("--version").stdout.startswith("askcli, version ")
    helptext = askcli("ask", "--help").stdout
    assert "--timeout" in helptext and "Exit status" in helptext


@pytest.mark.parametrize("args", [(), ("todo",)])
def test_a_group_without_a_command_prints_its_usage_as_lines(args: tuple[str, ...]) -> None:
    proc = askcli(*args)
    assert proc.returncode == 2
    assert "\\n" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == f"Usage: {' '.join(('askcli', *args))} [OPTIONS] COMMAND [ARGS]..."
    assert "Commands:" in lines
    assert askcli(*args, "--help").stdout.strip() == proc.stderr.strip()


def test_python_dash_m() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "askcli", "ask", str(LIBRARY)],
        input="1\n",
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 0
    assert '="date-fns (Recommended)"' in json.loads(proc.stdout)["content"]
