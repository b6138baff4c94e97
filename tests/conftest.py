"""Fixtures several test modules share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_inbox_pty import Queue


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    """The inbox file of one test, with its askers and inboxes ended after it."""
    q = Queue(tmp_path)
    try:
        yield q
    finally:
        q.close()
