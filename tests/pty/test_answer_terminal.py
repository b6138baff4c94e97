"""Answers typed at a terminal that is not stdin (issue 29): ``--answers /dev/tty`` while the
calls come through a pipe, the same over ssh, and a terminal whose screens go elsewhere (a
file). Real keys sent to the installed askcli in a pty; the answer it sent read from stdout."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path, poll, run_askcli
from tests.support.sshd import Sshd, remote
from tests.support.terminals import pty_shell

LIBRARY = EXAMPLES / "library.json"
PROMPT = "Choose 1-4 [1]: "
OTHER = "Other, type your answer: "
LEFT, CTRL_A, ENTER = "\x1b[D", "\x01", "\r"
# typed at Other: "abc", Ctrl-A (to the start), X, Left, Left (at the start already), Y
EDITS = "abc" + CTRL_A + "X" + LEFT + LEFT + "Y"
EDITED = "YXabc"
QUESTION = "Which library should we use for date formatting?"


def _ended(child: pexpect.spawn, log: io.StringIO) -> None:
    try:
        child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        pytest.fail(f"askcli did not exit; the terminal showed:\n{log.getvalue()}")
    child.close()


def _expect(child: pexpect.spawn, log: io.StringIO, text: str) -> None:
    try:
        child.expect_exact(text)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"did not see {text!r}; the terminal showed:\n{log.getvalue()}")


def _reply(out: Path, log: io.StringIO) -> Any:
    lines = out.read_text().splitlines()
    assert len(lines) == 1, (lines, log.getvalue())
    return json.loads(lines[0])


def _piped(tmp_path: Path, *, screens: str = "") -> tuple[pexpect.spawn, io.StringIO, Path]:
    """``cat call.json | askcli ask --answers /dev/tty | cat`` in a pty, as a person types
    it in a shell: /dev/tty is the pty; ``screens``: stderr's redirection."""
    out = tmp_path / "stdout.txt"
    askcli = shlex.quote(str(askcli_path()))
    command = (
        f"cat {shlex.quote(str(LIBRARY))} | {askcli} ask --answers /dev/tty {screens}"
        f" | cat > {shlex.quote(str(out))}"
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "INPUTRC": str(tmp_path / "inputrc")}  # readline's own keys
    child, log = pty_shell(command, tmp_path, 80, env)
    return child, log, out


def test_answers_from_dev_tty_are_edited(tmp_path: Path) -> None:
    """The issue's case: the keys reached the model raw (``abc\\u0001X\\u001b[D...``)."""
    child, log, out = _piped(tmp_path)
    _expect(child, log, PROMPT)
    child.send("4" + ENTER)
    _expect(child, log, OTHER)
    child.send(EDITS + ENTER)
    _ended(child, log)
    assert f'"{QUESTION}"="{EDITED}"' in _reply(out, log)["content"], log.getvalue()
    assert child.exitstatus == 0


def test_answers_at_a_terminal_whose_screens_go_to_a_file(tmp_path: Path) -> None:
    """The screens go to a file (or another pane): the line is edited on the terminal where
    it is typed, and shown after its prompt in the screens, as a piped answer is."""
    screens = tmp_path / "screens.txt"
    child, log, out = _piped(tmp_path, screens=f"2> {shlex.quote(str(screens))}")
    poll(lambda: screens.exists() and PROMPT in screens.read_text(), "the first prompt")
    child.send("4" + ENTER)
    poll(lambda: OTHER in screens.read_text(), "Other's prompt")
    child.send(EDITS + ENTER)
    _ended(child, log)
    assert f'"{QUESTION}"="{EDITED}"' in _reply(out, log)["content"], log.getvalue()
    shown = screens.read_text()
    assert f"{PROMPT}4\n" in shown and f"{OTHER}{EDITED}\n" in shown, shown
    assert EDITED in log.getvalue() and "^[" not in log.getvalue(), log.getvalue()


SECRET = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "request_user_input",
    "arguments": json.dumps(
        {
            "questions": [
                {
                    "id": "token",
                    "header": "Token",
                    "question": "Which token?",
                    "isSecret": True,
                    "options": [{"label": "None", "description": "no token"}],
                }
            ]
        }
    ),
}


def test_a_secret_typed_at_a_terminal_whose_screens_go_to_a_file(tmp_path: Path) -> None:
    """Read unechoed, not edited; the screens show it as ``(hidden)`` after its prompt, on
    that prompt's line."""
    given = tmp_path / "secret.json"
    given.write_text(json.dumps(SECRET))
    screens = tmp_path / "screens.txt"
    out = tmp_path / "stdout.txt"
    askcli = shlex.quote(str(askcli_path()))
    command = f"{askcli} ask {given} 2> {shlex.quote(str(screens))} > {shlex.quote(str(out))}"
    child, log = pty_shell(command, tmp_path, 80, {"HOME": str(tmp_path)})
    poll(lambda: screens.exists() and "Choose 1-2: " in screens.read_text(), "the prompt")
    child.send("2\r")
    poll(lambda: OTHER in screens.read_text(), "Other's prompt")
    child.send("hunter2\r")
    _ended(child, log)
    shown = screens.read_text()
    assert f"{OTHER}(hidden)\n" in shown, shown
    assert "hunter2" not in shown and "hunter2" not in log.getvalue()
    assert "hunter2" in _reply(out, log)["output"]


def test_answers_from_dev_tty_over_ssh_are_edited(tmp_path: Path, sshd: Sshd) -> None:
    """The same over ssh: the remote side's /dev/tty is the pty sshd made for ``ssh -tt``
    (the suite's throwaway sshd on 127.0.0.1, tests/support/sshd.py)."""
    out = tmp_path / "stdout.txt"
    home = tmp_path / "home"
    home.mkdir()
    # ssh -t joins the remote stdout and stderr on its terminal: the result goes to a file
    piped = f"cat {LIBRARY} | {askcli_path()} ask --answers /dev/tty > {out}"
    env = {"HOME": str(home), "INPUTRC": "/dev/null", "TERM": "dumb", "ASKCLI_NOTIFY": "none"}
    child = sshd.spawn(remote(["sh", "-c", piped], env=env))
    log = child.logfile_read
    _expect(child, log, PROMPT)
    child.send("4" + ENTER)
    _expect(child, log, OTHER)
    child.send(EDITS + ENTER)
    _ended(child, log)
    assert f'"{QUESTION}"="{EDITED}"' in _reply(out, log)["content"], log.getvalue()


# -- a call piped in at a terminal, with no answers after it (item 3) ------------------------

HINT = (
    "askcli: stdin held the call but no answer; to answer at this terminal, add --answers /dev/tty"
)


def _at_terminal(tmp_path: Path, command: str) -> tuple[int, str, Any]:
    """``command`` (askcli's stdout to a file) in a pty: its status, what the terminal
    showed, the result."""
    out = tmp_path / "stdout.txt"
    child, log = pty_shell(f"{command} > {shlex.quote(str(out))}", tmp_path, 120, {})
    _ended(child, log)
    assert child.exitstatus is not None, log.getvalue()
    return child.exitstatus, log.getvalue().replace("\r\n", "\n"), _reply(out, log)


def test_a_call_piped_in_at_a_terminal_says_how_to_answer_there(tmp_path: Path) -> None:
    askcli = shlex.quote(str(askcli_path()))
    status, shown, reply = _at_terminal(tmp_path, f"cat {LIBRARY} | {askcli} ask")
    assert status == 3
    assert reply["content"] == "No answer from the user (the input ended)."
    assert f"askcli: no answer (the input ended)\n{HINT}\n" in shown, shown
    assert shown.count(HINT) == 1


def test_the_hint_is_said_once_for_a_stream_of_calls(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    one = json.dumps(json.loads(LIBRARY.read_text()))
    calls.write_text(f"{one}\n{one}\n")
    askcli = shlex.quote(str(askcli_path()))
    out = tmp_path / "stdout.txt"
    command = f"cat {calls} | {askcli} ask - > {shlex.quote(str(out))}"
    child, log = pty_shell(command, tmp_path, 120, {})
    _ended(child, log)
    assert log.getvalue().count(HINT) == 1, log.getvalue()
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    "command",
    [
        # answers in the stream, too few: a script's, not a person's
        "printf '%s\\n' {call} 2 | {askcli} ask",
        # the calls from a file: stdin holds the answers (none here)
        "{askcli} ask {file} < /dev/null",
    ],
    ids=["answers-ran-short", "calls-from-a-file"],
)
def test_no_hint_where_stdin_is_not_a_call_alone(tmp_path: Path, command: str) -> None:
    login = EXAMPLES / "login.json"
    askcli = shlex.quote(str(askcli_path()))
    one = shlex.quote(json.dumps(json.loads(login.read_text())))
    status, shown, _ = _at_terminal(
        tmp_path, command.format(call=one, askcli=askcli, file=shlex.quote(str(login)))
    )
    assert status == 3
    assert "--answers /dev/tty" not in shown, shown


def test_no_hint_without_a_terminal() -> None:
    """Scripts and agents without a terminal see what they always saw."""
    proc = run_askcli("ask", input=LIBRARY.read_text(), timeout=10)
    assert proc.returncode == 3
    assert proc.stderr.endswith("askcli: no answer (the input ended)\n"), proc.stderr
