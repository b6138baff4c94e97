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

from .helpers import EXAMPLES, askcli_path, poll, pty_shell

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


def test_answers_from_dev_tty_over_ssh_are_edited(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The same over ssh: the remote side's /dev/tty is the pty sshd made for ``ssh -t``.
    Needs the suite's ``sshd`` fixture (an sshd on loopback); skipped without it."""
    try:
        sshd = request.getfixturevalue("sshd")
    except pytest.FixtureLookupError:
        pytest.skip("no sshd fixture (an sshd on loopback) in this suite")
    out = tmp_path / "stdout.txt"
    home = tmp_path / "home"
    home.mkdir()
    remote = (
        f"HOME={shlex.quote(str(home))} INPUTRC=/dev/null TERM=dumb ASKCLI_NOTIFY=none "
        f"sh -c {shlex.quote(f'cat {LIBRARY} | {askcli_path()} ask --answers /dev/tty')}"
    )
    ssh = " ".join(shlex.quote(part) for part in sshd.command(remote, tty=True))
    child, log = pty_shell(f"{ssh} > {shlex.quote(str(out))}", tmp_path, 80, {})
    _expect(child, log, PROMPT)
    child.send("4" + ENTER)
    _expect(child, log, OTHER)
    child.send(EDITS + ENTER)
    _ended(child, log)
    assert f'"{QUESTION}"="{EDITED}"' in _reply(out, log)["content"], log.getvalue()
