"""``make help`` lists every documented target of the Makefile (issue 11, item 11)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.process


def test_make_help_lists_every_documented_target() -> None:
    makefile = (ROOT / "Makefile").read_text()
    documented = re.findall(r"^([A-Za-z0-9_.-]+):[^\n]*## ", makefile, re.MULTILINE)
    assert "claude-code" in documented  # the name with a hyphen the old pattern skipped
    proc = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    listed = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("  make ")]
    assert listed == documented, proc.stdout
    for line in proc.stdout.splitlines():  # the name and its text apart, whatever its length
        name = line.split()[1]
        assert line.startswith(f"  make {name} "), line
