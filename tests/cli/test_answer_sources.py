"""Where answers and calls may come from: files, pipes, terminals and /dev/null, never a
device that streams bytes nobody typed; a byte-order mark is not part of an answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from askcli import fixtures
from askcli.terminal.rendering import MAX_CELLS, terminal_height, terminal_width

from tests.support.calls import call
from tests.support.processes import askcli_path, run_askcli


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/full"])
@pytest.mark.parametrize("option", ["--answers", "source"])
def test_a_device_that_streams_bytes_is_refused_at_once(
    device: str, option: str, tmp_path: Path
) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} is not on this machine")
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call()))
    args = ["ask", str(source), "--answers", device] if option == "--answers" else ["ask", device]
    proc = run_askcli(*args, timeout=10)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("it is a device, not a file, pipe or terminal")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_dev_null_as_answers_is_no_answer(tmp_path: Path) -> None:
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call()))
    proc = run_askcli("ask", str(source), "--answers", os.devnull)
    assert proc.returncode == 3
    assert "No answer from the user (the input ended)." in proc.stdout


def test_a_byte_order_mark_opening_an_answers_file_is_not_part_of_the_answer(
    tmp_path: Path,
) -> None:
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call()))
    answers = tmp_path / "answers.txt"
    answers.write_bytes(b"\xef\xbb\xbf2\n")
    proc = run_askcli("ask", str(source), "--answers", str(answers))
    assert proc.returncode == 0, proc.stderr
    assert '\\"Which one?\\"=\\"B\\"' in proc.stdout


@pytest.mark.parametrize("value", ["99999999999999999999", "١٢٠"])
def test_a_huge_or_foreign_digit_terminal_size_is_bounded(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", value)
    monkeypatch.setenv("LINES", value)
    assert 20 <= terminal_width() <= MAX_CELLS
    assert 5 <= terminal_height() <= MAX_CELLS


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_record_refuses_what_is_not_a_regular_file_before_asking(kind: str, tmp_path: Path) -> None:
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call()))
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    fixture = tmp_path / "session.json"
    if kind == "symlink":
        fixture.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(fixture)
    else:
        fixture.mkdir()
    proc = run_askcli("record", str(source), "-o", str(fixture), input="1\n", timeout=10)
    assert proc.returncode == 2, proc.stderr
    assert "Which one?" not in proc.stderr  # nothing asked: the session could not be kept
    assert "not a regular file" in proc.stderr or "is a directory" in proc.stderr
    assert target.read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_fixture_is_never_saved_through_what_is_not_a_regular_file(
    kind: str, tmp_path: Path
) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    path = tmp_path / "session.json"
    if kind == "symlink":
        path.symlink_to(target)
    else:
        os.mkfifo(path)
    with pytest.raises(OSError, match="not a regular file"):
        fixtures.save(path, {"format": fixtures.FORMAT})
    assert target.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precious.txt", "session.json"]


def test_record_replaces_a_fixture_whole(tmp_path: Path) -> None:
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call()))
    fixture = tmp_path / "deep" / "session.json"
    for answer in ("1", "2"):
        proc = run_askcli("record", str(source), "-o", str(fixture), input=f"{answer}\n")
        assert proc.returncode == 0, proc.stderr
    assert json.loads(fixture.read_text())["answers"] == ["2"]
    assert sorted(p.name for p in fixture.parent.iterdir()) == ["session.json"]


def test_todo_show_into_a_full_stdout_says_so_without_a_traceback(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("/dev/full is not on this machine")
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [str(askcli_path()), "todo", "show", "--state", str(tmp_path / "todos.json")],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=10,
        )
    assert proc.returncode == 74
    assert proc.stderr == "askcli: cannot write to stdout: No space left on device\n"
