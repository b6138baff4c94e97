"""The README is a front page and docs/ the manual: short, linked, and the CLI reference current."""

from __future__ import annotations

import importlib.util
import itertools
import re
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT
from tests.support.processes import run_askcli

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def gen_cli() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli", DOCS / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page`` (a repeated one gets -1, -2, ...)."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        name, n = slug, 0
        while name in found:
            n += 1
            name = f"{slug}-{n}"
        found.add(name)
    return found


def test_cli_md_is_every_commands_help_as_generated() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert text == gen_cli().render(), (
        "docs/cli.md is out of date: run `make docs` (python docs/gen_cli.py) and commit it"
    )


@pytest.mark.process
@pytest.mark.parametrize("command", [(), ("ask",), ("inbox", "answer"), ("todo", "show")])
def test_cli_md_holds_what_the_installed_askcli_prints(command: tuple[str, ...]) -> None:
    printed = run_askcli(*command, "--help", env={"COLUMNS": "80"}).stdout
    name = " ".join(("askcli", *command))
    assert f"## `{name}`\n\n```\n{printed}```\n" in (DOCS / "cli.md").read_text(encoding="utf-8")


def every_help(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(command, its --help at 80 columns) for every command and subcommand."""
    from askcli.cli import cli

    monkeypatch.setenv("COLUMNS", "80")
    return [(" ".join(path), text) for path, text in gen_cli()._commands(cli, ("askcli",), None)]


def test_no_help_is_wider_than_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    helps = every_help(monkeypatch)
    assert {"askcli inbox team", "askcli inbox roles", "askcli todo show"} <= dict(helps).keys()
    lines = [(name, line) for name, text in helps for line in text.split("\n")]
    assert [f"{name}: {line}" for name, line in lines if len(line) > 80] == []
    split = [  # a hyphenated word broken at its hyphen (claude-code-2.1.88, FILE.askcli-backup)
        f"{name}: {line}"
        for (name, line), (_, after) in itertools.pairwise(lines)
        if re.search(r"[\w.]-$", line) and after.strip()
    ]
    assert split == []


def test_every_command_list_shows_each_first_line_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    cut = []
    for name, text in every_help(monkeypatch):
        listed = text.partition("\nCommands:\n")[2]
        cut += [f"{name}: {line.strip()}" for line in listed.split("\n") if line.endswith("...")]
    assert cut == []


def test_no_help_says_the_in_house_word_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    said = [name for name, text in every_help(monkeypatch) if "seed" in text.lower()]
    assert said == []


def test_the_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move the detail into docs/"
    assert "make run" in lines[2] and "make test" in lines[3]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest.relative_to(ROOT)}")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_every_make_target_is_in_the_development_page() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z][a-z0-9_-]*):.*## ", makefile, re.M)
    page = (DOCS / "development.md").read_text(encoding="utf-8")
    assert targets and [t for t in targets if f"`make {t}`" not in page] == []


@pytest.mark.process
def test_the_inbox_example_shows_what_askcli_ask_says(tmp_path: Path) -> None:
    """docs/inbox.md's first example: the notice it shows is the one askcli prints."""
    import os
    import signal
    import subprocess

    from tests.support.processes import askcli_path

    page = (DOCS / "inbox.md").read_text()
    (notice,) = re.findall(r"^# (askcli: question 1 is waiting in the inbox .*)$", page, re.M)
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    inbox = folder / "inbox.db"
    env = {**os.environ, "ASKCLI_INBOX": str(inbox)}
    proc = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", "examples/library.json"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline().rstrip("\n")
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=10)
    path = notice.rsplit(" ", 1)[1]
    assert first == notice.replace(path, str(inbox))
