"""What the built wheel holds besides the modules: a real ``pip wheel`` of a copy of the tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.support.paths import ROOT

pytestmark = [pytest.mark.process, pytest.mark.slow]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The file names in the wheel ``pip wheel`` builds from a copy of the source tree."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "askcli", source / "askcli", ignore=shutil.ignore_patterns("__pycache__")
    )
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "--quiet",
            "--disable-pip-version-check",
            "--wheel-dir",
            str(base / "dist"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (base / "dist").glob("askcli-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_says_askcli_is_typed(wheel_names: set[str]) -> None:
    assert "askcli/py.typed" in wheel_names


def test_the_wheel_holds_every_data_file_of_the_tree(wheel_names: set[str]) -> None:
    data = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "askcli").rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc")
    }
    assert data  # py.typed at least
    assert data <= wheel_names, sorted(data - wheel_names)
