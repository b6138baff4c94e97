"""Issue 11, items 9(d) and 11: the result line on its own line at a terminal, and the small
truths: ``make help``, "within 1 second", where a broken document is, the bare-array hint."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from askcli.lines import TextLineReader
from askcli.questions.conclusion import Ending
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES, ROOT
from tests.support.processes import askcli_path, run_askcli
from tests.support.terminals import Pty

WIDTHS = [80, 40]


# --- 9(d): the result line starts on its own line ---------------------------------------

CTRL_D = "\x04"


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize(
    ("example", "prompt", "typed"),
    [
        ("library.json", "Choose 1-4 [1]: ", "2"),
        ("bash.json", "(y/n)", "y"),
        ("bash.json", "(y/n)", "n: not now"),
    ],
)
def test_an_answer_ended_with_ctrl_d_does_not_glue_the_result_to_it(
    tmp_path: Path, columns: int, example: str, prompt: str, typed: str
) -> None:
    """Without line editing (with it, Ctrl-D ends only an empty line, as in a shell)."""
    term = Pty(["ask", str(EXAMPLES / example)], tmp_path, columns, editing=False)
    term.expect(prompt)
    term.send(typed + CTRL_D)  # the line ends at the end of input, not with Enter
    term.send(CTRL_D)
    shown = term.finish()
    result = next(line for line in shown.split("\n") if '"tool_use_id"' in line)
    assert result.startswith("{"), shown  # not `Choose 1-4 [1]: 2{"type":...`
    assert json.loads(result)
    assert f"{typed}\n{result}" in shown, shown  # and no blank line between


@pytest.mark.parametrize("columns", WIDTHS)
def test_an_answer_ended_with_enter_gets_no_blank_line(tmp_path: Path, columns: int) -> None:
    term = Pty(["ask", str(EXAMPLES / "library.json")], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.send("2\n")
    shown = term.finish()
    assert re.search(r"Choose 1-4 \[1\]: 2\n\{\"type\":\"tool_result\"", shown), shown


@pytest.mark.parametrize("columns", WIDTHS)
def test_ctrl_d_at_an_empty_prompt_gets_no_blank_line(tmp_path: Path, columns: int) -> None:
    term = Pty(["ask", str(EXAMPLES / "library.json")], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.send(CTRL_D)
    shown = term.finish()
    assert "Choose 1-4 [1]: \naskcli: no answer (the input ended)\n{" in shown, shown


@pytest.mark.parametrize("columns", WIDTHS)
def test_with_stdout_elsewhere_the_persons_line_is_ended_too(tmp_path: Path, columns: int) -> None:
    term = Pty(
        ["ask", str(EXAMPLES / "library.json")], tmp_path, columns, elsewhere=True, editing=False
    )
    out = term.out
    term.expect("Choose 1-4 [1]: ")
    term.send("2" + CTRL_D)
    term.send(CTRL_D)
    shown = term.finish()
    assert shown.endswith("Choose 1-4 [1]: 2\n"), shown  # the shell's prompt is not glued
    assert json.loads(out.read_text())["content"].startswith("User has answered")


# --- 11: make help --------------------------------------------------------------------


def test_make_help_lists_every_documented_target() -> None:
    makefile = (ROOT / "Makefile").read_text()
    documented = re.findall(r"^([A-Za-z0-9_.-]+):[^\n]*## ", makefile, re.MULTILINE)
    assert "claude-code" in documented  # the name with a hyphen the old pattern skipped
    proc = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    listed = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("  make ")]
    assert listed == documented, proc.stdout
    for line in proc.stdout.splitlines():  # the name and its text apart, whatever its length
        name = line.split()[1]
        assert line.startswith(f"  make {name} "), line


# --- 11: "within 1 second" -------------------------------------------------------------


@pytest.mark.parametrize(
    ("timeout", "words"),
    [
        (1, "no reply within 1 second"),
        (1.0, "no reply within 1 second"),
        (2, "no reply within 2 seconds"),
        (0.5, "no reply within 0.5 seconds"),
        (1.5, "no reply within 1.5 seconds"),
        (0.00001, "no reply within 0.00001 seconds"),
        (604800, "no reply within 604800 seconds"),
        (1234567.0, "no reply within 1234567 seconds"),
    ],
)
def test_the_timeout_reason_counts_seconds_in_english(timeout: float, words: str) -> None:
    conv = Conversation(
        TextLineReader(io.StringIO("")), io.StringIO(), options=RunOptions(timeout=timeout)
    )
    assert conv.why(Ending.TIMEOUT) == words
    assert conv.why(Ending.ENDED) == "the input ended"


def test_one_second_end_to_end(tmp_path: Path) -> None:
    calls = tmp_path / "call.json"
    calls.write_text(json.dumps(call()) + "\n")
    proc = subprocess.Popen(  # the answers' stdin stays open: only the timeout ends the wait
        [str(askcli_path()), "ask", "--timeout", "1", "--state", os.devnull, str(calls)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.wait(timeout=10) == 3
    finally:
        proc.kill()
    out, err = proc.communicate()
    assert json.loads(out)["content"] == "No answer from the user (no reply within 1 second)."
    assert "askcli: no answer (no reply within 1 second)" in err


# --- 11: where a broken document is ----------------------------------------------------


def _lines(*docs: str) -> str:
    return "".join(doc if doc.endswith("\n") else doc + "\n" for doc in docs)


GOOD = json.dumps({"todos": [{"content": "a", "status": "pending", "activeForm": "A"}]})
PRETTY = json.dumps({"todos": [{"content": "b", "status": "pending", "activeForm": "B"}]}, indent=2)


def _run_file(tmp_path: Path, text: str, name: str = "calls.json") -> Any:
    path = tmp_path / name
    path.write_text(text)
    return run_askcli("ask", "--state", os.devnull, name, cwd=tmp_path)


def test_a_json_error_in_the_third_document_names_file_document_and_file_line(
    tmp_path: Path,
) -> None:
    broken = '{\n  "todos": [\n    {"content": "c",\n     "status": "pending",}\n  ]\n}'
    text = _lines(GOOD, PRETTY, broken)
    proc = _run_file(tmp_path, text)
    assert proc.returncode == 2
    line = text.split("\n").index('     "status": "pending",}') + 1  # the file's line
    assert line == 14  # 1 + 9 lines before the document, and its 4th line
    errors = [row for row in proc.stderr.splitlines() if row.startswith("askcli: ")]
    assert errors == [
        f"askcli: calls.json: document 3, line {line}: the input is not valid JSON: "
        "Expecting property name enclosed in double quotes (column 26)"
    ]
    # the agent is told the same place
    results = [json.loads(row) for row in proc.stdout.splitlines()]
    assert f"calls.json: document 3, line {line}: the input" in results[2]["content"]
    assert "(column 26)" in results[2]["content"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a document after answer lines and blank lines: every line of the file counts
        (_lines(GOOD, "", "", '{"todos": [}'), "document 2, line 4: the input is not valid JSON"),
        # a document that begins after another on the same line
        (GOOD + ' {"todos": ]}\n', "document 2, line 1: the input is not valid JSON"),
        # a broken document on one line, after a pretty-printed one
        (
            _lines(PRETTY, '{"a": NaN}'),
            f"document 2, line {PRETTY.count(chr(10)) + 2}: the input is not valid JSON",
        ),
        # text before the first document
        ("\n\nhello\n", "document 1, line 3: the input is not a JSON object: 'hello'"),
        # a document the input ends inside: the line where it began
        (_lines(GOOD, '{"todos": [', '  {"content": "x"'), "document 2, line 2: the input ended"),
        # bytes that are not UTF-8: the line they are on
        (GOOD + '\n{"todos": [\n\n "\xff"]}\n', "document 2, line 4: the input is not valid UTF-8"),
    ],
)
def test_every_unreadable_document_says_where_it_is(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "calls.json"
    path.write_bytes(text.encode("utf-8").replace("\xff".encode(), b"\xff"))
    proc = run_askcli("ask", "--state", os.devnull, "calls.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"askcli: calls.json: {expected}" in proc.stderr, proc.stderr


def test_stdin_is_named_and_its_answer_lines_count(tmp_path: Path) -> None:
    bare = json.dumps({"questions": [question()]})
    text = _lines(bare, "2", "", '{"questions": [}')  # the answer lines are lines 2 and 3
    proc = run_askcli("ask", "--state", os.devnull, input=text)
    assert proc.returncode == 2
    assert "askcli: stdin: document 2, line 4: the input is not valid JSON: " in proc.stderr


def test_a_path_that_could_forge_a_line_is_escaped(tmp_path: Path) -> None:
    name = "a\x1b[31mb.json"
    proc = _run_file(tmp_path, '{"todos": [}\n', name)
    assert "\x1b" not in proc.stderr
    assert "askcli: a\\x1b[31mb.json: document 1, line 1: " in proc.stderr


# --- 11: the bare-array hint -----------------------------------------------------------

QUESTION = question()
TODO = {"content": "a", "status": "pending", "activeForm": "A"}
WRAP_QUESTIONS = 'wrap them in {"questions": [...]}'
WRAP_TODOS = 'wrap them in {"todos": [...]}'


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        (json.dumps([QUESTION]), WRAP_QUESTIONS),
        (json.dumps([QUESTION, question("Two?")], indent=2), WRAP_QUESTIONS),
        (json.dumps([TODO]), WRAP_TODOS),
        (json.dumps(QUESTION), 'wrap it in {"questions": [...]}'),
        (json.dumps(TODO), 'wrap it in {"todos": [...]}'),
        (json.dumps({**call(), "input": [QUESTION]}), WRAP_QUESTIONS),
        (
            json.dumps({"type": "tool_use", "id": "t", "name": "TodoWrite", "input": [TODO]}),
            WRAP_TODOS,
        ),
        (
            json.dumps(
                {
                    "type": "function_call",
                    "call_id": "c",
                    "name": "AskUserQuestion",
                    "arguments": json.dumps([QUESTION]),
                }
            ),
            WRAP_QUESTIONS,
        ),
    ],
)
def test_questions_or_todos_without_their_object_get_a_hint(text: str, hint: str) -> None:
    proc = run_askcli("ask", "--state", os.devnull, input=text + "\n")
    assert proc.returncode == 2
    (error,) = [row for row in proc.stderr.splitlines() if row.startswith("askcli: ")]
    assert hint in error, proc.stderr
    (reply,) = proc.stdout.splitlines()  # one result for the whole document
    assert hint in reply.replace('\\"', '"')  # the agent is told how to fix it, too


@pytest.mark.parametrize(
    "text",
    [
        "[1, 2]",
        json.dumps([{"label": "x"}]),
        json.dumps({**call(), "name": "TodoWrite", "input": [QUESTION]}),  # not its items
    ],
)
def test_other_arrays_get_no_wrong_hint(text: str) -> None:
    proc = run_askcli("ask", "--state", os.devnull, input=text + "\n")
    assert proc.returncode == 2
    assert "wrap" not in proc.stderr


@pytest.mark.parametrize(
    ("command", "statuses"),
    [
        (["ask"], {0, 1, 2, 3, 74, 129, 130, 141, 143}),
        (["claude"], {0, 1, 2, 3, 74, 129, 130, 141, 143}),
        (["check"], {0, 2, 74, 129, 130, 141, 143}),
        (["replay"], {0, 1, 2, 74, 129, 130, 141, 143}),
        (["todo", "show"], {0, 2, 74, 141}),
    ],
)
def test_help_names_every_exit_status(command: list[str], statuses: set[int]) -> None:
    shown = run_askcli(*command, "--help").stdout
    paragraph = shown[shown.index("Exit status") : shown.index("Options:")]
    named = {int(n) for n in re.findall(r"(?<![\w-])(\d+)(?=\s+[A-Za-z(])", paragraph)}
    assert named == statuses, paragraph
