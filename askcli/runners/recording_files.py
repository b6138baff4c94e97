"""Fixture files as the commands that record and replay them see them: whether one can be
written, saving one (and saying where), the files named on the command line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..escaping import visible


def writable_fixture(path: Path) -> None:
    """UsageError, before the session, when the fixture could not be saved at ``path``."""
    from ..files import lstat_or_none, not_regular

    try:
        found = lstat_or_none(path)
    except OSError as exc:
        raise UsageError(f"cannot write the fixture {path}: {exc.strerror}") from None
    kind = None if found is None else not_regular(found.st_mode)
    if kind is not None:
        raise UsageError(f"cannot write the fixture {path}: it is {kind}, not a regular file")


def save_fixture(path: Path, fixture: dict[str, Any], say: Callable[[str], None]) -> bool:
    """Save a recorded fixture and say where; False (said why) when it cannot be."""
    from . import recordings

    where = visible(str(path))
    try:
        recordings.save(path, fixture)
    except OSError as exc:
        say(f"askcli: cannot write the fixture {where}: {visible(exc.strerror or str(exc))}\n")
        return False
    say(f"askcli: recorded {where}\n")
    return True


def fixture_files(paths: tuple[Path, ...]) -> list[Path]:
    """The fixtures named: files, and the *.json files in folders."""
    found: list[Path] = []
    for path in paths:
        found += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    return found


def save_session(
    path: Path, fixture: dict[str, Any], sent: Any, status: int, say: Callable[[str], None]
) -> bool:
    """Save a recorded host session, warning when replaying it does not give what it did."""
    from .recordings import HOSTED_SECTIONS

    section: dict[str, Any] = next((fixture[s] for s in HOSTED_SECTIONS if s in fixture), {})
    if section.get("sent") != sent or fixture["status"] != status:
        say("askcli: warning: replaying this session does not give what it did\n")
    return save_fixture(path, fixture, say)
