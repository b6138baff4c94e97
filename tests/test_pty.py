"""The installed askcli in a real terminal (a pty), driven like a person with pexpect."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import signal
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.results import REJECT_MESSAGE

from .helpers import EXAMPLES, askcli_path, call, option

LIBRARY = EXAMPLES / "library.json"
LOGIN = EXAMPLES / "login.json"


class Terminal:
    """askcli in a pty, stdout to a file; failures show everything the terminal showed."""

    def __init__(self, args: list[str], tmp_path: Path, **env: str) -> None:
        self.out = tmp_path / "stdout.json"
        command = " ".join(shlex.quote(a) for a in [str(askcli_path()), *args])
        full_env = {
            **os.environ,
            "TERM": "dumb",
            "COLUMNS": "80",
            "XDG_STATE_HOME": str(tmp_path / "state"),
            **env,
        }
        for key in [k for k, v in env.items() if v == ""]:
            full_env.pop(key)
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            "/bin/sh",
            ["-c", f"exec {command} > {shlex.quote(str(self.out))}"],
            env=full_env,
            timeout=5,
            encoding="utf-8",
            dimensions=(24, 80),
        )
        self.child.logfile_read = self.log

    def expect(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {text!r}; the terminal showed:\n{self.log.getvalue()}")

    def type(self, line: str) -> None:
        self.child.sendline(line)

    def finish(self) -> tuple[int, Any]:
        """Wait for the exit; the status and the stdout line as JSON."""
        self.expect_end()
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, self.log.getvalue()
        text = self.out.read_text()
        return status, json.loads(text) if text.strip() else None

    def expect_end(self) -> None:
        try:
            self.child.expect(pexpect.EOF)
        except pexpect.TIMEOUT:
            pytest.fail(f"askcli did not exit; the terminal showed:\n{self.log.getvalue()}")


def test_single_question_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path)
    term.expect("[Library] Which library should we use for date formatting?")
    term.expect("  4. Other - type your own answer")
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    status, reply = term.finish()
    assert status == 0
    assert '"Which library should we use for date formatting?"="dayjs"' in reply["content"]


def test_two_questions_with_preview_other_and_review(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path)
    term.expect("Assistant: Before I add login to the app I need two decisions from you.")
    term.expect("Choose 1-4 [1]: ")
    term.type("p 2")
    term.expect("--- preview of 2. Session cookie ---")
    term.expect("Set-Cookie: sid=...; HttpOnly; Secure")
    term.expect("Choose 1-4 [1]: ")
    term.type("")
    term.expect("Choose 1-4, several allowed (e.g. 1,3): ")
    term.type("3,4")
    term.expect("Other, type your answer: ")
    term.type("Password reset")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, reply = term.finish()
    assert status == 0
    (block,) = reply["content"]
    assert '"Which extras should come with it?"="Audit log, Password reset"' in block["content"]
    assert "selected preview:\nPOST /login  ->  {" in block["content"]


def test_a_bad_line_is_explained_and_asked_again(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path)
    term.expect("Choose 1-4 [1]: ")
    term.type("7")
    term.expect("! there is no option 7; choose from 1-4")
    term.expect("Choose 1-4 [1]: ")
    term.type("q")
    status, reply = term.finish()
    assert status == 1
    assert reply["content"] == REJECT_MESSAGE and reply["is_error"] is True


@pytest.mark.parametrize(
    ("answers", "prompt"),
    [
        ([], "Choose 1-4 [1]: "),
        (["2"], "Choose 1-4, several allowed (e.g. 1,3): "),
        (["2", "4"], "Other, type your answer: "),
        (["2", "1"], "Submit? [y]: "),
        (["2", "c"], "What would you like to clarify? "),
    ],
    ids=["first-question", "second-question", "other-text", "review", "clarify-text"],
)
def test_ctrl_c_at_every_prompt_declines_and_exits_130(
    tmp_path: Path, answers: list[str], prompt: str
) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path)
    for answer in answers:
        term.expect(": ")
        term.type(answer)
    term.expect(prompt)
    term.child.sendintr()
    status, reply = term.finish()
    assert status == 130
    (block,) = reply["content"]
    pairs = ['"Which authentication method should the login use?"="Session cookie"']
    if prompt.startswith("Submit"):
        pairs.append('"Which extras should come with it?"="Rate limiting"')
    before = f" Answers given before that: {', '.join(pairs)}." if answers else ""
    expected = REJECT_MESSAGE + before
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_01LoginAuth",
        "content": expected,
        "is_error": True,
    }
    assert "Traceback" not in term.log.getvalue()


def test_ctrl_d_means_no_answer_and_exits_3(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path)
    term.expect("Choose 1-4 [1]: ")
    term.child.sendeof()
    status, reply = term.finish()
    assert status == 3
    assert reply["content"] == "No answer from the user (the input ended)."


def test_timeout_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", "--timeout", "1", str(LIBRARY)], tmp_path)
    term.expect("Choose 1-4 [1]: ")
    status, reply = term.finish()
    assert status == 3
    assert reply["content"] == "No answer from the user (no reply within 1 second)."


def test_pasting_the_call_at_the_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask"], tmp_path)
    term.expect("paste the call (JSON) and then answer; Ctrl-D ends.")
    term.type(json.dumps(call(id="toolu_pasted")))
    term.expect("Choose 1-3: ")
    term.type("2")
    term.child.sendeof()  # no more calls
    status, reply = term.finish()
    assert status == 0
    assert reply["tool_use_id"] == "toolu_pasted"


SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_colour_at_a_terminal_is_only_askclis_own(tmp_path: Path) -> None:
    hostile = call(
        {
            "question": "Pick\x1b]52;c;AAAA\x07 one?",
            "header": "\x1b[5mBlink",
            "options": [option("a\x1b[2J", "\x9b31m desc"), option("b", "d")],
        }
    )
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile))
    term = Terminal(["ask", str(path)], tmp_path, TERM="xterm-256color", NO_COLOR="")
    term.expect("Choose 1-3: ")
    term.type("1")
    status, _ = term.finish()
    assert status == 0
    shown = term.log.getvalue()
    assert "\x1b[1;36m[\\x1b[5mBlink]\x1b[0m" in shown
    assert "Pick\\x1b]52;c;AAAA\\x07 one?" in shown
    assert "\x1b" not in SGR.sub("", shown)  # every ESC starts one of askcli's colours
    assert "\x9b" not in shown


@pytest.mark.parametrize("env", [{"NO_COLOR": "1", "TERM": "xterm"}, {"TERM": "dumb"}])
def test_no_colour_with_no_color_or_a_dumb_terminal(tmp_path: Path, env: dict[str, str]) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path, **env)
    term.expect("Choose 1-4 [1]: ")
    term.type("1")
    status, _ = term.finish()
    assert status == 0
    assert "\x1b" not in term.log.getvalue()


BASH_CALL = {
    "type": "tool_use",
    "id": "toolu_bash",
    "name": "Bash",
    "input": {"command": "make deploy", "description": "Deploy"},
}


@pytest.mark.parametrize(
    ("typed", "status", "reply"),
    [
        ("y", 0, {"type": "permission", "tool_use_id": "toolu_bash", "behavior": "allow"}),
        ("n", 1, {"type": "tool_result", "content": REJECT_MESSAGE, "is_error": True}),
        ("deploy to staging first", 1, {"type": "tool_result", "is_error": True}),
    ],
)
def test_the_fallback_prompt_at_a_terminal(
    tmp_path: Path, typed: str, status: int, reply: dict[str, Any]
) -> None:
    path = tmp_path / "bash.json"
    path.write_text(json.dumps(BASH_CALL))
    term = Terminal(["ask", str(path)], tmp_path)
    term.expect("Tool use: Bash")
    term.expect("  command: make deploy")
    term.expect("Allow? 1 or 3 (y/n), or type what to do instead: ")
    term.type(typed)
    got_status, got = term.finish()
    assert got_status == status
    assert reply.items() <= got.items()
    if typed.startswith("deploy"):
        assert got["content"].endswith("the user said:\ndeploy to staging first")


def test_ctrl_c_at_the_fallback_prompt(tmp_path: Path) -> None:
    path = tmp_path / "bash.json"
    path.write_text(json.dumps(BASH_CALL))
    term = Terminal(["ask", "--output", "sdk", str(path)], tmp_path)
    term.expect("Allow? 1 or 3 (y/n), or type what to do instead: ")
    term.child.sendintr()
    status, decision = term.finish()
    assert status == 130
    assert decision == {"behavior": "deny", "message": REJECT_MESSAGE, "interrupt": True}


def test_todo_write_at_a_terminal_asks_nothing(tmp_path: Path) -> None:
    path = tmp_path / "todo.json"
    todos = [{"content": "Ship it", "status": "in_progress", "activeForm": "Shipping it"}]
    path.write_text(json.dumps({"todos": todos}))
    term = Terminal(["ask", "--state", str(tmp_path / "s.json"), str(path)], tmp_path)
    term.expect("  [>] Shipping it")
    term.expect("  0/1 done")
    status, reply = term.finish()
    assert status == 0
    assert reply["content"].startswith("Todos have been modified successfully.")


def test_a_dropped_ssh_connection_is_no_answer_and_exits_129(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("several allowed (e.g. 1,3): ")
    term.child.close(force=False)  # the terminal goes away: SIGHUP, and reads fail
    assert term.child.exitstatus == 129
    reply = json.loads(term.out.read_text())
    (block,) = reply["content"]
    assert block["content"] == (
        "No answer from the user (the terminal hung up). Answers given before that: "
        '"Which authentication method should the login use?"="Session cookie".'
    )


def test_sigkill_between_two_answers_then_resume(tmp_path: Path) -> None:
    first = Terminal(["ask", str(LOGIN)], tmp_path)
    first.expect("Choose 1-4 [1]: ")
    first.type("2")
    first.expect("several allowed (e.g. 1,3): ")
    first.child.kill(signal.SIGKILL)  # no chance to clean up or to answer anything
    first.expect_end()
    journals = list((tmp_path / "state" / "askcli" / "journal").glob("*.jsonl"))
    assert len(journals) == 1
    second = Terminal(["ask", str(LOGIN)], tmp_path)
    second.expect("Resuming where you stopped; the answers given then are kept:")
    second.expect("-> Session")
    second.expect("Choose 1-4, several allowed (e.g. 1,3): ")  # straight to question 2
    second.type("1,3")
    second.expect("Submit? [y]: ")
    second.type("y")
    status, reply = second.finish()
    assert status == 0
    (block,) = reply["content"]
    assert (
        '"Which authentication method should the login use?"="Session cookie"' in block["content"]
    )
    assert '"Which extras should come with it?"="Rate limiting, Audit log"' in block["content"]
    assert not journals[0].exists()  # a finished call's journal is removed


def test_long_previews_are_paged_at_a_terminal(tmp_path: Path) -> None:
    preview = "\n".join(f"line {n}" for n in range(1, 31))
    doc = call(
        {
            "question": "Which layout?",
            "header": "Layout",
            "options": [option("Long", "see the preview", preview=preview), option("Short", "")],
        }
    )
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    term = Terminal(["ask", str(path)], tmp_path, LINES="10")
    term.expect("Choose 1-3: ")
    term.type("p 1")
    term.expect("line 7")
    term.expect("--more-- (Enter for more, q to stop) ")
    term.type("")
    term.expect("line 15")
    term.expect("--more-- (Enter for more, q to stop) ")
    term.type("q")
    term.expect("(… 16 more lines not shown)")
    term.expect("Choose 1-3: ")
    term.type("1")
    status, reply = term.finish()
    assert status == 0
    assert "line 30" in reply["content"]  # the result carries the whole preview
