"""Hosts end a session from how asking ended (askcli.questions.outcome.Outcome), never from an
exit status written by hand: every ``Ended(...)`` under askcli/hosts/ is read with :mod:`ast`,
and one whose status is one that asking gives (answered, declined, interrupted, no answer,
invalid) must be ``Ended.from_outcome(...)``. The statuses of a session's own failures (a
usage error, stdout gone or failing) are no outcome of asking and stay as they are."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.questions.outcome import Outcome

from tests.support.paths import ROOT

HOSTS = ROOT / "askcli" / "hosts"
# the names of the statuses asking gives; USAGE shares INVALID's number but is not asking's
ASKING = {outcome.status.name for outcome in Outcome}
NUMBERS = {int(outcome.status) for outcome in Outcome}


def _is_ended(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "Ended") or (
        isinstance(func, ast.Attribute) and func.attr == "Ended"
    )


def hand_written(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every ``Ended(...)`` whose status is one asking gives, written out."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not _is_ended(node.func):
            continue
        status = node.args[0] if node.args else None
        status = status or next((k.value for k in node.keywords if k.arg == "status"), None)
        if status is None:
            continue
        for part in ast.walk(status):
            named = (
                isinstance(part, ast.Attribute)
                and isinstance(part.value, ast.Name)
                and part.value.id == "ExitStatus"
                and part.attr in ASKING
            )
            number = isinstance(part, ast.Constant) and part.value in NUMBERS
            if named or (number and not isinstance(part.value, bool)):
                yield node.lineno, ast.unparse(node)
                break


def host_modules() -> list[Path]:
    return sorted(HOSTS.rglob("*.py"))


@pytest.mark.parametrize(
    "source",
    [
        "self.ended = Ended(int(ExitStatus.NO_ANSWER))",
        "self.ended = Ended(ExitStatus.INTERRUPTED, 'why')",
        "ended = events.Ended(status=ExitStatus.DECLINED)",
        "ended = Ended(3)",
    ],
)
def test_a_hand_written_ending_is_found(source: str) -> None:
    assert list(hand_written(source))


@pytest.mark.parametrize(
    "source",
    [
        "self.ended = Ended.from_outcome(result.outcome)",
        "self.ended = Ended(ExitStatus.USAGE)",
        "self.ended = Ended(ExitStatus.STDOUT_GONE, 'stdout was closed')",
        "self.ended = Ended(ExitStatus.OUTPUT_FAILED, f'cannot write: {reason}')",
    ],
)
def test_an_ending_from_the_outcome_or_a_session_failure_is_not(source: str) -> None:
    assert not list(hand_written(source))


def test_no_host_writes_an_ending_of_asking_by_hand() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in host_modules()
        for line, text in hand_written(path.read_text(encoding="utf-8"))
    ]
    assert not found, "end from the outcome (Ended.from_outcome):\n" + "\n".join(found)


def _ended_classes() -> Iterator[tuple[str, ast.ClassDef]]:
    for path in host_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name == "Ended":
                module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
                yield module, node


def test_every_ended_is_made_from_an_outcome() -> None:
    found = list(_ended_classes())
    assert found, "no Ended class under askcli/hosts/"
    for module, _ in found:
        ended = importlib.import_module(module).Ended
        for outcome in Outcome:
            assert ended.from_outcome(outcome).status == int(outcome.status)
        assert ended.from_outcome(Outcome.TIMED_OUT) == ended(3)
