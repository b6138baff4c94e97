"""The answer journal: durable answers, resuming an interrupted call, cleaning up."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from askcli.tools.journal import Journal, default_dir, input_digest, journal_name

from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli

LOGIN = EXAMPLES / "login.json"


def askcli(*args: str, input: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return run_askcli(*args, input=input, env={"XDG_STATE_HOME": str(tmp_path / "state")})


def test_record_lines_and_finish(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    journal.record("toolu_a", "d1", "2")
    journal.record("toolu_b", "d2", "1")
    journal.record("toolu_a", "d1", "1,3")
    assert journal.lines("toolu_a", "d1") == ["2", "1,3"]
    assert journal.lines("toolu_a", "other input") == []
    journal.finish("toolu_a")
    assert journal.lines("toolu_a", "d1") == []
    assert journal.path.exists()  # toolu_b is not finished
    journal.finish("toolu_b")
    assert not journal.path.exists()


def test_a_line_cut_by_a_crash_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.record("t", "d", "2")
    with open(path, "a") as out:
        out.write('{"call": "t", "input": "d", "li')
    assert journal.lines("t", "d") == ["2"]


def test_names_and_digests() -> None:
    assert journal_name("../../etc/passwd").isalnum()
    assert input_digest({"a": 1, "b": 2}) == input_digest({"b": 2, "a": 1})


def test_an_unwritable_journal_is_a_note_not_a_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    journal = Journal(blocker / "j.jsonl")
    journal.record("t", "d", "1")
    assert "answers are not journaled" in journal.notes[0]


@pytest.mark.process
def test_with_journal_file_scripted_answers_are_kept_and_resumed(tmp_path: Path) -> None:
    journal = tmp_path / "answers.jsonl"
    first = askcli("ask", str(LOGIN), "--journal", str(journal), input="2\n", tmp_path=tmp_path)
    assert first.returncode == 3  # the answers ended after the first question
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [e["line"] for e in events] == ["2"]
    second = askcli(
        "ask", str(LOGIN), "--journal", str(journal), input="\n3\ny\n", tmp_path=tmp_path
    )
    assert second.returncode == 0, second.stderr
    assert "You were answering this call before" in second.stderr
    content = json.loads(second.stdout)["content"][0]["content"]
    assert '="Session cookie"' in content and '="Audit log"' in content
    assert not journal.exists()


@pytest.mark.process
def test_scripted_answers_are_not_journaled_by_default(tmp_path: Path) -> None:
    askcli("ask", str(LOGIN), input="2\n", tmp_path=tmp_path)
    assert not (tmp_path / "state" / "askcli" / "journal").exists()


@pytest.mark.process
def test_a_changed_call_with_the_same_id_does_not_resume(tmp_path: Path) -> None:
    journal = tmp_path / "answers.jsonl"
    askcli("ask", str(LOGIN), "--journal", str(journal), input="2\n", tmp_path=tmp_path)
    changed = json.loads(LOGIN.read_text())
    changed["content"][1]["input"]["questions"][0]["question"] = "Which auth method, really?"
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed))
    again = askcli("ask", str(path), "--journal", str(journal), input="", tmp_path=tmp_path)
    assert "Resuming" not in again.stderr


def test_the_default_journal_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_dir() == tmp_path / "askcli" / "journal"
