"""A document askcli cannot take says where it is (the file, the document and the file's line)
and, when it is a bare array of questions or todos, how to fix it (issue 11, item 11)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.calls import call, question
from tests.support.processes import run_askcli


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
