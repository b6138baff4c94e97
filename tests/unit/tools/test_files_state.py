"""The TodoWrite state file under attack: what is not askcli's regular file is never
renamed, replaced, created or followed; corrupt files are set aside safely; one write per
document; a bounded lock wait that a signal can end."""

from __future__ import annotations

import fcntl
import io
import json
import os
import select
import signal
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.files import set_aside
from askcli.lines import TextLineReader
from askcli.runners.session import answer_document
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.tools import todo_store
from askcli.tools.todo_store import TodoStore
from askcli.wire.documents import Document

from tests.support.processes import askcli_path, run_askcli

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")


def todo(content: str, status: str = "pending") -> dict[str, Any]:
    return {"content": content, "status": status, "activeForm": f"{content}-ing"}


def todo_call(*items: dict[str, Any], id: str = "toolu_todo") -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "TodoWrite", "input": {"todos": list(items)}}


CALL = json.dumps(todo_call(todo("a"))) + "\n"


def ask(state: Path | str, *more: str, timeout: float = 10) -> subprocess.CompletedProcess[str]:
    return run_askcli("ask", "--state", str(state), *more, input=CALL, timeout=timeout)


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("askcli:")]


def answered(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert reply["tool_use_id"] == "toolu_todo" and "is_error" not in reply


def listing(folder: Path) -> dict[str, int]:
    return {p.name: os.lstat(p).st_mode for p in folder.iterdir()}


# --- things that are not a regular file ------------------------------------------------


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays


def _symlink_to_state(path: Path) -> None:
    target = path.with_name("elsewhere.json")
    target.write_text(json.dumps({"format": "askcli-todos/1", "sessions": {}}))
    path.symlink_to(target)


def _dangling_symlink(path: Path) -> None:
    path.symlink_to(path.with_name("not-there.json"))


def _char_device(path: Path) -> None:
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a second /dev/null


def _block_device(path: Path) -> None:
    os.mknod(path, stat.S_IFBLK | 0o600, os.makedev(7, 250))


NOT_REGULAR: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "a FIFO"),
    "directory": (_directory, "a directory"),
    "socket": (_socket, "a socket"),
    "symlink": (_symlink_to_state, "a symbolic link"),
    "dangling-symlink": (_dangling_symlink, "a symbolic link"),
    "char-device": (_char_device, "a character device"),
    "block-device": (_block_device, "a block device"),
}


def make(kind: str, path: Path) -> None:
    if kind.endswith("device") and os.geteuid() != 0:
        pytest.skip("mknod needs root")
    NOT_REGULAR[kind][0](path)


@pytest.mark.process
@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_state_path_that_is_not_a_regular_file_is_refused_and_the_call_answered(
    kind: str, tmp_path: Path
) -> None:
    state = tmp_path / "todos.json"
    make(kind, state)
    before = listing(tmp_path)
    target = tmp_path / "elsewhere.json"
    target_text = target.read_text() if target.exists() else None
    proc = ask(state)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert f"is {NOT_REGULAR[kind][1]}, not a regular file; the todo list is not kept" in note
    assert listing(tmp_path) == before  # nothing renamed, replaced or created
    if target_text is not None:
        assert target.read_text() == target_text  # the symlink was not followed
    again = run_askcli("todo", "show", "--state", str(state), timeout=10)
    assert again.returncode == 2 and again.stdout == ""
    assert len(notes(again.stderr)) == 1
    assert listing(tmp_path) == before


@pytest.mark.process
@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "char-device"])
def test_a_lock_path_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    state = tmp_path / "todos.json"
    lock = tmp_path / "todos.json.lock"
    if kind == "symlink":
        lock.symlink_to(tmp_path / "victim")
    else:
        make(kind, lock)
    before = listing(tmp_path)
    proc = ask(state)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert "todos.json.lock is " in note and "the todo list is not kept" in note
    assert listing(tmp_path) == before
    assert not (tmp_path / "victim").exists()


@ROOT_ONLY
def test_a_scratch_device_node_is_never_renamed_or_replaced(tmp_path: Path) -> None:
    node = tmp_path / "null"
    _char_device(node)
    store = TodoStore(node)
    assert store.replace("s", [todo("a")]) == []
    assert store.get("s") == []
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.lstat(node).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.process
def test_dev_null_keeps_no_state_and_says_nothing(tmp_path: Path) -> None:
    proc = run_askcli(
        "ask", "--state", os.devnull, "--output", "answers", input=CALL + CALL, timeout=10
    )
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["oldTodos"] for line in proc.stdout.splitlines()] == [[], []]
    assert notes(proc.stderr) == []
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert not os.path.lexists(os.devnull + ".lock")
    shown = run_askcli("todo", "show", "--state", os.devnull)
    assert shown.returncode == 0 and shown.stdout.endswith("(empty)\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@ROOT_ONLY
def test_dev_null_is_recognised_by_device_and_inode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = tmp_path / "null"
    _char_device(node)
    monkeypatch.setattr(os, "devnull", str(node))  # this node plays the system's /dev/null
    store = TodoStore(node)
    store.replace("s", [todo("a")])
    assert store.notes == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


# --- read-only commands change nothing ---------------------------------------------------


@pytest.mark.process
def test_todo_show_creates_nothing(tmp_path: Path) -> None:
    state = tmp_path / "new" / "folder" / "todos.json"
    shown = run_askcli("todo", "show", "--state", str(state))
    assert shown.returncode == 0 and shown.stdout.endswith("(empty)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.process
def test_todo_show_on_a_file_it_cannot_read_changes_nothing(tmp_path: Path) -> None:
    state = tmp_path / "todos.json"
    state.write_text("{broken")
    state.chmod(0o640)
    before = (listing(tmp_path), state.stat().st_mtime_ns, state.stat().st_ino)
    shown = run_askcli("todo", "show", "--state", str(state))
    assert shown.returncode == 2 and shown.stdout == ""
    (note,) = notes(shown.stderr)
    assert "is unreadable" in note
    assert (listing(tmp_path), state.stat().st_mtime_ns, state.stat().st_ino) == before
    assert state.read_text() == "{broken"


# --- corrupt state files ----------------------------------------------------------------

HEADER = b'{"format": "askcli-todos/1", "sessions": '
CORRUPT: dict[str, bytes] = {
    "invalid-utf8": HEADER + b'{"s": [{"content": "\xff\xfe", "status": "pending"}]}}',
    "deep-nesting": b"[" * 100_000,
    "deep-nesting-in-sessions": HEADER + b'{"s": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
    "deep-nesting-in-item": HEADER
    + b'{"s": [{"content": "a", "status": "pending", "x": '
    + b"[" * 5_000
    + b"]" * 5_000
    + b"}]}}",
    "item-not-object": HEADER + b'{"s": [5, "x", null]}}',
    "list-not-list": HEADER + b'{"s": "todo"}}',
    "content-not-string": HEADER + b'{"s": [{"content": 5, "status": "pending"}]}}',
    "status-not-string": HEADER + b'{"s": [{"content": "a", "status": ["done"]}]}}',
    "sessions-not-object": HEADER + b"[1, 2]}",
    "not-an-object": b"[]",
    "wrong-format": b'{"format": "other/9", "sessions": {}}',
    "nan": HEADER + b'{"s": [{"content": "a", "status": "pending", "n": NaN}]}}',
    "number-too-large": HEADER + b'{"s": [{"content": "a", "status": "pending", "n": 1e400}]}}',
    "lone-bytes": b"\x00\x01\x02\x1b[2J",
    "empty": b"",
    "huge": HEADER + b'{"s": [{"content": "' + b"x" * (9 * 1024 * 1024) + b'"}]}}',
}


@pytest.mark.process
@pytest.mark.parametrize("case", CORRUPT)
def test_a_corrupt_state_file_is_set_aside_by_ask_and_left_alone_by_show(
    case: str, tmp_path: Path
) -> None:
    state = tmp_path / "todos.json"
    state.write_bytes(CORRUPT[case])
    shown = run_askcli("todo", "show", "--state", str(state), timeout=10)
    assert shown.returncode == 2 and shown.stdout == ""
    (note,) = notes(shown.stderr)
    assert "is unreadable" in note
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todos.json"]

    proc = ask(state)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert "is unreadable" in note and "kept as" in note
    (aside,) = tmp_path.glob("todos.json.unreadable-*")
    assert aside.read_bytes() == CORRUPT[case]
    assert json.loads(state.read_text())["sessions"] == {"default": [todo("a")]}
    shown = run_askcli("todo", "show", "--state", str(state))
    assert shown.returncode == 0 and "[ ] a" in shown.stdout


def test_an_unreadable_file_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "todos.json"
    state.write_text("{}")
    state.chmod(0)
    if os.geteuid() != 0:
        proc = ask(state)
        answered(proc)
        assert "Permission denied" in notes(proc.stderr)[0]
    else:  # root reads every file: the kernel's refusal is played in process
        real_open = os.open

        def refuse(path: Any, flags: int, *args: Any, **kw: Any) -> int:
            if str(path) == str(state):
                raise PermissionError(13, "Permission denied")
            return real_open(path, flags, *args, **kw)

        monkeypatch.setattr(todo_store.os, "open", refuse)
        conv = conversation(TodoStore(state))
        reply = answer_document(Document(json.loads(CALL)), conv)
        assert reply.status == 0
        assert isinstance(conv.out, io.StringIO)
        assert "Permission denied" in conv.out.getvalue()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todos.json"]


def test_set_aside_names_are_unique_and_never_replace_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: 1_700_000_000_123_456_789)  # one instant
    path = tmp_path / "todos.json"
    names = []
    for n in range(3):
        path.write_text(f"corrupt {n}")
        aside = set_aside(path, os.lstat(path))
        assert aside is not None
        names.append(aside.name)
    assert len(set(names)) == 3
    assert [(tmp_path / name).read_text() for name in names] == [f"corrupt {n}" for n in range(3)]
    assert not path.exists()


def test_set_aside_leaves_a_file_that_changed_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "todos.json"
    path.write_text("old")
    seen = os.lstat(path)
    path.rename(tmp_path / "moved")  # kept, so that the new file gets another inode
    path.write_text("new")
    assert set_aside(path, seen) is None
    assert path.read_text() == "new"


@pytest.mark.process
def test_two_corrupt_files_in_the_same_second_are_both_kept(tmp_path: Path) -> None:
    state = tmp_path / "todos.json"
    for n in range(2):
        state.write_text(f"corrupt {n}")
        answered(ask(state))
    kept = sorted(p.read_text() for p in tmp_path.glob("todos.json.unreadable-*"))
    assert kept == ["corrupt 0", "corrupt 1"]


@pytest.mark.process
def test_files_are_created_private_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    state = tmp_path / "sub" / "todos.json"
    answered(ask(state))
    assert stat.S_IMODE(os.stat(state.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(str(state) + ".lock").st_mode) == 0o600
    assert sorted(p.name for p in state.parent.iterdir()) == ["todos.json", "todos.json.lock"]


def test_a_state_over_the_size_limit_drops_the_oldest_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(todo_store, "MAX_STATE_BYTES", 4000)
    store = TodoStore(tmp_path / "todos.json")
    for n in range(20):
        store.replace(f"s{n}", [todo(f"item {n} " + "x" * 100)])
    assert os.path.getsize(store.path) <= 4000
    sessions = json.loads(store.path.read_text())["sessions"]
    assert "s19" in sessions and "s0" not in sessions
    assert any("least recently changed" in note for note in store.notes)


# --- one write per document (item 14) ----------------------------------------------------


def conversation(store: TodoStore, answers: str = "") -> Conversation:
    return Conversation(
        TextLineReader(io.StringIO(answers)), io.StringIO(), options=RunOptions(todos=store)
    )


def message(*blocks: dict[str, Any]) -> Document:
    return Document({"role": "assistant", "content": list(blocks)})


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    counted: list[int] = []
    original = TodoStore._write

    def counting(self: TodoStore, sessions: dict[str, Any]) -> None:
        counted.append(len(sessions))
        original(self, sessions)

    monkeypatch.setattr(TodoStore, "_write", counting)
    yield counted


def test_one_document_of_many_todo_writes_is_one_write(tmp_path: Path, writes: list[int]) -> None:
    store = TodoStore(tmp_path / "todos.json")
    blocks = [todo_call(todo(f"step {n}"), id=f"t{n}") for n in range(300)]
    reply = answer_document(message(*blocks), conversation(store))
    assert len(writes) == 1
    data = [r.data for r in reply.results]
    assert data[0] == {"oldTodos": [], "newTodos": [todo("step 0")]}
    assert data[299] == {"oldTodos": [todo("step 298")], "newTodos": [todo("step 299")]}
    assert store.get("default") == [todo("step 299")]


def test_a_document_cut_short_still_keeps_its_todo_lists(tmp_path: Path) -> None:
    from tests.support.calls import call, question

    store = TodoStore(tmp_path / "todos.json")
    doc = message(todo_call(todo("kept")), call(question()))
    reply = answer_document(doc, conversation(store, answers=""))  # nobody answers
    assert reply.status == 3
    assert store.get("default") == [todo("kept")]


def test_a_call_that_fails_after_a_todo_write_still_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import askcli.runners.session

    store = TodoStore(tmp_path / "todos.json")
    real = askcli.runners.session.run_call

    def failing(item: Any, conv: Conversation, **kw: Any) -> Any:
        if item.name != "TodoWrite":
            raise RuntimeError("boom")
        return real(item, conv, **kw)

    monkeypatch.setattr(askcli.runners.session, "run_call", failing)
    from tests.support.calls import call

    with pytest.raises(RuntimeError):
        answer_document(message(todo_call(todo("kept")), call()), conversation(store))
    assert store.get("default") == [todo("kept")]


# --- the lock wait (item 15) -------------------------------------------------------------


@pytest.fixture
def held_lock(tmp_path: Path) -> Iterator[Path]:
    state = tmp_path / "todos.json"
    fd = os.open(str(state) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield state
    finally:
        os.close(fd)


def test_the_lock_wait_is_bounded_in_process(held_lock: Path) -> None:
    store = TodoStore(held_lock, lock_wait=0.3)
    conv = conversation(store)
    started = time.monotonic()
    reply = answer_document(Document(todo_call(todo("a"))), conv)
    assert 0.3 <= time.monotonic() - started < 3
    assert reply.status == 0
    assert "locked by another process (waited 0.3 s)" in said(conv)
    assert not held_lock.exists()
    started = time.monotonic()  # after giving up once, later documents do not wait
    answer_document(Document(todo_call(todo("b"))), conv)
    assert time.monotonic() - started < 0.3


def said(conv: Conversation) -> str:
    out = conv.out
    assert isinstance(out, io.StringIO)
    return out.getvalue()


@pytest.mark.process
def test_the_lock_wait_gives_up_after_ten_seconds_with_a_notice(held_lock: Path) -> None:
    started = time.monotonic()
    proc = ask(held_lock, timeout=30)
    elapsed = time.monotonic() - started
    answered(proc)
    assert 10 <= elapsed < 25
    (note,) = notes(proc.stderr)
    assert "is locked by another process (waited 10 s); the todo list is not kept" in note
    assert not held_lock.exists()


@pytest.mark.process
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_the_lock_wait_still_gives_the_result(
    held_lock: Path, sig: signal.Signals, status: int
) -> None:
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--state", str(held_lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(CALL.encode())
    proc.stdin.close()
    err = b""
    deadline = time.monotonic() + 5
    while b"0/1 done" not in err:  # the checklist is shown; the wait for the lock follows
        assert time.monotonic() < deadline, err.decode()
        if select.select([proc.stderr], [], [], 0.1)[0]:
            err += os.read(proc.stderr.fileno(), 4096)
    time.sleep(0.3)
    assert proc.poll() is None
    proc.send_signal(sig)
    assert proc.stdout is not None
    proc.wait(timeout=5)
    out = proc.stdout.read()
    err += proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == status, err.decode()
    assert b"Traceback" not in err
    reply = json.loads(out)
    assert reply["tool_use_id"] == "toolu_todo"
    assert b"interrupted while waiting for another askcli" in err
    assert not held_lock.exists()
