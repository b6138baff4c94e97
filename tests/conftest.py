"""Fixtures several test modules share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.real_agents import RELEASES
from tests.test_inbox_pty import Queue


@pytest.fixture(params=["sqlite", "postgres"])
def inbox_where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store a test runs on: an SQLite file, and a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "inbox.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def queue(tmp_path: Path, inbox_where: str) -> Iterator[Queue]:
    """The inbox of one test, on each store, with its askers and inboxes ended after it."""
    q = Queue(tmp_path, inbox_where)
    try:
        yield q
    finally:
        q.close()


@pytest.fixture(params=RELEASES)
def claude_bin(request: pytest.FixtureRequest) -> Path:
    """Each Claude Code release the tests run on; a test skips, saying why, without it."""
    path: Path = request.param
    if not path.exists():
        pytest.skip(f"Claude Code is not installed at {path} (make test installs it with npm)")
    return path

