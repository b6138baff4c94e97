"""askcli record writes a fixture; askcli replay re-runs fixtures and shows diffs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from askcli import fixtures

from tests.support.calls import call
from tests.support.paths import EXAMPLES, ROOT
from tests.support.processes import askcli_path, run_askcli


def askcli(*args: str, input: str = "") -> subprocess.CompletedProcess[str]:
    return run_askcli(*args, input=input)


def test_record_then_replay_is_ok(tmp_path: Path) -> None:
    path = tmp_path / "fx" / "login.json"
    rec = askcli("record", str(EXAMPLES / "login.json"), "-o", str(path), input="2\n1,3\ny\n")
    assert rec.returncode == 0
    assert f"askcli: recorded {path}" in rec.stderr
    reply = json.loads(rec.stdout)  # the live session printed its result as usual
    fixture = json.loads(path.read_text())
    assert fixture["format"] == "askcli-fixture/1"
    assert fixture["calls"] == [json.loads((EXAMPLES / "login.json").read_text())]
    assert fixture["answers"] == ["2", "1,3", "y"]
    assert fixture["stdout"] == [json.dumps(reply, separators=(",", ":"), ensure_ascii=False)]
    assert "Choose 1-4, several allowed (e.g. 1,3): 1,3\n" in fixture["stderr"]
    assert fixture["status"] == 0
    replay = askcli("replay", str(path))
    assert replay.returncode == 0
    assert replay.stdout == f"ok      {path}\n"


def test_record_a_shared_stdin_session_with_an_output_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.json"
    session = json.dumps(call(id="toolu_1")) + "\n2\n" + json.dumps(call(id="toolu_2")) + "\nq\n"
    rec = askcli("record", "-o", str(path), "--output", "sdk", input=session)
    assert rec.returncode == 1
    fixture = json.loads(path.read_text())
    assert fixture["stdin"] == session.splitlines()
    assert fixture["output"] == "sdk"
    assert [json.loads(line)["behavior"] for line in fixture["stdout"]] == ["allow", "deny"]
    assert askcli("replay", str(path)).returncode == 0


def test_a_changed_fixture_gives_a_diff_and_status_1(tmp_path: Path) -> None:
    path = tmp_path / "changed.json"
    askcli("record", str(EXAMPLES / "library.json"), "-o", str(path), input="2\n")
    fixture = json.loads(path.read_text())
    fixture["answers"] = ["3"]
    path.write_text(json.dumps(fixture))
    replay = askcli("replay", str(path))
    assert replay.returncode == 1
    assert replay.stdout.startswith(f"differs {path}\n--- {path} (recorded)\n+++ {path} (now)\n")
    assert "-  Choose 1-4 [1]: 2\n+  Choose 1-4 [1]: 3\n" in replay.stdout


def test_replay_a_folder_and_a_broken_fixture(tmp_path: Path) -> None:
    good = tmp_path / "a" / "good.json"
    askcli("record", str(EXAMPLES / "library.json"), "-o", str(good), input="1\n")
    (tmp_path / "a" / "broken.json").write_text('{"format": "askcli-fixture/9"}')
    replay = askcli("replay", str(tmp_path))
    assert replay.returncode == 2
    assert (
        f"error   {tmp_path / 'a' / 'broken.json'}: not an askcli-fixture/1 fixture"
        in replay.stdout
    )
    assert f"ok      {good}" in replay.stdout


def test_replay_needs_fixtures(tmp_path: Path) -> None:
    empty = askcli("replay", str(tmp_path))
    assert empty.returncode == 2
    assert "no fixtures found" in empty.stderr


def test_the_project_fixtures_replay_through_the_cli() -> None:
    root = ROOT / "fixtures"
    replay = askcli("replay", str(root))
    assert replay.returncode == 0, replay.stdout
    assert replay.stdout.count("ok      ") == len(list(root.glob("*.json")))


def test_fixtures_keep_bytes_that_were_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bytes.json"
    session = (json.dumps(call(id="toolu_1")) + "\n3\n").encode() + b"caf\xe9\n"
    proc = subprocess.run(
        [str(askcli_path()), "record", "-o", str(path)],
        input=session,
        capture_output=True,
        timeout=20,
    )
    assert proc.returncode == 3  # the Other text was not UTF-8, then the input ended
    fixture = fixtures.load(path)
    assert fixture["stdin"][-1] == "caf\udce9"
    assert askcli("replay", str(path)).returncode == 0
