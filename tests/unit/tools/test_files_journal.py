"""The answer journal under attack: only a regular file, never through a symlink, read in
bounded memory; anything else is one line before the first question and the call is still
asked."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from askcli.tools import journal as journal_module
from askcli.tools.journal import Journal

from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli

LOGIN = EXAMPLES / "login.json"
ANSWERS = "2\n3\ny\n"  # both questions of login.json, then submit


def ask(journal: Path | str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return run_askcli(
        "ask",
        str(LOGIN),
        "--journal",
        str(journal),
        input=ANSWERS,
        env={"XDG_STATE_HOME": str(tmp_path / "state")},
        timeout=10,
    )


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("askcli:")]


def answered(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr
    content = json.loads(proc.stdout)["content"][0]
    assert "is_error" not in content and '="Session cookie"' in content["content"]


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (os.lstat(p).st_mode, os.lstat(p).st_size) for p in folder.iterdir()}


def _device(minor: int) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))

    return make


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "is a FIFO, not a regular file"),
    "directory": (Path.mkdir, "is a directory, not a regular file"),
    "socket": (_socket, "is a socket, not a regular file"),
    "symlink": (lambda p: p.symlink_to(p.with_name("victim")), "is a symbolic link"),
    "zero": (_device(5), "is a character device"),  # a scratch /dev/zero
    "full": (_device(7), "is a character device"),  # a scratch /dev/full
}


@pytest.mark.process
@pytest.mark.parametrize("kind", KINDS)
def test_a_journal_that_is_not_a_regular_file_is_said_before_asking_and_the_call_asked(
    kind: str, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    path = work / "answers.jsonl"
    KINDS[kind][0](path)
    before = listing(work)
    proc = ask(path, tmp_path)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert KINDS[kind][1] in note and "answers are not journaled" in note
    assert proc.stderr.index(note) < proc.stderr.index("Choose")  # before the first question
    assert listing(work) == before  # nothing created, followed or removed


@pytest.mark.process
def test_a_journal_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    proc = ask(link / "answers.jsonl", tmp_path)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert "answers are not journaled" in note
    assert list(real.iterdir()) == []


@pytest.mark.process
def test_dev_null_keeps_no_journal_and_says_nothing(tmp_path: Path) -> None:
    proc = ask(os.devnull, tmp_path)
    answered(proc)
    assert notes(proc.stderr) == []
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.process
def test_a_journal_over_the_size_limit_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    row = json.dumps({"call": "x", "input": "d", "line": "1"}) + "\n"
    path.write_text(row * (9 * 1024 * 1024 // len(row) + 1))
    before = (path.stat().st_size, path.stat().st_mtime_ns)
    proc = ask(path, tmp_path)
    answered(proc)
    (note,) = notes(proc.stderr)
    assert "is larger than 8 MiB" in note
    assert (path.stat().st_size, path.stat().st_mtime_ns) == before


def test_bad_lines_are_skipped_in_bounded_pieces(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    good = Journal(path)
    good.record("t", "d", "2")
    with open(path, "ab") as out:
        out.write(b"[" * 100_000 + b"\n")  # too deep for the parser
        out.write(b'{"call": "t", "input": "d", "line": "' + b"x" * (2 * 1024 * 1024) + b'"}\n')
        out.write(b"\xff\xfe not UTF-8\n")
        out.write(b'{"call": 5}\n[1]\n"text"\n')
    good.record("t", "d", "1,3")
    journal = Journal(path)
    assert journal.lines("t", "d") == ["2", "1,3"]
    assert journal.notes == []


def test_a_line_cut_short_at_the_end_of_a_long_one(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"y" * (3 * 1024 * 1024))  # one over-long line and no newline
    assert Journal(path).lines("t", "d") == []


def test_the_journal_folder_is_private_and_files_are_0600(tmp_path: Path) -> None:
    path = tmp_path / "state" / "journal" / "x.jsonl"
    journal = Journal(path)
    journal.record("t", "d", "1")
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert journal.notes == []


def test_a_symlink_put_in_place_later_is_not_followed_or_removed(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    journal = Journal(path)
    journal.record("t", "d", "1")
    path.unlink()
    path.symlink_to(victim)
    journal.record("t", "d", "2")
    journal.finish("t")
    assert victim.read_text() == "precious\n"
    assert path.is_symlink()
    assert any("answers are not journaled" in note for note in journal.notes)


def test_a_journal_stops_growing_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "MAX_JOURNAL_BYTES", 1000)
    journal = Journal(tmp_path / "j.jsonl")
    for n in range(30):
        journal.record("t", "d", str(n))
    assert journal.path.stat().st_size <= 1000
    (note,) = journal.notes
    assert "would be larger than" in note


def test_finish_removes_only_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.record("t", "d", "1")
    journal.finish("t")
    assert not path.exists()
    assert journal.notes == []
