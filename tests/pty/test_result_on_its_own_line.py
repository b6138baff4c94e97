"""The result line starts on its own line at a terminal (issue 11, item 9(d); issue 21, item 8):
an answer ended with Ctrl-D or with Enter, Ctrl-D at an empty prompt, stdout elsewhere, a
pasted call with its answer."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from tests.support.terminals import Pty

WIDTHS = [80, 40]


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


@pytest.mark.parametrize("columns", WIDTHS)
def test_a_pasted_call_with_its_answer_keeps_the_result_on_its_own_line(
    tmp_path: Path, columns: int
) -> None:
    library = json.dumps(json.loads((EXAMPLES / "library.json").read_text()))
    term = Pty(["ask"], tmp_path, columns)
    term.expect("Ctrl-D ends.")
    term.send(library + "\n2\n")  # the call and an answer typed before its question
    term.expect("(ignored what was typed before this question)")
    term.expect("Choose 1-4 [1]: ")
    time.sleep(0.2)
    term.send("2\n3\n")  # its answer, and a line pasted with it
    term.expect('"tool_use_id"')
    term.send("\x04")
    shown = term.finish()
    results = [line for line in shown.split("\n") if '"tool_use_id"' in line]
    assert [line[0] for line in results] == ["{"], shown  # one result, alone on its line
    assert json.loads(results[0])["content"].count("dayjs") == 1
