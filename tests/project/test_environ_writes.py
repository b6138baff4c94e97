"""No module of askcli writes its own environment for an ``ASKCLI_*`` variable: the inbox's
location (``--inbox-url``) is a value passed to what opens the store, and a child agent gets
``ASKCLI_INBOX`` in the environment it is spawned with (tests/hosts/test_child_inbox.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "askcli"


def _environ(node: ast.AST) -> bool:
    """``os.environ``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _askcli_name(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and str(node.value).startswith("ASKCLI_")


def writes(tree: ast.AST) -> Iterator[int]:
    """The lines that set an ``ASKCLI_*`` variable in the process's own environment:
    ``os.environ[NAME] = ...``, ``os.environ.setdefault(NAME, ...)`` / ``update(...)``,
    ``os.putenv(NAME, ...)``, and ``os.environ |= ...``."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and _environ(target.value):
                if _askcli_name(target.slice) or not isinstance(target.slice, ast.Constant):
                    yield node.lineno
            elif _environ(target):
                yield node.lineno
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            first = node.args[0] if node.args else None
            if _environ(func.value) and func.attr in ("setdefault", "update", "__setitem__"):
                if func.attr == "update" or _askcli_name(first) or first is None:
                    yield node.lineno
            elif func.attr == "putenv" and _askcli_name(first):
                yield node.lineno


def test_no_module_writes_askcli_variables_into_its_environment() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in writes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_check_sees_each_way_of_writing() -> None:
    """The check can fail: each way an ``ASKCLI_*`` variable could be written is seen."""
    source = "\n".join(
        [
            "import os",
            "os.environ['ASKCLI_INBOX'] = url",
            "os.environ.setdefault('ASKCLI_TO', 'bob')",
            "os.environ.update(ASKCLI_INBOX=url)",
            "os.putenv('ASKCLI_INBOX', url)",
            "os.environ[name] = url",
            "os.environ |= {'ASKCLI_INBOX': url}",
            "os.environ.get('ASKCLI_INBOX')",  # a read: not a write
            "environ = dict(os.environ) | {'ASKCLI_INBOX': url}",  # a child's: no write
        ]
    )
    assert sorted(writes(ast.parse(source))) == [2, 3, 4, 5, 6, 7]


def test_the_check_reads_every_module() -> None:
    assert any(Path(p).name == "params.py" for p in PACKAGE.rglob("*.py"))
