"""askcli hook reads Claude Code's transcript as it grows: the call's tool_result there means
Claude Code went on without the hook (issue 23, item 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from askcli.hosts.hook import transcript
from askcli.hosts.hook.transcript import Transcript

BASH = {"command": "ls", "description": "list"}


def use(tool_id: str, tool_input: dict[str, Any] = BASH, name: str = "Bash") -> str:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    return json.dumps({"type": "assistant", "message": {"content": [block]}}) + "\n"


def result(tool_id: str) -> str:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}
    return json.dumps({"type": "user", "message": {"content": [block]}}) + "\n"


def add(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


def test_the_calls_result_is_seen_as_it_comes(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    add(path, '{"type":"api-request"}\n' + use("toolu_1"))
    found = Transcript(str(path), "Bash", BASH)
    assert not found.decided()
    add(path, result("toolu_other") + '{"type":"user","message":{"content":"more"}}\n')
    assert not found.decided()
    add(path, result("toolu_1")[:20])  # half a line: not yet
    assert not found.decided()
    add(path, result("toolu_1")[20:])
    assert found.decided()


def test_an_earlier_identical_call_already_done_is_not_this_one(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    add(path, use("toolu_1") + result("toolu_1"))
    found = Transcript(str(path), "Bash", BASH)
    assert not found.decided()  # this call's tool_use is not written yet
    add(path, use("toolu_2"))
    assert not found.decided()
    add(path, result("toolu_2"))
    assert found.decided()


def test_other_tools_and_other_inputs_are_not_this_call(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    add(path, use("toolu_1", {"command": "rm -rf /"}) + use("toolu_2", BASH, name="Read"))
    found = Transcript(str(path), "Bash", BASH)
    add(path, result("toolu_1") + result("toolu_2"))
    assert not found.decided()


def test_a_long_transcript_is_read_from_its_tail(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(transcript, "TAIL", 200)
    path = tmp_path / "session.jsonl"
    add(path, ('{"type":"x","pad":"' + "p" * 500 + '"}\n') * 50 + use("toolu_1"))
    found = Transcript(str(path), "Bash", BASH)
    assert not found.decided()
    add(path, result("toolu_1"))
    assert found.decided()


def test_garbage_a_missing_file_or_a_link_never_count_as_decided(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    assert not Transcript(str(path), "Bash", BASH).decided()  # not there (yet)
    add(path, "not json\n[1,2]\n" + '{"message": {"content": [7, null]}}\n' + use("toolu_1"))
    found = Transcript(str(path), "Bash", BASH)
    assert not found.decided()
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    add(path, result("toolu_1"))
    assert not Transcript(str(link), "Bash", BASH).decided()  # never read through a link
    assert found.decided()
