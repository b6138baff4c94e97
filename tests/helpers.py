"""Shared builders for the tests."""

from __future__ import annotations

import copy
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pexpect
import pytest

from askcli.lines import TextLineReader

if TYPE_CHECKING:
    from askcli.inbox.store import QueuedQuestion, Store
    from askcli.terminal.conversation import Conversation

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# askcli with no readline module: a terminal's own line mode, no line editing
WITHOUT_LINE_EDITING = (
    sys.executable,
    "-c",
    "import sys; sys.modules['readline'] = None; from askcli.cli import main; main()",
)


def option(label: str, description: str = "", **extra: Any) -> dict[str, Any]:
    return {"label": label, "description": description, **extra}


# the question the inbox, hook and MCP tests ask ({"questions": [COLOR]} is the input)
COLOR = {
    "question": "Which color?",
    "header": "Color",
    "multiSelect": False,
    "options": [option("Red", "warm"), option("Blue", "cool")],
}


def question(
    text: str = "Which one?",
    header: str = "Pick",
    labels: tuple[str, ...] = ("A", "B"),
    multi: bool | None = False,
    **extra: Any,
) -> dict[str, Any]:
    q: dict[str, Any] = {
        "question": text,
        "header": header,
        "options": [option(label, f"about {label}") for label in labels],
        **extra,
    }
    if multi is not None:
        q["multiSelect"] = multi
    return q


def call(*questions: dict[str, Any], id: str = "toolu_test", **extra: Any) -> dict[str, Any]:
    """A tool_use block for AskUserQuestion."""
    return {
        "type": "tool_use",
        "id": id,
        "name": "AskUserQuestion",
        "input": {"questions": list(questions) or [question()], **extra},
    }


def example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text())


def deep(value: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(value)


def run_askcli(
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 20,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """The installed askcli with text pipes, colour off; it must never print a traceback."""
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80", **(env or {})},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def askcli_path() -> Path:
    """The installed ``askcli`` script next to the running interpreter."""
    path = Path(sys.executable).with_name("askcli")
    if not path.exists():
        raise RuntimeError(f"askcli is not installed next to {sys.executable}; run make test")
    return path


def poll(check: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Wait until ``check()`` holds; the test fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


class Stopping(TextLineReader):
    """Lines from a string, then ``exc`` raised where the next line would be read (a
    timeout, Ctrl-C, or a signal's KeyboardInterrupt)."""

    def __init__(self, text: str, exc: BaseException) -> None:
        super().__init__(io.StringIO(text), interactive=False)
        self.exc = exc

    def _more(self, timeout: float | None) -> bytes:
        data = super()._more(timeout)
        if not data:
            raise self.exc
        return data


def ask_stopped(document: dict[str, Any], lines: str, exc: BaseException) -> tuple[Any, str]:
    """Answer ``document`` (a copy) with ``lines`` typed, then ``exc`` where the next line
    would be read: (the Reply, what the person saw)."""
    from askcli.errors import AnswerTimeout
    from askcli.runners.session import answer_document
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.options import RunOptions
    from askcli.terminal.rendering import Style
    from askcli.wire.documents import Document

    err = io.StringIO()
    conv = Conversation(
        reader=Stopping(lines, exc),
        out=err,
        style=Style(width=80, colour=False),
        options=RunOptions(timeout=5 if isinstance(exc, AnswerTimeout) else None),
    )
    return answer_document(Document(copy.deepcopy(document)), conv), err.getvalue()


# -- the inbox's person side, as askcli inbox answers ---------------------------------------


def answer_one(store: Store, inbox: str, question: QueuedQuestion, conv: Conversation) -> bool:
    """Ask a question ``inbox`` claimed and store its reply, as ``askcli inbox`` does; False
    when it was no longer this inbox's to answer (its asker withdrew it meanwhile)."""
    from askcli.inbox.asking import reply_to_json
    from askcli.runners.session import answer_document
    from askcli.wire.documents import Document

    reply = answer_document(Document(question.call), conv, question.id)
    return store.answer(inbox, question.id, reply_to_json(reply))


def answer_queued(
    store: Store, lines: str, question_id: int | None = None, screen: io.StringIO | None = None
) -> bool:
    """A person at an inbox of ``store`` answers question ``question_id`` (None: the oldest
    waiting) with the answer ``lines``: True when the answer was stored. ``screen`` gets
    what they saw."""
    from askcli.inbox.person import inbox_id
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.rendering import Style

    me = inbox_id()
    store.heartbeat(me)
    question = store.claim(me, question_id)
    assert question is not None, f"question {question_id} is not waiting"
    out = screen if screen is not None else io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), out, Style())
    try:
        return answer_one(store, me, question, conv)
    finally:
        store.leave(me)


def tamper(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Run ``sql`` (``?`` parameters) on the store's database, as another askcli or time
    would have left it; the rows it returns."""

    def work(db: Any) -> list[Any]:
        cursor = store._x(db, sql, params)
        return list(cursor.fetchall()) if cursor.description else []

    return store._run(work)


def opened_at(store: Store) -> str:
    """What ``Store(...)`` takes to open ``store`` again: its file or its URL."""
    url: str | None = getattr(store, "url", None)
    return url if url is not None else str(getattr(store, "path"))  # noqa: B009


def as_if_asked_by(store: Store, question_id: int, pid: int, start: str | None) -> None:
    """Make the question another process's of this machine (on PostgreSQL, with its lease)."""
    import socket

    from askcli.inbox.askers import Process, place
    from askcli.inbox.store import asker_id

    asker = asker_id(Process(socket.gethostname(), pid, start))
    tamper(
        store,
        "UPDATE questions SET asker_pid = ?, asker_start = ?, asker = ? WHERE id = ?",
        (pid, start, asker, question_id),
    )
    if store.pushes:
        tamper(
            store,
            "INSERT INTO askers (id, host, seen, place, pid, start) VALUES (?, ?, ?, ?, ?, ?)",
            (asker, socket.gethostname(), time.time(), place(), pid, start),
        )


def another_asker(store: Store, question_id: int) -> subprocess.Popen[bytes]:
    """Make the question one of a process of its own (``sleep``), not of the tests: an
    ``askcli inbox answer`` the tests start runs under them, and an agent does not answer
    its own question. The caller ends the process (``kill()``, ``wait()``)."""
    from askcli.inbox.askers import process_start

    child = subprocess.Popen(["sleep", "600"])
    as_if_asked_by(store, question_id, child.pid, process_start(child.pid))
    return child


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

UNWRITABLE = ("gone-terminal", "closed-pipe", "full")


def unwritable(kind: str) -> int:
    """A descriptor whose writes fail as ``kind`` says: ``gone-terminal`` a terminal whose
    other end is closed (EIO), ``closed-pipe`` a pipe nobody reads (EPIPE), ``full``
    ``/dev/full`` (ENOSPC). The caller closes it."""
    if kind == "gone-terminal":
        master, slave = os.openpty()
        os.close(master)
        return slave
    if kind == "closed-pipe":
        read, write = os.pipe()
        os.close(read)
        return write
    assert kind == "full", kind
    return os.open("/dev/full", os.O_WRONLY)


def exit_env(tmp_path: Path, **env: str) -> dict[str, str]:
    """The environment of an askcli whose exit is tested: its own state, no colour, and its
    standard streams buffered as Python buffers them by default (without the
    PYTHONUNBUFFERED of the environment the tests may run in, which would hide a write
    left in a buffer that fails at exit)."""
    full = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    full.update(
        NO_COLOR="1",
        TERM="dumb",
        ASKCLI_NOTIFY="none",
        XDG_STATE_HOME=str(tmp_path / "state"),
        ASKCLI_INBOX=str(tmp_path / "inbox.db"),
    )
    full.update(env)
    return full


def handles(pid: int, sig: signal.Signals) -> bool:
    """Process ``pid`` has a handler of its own for ``sig`` (``SigCgt`` in /proc): askcli's
    are in (Python's own for SIGINT is there from the start)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (sig - 1) & 1)


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


def processes_under(folder: Path) -> list[str]:
    """The processes (but this one) whose command line names ``folder`` or that run in it:
    ``pid command``, to be shown when a test finds any left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if str(folder) in command or cwd.startswith(str(folder)):
            found.append(f"{entry.name} {command.strip()}")
    return found


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
