"""askcli at a terminal: in a pty driven with pexpect, on a terminal that goes away, and
what a narrow screen shows."""

from __future__ import annotations

import fcntl
import io
import json
import os
import select
import shlex
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.processes import askcli_path, exit_env

# askcli with no readline module: a terminal's own line mode, no line editing
WITHOUT_LINE_EDITING = (
    sys.executable,
    "-c",
    "import sys; sys.modules['readline'] = None; from askcli.cli import main; main()",
)


# -- the inbox's person side, as askcli inbox answers ---------------------------------------


# -- askcli in a pty (pexpect) ---------------------------------------------------------


def pty_shell(
    command: str, tmp_path: Path, columns: int, env: dict[str, str]
) -> tuple[pexpect.spawn, io.StringIO]:
    """``command`` run by /bin/sh in a pty ``columns`` wide, and the log of what it showed;
    ``env`` over the test's environment (an empty value removes a variable)."""
    full_env = {
        **os.environ,
        "TERM": "dumb",
        "ASKCLI_NOTIFY": "none",  # what is shown never depends on the terminal running tests
        "COLUMNS": str(columns),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        **env,
    }
    for key in [k for k, v in env.items() if v == ""]:
        full_env.pop(key)
    log = io.StringIO()
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", command],
        env=full_env,
        timeout=5,
        encoding="utf-8",
        dimensions=(24, columns),
    )
    child.logfile_read = log
    return child, log


# -- streams that cannot be written, terminals that go away ----------------------------------


SIGHUP_FATES = ("delivered", "ignored", "withheld")


class GoneTerminal:
    """askcli on a terminal (a pty) whose other end only this test holds: :meth:`hang_up`
    closes it, and the terminal really goes away, as when an SSH connection drops: its
    reads end (or fail with EIO), its writes fail with EIO, and the kernel sends SIGHUP to
    the session's leader.

    ``sighup``: ``delivered``, askcli leads the session and gets SIGHUP; ``ignored``, askcli
    leads it but was started with SIGHUP ignored (``nohup``); ``withheld``, a shell leads
    it, traps SIGHUP and does not pass it on, and askcli runs in its foreground (a wrapper,
    or a login shell that does not forward it). stderr is the terminal; stdout a file, or
    the terminal too (``stdout_here``); stdin the terminal, or the descriptor ``stdin``
    (the answers come from elsewhere). ``program``: what runs instead of the installed
    askcli."""

    def __init__(
        self,
        args: Sequence[str],
        tmp_path: Path,
        *,
        sighup: str = "delivered",
        stdout_here: bool = False,
        stdin: int | None = None,
        env: dict[str, str] | None = None,
        columns: int = 80,
        program: Sequence[str] = (),
    ) -> None:
        assert sighup in SIGHUP_FATES, sighup
        self.sighup = sighup
        self.out = tmp_path / "stdout.json"
        self.rc = tmp_path / "rc"
        self.shown = b""
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        argv = [*(program or [str(askcli_path())]), *args]
        if sighup == "withheld":
            script = f'trap : HUP; "$@"; echo $? > "{self.rc}"'
            argv = ["/bin/sh", "-c", script, "sh", *argv]
        stdout = slave if stdout_here else os.open(self.out, os.O_WRONLY | os.O_CREAT, 0o600)

        def leader() -> None:  # in the child: its own session, the pty its terminal
            os.setsid()
            fcntl.ioctl(2, termios.TIOCSCTTY, 0)
            if sighup == "ignored":
                signal.signal(signal.SIGHUP, signal.SIG_IGN)

        self.proc = subprocess.Popen(
            argv,
            stdin=slave if stdin is None else stdin,
            stdout=stdout,
            stderr=slave,
            env=exit_env(tmp_path, COLUMNS=str(columns), **(env or {})),
            cwd=tmp_path,
            preexec_fn=leader,
        )
        os.close(slave)  # the child's copies alone: no process of the tests holds it open
        if not stdout_here:
            os.close(stdout)

    def expect(self, text: str, timeout: float = 5) -> None:
        """Wait until the terminal showed ``text``; fail showing everything it showed."""
        deadline = time.monotonic() + timeout
        while text.encode() not in self.shown:
            left = deadline - time.monotonic()
            ready = select.select([self.master], [], [], max(left, 0))[0] if left > 0 else []
            data = b""
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # EIO: nothing holds the terminal any more
                    data = b""
            if not data:
                pytest.fail(f"did not see {text!r}; the terminal showed:\n{self.screen}")
            self.shown += data

    @property
    def screen(self) -> str:
        return self.shown.decode("utf-8", "replace")

    def hang_up(self) -> None:
        """Close the terminal's other end: the last holder of it, so it hangs up."""
        os.close(self.master)
        self.master = -1

    def finish(self, timeout: float = 10) -> tuple[int, str]:
        """askcli's exit status (as its wrapper saw it, for ``withheld``) and its stdout."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.close()
            pytest.fail(f"askcli did not exit after the hang-up; it showed:\n{self.screen}")
        if self.sighup == "withheld":
            assert self.rc.exists(), f"the wrapper ended with {code} and no status"
            code = int(self.rc.read_text())
        return code, self.out.read_text() if self.out.exists() else ""

    def hung_up_at(self, text: str) -> tuple[int, str]:
        """Wait until the terminal shows ``text``, hang up, and give what :meth:`finish`
        gives; the terminal is closed whatever happens."""
        try:
            self.expect(text)
            self.hang_up()
            return self.finish()
        finally:
            self.close()

    def close(self) -> None:
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Terminal:
    """askcli in a pty, stdout to a file (``stdout_here``: to the same terminal); failures
    show everything the terminal showed. ``after``: askcli starts that many seconds late,
    so that what a test types first is typed ahead. ``program``: what runs instead of the
    installed askcli (e.g. :data:`WITHOUT_LINE_EDITING`)."""

    def __init__(
        self,
        args: list[str],
        tmp_path: Path,
        columns: int = 80,
        *,
        stdout_here: bool = False,
        after: float = 0,
        program: tuple[str, ...] = (),
        **env: str,
    ) -> None:
        self.out = tmp_path / "stdout.json"
        program = program or (str(askcli_path()),)
        command = "exec " + " ".join(shlex.quote(a) for a in [*program, *args])
        if not stdout_here:
            command += f" > {shlex.quote(str(self.out))}"
        if after:  # askcli starts ``after`` seconds later: what is typed meanwhile waits
            command = f"sleep {after}; {command}"
        self.child, self.log = pty_shell(command, tmp_path, columns, env)

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


# -- narrow screens: no word split -------------------------------------------------------


class TerminalText(io.StringIO):
    """A screen in memory that says it is a terminal (askcli's messages fold to its width)."""

    def isatty(self) -> bool:
        return True


def _rows(text: str, width: int) -> list[str]:
    """``text`` as a terminal ``width`` columns wide shows it: a line wider than that goes
    on in the next row, cut wherever the column runs out."""
    from askcli.terminal.rendering import char_width

    rows = []
    for line in text.split("\n"):
        row, used = "", 0
        for ch in line:
            if used + char_width(ch) > width:
                rows.append(row)
                row, used = "", 0
            row, used = row + ch, used + char_width(ch)
        rows.append(row)
    return rows


def _word(token: str) -> str:
    """A token as a word: the punctuation around it and the wrap mark off, digits as 0."""
    import re

    token = re.sub(r"\d+", "0", token.replace("↪", "").lower())
    return token.strip(".,:;!?()[]{}<>\"'`-=*#+|/")


def split_words(shown: str, width: int, whole: str) -> list[str]:
    """The pieces of words a screen ``width`` columns wide shows split: the first and last
    word of each row (as the terminal shows the text ``shown``) that is not a word of
    ``whole``, the same screens where nothing needs to wrap. A word cut with ``…`` counts
    as whole when what it keeps is a word; a folder shortened from the left (``…/api``) too.
    A word too wide for a line may break anywhere, and so may words of wide (CJK)
    characters."""
    from askcli.terminal.rendering import display_width

    words = {_word(token) for token in whole.split()}
    too_wide = [token for token in whole.split() if display_width(token) > width - 10]
    found = []
    for row in _rows(shown, width):
        tokens = row.split()
        for token in {tokens[0], tokens[-1]} if tokens else ():
            word = _word(token)
            if not word or word in words or not word.isascii():
                continue
            if any(token.replace("↪", "") in wide for wide in too_wide):
                continue
            if word.endswith("…") and _word(word[:-1]) in words:
                continue
            if word.startswith("…") and (word[1:2] == "/" or _word(word[1:]) in words):
                continue
            found.append(f"{row!r}: {token!r}")
    return found


class Pty(Terminal):
    """askcli in a pty of ``columns`` with its stdout on that terminal too (``elsewhere``:
    in ``self.out``); :meth:`finish` gives everything the terminal showed."""

    def __init__(
        self,
        args: list[str],
        tmp_path: Path,
        columns: int,
        *,
        elsewhere: bool = False,
        editing: bool = True,
    ) -> None:
        program = () if editing else WITHOUT_LINE_EDITING
        super().__init__(args, tmp_path, columns, stdout_here=not elsewhere, program=program)

    def send(self, text: str) -> None:
        self.child.send(text)

    def finish(self) -> str:  # type: ignore[override]
        """Wait for the exit; everything the terminal showed, line ends as ``\\n``."""
        self.expect_end()
        self.child.close()
        return self.log.getvalue().replace("\r\n", "\n")
