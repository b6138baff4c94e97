"""Every shell example of README.md and docs/*.md runs as written and prints what the page
shows (tests/support/doc_examples.py says how a page marks and shows them)."""

from __future__ import annotations

import shlex
import warnings
from pathlib import Path

import click
import pytest

from askcli.cli import cli

from tests.support.doc_examples import (
    ROOT,
    Example,
    Step,
    askcli_commands,
    examples,
    files_named,
    folder,
    matches,
    run_script,
    run_transcript,
)

ALL = list(examples())
RUNNABLE = [example for example in ALL if example.runnable]


def _report(example: Example, step: Step, output: str) -> str:
    shown = "\n".join(step.shown)
    return (
        f"{example.where}: `{step.command}` printed\n{output}\n"
        f"---- but the page shows ----\n{shown}\n"
        "(make the page say what askcli does, or askcli do what the page says)"
    )


def test_every_askcli_example_is_run_or_says_why_not() -> None:
    unmarked = [
        example.where
        for example in ALL
        if "askcli" in example.body and not (example.runnable or example.marker)
    ]
    assert not unmarked, (
        "these examples are neither <!-- runnable --> nor <!-- not runnable: REASON -->: "
        + ", ".join(unmarked)
    )
    wrong = [
        f"{example.where}: {example.marker}"
        for example in ALL
        if example.marker and not example.runnable and "not runnable: " not in example.marker
    ]
    assert not wrong, "markers not understood: " + "; ".join(wrong)


def test_the_pages_have_runnable_examples() -> None:
    pages = {example.page.name for example in RUNNABLE}
    assert {"README.md", "ask.md", "dialects.md"} <= pages, pages


@pytest.mark.pty
@pytest.mark.parametrize("example", RUNNABLE, ids=[example.where for example in RUNNABLE])
def test_example_prints_what_the_page_shows(example: Example, tmp_path: Path) -> None:
    env = folder(tmp_path)
    steps = example.steps
    assert steps, f"{example.where}: no command in a runnable example"
    if example.kind == "script":
        results = run_script(steps, tmp_path, env)
        assert len(results) == len(steps), f"{example.where}: the block stopped early: {results}"
    else:
        results = [(run_transcript(step, tmp_path, env), 0) for step in steps]
    for step, (output, status) in zip(steps, results, strict=True):
        assert "Traceback" not in output, _report(example, step, output)
        if step.shown:
            assert matches(step.shown, output), _report(example, step, output)
        else:  # the page shows nothing of it: it must at least work
            assert status == 0, f"{example.where}: `{step.command}` exited {status}:\n{output}"


@pytest.mark.parametrize("example", ALL, ids=[example.where for example in ALL])
def test_example_names_files_that_exist(example: Example) -> None:
    missing = sorted(name for name in files_named(example) if not (ROOT / name).exists())
    assert not missing, f"{example.where} names files that do not exist: {missing}"


@pytest.mark.parametrize("example", ALL, ids=[example.where for example in ALL])
def test_every_askcli_command_shown_parses(
    example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Examples that are not run still name commands and options askcli has."""
    for name in ("ASKCLI_INBOX", "ASKCLI_TO"):  # what option callbacks set is undone after
        monkeypatch.delenv(name, raising=False)
    for args in askcli_commands(example):
        try:
            parsed(args)
        except click.exceptions.Exit:  # --help, --version
            pass
        except click.UsageError as exc:
            pytest.fail(f"{example.where}: `askcli {shlex.join(args)}`: {exc.format_message()}")


def parsed(args: list[str]) -> None:
    """``args`` parsed as askcli's command line would parse them, nothing run: each
    subcommand in its parent's context (click keeps a command's help option as the first
    context it sees makes it)."""
    command: click.Command = cli
    name = "askcli"
    parent: click.Context | None = None
    while True:
        context = command.make_context(name, list(args), parent=parent)
        if not isinstance(command, click.Group):
            return
        with warnings.catch_warnings():  # click 8.2 deprecates it; 8.1 has nothing else
            warnings.simplefilter("ignore", DeprecationWarning)
            rest = [*context.protected_args, *context.args]
        if not rest:
            return
        found = command.get_command(context, rest[0])
        if found is None:
            raise click.UsageError(f"no such command {rest[0]!r}")
        command, name, args, parent = found, rest[0], rest[1:], context
