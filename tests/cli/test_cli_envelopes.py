"""Every envelope and tool through the installed askcli: the same lines as in process."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from askcli.runners.recordings import source_text

from tests.support.goldens_tools import TOOL_SESSIONS
from tests.support.processes import askcli_path


@pytest.mark.parametrize("name", TOOL_SESSIONS)
def test_the_binary_replies_in_each_envelopes_shape(name: str, tmp_path: Path) -> None:
    calls, answers, stderr, stdout, status = TOOL_SESSIONS[name]
    source = tmp_path / "calls.jsonl"
    source.write_text(source_text(calls))
    proc = subprocess.run(
        [str(askcli_path()), "ask", str(source), "--state", str(tmp_path / "todos.json")],
        input="".join(a + "\n" for a in answers),
        capture_output=True,
        text=True,
        timeout=20,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80"},
    )
    assert proc.stdout.splitlines() == stdout
    assert proc.stderr == "\n".join(stderr)
    assert proc.returncode == status
