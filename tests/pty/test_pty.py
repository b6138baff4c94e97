"""The installed askcli in a real terminal (a pty), driven like a person with pexpect."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from askcli.wire.results import REJECT_MESSAGE

from tests.support.calls import call, option
from tests.support.paths import LIBRARY, LOGIN
from tests.support.terminals import Terminal


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
        ("n: deploy to staging first", 1, {"type": "tool_result", "is_error": True}),
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
    term.expect("Allow? 1 or 3 (y/n): ")
    term.type(typed)
    got_status, got = term.finish()
    assert got_status == status
    assert reply.items() <= got.items()
    if typed.startswith("n: deploy"):
        assert got["content"].endswith("the user said:\ndeploy to staging first")


def test_ctrl_c_at_the_fallback_prompt(tmp_path: Path) -> None:
    path = tmp_path / "bash.json"
    path.write_text(json.dumps(BASH_CALL))
    term = Terminal(["ask", "--output", "sdk", str(path)], tmp_path)
    term.expect("Allow? 1 or 3 (y/n): ")
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


def interrupted_login(tmp_path: Path, columns: int) -> Path:
    """LOGIN answered ``2`` at question 1, then killed: the journal it leaves."""
    first = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    first.expect("Choose 1-4 [1]: ")
    first.type("2")
    first.expect("(e.g. 1,3): ")
    first.child.kill(signal.SIGKILL)  # no chance to clean up or to answer anything
    first.expect_end()
    (journal,) = (tmp_path / "state" / "askcli" / "journal").glob("*.jsonl")
    return journal


AUTH = '"Which authentication method should the login use?"'
EXTRAS = '"Which extras should come with it?"'


@pytest.mark.parametrize("columns", [80, 40])
def test_sigkill_between_two_answers_then_resume(tmp_path: Path, columns: int) -> None:
    journal = interrupted_login(tmp_path, columns)
    second = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    second.expect("You were answering this call before;")  # at 40 columns: two lines
    second.expect("Resume? [Y/n] ")
    assert "Session" in second.log.getvalue().split("kept from then:")[1]
    second.type("")
    second.expect("(e.g. 1,3): ")  # straight to question 2
    second.type("1,3")
    second.expect("Submit? [y]: ")
    second.type("y")
    status, reply = second.finish()
    assert status == 0
    (block,) = reply["content"]
    assert f'{AUTH}="Session cookie"' in block["content"]
    assert f'{EXTRAS}="Rate limiting, Audit log"' in block["content"]
    assert not journal.exists()  # a finished call's journal is removed


@pytest.mark.parametrize("columns", [80, 40])
def test_a_script_rerun_after_an_interruption_answers_n_and_starts_afresh(
    tmp_path: Path, columns: int
) -> None:
    journal = interrupted_login(tmp_path, columns)
    script = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    script.expect("Resume? [Y/n] ")
    script.type("maybe")
    script.expect("! type y for yes or n for no")
    script.expect("Resume? [Y/n] ")
    script.type("n")
    script.expect("Choose 1-4 [1]: ")  # question 1 again: the script's lines land in place
    script.type("3")
    script.expect("(e.g. 1,3): ")
    script.child.kill(signal.SIGKILL)  # interrupted again: only the new answer is kept
    script.expect_end()
    again = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    again.expect("Resume? [Y/n] ")
    assert "Magic" in again.log.getvalue().split("kept from then:")[1]
    again.type("y")
    again.expect("(e.g. 1,3): ")
    again.child.sendeof()  # Ctrl-D: no answer, the kept one reported
    status, reply = again.finish()
    assert status == 3
    assert f'{AUTH}="Magic link"' in reply["content"][0]["content"]
    assert "Session cookie" not in reply["content"][0]["content"]
    assert journal.exists()  # not finished: kept for next time


@pytest.mark.parametrize("columns", [80, 40])
def test_long_previews_are_shown_whole_at_a_terminal(tmp_path: Path, columns: int) -> None:
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
    term = Terminal(["ask", str(path)], tmp_path, columns, LINES="10")
    term.expect("Choose 1-3: ")
    term.type("p 1")
    term.expect("line 30")
    term.expect("--- end of preview ---")
    term.expect("Choose 1-3: ")
    term.type("1")
    status, reply = term.finish()
    assert status == 0
    assert "--more--" not in term.log.getvalue()
    assert "line 30" in reply["content"]  # the result carries the whole preview


@pytest.mark.parametrize("columns", [80, 40])
@pytest.mark.parametrize("where", ["other", "chat-at-question", "chat-at-review"])
@pytest.mark.parametrize("leave", ["", "b"])
def test_an_empty_line_or_b_leaves_the_other_and_chat_prompts(
    tmp_path: Path, columns: int, where: str, leave: str
) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    if where == "chat-at-review":
        term.type("2")
        term.expect("(e.g. 1,3): ")
        term.type("1")
        term.expect("Submit? [y]: ")
    term.type("4" if where == "other" else "c")
    term.expect("Other, type your answer: " if where == "other" else "clarify? ")
    term.type(leave)
    back = "Submit? [y]: " if where == "chat-at-review" else "Choose 1-4 [1]: "
    term.expect(back)
    if where != "chat-at-review":
        term.type("2")
        term.expect("(e.g. 1,3): ")
        term.type("1")
        term.expect("Submit? [y]: ")
    term.type("y")
    status, reply = term.finish()
    assert status == 0
    assert f'{AUTH}="Session cookie"' in reply["content"][0]["content"]


@pytest.mark.parametrize("columns", [80, 40])
def test_q_after_an_answer_is_confirmed_once(tmp_path: Path, columns: int) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("(e.g. 1,3): ")
    term.type("q")
    term.expect("Decline all 2 questions? [y/N] ")
    term.type("")  # Enter: back to where it was
    term.expect("(e.g. 1,3): ")
    term.type("1")
    term.expect("Submit? [y]: ")
    term.type("quit")
    term.expect("Decline all 2 questions? [y/N] ")
    term.type("y")
    status, reply = term.finish()
    assert status == 1
    assert reply["content"][0]["content"] == REJECT_MESSAGE


@pytest.mark.parametrize("columns", [80, 40])
def test_q_with_nothing_answered_declines_at_once(tmp_path: Path, columns: int) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("q")
    status, _ = term.finish()
    assert status == 1
    assert "Decline all" not in term.log.getvalue()


@pytest.mark.parametrize("columns", [80, 40])
@pytest.mark.parametrize(
    ("line", "extras"),
    [("2; 1,3", "Rate limiting, Audit log"), ("2:1-3 1:2", "Rate limiting, 2FA, Audit log")],
)
def test_all_answers_on_one_line_land_on_the_review(
    tmp_path: Path, columns: int, line: str, extras: str
) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("2; 4")  # Other without its text: the whole line refused
    term.expect("! question 2: Other (4) needs its text")
    term.expect("nothing was changed")
    term.expect("Choose 1-4 [1]: ")
    term.type(line)
    term.expect("Review your answers:")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    content = reply["content"][0]["content"]
    assert f'{AUTH}="Session cookie"' in content
    assert f'{EXTRAS}="{extras}"' in content


@pytest.mark.parametrize("columns", [80, 40])
def test_plus_and_minus_change_a_multiselect_answer(tmp_path: Path, columns: int) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("+2")
    term.expect("! this question takes one answer;")
    term.expect("Choose 1-4 [1]: ")
    term.type("")
    term.expect("(e.g. 1,3): ")
    term.type("1,2")
    term.expect("Submit? [y]: ")
    term.type("2")
    term.expect("[1,2]: ")  # "Several of 1-4 [1,2]: " at 40 columns
    term.type("+3 -1")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, reply = term.finish()
    assert status == 0
    assert f'{EXTRAS}="2FA, Audit log"' in reply["content"][0]["content"]


@pytest.mark.parametrize("columns", [80, 40])
@pytest.mark.parametrize(
    ("typed", "label"), [("2.", "dayjs"), ("DAYJS", "dayjs"), ("temporal", "Temporal")]
)
def test_a_number_with_a_dot_or_a_label_is_that_option(
    tmp_path: Path, columns: int, typed: str, label: str
) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type(typed)
    status, reply = term.finish()
    assert status == 0
    assert f'"Which library should we use for date formatting?"="{label}"' in reply["content"]


@pytest.mark.parametrize("columns", [80, 40])
def test_skip_says_what_it_did_and_help_lists_every_word(tmp_path: Path, columns: int) -> None:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("?")
    for words in ["A; B; C", "Q:A Q:A", "b back", "s skip", "c chat", "q quit", "? h help"]:
        while term.child.expect_exact(["--more--", f"  {words} "]) == 0:  # 40x24: paged
            term.type("")
    term.expect("Choose 1-4 [1]: ")
    term.type("skip")
    term.expect("Skipped question 1; answer it from the")
    term.expect("(e.g. 1,3): ")
    term.type("1")
    term.expect("Answer question 1 first [1]: ")  # no [y]: nothing to submit yet
    term.type("y")
    term.expect("! question 1 has no answer yet;")
    term.type("")  # Enter goes to it
    term.expect("Choose 1-4 [1]: ")
    term.type("")
    term.expect("Submit? [y]: ")
    term.type("y")
    status, _ = term.finish()
    assert status == 0
    help_lines = [ln for ln in term.log.getvalue().splitlines() if ln.startswith("  ")]
    assert max(len(ln.rstrip("\r")) for ln in help_lines) <= columns
