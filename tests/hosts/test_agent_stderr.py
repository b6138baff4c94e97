"""An agent that ends early says why: its last stderr lines with its exit status
(askcli.hosts.child.AgentStderr in-process; askcli acp with the scripted agent and askcli
claude with the real Claude Code, at 80 and 40 columns)."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.hosts.child import TAIL, AgentStderr
from askcli.lines import TextLineReader
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style, wrap

from tests.support.paths import ROOT
from tests.support.processes import askcli_path


class Screen(io.StringIO):
    """A terminal's stderr, in memory."""

    def isatty(self) -> bool:
        return True


def conversation(width: int, at: type[io.StringIO] = Screen) -> tuple[Conversation, io.StringIO]:
    err = at()
    return Conversation(TextLineReader(io.StringIO("")), err, Style(width=width)), err


def test_lines_just_above_are_not_shown_twice() -> None:
    conv, err = conversation(80)
    stderr = AgentStderr(conv, "agent")
    stderr("Error: bad setting", 0)
    stderr("\x1b[?25h", 0)  # nothing to read: neither shown nor kept
    stderr.hold()
    stderr.ended("the agent failed (exited with status 52)")
    assert err.getvalue() == (
        "(agent stderr) Error: bad setting\naskcli: the agent failed (exited with status 52)\n"
    )


def test_lines_written_as_it_ends_come_with_its_end_cut_to_the_width() -> None:
    conv, err = conversation(40)
    stderr = AgentStderr(conv, "agent")
    stderr.hold()  # as Gemini CLI, which writes its stderr as it exits
    for n in range(1, 13):
        stderr(f"line {n}", 0)
    stderr("a \x1b[31mred\x1b[0m and a very long line that goes past forty", 12)
    stderr.ended("the agent failed: RequestError: Internal error (exited with status 1)")
    lines = err.getvalue().splitlines()
    assert lines[:3] == [
        "askcli: the agent failed: RequestError:",
        "  Internal error (exited with status 1)",
        f"  its last stderr lines ({TAIL} of 13):",
    ]
    assert lines[3:] == [
        *(f"  | line {n}" for n in range(4, 13)),
        "  | a \\x1b[31mred\\x1b[0m and a very…",  # cut after a whole word
    ]
    assert all(len(line) <= 40 for line in lines)
    assert "(agent stderr)" not in err.getvalue()  # held: shown once, at the end


def test_askcli_s_line_stays_one_line_for_a_script_and_what_to_do_comes_before_the_tail() -> None:
    conv, err = conversation(40, io.StringIO)
    stderr = AgentStderr(conv, "agent")
    stderr.hold()
    stderr("Skipping project agents due to untrusted folder.", 0)
    stderr.ended("the agent failed: it needs you to sign in: no key", ["sign in, then run again"])
    assert err.getvalue() == (
        "askcli: the agent failed: it needs you to sign in: no key\n"
        "sign in, then run again\n"
        "  its last stderr line:\n"
        "  | Skipping project agents due to…\n"
    )


def test_lines_scrolled_away_by_other_output_are_shown_again_with_the_end() -> None:
    conv, err = conversation(80)
    stderr = AgentStderr(conv, "Claude Code")
    stderr("Error: ANTHROPIC_BASE_URL is not a URL", 0)
    conv.say("Claude: working on it\n")
    stderr.hold()
    stderr("late line", 0)
    stderr.ended("Claude Code ended unexpectedly (exit status 1)")
    assert err.getvalue().endswith(
        "Claude: working on it\n"
        "askcli: Claude Code ended unexpectedly (exit status 1)\n"
        "  its last stderr lines:\n"
        "  | Error: ANTHROPIC_BASE_URL is not a URL\n"
        "  | late line\n"
    )


def test_the_tail_is_bounded_whatever_the_agent_writes() -> None:
    conv, _ = conversation(80)
    stderr = AgentStderr(conv, "agent")
    stderr.hold()
    for _ in range(100_000):
        stderr("x" * 2000, 0)
    assert len(stderr.kept) == TAIL
    assert stderr.count == 100_000


# --- end to end ------------------------------------------------------------------------

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

from tests.support.acp import setup  # noqa: E402
from tests.support.real_agents import ADAPTER_CURRENT, ADAPTERS, claude_env  # noqa: E402


def session(tmp_path: Path, script: dict[str, Any], columns: int) -> str:
    """``askcli acp --prompt go`` with the scripted agent in a pty ``columns`` wide: what it
    showed, once it ended with status 1."""
    agent, _ = setup(tmp_path, script.pop("turns"), **script)
    child = pexpect.spawn(
        str(askcli_path()),
        ["acp", "--prompt", "go", "--", *agent],
        cwd=str(tmp_path),
        timeout=30,  # the machine may be busy: it ends by itself
        encoding="utf-8",
        dimensions=(24, columns),
        env={**os.environ, "NO_COLOR": "1"},
    )
    shown = io.StringIO()
    child.logfile_read = shown
    try:
        child.expect_exact(pexpect.EOF)
    except pexpect.TIMEOUT:
        raise AssertionError(f"it did not end; the session:\n{shown.getvalue()}") from None
    child.close()
    assert child.exitstatus == 1, shown.getvalue()
    return shown.getvalue().replace("\r\n", "\n")


@pytest.mark.pty
@pytest.mark.parametrize("columns", [80, 40])
def test_an_agent_that_exits_shows_its_last_stderr_lines(tmp_path: Path, columns: int) -> None:
    lines = [{"stderr": f"warning {n}"} for n in range(1, 12)]
    lines.append(
        {"stderr": "Error: GEMINI_MODEL=foo is not a model \x07 (see --help for the list)"}
    )
    update = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Reading"}
    # the lines are shown as they come, then the update after them (the pause keeps that
    # order: stderr and the updates come on two pipes), so they are no longer just above
    pending = {"update": {**update, "kind": "read", "status": "pending"}}
    turn = [*lines, {"sleep": 0.5}, pending, {"exit": 3}]
    shown = session(tmp_path, {"turns": [turn]}, columns)
    end = shown[shown.index("askcli: the agent failed") :]
    error = "Error: GEMINI_MODEL=foo is not a model \\x07 (see --help for the list)"
    if columns == 80:
        assert end == (
            "askcli: the agent failed (exited with status 3)\n"
            "  its last stderr lines (10 of 12):\n"
            + "".join(f"  | warning {n}\n" for n in range(3, 12))
            + f"  | {error}\n"
        )
    else:
        assert end == (
            "askcli: the agent failed (exited with\n"
            "  status 3)\n"
            "  its last stderr lines (10 of 12):\n"
            + "".join(f"  | warning {n}\n" for n in range(3, 12))
            + "  | Error: GEMINI_MODEL=foo is not a…\n"  # cut after a whole word
        )
    assert shown.count("warning 3") == 2  # once as it came, once with the end
    assert "\x07" not in shown


@pytest.mark.pty
@pytest.mark.parametrize("columns", [80, 40])
def test_stderr_held_until_the_agent_ends_comes_once_with_its_end(
    tmp_path: Path, columns: int
) -> None:
    script = {
        "turns": [[{"fail": "the settings are bad"}]],
        "stderr_at_end": ["Error in settings.json: Expected ',' at position 55", "Fix it."],
    }
    shown = session(tmp_path, script, columns)
    end = shown[shown.index("askcli: the agent failed") :]
    # then "(was killed by SIGTERM)" or not, as the agent ends in time or not
    if columns == 80:
        assert end.startswith(
            "askcli: the agent failed: RequestError: Internal error (the settings are bad)"
        )
        assert end.endswith(
            "\n  its last stderr lines:\n"
            "  | Error in settings.json: Expected ',' at position 55\n"
            "  | Fix it.\n"
        )
    else:
        assert end.startswith(
            "askcli: the agent failed: RequestError:\n  Internal error (the settings are bad)"
        )
        assert end.endswith(
            "\n  its last stderr lines:\n  | Error in settings.json: Expected…\n  | Fix it.\n"
        )
        assert all(len(line) <= 40 for line in end.splitlines())
    assert "(agent stderr)" not in shown  # not shown twice


CLAUDE = Path(
    os.environ.get("ASKCLI_CLAUDE_BIN", ROOT / ".cache/claude-code/node_modules/.bin/claude")
)


@pytest.mark.pty
@pytest.mark.skipif(not CLAUDE.exists(), reason="Claude Code is not installed (make claude-code)")
@pytest.mark.parametrize("columns", [80, 40])
def test_the_real_claude_code_exiting_early_says_why(tmp_path: Path, columns: int) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "NO_COLOR": "1",
    }
    missing = tmp_path / "no-settings.json"
    child = pexpect.spawn(
        str(askcli_path()),
        ["claude", "--claude-bin", str(CLAUDE), "--prompt", "hi", "--", "--settings", str(missing)],
        cwd=str(tmp_path),
        timeout=60,
        encoding="utf-8",
        dimensions=(24, columns),
        env=env,
    )
    log = io.StringIO()
    child.logfile_read = log
    child.expect_exact(pexpect.EOF)
    child.close()
    shown = log.getvalue().replace("\r\n", "\n")
    assert child.exitstatus == 1, shown
    line = f"(Claude Code stderr) Error: Settings file not found: {missing}"
    said = "\n".join(wrap(line, columns, rest="  ")) + "\n"  # wrapped at the width
    if columns == 80:
        assert shown == said + "askcli: Claude Code ended unexpectedly (exit status 1)\n"
    else:
        assert shown == said + "askcli: Claude Code ended unexpectedly\n  (exit status 1)\n"


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_claude_agent_acp_hiding_claude_code_s_stderr_says_where_to_see_it(
    tmp_path: Path, adapter: Path
) -> None:
    # claude-agent-acp starts Claude Code with its stderr ignored: what it said is lost
    claude = tmp_path / "claude"
    claude.write_text(
        "#!/bin/sh\necho 'Error: a variable it rejects' >&2\nhead -n 1 >/dev/null\nexit 1\n"
    )
    claude.chmod(0o755)
    env = claude_env(tmp_path / "home", 9) | {"CLAUDE_CODE_EXECUTABLE": str(claude)}
    proc = subprocess.run(
        [str(askcli_path()), "acp", "--prompt", "hi", "--", str(adapter)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        env=env | {"COLUMNS": "40"},
    )
    assert proc.returncode == 1, proc.stderr
    said = "askcli: the agent failed: RequestError: Internal error (Claude Code process exited "
    if adapter == ADAPTER_CURRENT:  # 0.101.0 gives Claude Code's stderr in its error: no hint
        assert said + "with code 1. stderr: Error: a variable it rejects)" in proc.stderr
        assert "keeps Claude Code's" not in proc.stderr, proc.stderr
        return
    assert said + "with code 1)" in proc.stderr  # then "(was killed by SIGTERM)", if slow
    assert proc.stderr.endswith(
        ")\n"
        "  claude-agent-acp keeps Claude Code's\n"
        "  stderr from askcli: `askcli claude`\n"
        "  run in the same environment shows it\n"
    ), proc.stderr
