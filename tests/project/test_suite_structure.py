"""The test suite's own structure (docs/development.md, "Tests"): no test module imports another
(what tests share lives in tests/support/), every test module sits in a folder of the agreed
layout, and that layout is the one the page describes.

Every ``import`` and ``from ... import`` under tests/ is read with :mod:`ast`, at module level
and inside functions, relative ones resolved against the importing module's package."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

TESTS = ROOT / "tests"
# askcli's layers (tests/project/test_layers.py): a folder of unit tests is named for one
LAYERS = ("ground", "schema", "questions", "wire", "terminal", "tools", "runners", "api")
# where test modules may sit: unit tests by layer, then the installed askcli by how it is
# driven, the inbox, each host, setup, the real agents, the repository itself, the faults
TEST_FOLDERS = {
    *(f"unit/{layer}" for layer in LAYERS),
    "cli",
    "pty",
    "inbox",
    "hosts",
    "hosts/claude",
    "hosts/acp",
    "hosts/mcp",
    "hosts/hook",
    "setup",
    "real_agents",
    "project",
    "faults",
}
# folders that hold no test modules: helpers, stand-ins run as processes, data
OTHER_FOLDERS = {"support", "peers", "corpus", "data"}
PAGE = ROOT / "docs" / "development.md"


def python_files() -> Iterator[Path]:
    """Every Python file under tests/ but the stand-ins of tests/peers/ (programs, not modules
    of the suite)."""
    for path in sorted(TESTS.rglob("*.py")):
        if "peers" not in path.relative_to(TESTS).parts:
            yield path


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imports_of(source: str, package: list[str]) -> Iterator[tuple[int, str]]:
    """(line, module) for every module ``source`` imports, relative imports resolved against
    ``package`` (the importing module's); ``from PACKAGE import NAME`` counts as
    ``PACKAGE.NAME`` too, for NAME may be a module."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def imported(path: Path) -> Iterator[tuple[int, str]]:
    name = module_name(path).split(".")
    package = name if path.name == "__init__.py" else name[:-1]
    return imports_of(path.read_text(), package)


def is_test_module(module: str) -> bool:
    """A module of the suite that pytest collects or configures: test_*.py, conftest.py."""
    parts = module.split(".")
    return parts[0] == "tests" and (parts[-1].startswith("test_") or parts[-1] == "conftest")


def folder_of(path: Path) -> str:
    return "/".join(path.relative_to(TESTS).parent.parts)


def test_no_test_module_imports_another() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in python_files()
        for line, module in imported(path)
        if is_test_module(module)
    ]
    assert not found, "put what tests share in tests/support/:\n" + "\n".join(found)


def test_the_support_package_holds_no_tests() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {node.name}"
        for path in sorted((TESTS / "support").glob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
        and node.name.startswith(("test_", "Test"))
    ]
    assert not found, "tests go in a folder of tests, not in tests/support/:\n" + "\n".join(found)


def test_every_test_module_sits_in_an_agreed_folder() -> None:
    misplaced = [
        str(path.relative_to(ROOT))
        for path in sorted(TESTS.rglob("test_*.py"))
        if folder_of(path) not in TEST_FOLDERS
    ]
    assert not misplaced, (
        "a test module goes in one of the folders of docs/development.md's table, "
        "tests/support/ holds what tests share:\n" + "\n".join(misplaced)
    )


def test_every_folder_of_tests_is_a_package() -> None:
    """Module names then follow the folders (tests.unit.wire.test_results): two test modules
    may have the same file name in two folders, and ``python -m pytest`` from the repository's
    root imports them as it imports tests.support."""
    missing = [
        str(folder.relative_to(ROOT))
        for folder in sorted(TESTS.rglob("*"))
        if folder.is_dir()
        and "__pycache__" not in folder.parts
        and any(folder.glob("*.py"))
        and "peers" not in folder.relative_to(TESTS).parts
        and not (folder / "__init__.py").exists()
    ]
    assert not missing, missing


def folders_on_disk() -> set[str]:
    return {
        folder_of(path / "x")
        for path in TESTS.rglob("*")
        if path.is_dir() and "__pycache__" not in path.parts
    }


def folders_on_the_page() -> set[str]:
    """The folders the page's table of tests/ names: rows starting ``| `tests/FOLDER/` |``."""
    return set(re.findall(r"^\| `tests/([\w/]+)/` \|", PAGE.read_text(), re.MULTILINE))


def test_the_page_names_every_folder_and_no_other() -> None:
    on_disk, on_page = folders_on_disk(), folders_on_the_page()
    assert on_page, f"{PAGE.relative_to(ROOT)} has no table of tests/"
    assert on_disk - on_page == set(), "folders the page does not describe"
    assert on_page - on_disk == set(), "folders the page names that are not there"


def test_every_folder_is_either_for_tests_or_for_what_they_use() -> None:
    unknown = folders_on_disk() - TEST_FOLDERS - OTHER_FOLDERS - {"unit"}
    assert not unknown, unknown


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("tests.inbox.test_queue", True),
        ("tests.conftest", True),
        ("tests.support.inbox", False),
        ("tests.support.inbox.Queue", False),
        ("tests.faults.world", False),
        ("askcli.test_mode", False),
    ],
)
def test_what_counts_as_a_test_module(module: str, expected: bool) -> None:
    assert is_test_module(module) is expected


def test_a_relative_import_of_a_test_module_is_found() -> None:
    """In tests/pty/x.py, ``from .test_pty import Terminal`` and ``from . import test_pty``
    both import tests.pty.test_pty; ``from ..support import calls`` does not."""
    source = "from .test_pty import Terminal\nfrom . import test_pty\nfrom ..support import calls\n"
    found = [module for _, module in imports_of(source, ["tests", "pty"])]
    assert [module for module in found if is_test_module(module)] == [
        "tests.pty.test_pty",
        "tests.pty.test_pty",
    ]
    assert "tests.support.calls" in found
