"""A waiting question calls the person once per call (``--notify``), with askcli's own fixed
bytes only, in a real terminal (a pty) at 80 and at 40 columns (issue 11, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askcli.terminal import notify

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES, PEERS
from tests.support.processes import poll, run_askcli
from tests.support.raw_terminal import Terminal

LOGIN = EXAMPLES / "login.json"
BASH = EXAMPLES / "bash.json"
TODO = EXAMPLES / "todo.json"
FAKE = PEERS / "fake-claude"
Q1 = "Which authentication method should the login use?"
# the exact bytes each mode writes (written out here, not taken from askcli)
BEL = b"\x07"
OSC9 = b"\x1b]9;askcli: a question is waiting\x07"
OSC777 = b"\x1b]777;notify;askcli;a question is waiting\x07"
SEQUENCES = {"bell": BEL, "osc9": OSC9, "osc777": OSC777}
COLUMNS = pytest.mark.parametrize("columns", [80, 40])


def answer_login(term: Terminal) -> None:
    """Answer the login call from its first prompt, which is on the screen."""
    term.type("x")  # refused and asked again: still one call
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("(e.g. 1,3): ")
    term.type("1")
    term.expect("Submit? [y]: ")
    term.type("")


# --- item 8: attention ---------------------------------------------------------------------


@COLUMNS
@pytest.mark.parametrize("mode", ["bell", "osc9", "osc777"])
def test_each_mode_writes_its_bytes_once_per_call_before_the_first_prompt(
    mode: str, columns: int, tmp_path: Path
) -> None:
    term = Terminal(["ask", "--notify", mode, str(LOGIN)], tmp_path, columns)
    term.expect(SEQUENCES[mode])
    term.expect("Choose 1-4 [1]: ")
    between = term.child.before
    assert b"\n" not in between  # the prompt follows at once: the call is waiting now
    answer_login(term)
    status, reply = term.finish()
    assert status == 0 and "User has answered" in reply["content"][0]["content"]
    assert term.shown.count(SEQUENCES[mode]) == 1, term.log()
    assert term.shown.count(BEL) == 1  # every sequence ends in BEL: nothing else rang
    assert term.shown.count(b"\x1b") == SEQUENCES[mode].count(b"\x1b")


@COLUMNS
def test_each_call_of_a_stream_rings_once_and_todo_write_never(
    columns: int, tmp_path: Path
) -> None:
    stream = tmp_path / "stream.jsonl"
    calls = [
        call(question("First?"), id="toolu_1"),
        json.loads(TODO.read_text()),
        json.loads(BASH.read_text()),
        call(question("Second?"), id="toolu_2"),
    ]
    stream.write_text("".join(json.dumps(c) + "\n" for c in calls))
    term = Terminal(["ask", "--notify", "bell", "--state", "/dev/null", str(stream)], tmp_path)
    term.expect(BEL)
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("Write the tests")
    term.expect(BEL)  # the permission prompt
    term.expect("Allow? 1 or 3 (y/n)")
    term.type("y")
    term.expect(BEL)
    term.expect("Choose 1-3: ")
    term.type("2")
    status, _ = term.finish()
    assert status == 0
    assert term.shown.count(BEL) == 3, term.log()


@COLUMNS
def test_todo_write_alone_never_rings(columns: int, tmp_path: Path) -> None:
    term = Terminal(["ask", "--notify", "bell", "--state", "/dev/null", str(TODO)], tmp_path)
    term.expect("Write the tests")
    status, _ = term.finish()
    assert status == 0
    assert BEL not in term.shown


@COLUMNS
@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--notify", "none"], {}),
        (["--notify", "bell"], {"TERM": "dumb"}),
        (["--notify", "osc9"], {"TERM": "dumb"}),
        ([], {"ASKCLI_NOTIFY": "none"}),
        ([], {"TERM": "dumb"}),
    ],
    ids=["none", "bell-dumb", "osc9-dumb", "env-none", "auto-dumb"],
)
def test_nothing_is_written_when_told_or_at_a_dumb_terminal(
    args: list[str], env: dict[str, str], columns: int, tmp_path: Path
) -> None:
    term = Terminal(["ask", *args, str(BASH)], tmp_path, columns, **env)
    term.expect("(y/n)")
    term.type("n")
    status, _ = term.finish()
    assert status == 1
    assert BEL not in term.shown and b"\x1b" not in term.shown, term.log()


@COLUMNS
def test_answers_that_do_not_come_from_the_terminal_ring_nothing(
    columns: int, tmp_path: Path
) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text("1\n")
    term = Terminal(
        ["ask", "--notify", "bell", "--answers", str(answers), str(BASH)], tmp_path, columns
    )
    status, _ = term.finish()
    assert status == 0
    assert BEL not in term.shown


def test_stderr_that_is_not_a_terminal_gets_nothing(tmp_path: Path) -> None:
    # stdin is the terminal (a person types), stderr a file: nobody sees a notification there
    err = tmp_path / "stderr.txt"
    term = Terminal(["ask", "--notify", "bell", str(BASH)], tmp_path, err=err)
    # typed once the prompt is out (what is typed before it is dropped)
    poll(lambda: err.exists() and "Allow?" in err.read_text(), "the prompt on stderr")
    term.child.sendline("y")
    assert term.finish()[0] == 0
    assert "Allow?" in err.read_text()
    assert "\x07" not in err.read_text()


@COLUMNS
@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM_PROGRAM": "iTerm.app"}, OSC9),
        ({"TERM_PROGRAM": "WezTerm"}, OSC9),
        ({"TERM_PROGRAM": "ghostty"}, OSC9),
        ({"TERM": "xterm-kitty"}, OSC9),
        ({"TERM": "foot"}, OSC777),
        ({"TERM": "rxvt-unicode-256color"}, OSC777),
        ({"TERM_PROGRAM": "Apple_Terminal"}, BEL),
        ({}, BEL),
        ({"ASKCLI_NOTIFY": "osc777"}, OSC777),
        ({"ASKCLI_NOTIFY": " OSC9 "}, OSC9),
    ],
)
def test_auto_and_the_environment_pick_by_the_terminal(
    env: dict[str, str], expected: bytes, columns: int, tmp_path: Path
) -> None:
    term = Terminal(["ask", str(BASH)], tmp_path, columns, **env)
    term.expect(expected)
    term.expect("(y/n)")
    term.type("y")
    status, _ = term.finish()
    assert status == 0
    assert term.shown.count(BEL) == 1


def test_a_bad_askcli_notify_is_said_and_auto_used(tmp_path: Path) -> None:
    term = Terminal(["ask", str(BASH)], tmp_path, ASKCLI_NOTIFY="loud\x1b[31m")
    term.expect("askcli: ASKCLI_NOTIFY=loud\\x1b[31m is not one of auto, bell, osc9, osc777")
    term.expect(BEL)
    term.expect("(y/n)")
    term.type("y")
    assert term.finish()[0] == 0


def test_a_bad_notify_option_is_a_usage_error(tmp_path: Path) -> None:
    term = Terminal(["ask", "--notify", "loud", str(BASH)], tmp_path)
    status, reply = term.finish()
    assert status == 2 and reply is None
    assert b"--notify" in term.shown


@COLUMNS
@pytest.mark.parametrize(
    ("env", "mode", "expected"),
    [
        ({"TMUX": "/tmp/tmux-1000/default,4242,0"}, "osc9", b"\x1bPtmux;\x1b" + OSC9 + b"\x1b\\"),
        (
            {"TMUX": "/tmp/tmux-1000/default,4242,0"},
            "osc777",
            b"\x1bPtmux;\x1b" + OSC777 + b"\x1b\\",
        ),
        ({"STY": "4242.pts-0.host"}, "osc9", b"\x1bP" + OSC9 + b"\x1b\\"),
        ({"TMUX": "/tmp/tmux-1000/default,4242,0"}, "bell", BEL),  # tmux rings bells itself
        (  # inside tmux TERM_PROGRAM is tmux's; iTerm2 still says who it is
            {"TMUX": "/tmp/t,1,0", "TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"},
            "auto",
            b"\x1bPtmux;\x1b" + OSC9 + b"\x1b\\",
        ),
    ],
    ids=["tmux-osc9", "tmux-osc777", "screen-osc9", "tmux-bell", "tmux-auto-iterm"],
)
def test_notifications_pass_through_tmux_and_screen(
    env: dict[str, str], mode: str, expected: bytes, columns: int, tmp_path: Path
) -> None:
    term = Terminal(["ask", "--notify", mode, str(BASH)], tmp_path, columns, **env)
    term.expect(expected)
    term.expect("(y/n)")
    term.type("y")
    status, _ = term.finish()
    assert status == 0
    assert term.shown.count(expected) == 1
    assert term.shown.count(b"\x1bP") == expected.count(b"\x1bP")


@COLUMNS
def test_model_text_never_reaches_the_terminal_raw_with_a_notification(
    columns: int, tmp_path: Path
) -> None:
    evil = "Ready?\x07\x1b]9;pwned\x07\x1bPtmux;\x1b\x1b]777;notify;x;y\x07\x1b\\"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(call(question(evil, labels=("A\x07", "B\x1b]9;no\x07")))))
    term = Terminal(["ask", "--notify", "osc9", str(path)], tmp_path, columns, TMUX="/t,1,0")
    term.expect("Choose 1-3: ")
    term.type("1")
    status, _ = term.finish()
    assert status == 0
    wrapped = b"\x1bPtmux;\x1b" + OSC9 + b"\x1b\\"
    assert term.shown.count(wrapped) == 1
    rest = term.shown.replace(wrapped, b"")
    assert b"\x1b" not in rest and BEL not in rest, term.log()
    assert b"\\x1b]9;pwned\\x07" in rest  # the model's own sequence, shown escaped


@COLUMNS
@pytest.mark.parametrize(("tool", "prompt"), [("Bash", "Allow?"), ("AskUserQuestion", "Choose")])
def test_askcli_claude_rings_once_for_its_question_and_never_at_the_prompt_line(
    tool: str, prompt: str, columns: int, tmp_path: Path
) -> None:
    env = {"FAKE_CLAUDE_MODE": "ask", "FAKE_CLAUDE_TOOL": tool}
    args = ["claude", "--claude-bin", str(FAKE), "--notify", "osc777"]
    term = Terminal(args, tmp_path, columns, **env)
    term.expect("> ")
    term.type("go")
    term.expect(OSC777)
    term.expect(prompt)
    term.type("1")
    term.expect("-- turn done")
    term.expect("> ")
    term.child.sendeof()
    status, _ = term.finish()
    assert status == 0
    assert term.out.read_text() == "echo: allow: go\n"
    assert term.shown.count(OSC777) == 1, term.log()
    assert term.shown.count(BEL) == 1


# --- item 6: a hang-up or SIGTERM is no answer ---------------------------------------------


# --- in process ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["ask", "claude"])
def test_the_cli_offers_exactly_the_modes(command: str) -> None:
    shown = run_askcli(command, "--help").stdout
    assert "--notify [auto|bell|osc9|osc777|none]" in " ".join(shown.split())
    assert [mode.value for mode in notify.NotifyMode] == ["auto", "bell", "osc9", "osc777", "none"]


@pytest.mark.parametrize("mode", ["bell", "osc9", "osc777"])
@pytest.mark.parametrize("wrap", ["none", "tmux", "screen"])
def test_every_sequence_is_one_of_the_fixed_ones(mode: str, wrap: str) -> None:
    seq = notify.Notice(notify.NotifyMode(mode), notify.Wrap(wrap)).sequence.encode()
    plain = SEQUENCES[mode]
    if mode == "bell" or wrap == "none":
        assert seq == plain
    elif wrap == "tmux":
        assert seq == b"\x1bPtmux;" + plain.replace(b"\x1b", b"\x1b\x1b") + b"\x1b\\"
    else:
        assert seq == b"\x1bP" + plain + b"\x1b\\"


@pytest.mark.parametrize(
    ("env", "mode", "expected"),
    [
        ({}, "none", None),
        ({"TERM": "dumb"}, "osc9", None),
        ({"TERM": "dumb", "TERM_PROGRAM": "iTerm.app"}, "auto", None),
        ({"TERM_PROGRAM": "tmux", "TMUX": "x", "KITTY_WINDOW_ID": "1"}, "auto", ("osc9", "tmux")),
        ({"TERM_PROGRAM": "vscode", "KITTY_WINDOW_ID": "1"}, "auto", ("bell", "none")),
        ({"WEZTERM_PANE": "3"}, "auto", ("osc9", "none")),
        ({"STY": "1.pts"}, "bell", ("bell", "screen")),
    ],
)
def test_resolve(env: dict[str, str], mode: str, expected: tuple[str, str] | None) -> None:
    got = notify.resolve(notify.NotifyMode(mode), env)
    assert (None if got is None else (got.mode.value, got.wrap.value)) == expected
