"""What CI runs: ``.ci/run`` driven with a stand-in ``make`` that records its targets."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .helpers import ROOT

MAKE = """#!/bin/sh
echo "$@" >> "{log}"
case " $* " in *" {failing} "*) exit 2;; esac
exit 0
"""


def run_ci(tmp_path: Path, failing: str = "") -> tuple[int, list[str]]:
    """``.ci/run`` with stand-ins for make, npm and python3 first on PATH (nothing installed)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "make.log"
    log.touch()
    for name, text in {
        "make": MAKE.format(log=log, failing=failing or "-none-"),
        "npm": "#!/bin/sh\nexit 0\n",
        "python3": "#!/bin/sh\nexit 0\n",
        "apt-get": "#!/bin/sh\nexit 1\n",
    }.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    proc = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{stubs}:/usr/bin:/bin"},
        timeout=20,
    )
    return proc.returncode, log.read_text().splitlines()


def test_ci_runs_lint_and_the_tests(tmp_path: Path) -> None:
    assert run_ci(tmp_path) == (0, ["lint", "test"])


@pytest.mark.parametrize("failing", ["lint", "test"])
def test_ci_fails_when_either_fails_and_still_runs_both(tmp_path: Path, failing: str) -> None:
    assert run_ci(tmp_path, failing) == (2, ["lint", "test"])
