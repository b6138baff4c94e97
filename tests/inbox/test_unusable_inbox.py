"""An inbox file askcli cannot write: ``askcli hook`` exits 1 with one line naming the path.

The folder is read-only, a missing folder cannot be made, the inbox file is read-only, or
a parent is a file. Root writes anywhere, so as root the command runs without the
capabilities that let it (``setpriv``): the kernel refuses as it would for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from askcli.inbox.store import open_store

from tests.support.calls import COLOR
from tests.support.processes import askcli_path

pytestmark = pytest.mark.process

HOOK = {
    "hook_event_name": "PreToolUse",
    "tool_name": "AskUserQuestion",
    "tool_input": {"questions": [COLOR]},
    "session_id": "s",
    "cwd": "/tmp",
}
AS_A_USER = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]


def as_a_user() -> list[str]:
    """What runs a command without root's right to write anywhere."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root writes anywhere, and there is no setpriv to give that up")
    if subprocess.run([*AS_A_USER, "true"], capture_output=True, check=False).returncode:
        pytest.skip("setpriv cannot drop capabilities here")
    return AS_A_USER


def run(
    inbox: Path, *args: str, prefix: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [*(prefix or []), str(askcli_path()), *args],
        input=json.dumps(HOOK),
        capture_output=True,
        text=True,
        timeout=20,  # a hook that waits for an inbox it could not write fails here
        env={**os.environ, "ASKCLI_INBOX": str(inbox), "XDG_STATE_HOME": str(inbox.parent)},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def read_only_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    return folder / "inbox.db"


def missing_folder(tmp_path: Path) -> Path:
    return read_only_folder(tmp_path).parent / "sub" / "inbox.db"


def read_only_file(tmp_path: Path) -> Path:
    path = tmp_path / "inbox.db"
    store = open_store(path)
    store.ids()  # an inbox with its tables, as an earlier askcli left it
    store.close()
    path.chmod(0o444)
    return path


def read_only_file_and_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = read_only_file(folder)
    folder.chmod(0o555)
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "read-only folder": (read_only_folder, "cannot create it in {parent}: Permission denied"),
    "folder that cannot be made": (
        missing_folder,
        "cannot create the folder {parent}: Permission denied",
    ),
    "read-only file": (read_only_file, "attempt to write a readonly database"),
    "read-only file and folder": (
        read_only_file_and_folder,
        "attempt to write a readonly database",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_hook_with_an_inbox_it_cannot_write_exits_1(tmp_path: Path, case: str) -> None:
    make, why = CASES[case]
    inbox = make(tmp_path)
    proc = run(inbox, "hook", prefix=as_a_user())
    expected = f"askcli hook: {inbox} cannot be used as an inbox: "
    expected += why.format(parent=inbox.parent) + "\n"
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", expected)


def test_hook_with_a_file_for_a_parent_folder_exits_1(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for inbox in (tmp_path / "file" / "inbox.db", tmp_path / "file" / "sub" / "inbox.db"):
        proc = run(inbox, "hook")
        expected = f"askcli hook: {inbox} cannot be used as an inbox: Not a directory\n"
        assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", expected)


def test_mcp_with_a_file_for_a_parent_folder_says_so_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    inbox = tmp_path / "file" / "inbox.db"
    proc = run(inbox, "mcp")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"askcli: {inbox} cannot be used as an inbox: Not a directory\n"
