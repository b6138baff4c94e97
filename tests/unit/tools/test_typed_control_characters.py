"""A control character or a key's escape sequence in a line the person typed is refused with a
one-line reason that names it, visibly escaped, and the same prompt again; it never reaches
the agent (issue 29). In process at every kind of prompt, through a pipe with the installed
askcli (no hang, no loop: the next line, and at the end no answer), then in a pty."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.escaping import first_control
from askcli.inbox.person_side.commands import Inbox
from askcli.inbox.store import Agent, open_store
from askcli.lines import BytesLineReader, TextLineReader
from askcli.runners.session import ask
from askcli.terminal import editing
from askcli.terminal.conversation import Conversation, control_refusal
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.tools.journal import Journal, input_digest
from askcli.tools.todo_store import TodoStore

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path, run_askcli
from tests.support.terminals import WITHOUT_LINE_EDITING, pty_shell

LIBRARY = EXAMPLES / "library.json"
BASH = EXAMPLES / "bash.json"


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("plain text, 1,3 and ü", None),
        ("a\tb", None),  # a tab is text
        ("abc\x01X", "\x01"),
        ("ab\x1b[Dc", "\x1b[D"),  # a key's whole sequence, not its Esc alone
        ("\x1b[1;5C", "\x1b[1;5C"),
        ("x\x1bOA", "\x1bOA"),
        ("x\x1b", "\x1b"),
        ("\x1bb", "\x1bb"),  # Alt-b
        ("a\x7f", "\x7f"),
        ("a\x9b31m", "\x9b31m"),  # C1 CSI
        ("a\x85", "\x85"),
        ("a\rb", "\r"),
        ("\x00", "\x00"),
    ],
)
def test_the_first_control_character_or_sequence_is_found(line: str, found: str | None) -> None:
    assert first_control(line) == found


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("abc\x01X", "\\x01 (Ctrl-A) is not text: the line was not taken"),
        ("ab\x1b[D", "\\x1b[D (the Left key) is not text: the line was not taken"),
        ("\x1b[1;5C", "\\x1b[1;5C (an escape sequence) is not text"),
        ("x\x1b", "\\x1b (Esc) is not text"),
        ("a\x7f", "\\x7f (Backspace) is not text"),
        ("a\x85", "\\x85 (a control character) is not text"),
    ],
)
def test_the_reason_names_what_was_found(line: str, reason: str) -> None:
    refusal = control_refusal(line, secret=False)
    assert refusal is not None and refusal.startswith(reason)


def test_a_secret_line_is_refused_without_showing_what_it_holds() -> None:
    refusal = control_refusal("hunter2\x01", secret=True)
    assert refusal == "the line holds a control character, not text: it was not taken"


def _conversation(lines: str, **options: Any) -> tuple[Conversation, io.StringIO]:
    screen = io.StringIO()
    reader = TextLineReader(io.StringIO(lines), interactive=False)
    return Conversation(reader, screen, Style(width=200), RunOptions(**options)), screen


@pytest.mark.parametrize(
    "kind",
    [
        {"command": True},
        {"command": False, "fresh": False, "history": editing.MESSAGE},  # claude, acp: "> "
        {"command": False, "history": editing.INBOX},
    ],
    ids=["answer", "message", "inbox"],
)
def test_a_refused_line_is_followed_by_the_same_prompt(kind: dict[str, Any]) -> None:
    conv, screen = _conversation("go\x1b[2J\nthen go\n")
    assert conv.read_answer("> ", **kind) == "then go"
    shown = screen.getvalue()
    assert shown == (
        "> go\\x1b[2J\n"
        "! \\x1b[2J (an escape sequence) is not text: the line was not taken\n"
        "> then go\n"
    )


@pytest.mark.parametrize(
    "kind",
    [{"command": True}, {"command": False, "fresh": False, "history": editing.MESSAGE}],
    ids=["answer", "message"],
)
def test_a_line_that_is_not_utf8_is_refused_at_every_prompt(kind: dict[str, Any]) -> None:
    screen = io.StringIO()
    reader = BytesLineReader(io.BytesIO(b"caf\xe9\nthen go\n"))
    conv = Conversation(reader, screen, Style(width=200), RunOptions())
    assert conv.read_answer("> ", **kind) == "then go"
    assert "! that line is not valid UTF-8; type it again\n> then go\n" in screen.getvalue()


def test_lines_that_are_all_refused_end_as_no_answer() -> None:
    conv, _ = _conversation("1\x01\n\x1b[A\n")
    assert conv.read_answer("Choose 1-4: ") is None


THREE = call(
    question("First?", "One", ("A", "B")),
    question("Second?", "Two", ("A", "B")),
)
BAD = "\x1b]52;c;AAAA\x07"  # OSC 52: set the clipboard


@pytest.mark.parametrize(
    ("document", "lines", "expected"),
    [
        (THREE, ["1" + BAD, "1", "2"], '"First?"="A", "Second?"="B"'),
        (THREE, ["3", "mine" + BAD, "mine", "1", ""], '"First?"="mine"'),
        (THREE, ["n note" + BAD, "n note", "1", "1", ""], "user notes: note"),
        (THREE, ["c", "why" + BAD, "why"], "The user wants to clarify these questions.\nwhy"),
        (THREE, ["c why" + BAD, "c why"], "The user wants to clarify these questions.\nwhy"),
        (THREE, ["1; 2" + BAD, "1; 2", ""], '"First?"="A", "Second?"="B"'),
        (THREE, ["1", "2", "y" + BAD, "y"], '"First?"="A", "Second?"="B"'),
        (THREE, ["1", "q", "y" + BAD, "n", "2", ""], '"First?"="A", "Second?"="B"'),
        (json.loads(BASH.read_text()), ["n: stop" + BAD, "n: stop"], "the user said:\nstop"),
        (json.loads(BASH.read_text()), ["3", "stop" + BAD, "stop"], "the user said:\nstop"),
    ],
    ids=[
        "choice",
        "other",
        "notes",
        "chat-text",
        "chat-inline",
        "one-line",
        "review",
        "confirm",
        "feedback-inline",
        "feedback-prompt",
    ],
)
def test_every_prompt_refuses_a_control_character(
    tmp_path: Path, document: dict[str, Any], lines: list[str], expected: str
) -> None:
    screen = io.StringIO()
    typed = TextLineReader(io.StringIO("\n".join(lines) + "\n"), interactive=False)
    reply = ask(document, input=typed, output=screen, state=tmp_path / "todos.json")
    text = json.dumps(reply.replies)
    assert expected in json.loads(text)[0]["content"], screen.getvalue()
    assert "\\u001b" not in text and "\\u0007" not in text
    assert "(an escape sequence) is not text: the line was not taken" in screen.getvalue()
    assert "\x1b" not in screen.getvalue()


def test_the_inbox_prompt_refuses_a_control_character(tmp_path: Path) -> None:
    queue = open_store(str(tmp_path / "inbox.db"))
    try:
        queue.submit(call(question("Which port?", "Port", ("80", "8080"))), Agent("a", "s", "/w"))
        screen = io.StringIO()
        reader = TextLineReader(io.StringIO("q\x01\n\n2\n"), interactive=False)
        options = RunOptions(todos=TodoStore(tmp_path / "todos.json"))
        Inbox(queue, Conversation(reader, screen, Style(width=200), options)).run()
        shown = screen.getvalue()
        assert "! \\x01 (Ctrl-A) is not text: the line was not taken" in shown
        assert "#1 answered" in shown  # "q\x01" did not decline it
        found = queue.get(1)
        assert found is not None and found.result is not None
        assert '"Which port?"="8080"' in found.result["replies"][0]["content"]
    finally:
        queue.close()


# -- the installed askcli --------------------------------------------------------------------


@pytest.mark.process
def test_a_pipe_of_refused_lines_ends_as_no_answer_without_hanging() -> None:
    document = json.dumps(json.loads(LIBRARY.read_text()))
    proc = run_askcli("ask", input=f"{document}\n4\nabc\x01X\x1b[D\x1b[DY\n", timeout=10)
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout)["content"] == "No answer from the user (the input ended)."
    assert "Other, type your answer: abc\\x01X\\x1b[D\\x1b[DY\n" in proc.stderr
    assert "! \\x01 (Ctrl-A) is not text: the line was not taken\n" in proc.stderr


@pytest.mark.process
def test_an_answers_file_line_that_is_refused_is_followed_by_the_next(tmp_path: Path) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_bytes(b"2\x1b[C\n2\n")
    proc = run_askcli("ask", str(LIBRARY), "--answers", str(answers))
    assert proc.returncode == 0, proc.stderr
    assert (
        '"Which library should we use for date formatting?"="dayjs"'
        in json.loads(proc.stdout)["content"]
    )
    assert "! \\x1b[C (the Right key) is not text" in proc.stderr


@pytest.mark.pty
@pytest.mark.parametrize("editing_on", [True, False], ids=["readline", "terminal-line-mode"])
def test_at_a_terminal_a_control_character_is_refused(tmp_path: Path, editing_on: bool) -> None:
    """The issue's keys at a terminal without readline (its own line mode sends them on);
    with readline, Ctrl-V (quoted insert) puts a raw Ctrl-A in the line."""
    out = tmp_path / "stdout.txt"
    program = [str(askcli_path())] if editing_on else list(WITHOUT_LINE_EDITING)
    command = " ".join(shlex.quote(a) for a in [*program, "ask", str(LIBRARY)])
    env = {"HOME": str(tmp_path), "INPUTRC": str(tmp_path / "inputrc")}
    child, log = pty_shell(f"{command} > {shlex.quote(str(out))}", tmp_path, 80, env)

    def expect(text: str) -> None:
        try:
            child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {text!r}; the terminal showed:\n{log.getvalue()}")

    expect("Choose 1-4 [1]: ")
    child.send("4\r")
    expect("Other, type your answer: ")
    child.send("ab\x16\x01c\r" if editing_on else "abc\x01X\x1b[D\x1b[DY\r")
    expect("! \\x01 (Ctrl-A) is not text: the line was not taken")
    expect("Other, type your answer: ")
    child.send("abc\r")
    try:
        child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        pytest.fail(f"askcli did not exit; the terminal showed:\n{log.getvalue()}")
    child.close()
    assert child.exitstatus == 0, log.getvalue()
    reply = json.loads(out.read_text())
    assert '"Which library should we use for date formatting?"="abc"' in reply["content"]


def test_a_refused_line_never_enters_the_history() -> None:
    editing.reset()
    try:
        editing._remember(editing.TEXT, "abc\x01X")
        editing._remember(editing.TEXT, "a\tb")
        assert editing.history(editing.TEXT) == ["a\tb"]
    finally:
        editing.reset()


@pytest.mark.pty
@pytest.mark.parametrize("inputrc", ["", "TAB: complete\n"], ids=["python", "completing"])
def test_a_tab_is_text_at_a_terminal_too(tmp_path: Path, inputrc: str) -> None:
    """A tab typed or pasted is kept, as the terminal's own line mode and a pipe keep it,
    even where the person's ~/.inputrc has Tab complete (nothing to complete here: it
    would be dropped from the line)."""
    out = tmp_path / "stdout.txt"
    command = f"{shlex.quote(str(askcli_path()))} ask {LIBRARY} > {shlex.quote(str(out))}"
    (tmp_path / "inputrc").write_text(inputrc)
    env = {"HOME": str(tmp_path), "INPUTRC": str(tmp_path / "inputrc")}
    child, log = pty_shell(command, tmp_path, 80, env)
    for prompt, keys in (("Choose 1-4 [1]: ", "4\r"), ("Other, type your answer: ", "a\tb\r")):
        try:
            child.expect_exact(prompt)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {prompt!r}; the terminal showed:\n{log.getvalue()}")
        child.send(keys)
    try:
        child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        pytest.fail(f"askcli did not exit; the terminal showed:\n{log.getvalue()}")
    child.close()
    reply = json.loads(out.read_text())
    assert '"Which library should we use for date formatting?"="a\tb"' in reply["content"]


@pytest.mark.process
def test_a_kept_line_with_a_control_character_is_not_resumed(tmp_path: Path) -> None:
    """A journal written before lines were checked (or by hand): its line is skipped."""
    document = json.loads(LIBRARY.read_text())
    journal = Journal(tmp_path / "answers.jsonl")
    journal.record(document["id"], input_digest(document["input"]), "n see\x1b[2J this")
    proc = run_askcli(
        "ask", str(LIBRARY), "--journal", str(journal.path), input="y\n2\n", timeout=10
    )
    assert proc.returncode == 0, proc.stderr
    assert "You were answering this call before" not in proc.stderr
    content = json.loads(proc.stdout)["content"]
    assert "user notes" not in content and "\x1b" not in content
