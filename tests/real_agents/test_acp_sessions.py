"""Whole `askcli acp` sessions with the real agents, at a terminal (a pty): a person types
prompts at `> `, answers the permission screens and the questions, presses Ctrl-C at one, and
ends with Ctrl-D. Gemini CLI runs on canned model replies (--fake-responses-non-strict: each
model request takes the next line for its method), Claude Code through claude-agent-acp
against the stand-in API (tests/peers/mock_anthropic.py: each agent-loop request takes the
next scripted turn, and every request is logged). Without the agents (`make test` installs
them into .cache/) these tests skip, saying why."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp_sessions import (
    ASK,
    Terminal,
    last_tool_results,
    mode_default,
    replays_the_same,
    sent_answers,
)
from tests.support.real_agents import (
    ADAPTER_CURRENT,
    ADAPTERS,
    claude_env,
    gemini,
    gemini_reply,
    needs_gemini,
)
from tests.support.real_agents import stand_in as api_stand_in


@pytest.fixture
def terminal() -> Iterator[Callable[[list[str], Path, dict[str, str]], Terminal]]:
    started: list[Terminal] = []

    def start(args: list[str], cwd: Path, env: dict[str, str]) -> Terminal:
        started.append(Terminal(args, cwd, env))
        return started[-1]

    yield start
    for term in started:  # a failed test leaves no askcli (nor agent) behind
        term.kill()


# --- Gemini CLI -------------------------------------------------------------------------


def shell(command: str, description: str) -> dict[str, Any]:
    """A model reply asking for run_shell_command."""
    args = {"command": command, "description": description}
    return gemini_reply({"functionCall": {"name": "run_shell_command", "args": args}})


def said(text: str) -> dict[str, Any]:
    """A model reply of text only."""
    return gemini_reply({"text": text})


def gemini_tool_results(home: Path) -> list[Any]:
    """The function responses Gemini CLI gave its model, from its own chat record
    ($HOME/.gemini/tmp/<project>/chats/session-*.jsonl), in order."""
    results = []
    for chat in sorted((home / ".gemini" / "tmp").glob("*/chats/*.jsonl")):
        for line in chat.read_text().splitlines():
            message = json.loads(line)
            if message.get("type") == "user" and isinstance(message.get("content"), list):
                results += [
                    part["functionResponse"]["response"]
                    for part in message["content"]
                    if "functionResponse" in part
                ]
    return results


def permission_screen(command: str, cwd: Path, description: str) -> str:
    return (
        f"The agent asks to run: {command}\n"
        "  kind: execute\n"
        f"  content: [current working directory {cwd}] ({description})\n"
        "  1. Allow for this session  (allow_always)\n"
        "  2. Allow  (allow_once)\n"
        "  3. Reject  (reject_once)\n"
        "Choose 1-3, y = 2, n = 3: "
    )


@needs_gemini
def test_gemini_session_allowed_denied_and_text_turns_recorded(
    tmp_path: Path, terminal: Callable[[list[str], Path, dict[str, str]], Terminal]
) -> None:
    # each turn takes its lines: a tool call and the text after its result (allowed or
    # denied, Gemini CLI asks its model again either way), then a text-only reply
    replies = [
        shell("echo one > first.txt", "write the first file"),
        said("Wrote first.txt."),
        shell("echo two > second.txt", "write the second file"),
        said("Fine, I left it."),
        said("Paris is the capital of France."),
    ]
    work, env, command = gemini(tmp_path, replies)
    record = tmp_path / "session.json"
    term = terminal(["--record", str(record), "--", *command], work, env)

    term.prompt()
    term.type("write the first file")
    term.expect("y = 2, n = 3: ")
    term.type("y")
    term.expect("-- turn done")
    term.prompt()
    assert (work / "first.txt").read_text() == "one\n", term.screen

    term.type("write the second file")
    term.expect("y = 2, n = 3: ")
    term.type("n")
    term.expect("-- turn done")
    term.prompt()
    assert not (work / "second.txt").exists(), term.screen

    term.type("what is the capital of France?")
    term.expect("-- turn done")
    term.prompt()
    assert term.ctrl_d() == 0, term.screen

    screen = term.screen
    assert screen.startswith("(Gemini CLI "), screen
    assert (
        "> write the first file\n\n"
        + permission_screen("echo one > first.txt", work, "write the first file")
        + "y\n"
        "  -> echo one > first.txt  (done)\n"
        "Agent: Wrote first.txt.\n"
        "-- turn done, T s\n"
        "> write the second file\n\n"
        + permission_screen("echo two > second.txt", work, "write the second file")
        + "n\n"
        "Agent: Fine, I left it.\n"
        "-- turn done, T s\n"
        "> what is the capital of France?\n"
        "Agent: Paris is the capital of France.\n"
        "-- turn done, T s\n"
        "> \n"
    ) in screen, screen
    assert f"askcli: recorded {record}\n" in screen
    assert "does not give what it did" not in screen
    assert "Traceback" not in screen

    # what Gemini CLI told its model: the allowed command's output, the denial
    results = gemini_tool_results(Path(env["HOME"]))
    assert len(results) == 2, results
    assert results[0]["output"].startswith("<untrusted_context>\nOutput: (empty)\n"), results
    assert results[1] == {"error": 'Tool "run_shell_command" was canceled by the user.'}

    assert sent_answers(record) == [
        {"outcome": {"outcome": "selected", "optionId": "proceed_once"}},
        {"outcome": {"outcome": "selected", "optionId": "cancel"}},
    ]
    from askcli import fixtures

    assert fixtures.load(record)["answers"] == [
        "write the first file",
        "y",
        "write the second file",
        "n",
        "what is the capital of France?",
    ]
    replays_the_same(record)


@needs_gemini
def test_gemini_ctrl_c_at_the_permission_screen_cancels_the_turn(
    tmp_path: Path, terminal: Callable[[list[str], Path, dict[str, str]], Terminal]
) -> None:
    # the cancelled turn asks its model nothing more: the next line is the next turn's.
    # askcli sends session/cancel before it answers the permission `cancelled`: Gemini CLI
    # takes a `cancelled` that comes alone for a denial and goes on with the turn (it asks
    # its model again), which it did about one time in eight when the answer came first.
    replies = [shell("echo three > third.txt", "write the third file"), said("Back again.")]
    work, env, command = gemini(tmp_path, replies)
    record = tmp_path / "ctrl-c.json"
    term = terminal(["--record", str(record), "--", *command], work, env)

    term.prompt()
    term.type("write the third file")
    term.expect("y = 2, n = 3: ")
    time.sleep(1.0)  # a person reads the screen first
    term.ctrl_c()
    term.expect("-- turn ended: cancelled")
    term.prompt()
    term.type("still there?")
    term.expect("-- turn done")
    term.prompt()
    assert term.ctrl_d() == 0, term.screen

    screen = term.screen
    assert (
        (
            "> write the third file\n\n"
            + permission_screen("echo three > third.txt", work, "write the third file")
            + "\n"  # Ctrl-C while the line is edited: no ^C echoed, the line ended
            "(cancelling the turn; Ctrl-C again ends the session)\n"
            "-- turn ended: cancelled, T s\n"
            "> still there?\n"
            "Agent: Back again.\n"
            "-- turn done, T s\n"
            "> \n"
        )
        in screen
    ), screen
    assert "third.txt  (" not in screen  # no status line: the command never started
    assert not (work / "third.txt").exists()
    assert gemini_tool_results(Path(env["HOME"])) == []
    assert "Traceback" not in screen
    assert "does not give what it did" not in screen
    from askcli import fixtures

    assert fixtures.load(record)["answers"] == ["write the third file", "\x03", "still there?"]
    assert sent_answers(record) == [{"outcome": {"outcome": "cancelled"}}]
    replays_the_same(record)


# --- Claude Code through claude-agent-acp ------------------------------------------------


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


@contextmanager
def stand_in(tmp_path: Path, turns: list[dict[str, Any]]) -> Iterator[tuple[dict[str, str], Path]]:
    """The stand-in API serving `turns`: (the adapter's environment, the request log)."""
    with api_stand_in(tmp_path, turns) as (port, log):
        yield claude_env(tmp_path / "home", port), log


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_claude_session_question_allowed_bash_rejected_write(
    tmp_path: Path, terminal: Callable[[list[str], Path, dict[str, str]], Terminal], adapter: Path
) -> None:
    work = Path(os.path.realpath(tmp_path)) / "work"
    work.mkdir()
    typed = "Mongo, maybe: 'v7' \"the new one\" \u00e9t\u00e9 \u2713"
    bash = {"command": "echo hi > out.txt", "description": "Write out.txt"}
    write = {"file_path": str(work / "notes.txt"), "content": "secret\n"}
    turns = [  # each agent-loop request takes the next one
        {
            "content": [text("Let me ask."), tool_use("toolu_ask_1", "AskUserQuestion", ASK)],
            "stop_reason": "tool_use",
        },
        {"content": [text("Noted your choice.")], "stop_reason": "end_turn"},
        {
            "content": [text("Writing it."), tool_use("toolu_bash_1", "Bash", bash)],
            "stop_reason": "tool_use",
        },
        {"content": [text("Wrote out.txt.")], "stop_reason": "end_turn"},
        {"content": [tool_use("toolu_write_1", "Write", write)], "stop_reason": "tool_use"},
        {"content": [text("Understood, not written.")], "stop_reason": "end_turn"},
    ]
    record = tmp_path / "session.json"
    with stand_in(tmp_path, turns) as (env, log):
        args = ["--record", str(record), *mode_default(adapter), "--", str(adapter)]
        term = terminal(args, work, env)
        term.prompt()
        term.type("pick a database")
        term.expect("Choose 1-3: ")
        term.type("3")
        term.expect("Other, type your answer: ")
        term.type(typed)
        term.expect("-- turn done")
        term.prompt()

        # claude-agent-acp's default mode asks before Bash (and Write)
        term.type("write out.txt")
        term.expect(", n = 3: ")
        term.type("y")
        term.expect("-- turn done")
        term.prompt()
        assert (work / "out.txt").read_text() == "hi\n", term.screen

        term.type("write notes.txt")
        term.expect(", n = 3: ")
        term.type("n")
        term.expect("-- turn done")
        term.prompt()
        assert term.ctrl_d() == 0, term.screen
        requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert not (work / "notes.txt").exists()

    screen = term.screen
    if adapter == ADAPTER_CURRENT:
        current_session_screen(screen, work, typed, record)
        asked_text = CURRENT_ANSWERED
        allowed = "allow-once"
    else:
        old_session_screen(screen, work, typed, record)
        asked_text = OLD_ANSWERED
        allowed = "allow"

    # what the model received: each answer in the request right after its tool call
    loop = [r for r in requests if r["request"].get("tools")]
    assert len(loop) == 6, [r["path"] for r in requests]
    answers = [last_tool_results(r) for r in loop]
    assert [[b["tool_use_id"] for b in a] for a in answers] == [
        [],
        ["toolu_ask_1"],
        [],
        ["toolu_bash_1"],
        [],
        ["toolu_write_1"],
    ]
    (asked,), (ran,), (refused,) = answers[1], answers[3], answers[5]
    # exactly as typed: quotes, accents, the check mark
    assert asked["content"] == asked_text.format(typed)
    assert typed.encode() in asked["content"].encode()
    assert not asked.get("is_error")
    assert ran["content"] == "(Bash completed with no output)"
    assert ran["is_error"] is False
    assert refused["content"] == "User refused permission to run tool"
    assert refused["is_error"] is True

    assert sent_answers(record) == [
        {"action": "accept", "content": {"question_0_custom": typed}},
        {"outcome": {"outcome": "selected", "optionId": allowed}},
        {"outcome": {"outcome": "selected", "optionId": "reject"}},
    ]
    replays_the_same(record)


# what AskUserQuestion's result says (Claude Code 2.1.185 in claude-agent-acp 0.49.0, 2.1.318
# in 0.101.0)
OLD_ANSWERED = (
    'Your questions have been answered: "Which database?"="{}". '
    "You can now continue with these answers in mind."
)
CURRENT_ANSWERED = (
    'The user answered: "Which database?"="{}". Read the answers carefully \u2014 they may '
    "request clarification, changes, or that you not proceed \u2014 and follow what they "
    "actually say."
)


def current_session_screen(screen: str, work: Path, typed: str, record: Path) -> None:
    """The session's screen with claude-agent-acp 0.101.0: the agent's own lines come in an
    order of its own (a tool call's line before or after the text beside it), so each part
    is checked in turn; its stderr lines (such as `[session/create] ...`) come when they
    come, and are left out."""
    screen = "".join(
        line for line in screen.splitlines(keepends=True) if not line.startswith("(agent stderr)")
    )
    parts = [
        "(Claude Agent 0.101.0 session ",
        "(config mode=auto: default, acceptEdits, plan, auto)\n"
        "(config model=default: default, opus, fable, sonnet, haiku)\n",
        "(config mode=default: default, acceptEdits, plan, auto)\n"
        "(type a message to the agent, then Enter; Ctrl-C stops a turn, Ctrl-D ends)\n"
        "> pick a database\n",
        "\n[DB] Which database?   (question 1 of 1)\n"
        "  1. Postgres - server\n"
        "  2. SQLite - file\n"
        "  3. Other - type your own answer\n"
        "  (keys: 1-3 choose, ? help, q decline)\n"
        "Choose 1-3: 3\n"
        f"Other, type your answer: {typed}\n",
        "Agent: Noted your choice.\n-- turn done, T s\n> write out.txt\n",
        "\nThe agent asks to run: echo hi > out.txt\n"
        "  kind: execute\n"
        "  content: Write out.txt\n"
        f"  locations: {work}/out.txt\n"
        "  input:\n"
        "      {\n"
        '        "command": "echo hi > out.txt",\n'
        '        "description": "Write out.txt"\n'
        "      }\n"
        "  1. Yes  (allow_once)\n"
        "  2. Yes, and allow access to work/ and echo hi * commands  (allow_always)\n"
        "  3. No  (reject_once)\n"
        "Choose 1-3, y = 1, n = 3: y\n"
        "  -> echo hi > out.txt  (done)\n",
        "Agent: Wrote out.txt.\n-- turn done, T s\n> write notes.txt\n",
        "\nThe agent asks to run: Write notes.txt\n"
        "  kind: edit\n"
        f"  content (edit of {work}/notes.txt):\n",
        "  1. Yes  (allow_once)\n"
        "  2. Yes, allow all edits during this session  (allow_always)\n"
        "  3. No  (reject_once)\n"
        "Choose 1-3, y = 1, n = 3: n\n"
        "  -> Write notes.txt  (failed):\n"
        "       ```\n"
        "       User refused permission to run tool\n"
        "       ```\n",
        f"Agent: Understood, not written.\n-- turn done, T s\n> \naskcli: recorded {record}\n",
    ]
    at = 0
    for part in parts:
        found = screen.find(part, at)
        assert found >= 0, f"not shown (after {at}): {part!r}\nthe session:\n{screen}"
        at = found + len(part)
    assert "does not give what it did" not in screen
    assert "Traceback" not in screen


def old_session_screen(screen: str, work: Path, typed: str, record: Path) -> None:
    """The session's screen with claude-agent-acp 0.49.0, whole."""
    assert screen.startswith("(Claude Agent "), screen
    assert (
        "(type a message to the agent, then Enter; Ctrl-C stops a turn, Ctrl-D ends)\n"
        "> pick a database\n"
        "Agent: Let me ask.\n"
        "  -> Asking for your input  (pending)\n"
        "\n"
        "[DB] Which database?   (question 1 of 1)\n"
        "  1. Postgres - server\n"
        "  2. SQLite - file\n"
        "  3. Other - type your own answer\n"
        "  (keys: 1-3 choose, ? help, q decline)\n"
        "Choose 1-3: 3\n"
        f"Other, type your answer: {typed}\n"
        "  -> Which database?  (done)\n"
        "Agent: Noted your choice.\n"
        "-- turn done, T s\n"
        "> write out.txt\n"
        "Agent: Writing it.\n"
        "  -> Terminal  (pending)\n"
        "\n"
        "The agent asks to run: echo hi > out.txt\n"
        "  kind: execute\n"
        "  content: Write out.txt\n"
        "  input:\n"
        "      {\n"
        '        "command": "echo hi > out.txt",\n'
        '        "description": "Write out.txt"\n'
        "      }\n"
        f"  1. Always Allow Bash(echo hi *) and access to {work}  (allow_always)\n"
        "  2. Allow  (allow_once)\n"
        "  3. Reject  (reject_once)\n"
        "Choose 1-3, y = 2, n = 3: y\n"
        "  -> echo hi > out.txt  (done)\n"
        "Agent: Wrote out.txt.\n"
        "-- turn done, T s\n"
        "> write notes.txt\n"
        "  -> Write  (pending)\n"
        "\n"
        "The agent asks to run: Write notes.txt\n"
        "  kind: edit\n"
        f"  content (edit of {work}/notes.txt):\n"
        f"      --- {work}/notes.txt\n"
        f"      +++ {work}/notes.txt\n"
        "      @@ -0,0 +1 @@\n"
        "      +secret\n"
        f"  locations: {work}/notes.txt\n"
        "  input:\n"
        "      {\n"
        f'        "file_path": "{work}/notes.txt",\n'
        '        "content": "secret\\n"\n'
        "      }\n"
        "  1. Always Allow all Write  (allow_always)\n"
        "  2. Allow  (allow_once)\n"
        "  3. Reject  (reject_once)\n"
        "Choose 1-3, y = 2, n = 3: n\n"
        "  -> Write notes.txt  (failed)"
    ) in screen, screen
    # what claude-agent-acp says of the refusal, on lines of their own (Markdown, as sent)
    assert (
        "  -> Write notes.txt  (failed):\n"
        "       ```\n"
        "       User refused permission to run tool\n"
        "       ```\n"
    ) in screen, screen
    assert (
        f"Agent: Understood, not written.\n-- turn done, T s\n> \naskcli: recorded {record}\n"
    ) in screen, screen
    assert "does not give what it did" not in screen
    assert "Traceback" not in screen
