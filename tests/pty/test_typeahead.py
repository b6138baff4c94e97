"""Text typed before a question is on screen never answers it (docs/safety.md, guarantees).

At a terminal, what waits to be read is dropped right before each question, permission
prompt, review or confirmation is shown, in every command; scripted input (pipes, files)
is read as it comes. In process on a pty pair, then the installed askcli in a pty: ``ask``,
``record``, ``hook --here``, ``inbox``, ``inbox answer``, ``acp`` with a scripted agent that
asks after a pause, and ``claude`` with the real Claude Code (2.1.197 and 2.1.332).
"""

from __future__ import annotations

import io
import json
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.lines import BufferedLineReader, FdLineReader, TextLineReader, flush_terminal
from askcli.terminal.conversation import TYPED_AHEAD, Conversation
from askcli.terminal.rendering import Style

from tests.support.calls import call, question
from tests.support.inbox import Queue, exit_status, labelled, leave, result
from tests.support.paths import LIBRARY, ROOT
from tests.support.processes import askcli_path, poll
from tests.support.terminals import Terminal

BASH = ROOT / "examples" / "bash.json"


# -- in process -------------------------------------------------------------------------------


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    """A terminal: (the keyboard's end, the reader's end)."""
    keyboard, terminal = os.openpty()
    try:
        yield keyboard, terminal
    finally:
        os.close(keyboard)
        os.close(terminal)


def waiting(fd: int) -> int:
    import fcntl
    import termios

    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), "little")


def test_lines_waiting_at_a_terminal_are_dropped(pty_pair: tuple[int, int]) -> None:
    keyboard, terminal = pty_pair
    os.write(keyboard, b"y\n")
    poll(lambda: waiting(terminal) > 0, "the typed line at the terminal")
    reader = FdLineReader(terminal)
    assert reader.interactive
    assert reader.discard_typed_ahead() is True
    os.write(keyboard, b"2\n")
    assert reader.readline(5) == "2"
    assert reader.discard_typed_ahead() is False  # nothing waited this time


def test_a_line_being_typed_is_dropped_too(pty_pair: tuple[int, int]) -> None:
    keyboard, terminal = pty_pair
    os.write(keyboard, b"y")  # no Enter yet: the terminal holds it
    reader = FdLineReader(terminal)
    reader.discard_typed_ahead()
    os.write(keyboard, b"n\n")
    assert reader.readline(5) == "n"


def test_a_pipe_keeps_what_waits() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"y\n2\n")
        reader = FdLineReader(read_end)
        assert not reader.interactive
        assert reader.discard_typed_ahead() is False
        assert reader.readline(5) == "y"
        assert reader.readline(5) == "2"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_flush_terminal_leaves_a_pipe_alone() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"kept\n")
        assert flush_terminal(read_end) is False
        assert os.read(read_end, 10) == b"kept\n"
    finally:
        os.close(read_end)
        os.close(write_end)


class Keyboard(BufferedLineReader):
    """A terminal whose typed bytes arrive in one piece (as a paste does)."""

    def __init__(self, *pieces: bytes) -> None:
        super().__init__(interactive=True)
        self.pieces = list(pieces)

    def _more(self, timeout: float | None) -> bytes:
        return self.pieces.pop(0) if self.pieces else b""


def test_what_was_read_into_the_buffer_is_dropped_and_left_out_of_the_transcript() -> None:
    reader = Keyboard(b"1\ny\nq\n", b"2\n")
    reader.transcript = bytearray()
    assert reader.readline() == "1"
    assert reader.discard_typed_ahead() is True  # "y\nq\n" waited in the buffer
    assert reader.readline() == "2"
    assert bytes(reader.transcript) == b"1\n2\n"  # what a recording keeps: what answered


def test_a_line_put_back_is_dropped_but_was_never_in_the_transcript() -> None:
    reader = Keyboard(b"1\nz\n", b"2\n")
    reader.transcript = bytearray()
    assert reader.readline() == "1"
    reader.unread("x")
    assert reader.discard_typed_ahead() is True
    assert bytes(reader.transcript) == b"1\n"
    assert reader.readline() == "2"


def test_with_the_calls_in_the_same_stream_a_pasted_next_call_waits_its_turn() -> None:
    """The call pasted after this one is set aside while this one's answers are typed, and
    read when the next document is: a recording keeps the lines in the order they served."""
    call = b'{"type":"tool_use","id":"t2","name":"Bash","input":{}}\n'
    reader = Keyboard(b"1\ny\nq\n" + call + b"n\n", b"2\n")
    reader.transcript = bytearray()
    assert reader.readline() == "1"
    assert reader.discard_typed_ahead(keep_calls=True) is True  # "y" and "q" were not
    assert not reader.at_end
    assert reader.readline() == "2"  # typed at the prompt: this call's answer
    assert reader.read_piece() == (call.decode().rstrip("\n"), True)  # the next document
    assert reader.readline() == "n"
    assert bytes(reader.transcript) == b"1\n2\n" + call + b"n\n"
    assert reader.readline() is None and reader.at_end


def test_a_scripted_reader_keeps_its_lines() -> None:
    reader = TextLineReader(io.StringIO("y\n2\n"), interactive=False)
    assert reader.discard_typed_ahead() is False
    assert reader.readline() == "y"


class Screen(io.StringIO):
    """stderr that types ``line`` at the keyboard once ``prompt`` is on it."""

    def __init__(self, keyboard: int, prompt: str, line: bytes) -> None:
        super().__init__()
        self.keyboard, self.prompt, self.line = keyboard, prompt, line

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.prompt in text:
            os.write(self.keyboard, self.line)
        return written


def test_read_answer_drops_type_ahead_and_says_so(pty_pair: tuple[int, int]) -> None:
    keyboard, terminal = pty_pair
    os.write(keyboard, b"y\n")
    poll(lambda: waiting(terminal) > 0, "the typed line at the terminal")
    screen = Screen(keyboard, "Allow? ", b"n\n")
    conv = Conversation(FdLineReader(terminal), screen, Style())
    assert conv.read_answer("Allow? ") == "n"
    assert screen.getvalue() == f"{TYPED_AHEAD}\nAllow? "


def test_a_prompt_that_takes_type_ahead_keeps_it(pty_pair: tuple[int, int]) -> None:
    keyboard, terminal = pty_pair
    os.write(keyboard, b"next message\n")
    poll(lambda: waiting(terminal) > 0, "the typed line at the terminal")
    conv = Conversation(FdLineReader(terminal), io.StringIO(), Style())
    assert conv.read_answer("> ", command=False, fresh=False) == "next message"


def test_piped_answers_are_read_as_they_come() -> None:
    screen = io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO("y\n")), screen, Style())
    assert conv.read_answer("Allow? ") == "y"
    assert TYPED_AHEAD not in screen.getvalue()


# -- the installed askcli in a pty ----------------------------------------------------------------

# the commands start this late: what a test types first waits at the terminal meanwhile
LATE = 1.5


def test_ask_a_question_typed_ahead_is_not_answered(tmp_path: Path) -> None:
    term = Terminal(["ask", str(LIBRARY)], tmp_path, after=LATE)
    term.type("3")  # before askcli even runs
    term.expect("[Library] Which library should we use for date formatting?")
    term.expect(TYPED_AHEAD)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    status, reply = term.finish()
    assert status == 0
    assert '"Which library should we use for date formatting?"="dayjs"' in reply["content"]


@pytest.mark.parametrize("columns", [80, 40])
def test_ask_a_permission_typed_ahead_is_not_approved(tmp_path: Path, columns: int) -> None:
    term = Terminal(["ask", str(BASH)], tmp_path, columns, after=LATE)
    term.type("y")
    term.expect(TYPED_AHEAD)
    term.expect("Allow? ")
    term.type("n")
    status, reply = term.finish()
    assert status == 1  # declined
    assert reply["is_error"] is True  # the y typed ahead approved nothing
    assert reply["content"].startswith("The user doesn't want to proceed with this tool use.")


def test_ask_two_calls_pasted_at_once_are_both_asked(tmp_path: Path) -> None:
    """Calls and answers on one stream at a terminal: the second call pasted with the first
    is a call, not type-ahead; a stray line between them is dropped."""
    term = Terminal(["ask", "-"], tmp_path)
    term.expect("paste the call (JSON) and then answer")
    first, second = (
        json.dumps({**json.loads(BASH.read_text()), "id": f"toolu_{n}"}) for n in (1, 2)
    )
    term.child.send(f"{first}\ny\n{second}\n")
    term.expect(TYPED_AHEAD)
    term.expect("Allow? ")
    term.type("y")
    term.expect("Allow? ")
    term.type("n")
    term.child.sendeof()
    term.expect_end()
    replies = [json.loads(line) for line in term.out.read_text().splitlines()]
    assert [r.get("tool_use_id") for r in replies] == ["toolu_1", "toolu_2"]
    assert replies[0].get("behavior") == "allow", (replies, term.log.getvalue())
    assert replies[1]["is_error"] is True


def test_record_keeps_only_the_answers_given_at_the_prompt(tmp_path: Path) -> None:
    fixture = tmp_path / "fixture.json"
    term = Terminal(["record", str(LIBRARY), "-o", str(fixture)], tmp_path, after=LATE)
    term.type("3")
    term.expect(TYPED_AHEAD)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    status, _ = term.finish()
    assert status == 0, term.log.getvalue()
    saved = json.loads(fixture.read_text())
    assert saved["answers"] == ["2"]
    replay = pexpect.run(f"{askcli_path()} replay {fixture}", encoding="utf-8", timeout=30)
    assert replay.startswith("ok"), replay


def test_hook_here_a_question_typed_ahead_is_not_answered(tmp_path: Path) -> None:
    from tests.support.hook import hook_input, inbox_env

    given = tmp_path / "hook.json"
    given.write_text(json.dumps(hook_input()))
    out = tmp_path / "out.json"
    command = " ".join(shlex.quote(a) for a in [str(askcli_path()), "hook", "--here"])
    command = f"sleep {LATE}; exec {command} < {shlex.quote(str(given))} > {out}"
    env = {**os.environ, **inbox_env(tmp_path), "TERM": "dumb", "COLUMNS": "80"}
    shown = io.StringIO()
    child = pexpect.spawn("/bin/sh", ["-c", command], env=env, timeout=5, encoding="utf-8")
    child.logfile_read = shown
    child.sendline("3")
    try:
        child.expect_exact(TYPED_AHEAD)
        child.expect_exact("Choose 1-3: ")
        child.sendline("2")
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{shown.getvalue()}")
    child.close()
    assert child.exitstatus == 0, shown.getvalue()
    output = json.loads(out.read_text())
    assert output["hookSpecificOutput"]["updatedInput"]["answers"] == {"Which color?": "Blue"}


def test_inbox_a_key_typed_while_waiting_does_not_decline_what_arrives(queue: Queue) -> None:
    term = queue.inbox()
    term.expect("Waiting for questions")
    term.child.send("q")  # typed at "Waiting", no Enter yet
    asker = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_q"), "q")
    term.expect("Answer #1? ")
    term.expect("[y]: ")
    term.type("")  # Enter, now that the question is on screen: it opens the question
    term.expect("Choose 1-3: ")
    term.type("2")
    status, replies, _ = result(asker)
    assert status == 0
    assert '"Which database?"="SQLite"' in replies[0]["content"]
    assert leave(term) == 0


def test_inbox_a_line_typed_while_waiting_is_for_the_waiting_prompt(queue: Queue) -> None:
    term = queue.inbox()
    term.expect("Waiting for questions")
    term.expect("Ctrl-D leaves): ")
    term.type("l")
    term.expect("(no questions waiting)")
    assert leave(term) == 0


def test_inbox_answer_a_question_typed_ahead_is_not_answered(queue: Queue) -> None:
    asker = queue.ask(call(question("Which port?", "Port", ["80", "8080"]), id="toolu_p"), "p")
    where = queue.tmp / "answering"
    where.mkdir()
    term = Terminal(
        ["inbox", "answer", "1"],
        where,
        after=LATE,
        ASKCLI_INBOX=queue.where,
        XDG_STATE_HOME=str(queue.state),
    )
    queue.terminals.append(term)
    term.type("1")
    term.expect(TYPED_AHEAD)
    term.expect("Choose 1-3: ")
    term.type("2")
    assert exit_status(term) == 0
    status, replies, _ = result(asker)
    assert status == 0
    assert '"Which port?"="8080"' in replies[0]["content"]


# -- askcli acp: a scripted agent that asks after working a while ----------------------------------


def test_acp_a_permission_typed_ahead_while_the_agent_works_is_not_approved(
    tmp_path: Path,
) -> None:
    pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")
    from tests.support.acp import SHORT, chunk, ended, expect, read_log, spawn, wait_log

    child, shown, log = spawn(tmp_path, [[{"sleep": 2}, SHORT, chunk("done")]], "--prompt", "go")
    wait_log(log, "prompt")
    child.sendline("y")  # the agent works; nothing asks yet
    expect(child, shown, TYPED_AHEAD)
    expect(child, shown, "Choose 1-3, y = 2, n = 3: ")
    child.sendline("n")
    expect(child, shown, "done")
    assert ended(child, shown) == 0  # --prompt: one turn
    replies = [e["reply"] for e in read_log(log) if "reply" in e]
    assert replies == [
        {
            "method": "session/request_permission",
            "result": {"outcome": {"outcome": "selected", "optionId": "cancel"}},
        }
    ]


# -- askcli claude: the real Claude Code, a model that takes its time -----------------------------


def claude_releases() -> list[Any]:
    from tests.support.real_agents import CURRENT, REAL

    return [
        pytest.param(REAL, id="2.1.197"),
        pytest.param(CURRENT, id="2.1.332"),
    ]


@pytest.mark.parametrize("claude_bin", claude_releases())
def test_claude_a_permission_typed_ahead_while_claude_code_works_is_not_approved(
    tmp_path: Path, claude_bin: Path
) -> None:
    from tests.support.claude import Api, text, use

    if not claude_bin.exists():
        pytest.skip(
            f"Claude Code is not installed at {claude_bin} (make test installs it with npm)"
        )
    turns = [
        {
            "content": [use("toolu_01Rm", "Bash", {"command": "rm -f important.txt"})],
            "stop_reason": "tool_use",
            "delay": 3,  # the model thinks; the person types meanwhile
        },
        {"content": [text("Left it.")], "stop_reason": "end_turn"},
    ]
    api = Api(tmp_path, turns, claude_bin=claude_bin)
    try:
        work = tmp_path / "work"
        work.mkdir()
        (work / "important.txt").write_text("keep me")
        child, shown = api.spawn(work, "tidy up")
        child.sendline("y")  # nothing asks yet: Claude Code is starting, the model thinking
        try:
            child.expect_exact("rm -f important.txt")
            child.expect_exact(TYPED_AHEAD)
            child.expect_exact("Allow?")
            child.expect_exact(": ")
            child.sendline("n")
            child.expect_exact("Left it.")
            child.expect(pexpect.EOF)  # the prompt given, its turn done: the session ends
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"the terminal showed:\n{shown.getvalue()}")
        child.close()
        assert child.exitstatus == 0, shown.getvalue()
        assert (work / "important.txt").read_text() == "keep me"
        assert api.tool_results()["toolu_01Rm"].get("is_error") is True
    finally:
        api.stop()
