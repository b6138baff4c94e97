"""TodoWrite: both schemas, Claude Code's answers, the checklist, the per-session state."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import InvalidCall
from askcli.runners.recordings import play
from askcli.schema.inputs import parse_todos
from askcli.schema.inputs import todo_warnings as warnings
from askcli.terminal.rendering import Style
from askcli.tools.todo_store import TodoStore, default_path
from askcli.tools.todos import RESULT_TEXT, VERIFICATION_NOTE, checklist, needs_verification_note
from askcli.wire.envelopes import Output

from tests.support.paths import ROOT
from tests.support.processes import askcli_path, run_askcli

CORPUS = sorted((ROOT / "tests" / "corpus").glob("tw-*.json"))


def todo(content: str, status: str = "pending", **extra: Any) -> dict[str, Any]:
    return {"content": content, "status": status, "activeForm": f"{content}-ing", **extra}


def call(*items: dict[str, Any], id: str = "toolu_todo") -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "TodoWrite", "input": {"todos": list(items)}}


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_real_calls_get_claude_codes_answer(path: Path) -> None:
    record = json.loads(path.read_text())
    outcome = play(calls=[record["tool_use"]])
    (line,) = outcome.stdout
    reply = json.loads(line)
    expected = record["tool_result"]["content"]
    # the corpus predates Claude Code's verification note, which askcli adds as the seed says
    if needs_verification_note(record["tool_use"]["input"]["todos"], subagent=False):
        expected += VERIFICATION_NOTE
    assert reply["content"] == expected
    assert reply.get("is_error", False) == record["tool_result"].get("is_error", False)
    assert outcome.status == (2 if reply.get("is_error") else 0)


def test_the_current_schema() -> None:
    parsed = parse_todos({"todos": [todo("a", "in_progress")]})
    assert parsed.todos[0].activeForm == "a-ing"


def test_the_older_schema_real_agents_still_send() -> None:
    data = {"todos": [{"id": "1", "content": "a", "status": "pending", "priority": "high"}]}
    assert parse_todos(data).todos[0].content == "a"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"todos": [todo("")]},
            [("too_small", ["todos", 0, "content"], "Content cannot be empty")],
        ),
        (
            {"todos": [{**todo("a"), "activeForm": ""}]},
            [("too_small", ["todos", 0, "activeForm"], "Active form cannot be empty")],
        ),
        (
            {"todos": [{"content": "a", "status": "pending"}]},
            [("invalid_type", ["todos", 0, "activeForm"], "Required")],
        ),
        (
            {"todos": [], "extra": 1},
            [("unrecognized_keys", [], "Unrecognized key(s) in object: 'extra'")],
        ),
        ({}, [("invalid_type", ["todos"], "Required")]),
        (
            {"todos": [{"id": "1", "content": "a", "status": "pending", "priority": "urgent"}]},
            [
                (
                    "invalid_enum_value",
                    ["todos", 0, "priority"],
                    "Invalid enum value. Expected 'high' | 'medium' | 'low', received 'urgent'",
                )
            ],
        ),
    ],
)
def test_invalid_todo_lists(data: Any, expected: list[tuple[str, list[Any], str]]) -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_todos(data)
    assert [(i["code"], i["path"], i["message"]) for i in caught.value.issues] == expected


@pytest.mark.parametrize("status", ["done", "in-progress"])
def test_a_wrong_status_lists_the_allowed_values(status: str) -> None:
    with pytest.raises(InvalidCall) as caught:
        parse_todos({"todos": [todo("a", status)]})
    (issue,) = caught.value.issues
    assert issue == {
        "received": status,
        "code": "invalid_enum_value",
        "options": ["pending", "in_progress", "completed"],
        "path": ["todos", 0, "status"],
        "message": "Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', "
        f"received '{status}'",
    }


def test_more_than_one_item_in_progress_is_a_warning_not_an_error() -> None:
    parsed = parse_todos({"todos": [todo("a", "in_progress"), todo("b", "in_progress")]})
    assert warnings(parsed) == [
        "2 items are in progress at once; the list should have one at a time"
    ]
    outcome = play(calls=[call(todo("a", "in_progress"), todo("b", "in_progress"))])
    assert outcome.status == 0
    assert "askcli: warning: 2 items are in progress at once" in outcome.stderr


def test_checklist() -> None:
    items = [todo("Write code", "completed"), todo("Test", "in_progress"), todo("Ship")]
    assert checklist(items, Style(), title="Todo list (default)") == (
        "\nTodo list (default)\n  [x] Write code\n  [>] Test-ing\n  [ ] Ship\n  1/3 done\n"
    )
    assert checklist([], Style(), title="T").endswith("  (empty)\n")


def test_the_verification_note() -> None:
    closed = [todo("a", "completed"), todo("b", "completed"), todo("c", "completed")]
    assert needs_verification_note(closed, subagent=False)
    assert not needs_verification_note(closed[:2], subagent=False)
    assert not needs_verification_note(closed, subagent=True)
    assert not needs_verification_note([*closed, todo("Verify it", "completed")], subagent=False)
    assert not needs_verification_note([*closed[:2], todo("c")], subagent=False)
    reply = json.loads(play(calls=[call(*closed)]).stdout[0])
    assert reply["content"] == RESULT_TEXT + VERIFICATION_NOTE
    assert VERIFICATION_NOTE.startswith("\n\nNOTE: You just closed out 3+ tasks")


def test_consecutive_calls_see_old_and_new_lists_and_all_done_clears() -> None:
    first = call(todo("a", "in_progress"), todo("b"))
    second = call(todo("a", "completed"), todo("b", "in_progress"))
    third = call(todo("a", "completed"), todo("b", "completed"))
    outcome = play(calls=[first, second, third], output=Output.ANSWERS)
    data = [json.loads(line) for line in outcome.stdout]
    assert data[0] == {"oldTodos": [], "newTodos": first["input"]["todos"]}
    assert data[1] == {"oldTodos": first["input"]["todos"], "newTodos": second["input"]["todos"]}
    assert data[2] == {"oldTodos": second["input"]["todos"], "newTodos": []}
    assert "Todo list (default): all done, cleared" in outcome.stderr


def test_lists_are_kept_per_session_and_per_agent() -> None:
    main = call(todo("main"))
    line = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [call(todo("sub"), id="toolu_sub")]},
        "parent_tool_use_id": "toolu_agent",
        "session_id": "s1",
    }
    again = call(todo("main 2"))
    outcome = play(calls=[main, line, again], output=Output.ANSWERS, session="mine")
    data = [json.loads(x) for x in outcome.stdout]
    assert data[1]["oldTodos"] == []  # the sub-agent has its own list
    assert data[2]["oldTodos"] == main["input"]["todos"]
    assert "Todo list (toolu_agent)" in outcome.stderr
    assert "Todo list (mine)" in outcome.stderr


def test_store_writes_atomically_and_sets_an_unreadable_file_aside(tmp_path: Path) -> None:
    store = TodoStore(tmp_path / "state" / "todos.json")
    assert store.replace("s", [todo("a")]) == []
    assert store.get("s") == [todo("a")]
    assert json.loads(store.path.read_text())["format"] == "askcli-todos/1"
    assert [p.name for p in store.path.parent.iterdir() if p.suffix == ".tmp"] == []
    store.path.write_text("{broken")
    assert store.get("s") == []  # reading changes nothing
    assert "is unreadable" in store.notes[0]
    assert not list(store.path.parent.glob("todos.json.unreadable-*"))
    store.notes.clear()
    assert store.replace("s", [todo("b")]) == []  # writing sets it aside
    assert "is unreadable" in store.notes[0] and "kept as" in store.notes[0]
    (aside,) = store.path.parent.glob("todos.json.unreadable-*")
    assert aside.read_text() == "{broken"
    assert store.get("s") == [todo("b")]


def test_store_that_cannot_be_written_is_a_note_not_a_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = TodoStore(blocker / "todos.json")  # a file where the folder should be
    assert store.replace("s", [todo("a")]) == []
    assert "the todo list is not kept" in store.notes[0]


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "askcli" / "todos.json"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_path() == Path.home() / ".local" / "state" / "askcli" / "todos.json"


def askcli(*args: str, input: str = "", env: dict[str, str] | None = None) -> Any:
    return run_askcli(*args, input=input, env=env)


@pytest.mark.process
def test_state_across_two_processes_and_todo_show(tmp_path: Path) -> None:
    state = str(tmp_path / "todos.json")
    first = askcli("ask", "--state", state, input=json.dumps(call(todo("a"), todo("b"))) + "\n")
    assert first.returncode == 0
    second = askcli(
        "ask",
        "--state",
        state,
        "--output",
        "answers",
        input=json.dumps(call(todo("a", "completed"), todo("b", "in_progress"))) + "\n",
    )
    assert json.loads(second.stdout)["oldTodos"] == [todo("a"), todo("b")]
    shown = askcli("todo", "show", "--state", state)
    assert shown.stdout == ("\nTodo list (default)\n  [x] a\n  [>] b-ing\n  1/2 done\n")
    other = askcli("todo", "show", "--state", state, "--session", "nobody")
    assert other.stdout.endswith("  (empty)\n")


@pytest.mark.process
def test_the_default_state_file_is_under_xdg_state_home(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    askcli("ask", "--session", "s9", input=json.dumps(call(todo("x"))) + "\n", env=env)
    state = json.loads((tmp_path / "askcli" / "todos.json").read_text())
    assert state["sessions"] == {"s9": [todo("x")]}


@pytest.mark.process
def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    state = str(tmp_path / "todos.json")
    writers = [
        subprocess.Popen(
            [str(askcli_path()), "ask", "--state", state, "--session", f"s{n}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for n in range(8)
    ]
    for n, proc in enumerate(writers):
        assert proc.stdin is not None
        lines = "".join(json.dumps(call(todo(f"w{n} step {i}"))) + "\n" for i in range(5))
        proc.stdin.write(lines)
        proc.stdin.close()
    assert [proc.wait(timeout=30) for proc in writers] == [0] * 8
    sessions = json.loads(Path(state).read_text())["sessions"]
    assert sessions == {f"s{n}": [todo(f"w{n} step 4")] for n in range(8)}


@pytest.mark.process
@pytest.mark.parametrize("key", ["a\nTodo list (forged)", "x\x1b]0;title\x07y", "z\u202e\u200bw"])
def test_the_session_key_in_the_title_cannot_forge_a_line(key: str, tmp_path: Path) -> None:
    line = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [call(todo("a"))]},
        "session_id": key,
    }
    state = str(tmp_path / "todos.json")
    proc = askcli("ask", "--state", state, input=json.dumps(line) + "\n")
    assert proc.returncode == 0
    (title,) = [row for row in proc.stderr.splitlines() if row.startswith("Todo list")]
    assert title.startswith("Todo list (") and title.endswith(")")
    assert "\x1b" not in proc.stderr and "\u202e" not in proc.stderr
    shown = askcli("todo", "show", "--state", state, "--session", key)
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[1] == title  # the same escaped title, on one line
    assert "\x1b" not in shown.stdout and "forged)\n" not in shown.stdout.split("\n", 2)[1]


# --- issue 11 item 9(e): what changed since the last list, and status in colour --------


def test_changes_since_the_last_list() -> None:
    from askcli.tools.todos import changes

    old = [todo("keep"), todo("finish", "in_progress"), todo("start"), todo("drop")]
    old += [todo("reopen", "completed"), todo("twice"), todo("twice")]
    new = [todo("keep"), todo("finish", "completed"), todo("start", "in_progress")]
    new += [todo("reopen"), todo("twice"), todo("new")]
    assert changes(old, new) == [
        ("completed", "finish"),
        ("started", "start"),
        ("reopened", "reopen"),
        ("added", "new"),
        ("removed", "drop"),
        ("removed", "twice"),
    ]
    assert changes(new, new) == []


def test_the_checklist_lists_the_changes_in_plain_text() -> None:
    old = [todo("Read the code", "in_progress"), todo("Plan"), todo("Fix it")]
    new = [todo("Read the code", "completed"), todo("Fix it", "in_progress"), todo("Ship")]
    text = checklist(new, Style(), title="T", old=old)
    assert text.split("\n")[2:] == [
        "  [x] Read the code",
        "  [>] Fix it-ing",
        "  [ ] Ship",
        "  1/3 done",
        "  ✓ completed: Read the code",
        "  > started: Fix it",
        "  + added: Ship",
        "  - removed: Plan",
        "",
    ]
    assert "no change since the last list" in checklist(new, Style(), title="T", old=new)
    assert "since" not in checklist(new, Style(), title="T", old=[])  # a first list


def test_the_changes_wrap_with_a_hanging_indent_and_escape_model_text() -> None:
    long = "Update the README " * 4 + "\x1b]0;owned\x07"
    text = checklist([todo(long)], Style(width=40), title="T", old=[todo("x")])
    lines = text.split("\n")
    added = lines.index(next(row for row in lines if row.startswith("  + added: ")))
    assert lines[added + 1].startswith("      ") and lines[added + 1].strip()
    assert all(len(row) <= 40 for row in lines)
    assert "\x1b" not in text and "\\x1b]0;owned\\x07" in text


def test_status_colours_are_styles_the_terminal_gate_lets_through() -> None:
    from askcli.terminal.rendering import terminal_text

    old = [todo("a"), todo("b"), todo("gone")]
    new = [todo("a", "completed"), todo("b", "in_progress"), todo("c")]
    text = checklist(new, Style(colour=True), title="T", old=old)
    assert "\x1b[32m[x]\x1b[0m \x1b[2ma\x1b[0m" in text  # done: green mark, dim text
    assert "\x1b[1m\x1b[33m[>]\x1b[0m\x1b[0m" in text  # in progress: bold yellow
    assert "  [ ] c" in text  # pending: plain
    assert "\x1b[32m  ✓ completed:\x1b[0m a" in text
    assert "\x1b[2m  - removed:\x1b[0m gone" in text
    assert terminal_text(text, colour=True) == text  # every colour passes the gate
    plain = checklist(new, Style(colour=False), title="T", old=old)
    assert "\x1b" not in plain and re.sub("\x1b\\[[0-9;]*m", "", text) == plain


@pytest.mark.pty
@pytest.mark.parametrize("columns", [80, 40])
def test_a_second_list_shows_its_changes_at_a_terminal(tmp_path: Path, columns: int) -> None:
    from tests.support.terminals import Pty

    calls = tmp_path / "calls.json"
    first = call(todo("Read the code", "in_progress"), todo("Plan the fix"), todo("Fix it"))
    second = call(
        todo("Read the code", "completed"),
        todo("Fix it", "in_progress"),
        todo("Write a regression test for the parser"),
    )
    calls.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    term = Pty(["ask", "--session", "s", str(calls)], tmp_path, columns, elsewhere=True)
    out = term.out
    term.expect("  0/3 done")
    term.expect("  1/3 done\r\n  ✓ completed: Read the code\r\n  > started: Fix it\r\n")
    term.expect("  + added: Write a regression test")
    term.expect("  - removed: Plan the fix\r\n")
    shown = term.finish()
    assert all(len(row) <= columns for row in shown.split("\n")), shown
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("replaced", [1, 4, 5])
def test_a_state_file_replaced_while_read_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replaced: int
) -> None:
    """Another askcli replaces the file whole between the look at it and the reading: the
    new file is read (a lost race once made the store keep nothing for the whole run)."""
    from askcli.tools import todo_store
    from askcli.tools.todo_store import TodoStore

    state = tmp_path / "todos.json"
    other = tmp_path / "other"
    other.write_text("x")
    store = TodoStore(state)
    store.replace("s0", [todo("first")])
    looks = {"n": 0}
    real = todo_store.lstat_or_none

    def stale(path: Path) -> os.stat_result | None:
        looks["n"] += 1
        return os.lstat(other) if looks["n"] <= replaced else real(path)

    monkeypatch.setattr(todo_store, "lstat_or_none", stale)
    store = TodoStore(state)
    before = store.replace("s1", [todo("second")])
    monkeypatch.setattr(todo_store, "lstat_or_none", real)
    with store.batch():
        pass
    sessions = json.loads(state.read_text())["sessions"]
    if replaced < todo_store.READ_TRIES:
        assert before == []
        assert store.notes == []
        assert sessions == {"s0": [todo("first")], "s1": [todo("second")]}
    else:  # replaced at every try: said, and nothing kept
        said = f"the state file {state} changed while it was read; the todo list is not kept"
        assert store.notes == [said]
        assert sessions == {"s0": [todo("first")]}
