"""Line editing at a terminal (askcli/terminal/editing.py): real keys sent to the installed
askcli in a pty, the answer it received read from stdout (a pipe); pipes and files read as
before; the timeout, Ctrl-C, Ctrl-D and signals with readline active; history per prompt
kind, in memory only, never a secret."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.errors import AnswerTimeout
from askcli.lines import FdLineReader, TextLineReader
from askcli.terminal import editing
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style

from tests.support.calls import call, question
from tests.support.inbox import Queue, exit_status, labelled
from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path
from tests.support.terminals import WITHOUT_LINE_EDITING, Terminal, pty_shell

LIBRARY = EXAMPLES / "library.json"
PROMPT = "Choose 1-4 [1]: "
LEFT, RIGHT, UP, DOWN = "\x1b[D", "\x1b[C", "\x1b[A", "\x1b[B"
HOME, END, CTRL_A, CTRL_E = "\x1b[H", "\x1b[F", "\x01", "\x05"
BACKSPACE, ENTER = "\x7f", "\r"
COLUMNS = [80, 40]


class Keys(Terminal):
    """askcli in a pty (readline's keys as a terminal sends them), stdout through ``| cat``
    into a file: what reaches stdout is what a pipe to jq would get."""

    def __init__(
        self,
        args: list[str],
        tmp_path: Path,
        columns: int = 80,
        *,
        program: tuple[str, ...] = (),
        pipe: bool = True,
        **env: str,
    ) -> None:
        self.out = tmp_path / "stdout.txt"
        self.home = tmp_path / "home"
        self.home.mkdir(exist_ok=True)
        program = program or (str(askcli_path()),)
        self.pid_file, status = tmp_path / "askcli.pid", tmp_path / "status"
        inner = f"echo $$ > {shlex.quote(str(self.pid_file))}; exec " + " ".join(
            shlex.quote(a) for a in [*program, *args]
        )
        command = (
            f"( sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(status))} )"
            f" | cat > {shlex.quote(str(self.out))}; exit $(cat {shlex.quote(str(status))})"
        )
        if not pipe:  # Ctrl-C reaches every process of the terminal: cat too
            command = f"{inner} > {shlex.quote(str(self.out))}"
        inputrc = str(tmp_path / "inputrc")  # none: readline's own keys
        env = {"HOME": str(self.home), "INPUTRC": inputrc, **env}
        self.child, self.log = pty_shell(command, tmp_path, columns, env)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def result(self) -> Any:
        """askcli's end: stdout must be exactly one JSON line (the result)."""
        try:
            self.child.expect(pexpect.EOF)
        except pexpect.TIMEOUT:
            pytest.fail(f"askcli did not exit; the terminal showed:\n{self.log.getvalue()}")
        self.child.close()
        lines = self.out.read_text().splitlines()
        assert len(lines) == 1, (lines, self.log.getvalue())
        return json.loads(lines[0])


def askcli_pid(term: Keys) -> int:
    """The askcli process of ``term``."""
    return int(term.pid_file.read_text())


def answer(reply: dict[str, Any]) -> str:
    return str(reply["content"])


@pytest.mark.parametrize("columns", COLUMNS)
@pytest.mark.parametrize(
    "keys",
    [
        # Home, End, Backspace at the end, Left, Right
        "x" + HOME + "2" + END + BACKSPACE + LEFT + RIGHT,
        # Ctrl-A, Ctrl-E
        "y" + CTRL_A + "2" + CTRL_E + BACKSPACE,
        # Backspace in the middle
        "12" + LEFT + BACKSPACE,
    ],
    ids=["arrows-home-end", "ctrl-a-ctrl-e", "backspace-in-the-middle"],
)
def test_keys_edit_the_answer(tmp_path: Path, columns: int, keys: str) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path, columns)
    term.expect(PROMPT)
    term.send(keys + ENTER)
    reply = term.result()
    assert '"Which library should we use for date formatting?"="dayjs"' in answer(reply), (
        term.log.getvalue()
    )
    assert term.child.exitstatus == 0


@pytest.mark.parametrize("columns", COLUMNS)
def test_backspace_in_the_middle_of_a_typed_answer(tmp_path: Path, columns: int) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path, columns)
    term.expect(PROMPT)
    term.send("4" + ENTER)
    term.expect("Other, type your answer: ")
    term.send("Momxent.js" + LEFT * 6 + BACKSPACE + HOME + RIGHT + END + ENTER)
    reply = term.result()
    assert '"Which library should we use for date formatting?"="Moment.js"' in answer(reply)


THREE = call(
    question("First?", "One", ("A", "B", "C")),
    question("Second?", "Two", ("A", "B", "C")),
    question("Third?", "Three", ("A", "B", "C")),
)


@pytest.mark.parametrize("columns", COLUMNS)
def test_up_and_down_recall_the_earlier_answers(tmp_path: Path, columns: int) -> None:
    given = tmp_path / "three.json"
    given.write_text(json.dumps(THREE))
    term = Keys(["ask", str(given)], tmp_path, columns)
    term.expect("[One] First?")
    term.expect("Choose 1-4: ")
    term.send("1" + ENTER)
    term.expect("[Two] Second?")
    term.expect("Choose 1-4: ")
    term.send(UP + BACKSPACE + "2" + ENTER)  # Up gives "1": made "2"
    term.expect("[Three] Third?")
    term.expect("Choose 1-4: ")
    term.send(UP + UP + DOWN + ENTER)  # "2", then "1", then back to "2"
    term.expect("Submit? [y]: ")
    term.send("y" + ENTER)
    content = answer(term.result())
    assert '"First?"="A", "Second?"="B", "Third?"="B"' in content, term.log.getvalue()


OTHER = call(
    question("First?", "One", ("A", "B")),
    question("Second?", "Two", ("A", "B")),
)


def test_a_text_prompt_has_its_own_history(tmp_path: Path) -> None:
    """Up at Other's text recalls earlier texts, not the choices typed before."""
    given = tmp_path / "other.json"
    given.write_text(json.dumps(OTHER))
    term = Keys(["ask", str(given)], tmp_path)
    term.expect("Choose 1-3: ")
    term.send("3" + ENTER)
    term.expect("Other, type your answer: ")
    term.send("Moment.js" + ENTER)
    term.expect("Choose 1-3: ")
    term.send("3" + ENTER)
    term.expect("Other, type your answer: ")
    term.send(UP + UP + ENTER)  # only the text is there, whatever Up is pressed
    term.expect("Submit? [y]: ")
    term.send(ENTER)
    content = answer(term.result())
    assert '"First?"="Moment.js", "Second?"="Moment.js"' in content, term.log.getvalue()


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
                },
                {
                    "id": "name",
                    "header": "Name",
                    "question": "Which name?",
                    "options": [{"label": "Ada", "description": "the first"}],
                },
            ]
        }
    ),
}


def test_a_secret_never_enters_the_history(tmp_path: Path) -> None:
    given = tmp_path / "secret.json"
    given.write_text(json.dumps(SECRET))
    term = Keys(["ask", str(given)], tmp_path)
    term.expect("Choose 1-2: ")
    term.send("2\n")  # Other, at a secret question: read unechoed, without editing
    term.expect("Other, type your answer: ")
    term.send("hunter2\n")
    term.expect("Choose 1-2: ")
    term.send("2" + ENTER)
    term.expect("Other, type your answer: ")
    term.send(UP + UP + "Grace" + ENTER)  # nothing to recall: the secret is not there
    term.expect("Submit? [y]: ")
    term.send(ENTER)
    text = json.dumps(term.result())
    assert "Grace" in text and "hunter2Grace" not in text, term.log.getvalue()
    assert "hunter2" not in term.log.getvalue()  # never echoed either


def test_the_timeout_ends_a_line_being_edited(tmp_path: Path) -> None:
    term = Keys(["ask", "--timeout", "1", str(LIBRARY)], tmp_path)
    term.expect(PROMPT)
    term.send("2" + LEFT)  # typed, never entered
    reply = term.result()
    assert answer(reply).startswith("No answer from the user (no reply within 1 second)")
    assert term.child.exitstatus == 3


def test_ctrl_c_while_editing_declines(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path, pipe=False)
    term.expect(PROMPT)
    term.send("2" + LEFT)
    term.send("\x03")
    reply = term.result()
    assert reply["is_error"] is True
    assert "dayjs" not in answer(reply)
    assert term.child.exitstatus == 130


def test_ctrl_d_on_an_empty_line_ends_the_answers(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path)
    term.expect(PROMPT)
    term.send("2" + BACKSPACE + "\x04")
    reply = term.result()
    assert answer(reply).startswith("No answer from the user (the input ended)")
    assert term.child.exitstatus == 3


@pytest.mark.parametrize(
    ("sig", "status", "why"),
    [(signal.SIGTERM, 143, "askcli was stopped"), (signal.SIGHUP, 129, "the terminal hung up")],
)
def test_a_signal_while_editing_is_no_answer(
    tmp_path: Path, sig: signal.Signals, status: int, why: str
) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path)
    term.expect(PROMPT)
    term.send("2" + LEFT)
    os.kill(askcli_pid(term), sig)
    reply = term.result()
    assert answer(reply).startswith(f"No answer from the user ({why})")
    assert term.child.exitstatus == status


def test_record_keeps_the_edited_line(tmp_path: Path) -> None:
    fixture = tmp_path / "fixture.json"
    term = Keys(["record", str(LIBRARY), "-o", str(fixture)], tmp_path)
    term.expect(PROMPT)
    term.send("23" + LEFT + BACKSPACE + ENTER)
    term.result()
    saved = json.loads(fixture.read_text())
    assert saved["answers"] == ["3"]
    assert "Choose 1-4 [1]: 3\n" in saved["stderr"]


def test_a_line_past_the_limit_is_refused_and_kept_nowhere(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path)
    term.expect(PROMPT)
    term.send("9" * 70_000 + ENTER)
    term.child.expect_exact("the limit is 65536", timeout=30)
    term.expect(PROMPT)
    term.send(UP + "2" + ENTER)  # the long line is not in the history
    reply = term.result()
    assert '"Which library should we use for date formatting?"="dayjs"' in answer(reply)


def test_the_inputrc_is_read_and_nothing_is_written_home(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path, INPUTRC="")
    (term.home / ".inputrc").write_text('"\\C-t": "2"\n')
    term.expect(PROMPT)
    term.send("\x14" + ENTER)  # Ctrl-T types 2, as the person's ~/.inputrc says
    reply = term.result()
    assert '"Which library should we use for date formatting?"="dayjs"' in answer(reply)
    assert sorted(p.name for p in term.home.iterdir()) == [".inputrc"]


def test_without_readline_a_terminal_reads_as_before(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path, program=WITHOUT_LINE_EDITING)
    term.expect(PROMPT)
    term.send("12" + LEFT + BACKSPACE + "\n")  # the terminal's own line: Left is no key
    term.expect("! ")
    term.expect(PROMPT)
    term.send("2\n")
    assert '"Which library should we use for date formatting?"="dayjs"' in answer(term.result())


def test_piped_answers_read_as_before(tmp_path: Path) -> None:
    """Answers from a pipe while the screens go to a terminal: no editing, the line is echoed
    after the prompt as it always was."""
    term = Keys(["ask", str(LIBRARY)], tmp_path)
    term.child.close()
    out = tmp_path / "piped.txt"
    command = f"printf '2\\n' | {shlex.quote(str(askcli_path()))} ask {LIBRARY} | cat > {out}"
    log = io.StringIO()
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", command],
        env={**os.environ, "TERM": "dumb", "COLUMNS": "80", "ASKCLI_NOTIFY": "none"},
        timeout=5,
        encoding="utf-8",
        dimensions=(24, 80),
    )
    child.logfile_read = log
    child.expect(pexpect.EOF)
    child.close()
    assert f"{PROMPT}2\r\n" in log.getvalue()
    assert len(out.read_text().splitlines()) == 1


# -- in process -------------------------------------------------------------------------


def test_pipes_files_and_secrets_are_not_edited(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    answers = tmp_path / "answers.txt"
    answers.write_text("2\n")
    with open(answers, "rb") as file:
        try:
            for reader in (
                FdLineReader(read_end),
                FdLineReader(file.fileno()),
                TextLineReader(io.StringIO("2\n")),
            ):
                conv = Conversation(reader, io.StringIO(), Style())
                assert not editing.editable(conv, secret=False)
        finally:
            os.close(read_end)
            os.close(write_end)


def test_a_terminal_is_edited_but_not_a_secret_and_not_the_calls_stream() -> None:
    pytest.importorskip("readline")
    keyboard, terminal = os.openpty()
    screen = os.fdopen(os.dup(terminal), "w")
    try:
        conv = Conversation(FdLineReader(terminal), screen, Style())
        assert editing.editable(conv, secret=False)
        assert not editing.editable(conv, secret=True)
        follow = RunOptions(calls_follow=True)
        shared = Conversation(FdLineReader(terminal), screen, Style(), follow)
        assert not editing.editable(shared, secret=False)
        os.write(keyboard, b"typed ahead\n")  # a whole line waits: read as it was typed
        from tests.support.processes import poll

        poll(lambda: editing._waiting(terminal), "the line at the terminal")
        assert not editing.editable(conv, secret=False)
    finally:
        screen.close()
        os.close(keyboard)
        os.close(terminal)


def test_the_history_keeps_lines_per_kind_without_repeats_or_blanks() -> None:
    editing.reset()
    try:
        for line in ["1", "1", " ", "2"]:
            editing._remember(editing.CHOICE, line)
        editing._remember(editing.TEXT, "Moment.js")
        assert editing.history(editing.CHOICE) == ["1", "2"]
        assert editing.history(editing.TEXT) == ["Moment.js"]
        for n in range(editing.HISTORY + 5):
            editing._remember(editing.INBOX, str(n))
        assert len(editing.history(editing.INBOX)) == editing.HISTORY
    finally:
        editing.reset()


# -- the inbox: a line being typed when a question arrives ---------------------------------


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    found = Queue(tmp_path)
    try:
        yield found
    finally:
        found.close()


def test_the_inbox_keeps_a_line_being_typed_across_an_arrival(queue: Queue) -> None:
    first = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_1"), "a")
    term = queue.inbox()
    term.expect("Answer #1? ")
    term.expect("[y]: ")
    term.child.send("l")  # typed, not entered, when #2 arrives
    queue.ask(labelled("Which port?", "Port", "80", "8080", id="toolu_2"), "b")
    term.expect("new #2")
    term.expect("[y]: ")
    term.child.send(ENTER)  # the line is still "l": it lists, it does not answer #1
    term.expect("Which port?")
    term.expect("[y]: ")
    assert "Choose 1-3" not in term.log.getvalue()
    term.child.sendeof()
    assert exit_status(term) == 0
    first.kill()


# -- in process, on a pty: what is put back ---------------------------------------------------


class Typist:
    """Reads what the terminal shows and types ``keys`` once ``prompt`` is on it, until
    stopped: stopped before its descriptor is closed, it never reads a later terminal that
    is given the same number (which took the next test's prompt and typed into it)."""

    def __init__(self, keyboard: int, prompt: bytes, keys: bytes) -> None:
        import threading

        self.keyboard, self.prompt, self.keys = keyboard, prompt, keys
        self.shown = b""
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)

    def _run(self) -> None:
        import select

        typed = False
        while not self.stopping.is_set():
            ready, _, _ = select.select([self.keyboard], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.keyboard, 4096)
            except OSError:
                return
            if not data:
                return
            self.shown += data
            if not typed and self.prompt in self.shown:
                typed = True
                if self.keys:
                    os.write(self.keyboard, self.keys)


def _standard_state() -> tuple[Any, ...]:
    """Descriptors 0 and 1, sys.stdin and sys.stdout, the SIGALRM handler, the signal mask."""
    return (
        os.fstat(0).st_ino,
        os.fstat(0).st_rdev,
        os.fstat(1).st_ino,
        os.fstat(1).st_rdev,
        sys.stdin,
        sys.stdout,
        signal.getsignal(signal.SIGALRM),
        signal.pthread_sigmask(signal.SIG_BLOCK, set()),
    )


@pytest.mark.parametrize(
    ("keys", "timeout", "expected"),
    [
        (b"12" + LEFT.encode() + BACKSPACE.encode() + b"\r", None, "2"),
        (b"2" + LEFT.encode(), 0.5, AnswerTimeout),
    ],
    ids=["answered", "timed-out"],
)
def test_descriptors_streams_signals_and_environment_are_put_back(
    keys: bytes, timeout: float | None, expected: object
) -> None:
    pytest.importorskip("readline")
    import termios

    keyboard, terminal = os.openpty()
    screen = os.fdopen(os.dup(terminal), "w")
    before = _standard_state()
    modes = termios.tcgetattr(terminal)
    typist = Typist(keyboard, b"Choose: ", keys)
    try:
        conv = Conversation(FdLineReader(terminal), screen, Style(), RunOptions(timeout=timeout))
        if isinstance(expected, str):
            assert conv.read_answer("Choose: ") == expected
        else:
            with pytest.raises(AnswerTimeout):
                conv.read_answer("Choose: ")
        assert _standard_state() == before
        assert termios.tcgetattr(terminal) == modes  # the terminal's own line mode again
        if "LINES" not in os.environ:  # readline's export undone for the processes to come
            assert subprocess.run(["printenv", "LINES"], capture_output=True).returncode == 1
        end = time.monotonic() + 5  # the typist reads the terminal in a thread of its own
        while b"Choose: " not in typist.shown and time.monotonic() < end:
            time.sleep(0.01)
        assert b"Choose: " in typist.shown
    finally:
        typist.stop()
        screen.close()
        os.close(keyboard)
        os.close(terminal)


def test_a_control_character_typed_is_shown_as_one_never_raw(tmp_path: Path) -> None:
    term = Keys(["ask", str(LIBRARY)], tmp_path)
    term.expect(PROMPT)
    start = len(term.log.getvalue())
    term.send("\x16\x1b" + ENTER)  # Ctrl-V Esc: a raw Esc in the line
    term.expect("^[")  # readline shows it as ^[
    term.expect(PROMPT)  # refused, asked again
    term.send("2" + ENTER)
    reply = term.result()
    assert "dayjs" in answer(reply)
    assert "\x1b" not in term.log.getvalue()[start:], term.log.getvalue()


def test_the_agents_prompt_recalls_earlier_messages_not_answers(tmp_path: Path) -> None:
    """``askcli acp``'s ``> ``: Up gives the earlier message; the choice typed at the agent's
    permission request is in another history."""
    pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")
    from tests.support.acp import SHORT, chunk, ended, expect, read_log, spawn

    child, shown, log = spawn(tmp_path, [[SHORT, chunk("one")], [chunk("two")]])
    expect(child, shown, "> ")
    child.send("run the tests" + ENTER)
    expect(child, shown, "Choose 1-3, y = 2, n = 3: ")
    child.send("2" + ENTER)
    expect(child, shown, "Agent: one")
    expect(child, shown, "> ")
    child.send(UP + UP + ENTER)  # the message, whatever Up is pressed: not the "2"
    expect(child, shown, "Agent: two")
    expect(child, shown, "> ")
    child.sendeof()
    assert ended(child, shown) == 0
    prompts = [e["prompt"][0]["text"] for e in read_log(log) if "prompt" in e]
    assert prompts == ["run the tests", "run the tests"], shown.getvalue()


def test_a_prompt_too_wide_for_a_dumb_terminal_is_shown_whole(tmp_path: Path) -> None:
    """TERM=dumb: readline would scroll the line sideways and cut the prompt (``<ter for
    more``); such a prompt is read as the terminal gives it. xterm wraps it: edited."""
    bash = json.loads((EXAMPLES / "bash.json").read_text())
    steps = "\n".join(f"step {n}" for n in range(30))
    given = tmp_path / "long.json"
    given.write_text(json.dumps({**bash, "input": {"command": steps}}))
    term = Keys(["ask", str(given)], tmp_path, 40, LINES="12")
    term.expect("--more-- (10 of ")  # the pager's prompt, wider than 40 columns
    term.send("n\n")
    assert term.result()["is_error"] is True
    assert "<" not in term.log.getvalue()

    wraps = Keys(["ask", str(LIBRARY)], tmp_path, 40, TERM="xterm")
    wraps.expect("[1]: ")
    wraps.send("12" + LEFT + BACKSPACE + ENTER)
    assert "dayjs" in answer(wraps.result())


@pytest.mark.parametrize("signalled", [True, False])
def test_a_ctrl_c_that_readline_reports_as_the_end_is_the_ctrl_c(
    monkeypatch: pytest.MonkeyPatch, signalled: bool
) -> None:
    """Ctrl-C typed as the prompt appears: the handler ran (and raised), but GNU readline's
    input() reported the end of input, and askcli said "no answer (the input ended)" and
    exited 3 (about 1 run in 60 on a loaded machine). A signal taken during the read is the
    signal; an end of input with none is the end."""
    from askcli.terminal import signals

    class Module:
        def get_current_history_length(self) -> int:
            return 0

        def clear_history(self) -> None:
            pass

        def add_history(self, line: str) -> None:
            pass

    def swallowed(prompt: str) -> str:
        if signalled:
            signals._received.append(signal.SIGINT)  # as the handler records it
        raise EOFError

    monkeypatch.setattr(signals, "_received", [])
    monkeypatch.setattr("builtins.input", swallowed)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    try:
        if signalled:
            with pytest.raises(KeyboardInterrupt):
                editing._read(Module(), "choice", "", "Choose 1-3: ", mask, [False])
        else:
            assert editing._read(Module(), "choice", "", "Choose 1-3: ", mask, [False]) is None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
