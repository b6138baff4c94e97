"""What CI runs: ``.ci/run`` driven with a stand-in ``make`` that records its targets."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import ROOT

MAKE = """#!/bin/sh
echo "$@" >> "{log}"
case " $* " in *" {failing} "*) exit 2;; esac
exit 0
"""


def run_ci(
    tmp_path: Path, failing: str = "", env: dict[str, str] | None = None
) -> tuple[int, list[str]]:
    """``.ci/run`` with stand-ins for make, npm, python3 and apt-get first on PATH (nothing
    installed); apt-get writes its arguments to ``apt.log``."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "make.log"
    log.touch()
    for name, text in {
        "make": MAKE.format(log=log, failing=failing or "-none-"),
        "npm": "#!/bin/sh\nexit 0\n",
        "python3": "#!/bin/sh\nexit 0\n",
        # records its arguments; update works, install fails
        "apt-get": f'#!/bin/sh\necho "$@" >> "{tmp_path / "apt.log"}"\n[ "$1" = update ]\n',
    }.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    proc = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{stubs}:/usr/bin:/bin", **(env or {})},
        timeout=20,
    )
    return proc.returncode, log.read_text().splitlines()


RUNS = ["lint", "test", "faults"]


@pytest.mark.process
def test_ci_runs_lint_the_tests_and_the_fault_suite(tmp_path: Path) -> None:
    assert run_ci(tmp_path) == (0, RUNS)


@pytest.mark.process
@pytest.mark.parametrize("failing", RUNS)
def test_ci_fails_when_any_fails_and_still_runs_all(tmp_path: Path, failing: str) -> None:
    assert run_ci(tmp_path, failing) == (2, RUNS)


def _with_nft(tmp_path: Path, tools: tuple[str, ...] = ("nft", "sshd")) -> Path:
    """A folder holding an executable nft and sshd: .ci/run finds the fault suite's tool and
    the SSH tests' server there."""
    sbin = tmp_path / "sbin"
    sbin.mkdir(exist_ok=True)
    for tool in tools:
        (sbin / tool).write_text("#!/bin/sh\nexit 0\n")
        (sbin / tool).chmod(0o755)
    return sbin


@pytest.mark.process
@pytest.mark.parametrize("nft", [False, True])
def test_ci_installs_nftables_only_without_nft(tmp_path: Path, nft: bool) -> None:
    """No nft on PATH nor in the sbin folder: ``nftables`` joins the apt packages."""
    if shutil.which("nft", path="/usr/bin:/bin"):
        pytest.skip("nft is in /usr/bin or /bin, on the PATH .ci/run is given here")
    pg = tmp_path / "pg"
    (pg / "15" / "bin").mkdir(parents=True)
    (pg / "15" / "bin" / "initdb").touch()
    sbin = _with_nft(tmp_path) if nft else _with_nft(tmp_path, ("sshd",))
    env = {"ASKCLI_CI_PG_LIB": str(pg), "ASKCLI_CI_SBIN": str(sbin)}
    assert run_ci(tmp_path, env=env) == (0, RUNS)
    apt = tmp_path / "apt.log"
    if nft:
        assert not apt.exists()
    else:
        assert apt.read_text().splitlines() == ["update -qq", "install -y -qq nftables"]


@pytest.mark.process
@pytest.mark.parametrize("server", [False, True])
def test_ci_installs_postgresql_only_without_server_binaries(tmp_path: Path, server: bool) -> None:
    """No initdb on PATH nor under the lib folder: ``postgresql`` joins the apt packages."""
    if shutil.which("initdb", path="/usr/bin:/bin"):
        pytest.skip("initdb is in /usr/bin or /bin, on the PATH .ci/run is given here")
    lib = tmp_path / "lib"
    lib.mkdir()
    if server:
        (lib / "15" / "bin").mkdir(parents=True)
        (lib / "15" / "bin" / "initdb").touch()
    env = {"ASKCLI_CI_PG_LIB": str(lib), "ASKCLI_CI_SBIN": str(_with_nft(tmp_path))}
    assert run_ci(tmp_path, env=env) == (0, RUNS)
    apt = tmp_path / "apt.log"
    if server:
        assert not apt.exists()
    else:
        assert apt.read_text().splitlines() == ["update -qq", "install -y -qq postgresql"]


@pytest.mark.parametrize("sshd", [False, True])
def test_ci_installs_openssh_only_without_sshd(tmp_path: Path, sshd: bool) -> None:
    """No sshd on PATH nor in the sbin folder: ``openssh-server`` (and its client) join the
    apt packages."""
    if shutil.which("sshd", path="/usr/bin:/bin"):
        pytest.skip("sshd is in /usr/bin or /bin, on the PATH .ci/run is given here")
    pg = tmp_path / "pg"
    (pg / "15" / "bin").mkdir(parents=True)
    (pg / "15" / "bin" / "initdb").touch()
    sbin = _with_nft(tmp_path, ("nft", "sshd") if sshd else ("nft",))
    env = {"ASKCLI_CI_PG_LIB": str(pg), "ASKCLI_CI_SBIN": str(sbin)}
    assert run_ci(tmp_path, env=env) == (0, RUNS)
    apt = tmp_path / "apt.log"
    if sshd:
        assert not apt.exists()
    else:
        assert apt.read_text().splitlines() == [
            "update -qq",
            "install -y -qq openssh-server openssh-client",
        ]
