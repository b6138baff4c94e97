"""Fixtures several test modules share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.real_agents import RELEASES
from tests.test_inbox_pty import Queue


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    """The inbox file of one test, with its askers and inboxes ended after it."""
    q = Queue(tmp_path)
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
