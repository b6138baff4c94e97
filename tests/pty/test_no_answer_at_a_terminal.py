"""At a terminal, a hang-up or SIGTERM is no answer (not a refusal) and Ctrl-C is a decline, at a
question and at a permission prompt, at 80 and at 40 columns (issue 11, item 6)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.paths import EXAMPLES
from tests.support.raw_terminal import Terminal

LOGIN = EXAMPLES / "login.json"
BASH = EXAMPLES / "bash.json"
Q1 = "Which authentication method should the login use?"
COLUMNS = pytest.mark.parametrize("columns", [80, 40])


@COLUMNS
@pytest.mark.parametrize("where", ["question", "permission"])
def test_a_hang_up_is_no_answer_with_the_answers_so_far(
    where: str, columns: int, tmp_path: Path
) -> None:
    source = LOGIN if where == "question" else BASH
    term = Terminal(["ask", "--notify", "none", str(source)], tmp_path, columns, TERM="dumb")
    before = ""
    if where == "question":
        term.expect("Choose 1-4 [1]: ")
        term.type("2")
        term.expect("(e.g. 1,3): ")
        before = f' Answers given before that: "{Q1}"="Session cookie".'
    else:
        term.expect("(y/n)")
    term.child.close(force=False)  # the terminal goes away: SIGHUP, and reads fail
    assert term.child.exitstatus == 129
    reply = json.loads(term.out.read_text())
    block = reply["content"][0] if "role" in reply else reply
    assert block["content"] == "No answer from the user (the terminal hung up)." + before
    assert block["is_error"] is True


@COLUMNS
@pytest.mark.parametrize("where", ["question", "permission"])
def test_sigterm_is_no_answer_and_ctrl_c_a_decline(
    where: str, columns: int, tmp_path: Path
) -> None:
    source = LOGIN if where == "question" else BASH
    prompt = "Choose 1-4 [1]: " if where == "question" else "(y/n)"
    for sig, status, text in [
        (signal.SIGTERM, 143, "No answer from the user (askcli was stopped)."),
        (signal.SIGINT, 130, "The user doesn't want to proceed with this tool use."),
    ]:
        term = Terminal(["ask", "--output", "sdk", str(source)], tmp_path, columns)
        term.expect(prompt)
        term.child.kill(sig)
        got_status, decision = term.finish()
        assert got_status == status, term.log()
        assert decision["behavior"] == "deny" and decision["message"].startswith(text)
        assert b"Traceback" not in term.shown
