"""The fault suite's world, one per session; it skips, saying why, where namespaces cannot
be made (not root, no ip or nft, unshare refused) or no PostgreSQL server can be started."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.net import LabUnavailable, unavailable
from tests.faults.world import REPORTS, World
from tests.support.postgres import ClusterUnavailable


@pytest.fixture(scope="session")
def world() -> Iterator[World]:
    why = unavailable()
    if why is not None:
        pytest.skip(f"no fault lab: {why}")
    with tempfile.TemporaryDirectory(prefix="askcli-faults-") as scratch:
        try:
            made = World(Path(scratch))
        except (LabUnavailable, ClusterUnavailable) as exc:
            pytest.skip(f"no fault lab: {exc}")
        try:
            yield made
        finally:
            made.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if REPORTS:
        terminalreporter.section("fault suite: what each scenario measured")
        for line in REPORTS:
            terminalreporter.write_line(line)
