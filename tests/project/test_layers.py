"""askcli's layers: every import inside ``askcli/`` points down (docs/development.md, "Layers").

Every ``import`` and ``from ... import`` is read with :mod:`ast`: at module level, inside
functions, and under ``if TYPE_CHECKING:`` (a type named from a higher layer is an arrow up
all the same). A module may import its own layer and those below it, never one above.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "askcli"

# The one order, bottom first. A name stands for that module and, but for the root package
# ``askcli`` (its __init__: the Python API), everything under it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "ground",
        (
            "askcli.confined",
            "askcli.errors",
            "askcli.files",
            "askcli.escaping",
            "askcli.lines",
            "askcli.records",
            "askcli.status",
            "askcli.version",
        ),
    ),
    ("schema", ("askcli.schema",)),
    ("questions", ("askcli.questions",)),
    ("wire", ("askcli.wire",)),
    ("terminal", ("askcli.terminal",)),
    ("tools", ("askcli.tools",)),
    ("runners", ("askcli.runners",)),
    ("inbox", ("askcli.inbox",)),
    ("hosts", ("askcli.hosts",)),
    ("setup", ("askcli.setup",)),
    ("api", ("askcli", "askcli.fixtures")),
    ("cli", ("askcli.cli", "askcli.__main__")),
)
RANK = {layer: rank for rank, (layer, _) in enumerate(LAYERS)}


def modules(root: Path) -> dict[str, Path]:
    """Every module under ``root`` (a package folder) by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def layer_of(module: str) -> str | None:
    """The layer ``module`` belongs to; None when the table names none."""
    best: tuple[int, str] | None = None
    for layer, names in LAYERS:
        for name in names:
            under = module.startswith(name + ".") and name != "askcli"
            if (module == name or under) and (best is None or len(name) > best[0]):
                best = (len(name), layer)
    return best[1] if best else None


def imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import of an askcli module in ``path``, relative
    ones resolved; ``from package import name`` counts as ``package.name`` when that is a
    module."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "askcli":
                yield node.lineno, target


def arrows_up(root: Path) -> list[str]:
    """One line per import against the order: file, line, the two modules and layers."""
    known = modules(root)
    found: list[tuple[str, int, str]] = []
    for module, path in known.items():
        here = layer_of(module)
        if here is None:
            continue  # unplaced(): a module of no layer is a failure of its own
        for line, target in imports(module, path, known):
            there = layer_of(target)
            if there is not None and RANK[there] > RANK[here]:
                where = path.relative_to(root.parent)
                found.append((str(where), line, f"{module} ({here}) imports {target} ({there})"))
    return [f"{where}:{line}: {what}" for where, line, what in sorted(set(found))]


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module -> the askcli modules it imports (``from package import name`` counts as
    the package, unless ``name`` is a module), itself left out."""
    known = modules(root)
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, path in known.items():
        for _, target in imports(module, path, known):
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target in known and target != module:
                graph[module].add(target)
    return graph


def cycles(root: Path) -> list[list[str]]:
    """The modules that import each other, directly or around a circle, one sorted list a
    circle (Tarjan's strongly connected components of the import graph)."""
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            circle = []
            while True:
                top = stack.pop()
                circle.append(top)
                if top == module:
                    break
            if len(circle) > 1:
                found.append(sorted(circle))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def unplaced(root: Path) -> list[str]:
    """The modules that belong to no layer of the table."""
    return [module for module in modules(root) if layer_of(module) is None]


def test_every_import_in_askcli_points_down() -> None:
    assert arrows_up(PACKAGE) == []


def test_every_module_of_askcli_belongs_to_a_layer() -> None:
    assert unplaced(PACKAGE) == []


def test_every_layer_of_the_table_names_modules_that_exist() -> None:
    known = modules(PACKAGE)
    names = [name for _, names in LAYERS for name in names]
    assert [n for n in names if not any(m == n or m.startswith(n + ".") for m in known)] == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "askcli"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_a_schema_function_importing_a_host_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "",
            "schema/__init__.py": "",
            "schema/models.py": """\
                from ..errors import *


                def check():
                    from ..hosts.hook import main
                    return main
            """,
            "hosts/__init__.py": "",
            "hosts/hook.py": "from ..schema import models\nimport askcli.errors\n",
        },
    )
    assert arrows_up(root) == [
        "askcli/schema/models.py:5: askcli.schema.models (schema) imports askcli.hosts.hook (hosts)"
    ]


@pytest.mark.parametrize(
    "source",
    [
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..tools.repl import X\n",
        "import askcli.tools.repl\n",
        "from askcli.tools import repl\n",
        "from .. import tools\n",
    ],
)
def test_every_spelling_of_an_import_up_is_seen(tmp_path: Path, source: str) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "wire/__init__.py": "",
            "wire/envelopes.py": source,
            "tools/__init__.py": "",
            "tools/repl.py": "",
        },
    )
    [found] = arrows_up(root)
    assert found.startswith("askcli/wire/envelopes.py:")
    assert "askcli.wire.envelopes (wire) imports askcli.tools" in found
    assert found.endswith("(tools)")


def test_no_two_askcli_modules_import_each_other() -> None:
    assert cycles(PACKAGE) == []


def test_modules_importing_each_other_fail_even_deferred(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "wire/__init__.py": "",
            "wire/a.py": "from . import b\n",
            "wire/b.py": "def f():\n    from .c import g\n",
            "wire/c.py": "import typing\nif typing.TYPE_CHECKING:\n    from .a import A\n",
            "wire/d.py": "from .a import b\n",
        },
    )
    assert cycles(root) == [["askcli.wire.a", "askcli.wire.b", "askcli.wire.c"]]


# The file names askcli's modules share, and why each may: one role, once per part. Every
# other module has a name of its own, so that a name found in a traceback, a page or a
# review is one module.
SHARED_NAMES = {
    "__init__": "every package",
    "asking": "the ask commands (cli) and acp's asking of the person (hosts/acp)",
    "base": "the interface of its package (inbox/store, wire/dialects, wire/wording)",
    "command": "each host's command run from its options (hosts/acp, claude, hook)",
    "recording": "each host's --record, and askcli record (runners)",
    "registry": "a name -> object lookup: the tools (tools/), the wordings (wire/wording/)",
    "session": "each host's session loop, and asking a source (runners)",
    "showing": "what each host shows of its agent's messages (hosts/acp, claude)",
}


def shared_names(root: Path) -> dict[str, list[str]]:
    """Each file name more than one module of ``root`` has -> those modules."""
    by_name: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        by_name.setdefault(path.stem, []).append(str(path.relative_to(root.parent)))
    return {name: paths for name, paths in by_name.items() if len(paths) > 1}


def test_no_two_modules_share_a_name_unless_listed_with_a_reason() -> None:
    assert sorted(shared_names(PACKAGE)) == sorted(SHARED_NAMES)


def test_a_second_module_of_one_name_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path, {"__init__.py": "", "wire/__init__.py": "", "wire/care.py": "", "care.py": ""}
    )
    assert shared_names(root) == {
        "__init__": ["askcli/__init__.py", "askcli/wire/__init__.py"],
        "care": ["askcli/care.py", "askcli/wire/care.py"],
    }


def classes_named_twice(root: Path) -> dict[str, list[str]]:
    """Each class name defined in more than one place under ``root`` -> file:line of each."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ClassDef):
                where = f"{path.relative_to(root.parent)}:{node.lineno}"
                found.setdefault(node.name, []).append(where)
    return {name: places for name, places in found.items() if len(places) > 1}


def test_no_two_classes_share_a_name() -> None:
    assert classes_named_twice(PACKAGE) == {}


def test_a_class_defined_twice_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {"__init__.py": "", "a.py": "class Ended:\n    pass\n", "b.py": "\nclass Ended: ...\n"},
    )
    assert classes_named_twice(root) == {"Ended": ["askcli/a.py:1", "askcli/b.py:2"]}


def test_a_new_top_level_package_not_in_the_table_fails(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"__init__.py": "", "errors.py": "", "plugins/__init__.py": ""})
    assert unplaced(root) == ["askcli.plugins"]


def click_outside_the_cli(root: Path) -> list[str]:
    """file:line of every import of click outside the cli layer (the core never imports it)."""
    found = []
    for module, path in modules(root).items():
        if layer_of(module) == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            if any(name.split(".")[0] == "click" for name in names):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_only_the_cli_imports_click() -> None:
    assert click_outside_the_cli(PACKAGE) == []


def test_click_in_a_tool_module_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "cli/__init__.py": "import click\n",
            "tools/__init__.py": "",
            "tools/menu.py": "def f():\n    from click import echo\n",
        },
    )
    assert click_outside_the_cli(root) == ["askcli/tools/menu.py:2"]
