"""Fixtures several test modules share."""

from __future__ import annotations

import atexit
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# the suite's leases (and every askcli it starts): 5 s, as the tests' timings expect
os.environ.setdefault("ASKCLI_LEASE", "5")

from askcli.inbox.postgres_store import GRACE

from tests.support.claude import Api
from tests.support.inbox import Queue
from tests.support.postgres import Cluster, ClusterUnavailable
from tests.support.real_agents import RELEASES
from tests.support.sshd import Sshd, SshdUnavailable
from tests.support.teams import team  # noqa: F401 (a fixture: a team inbox on PostgreSQL)

FAULTS = Path(__file__).resolve().parent / "faults"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fault suite (tests/faults) runs only when asked for by its path (make faults):
    it builds network namespaces and takes minutes."""
    if collection_path != FAULTS:
        return None
    asked = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return not any(path == FAULTS or FAULTS in path.parents for path in asked)


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


@pytest.fixture
def api(tmp_path: Path, request: pytest.FixtureRequest, claude_bin: Path) -> Iterator[Api]:
    """The stand-in Anthropic API serving the turns the test gives (``indirect``), with the
    real Claude Code of each release (``claude_bin``) to run against it."""
    server = Api(tmp_path, request.param, claude_bin=claude_bin)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """The session's throwaway PostgreSQL cluster (tests/postgres.py), started on first use and
    stopped at the end; the tests using it skip, saying why, when it cannot be started."""
    try:
        cluster = Cluster()
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL cluster: {exc}")
    atexit.register(cluster.close)  # an interrupted session (its watchdog covers a killed one)
    try:
        try:
            cluster.start()
        except ClusterUnavailable as exc:
            pytest.skip(f"no PostgreSQL cluster: {exc}")
        yield cluster
    finally:
        cluster.close()
        atexit.unregister(cluster.close)


def past_grace(cluster: Cluster) -> None:
    """Wait out what a server just (re)started forgives (askcli lets no lease lapse then)."""
    with cluster.connect() as db:
        row = db.execute(
            "SELECT extract(epoch FROM clock_timestamp() - pg_postmaster_start_time())::float8"
        ).fetchone()
    up = float(row[0]) if row is not None else 0.0
    if up < GRACE:
        time.sleep(GRACE - up)


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """``postgresql://askcli_test@127.0.0.1:PORT/test_N``: a database created for this test alone
    (the server started first if a test left it stopped), dropped after it."""
    postgres_cluster.start()
    past_grace(postgres_cluster)
    name = postgres_cluster.new_database()
    yield postgres_cluster.url(name)
    if postgres_cluster.running:
        postgres_cluster.drop_database(name)


@pytest.fixture(scope="session")
def sshd() -> Iterator[Sshd]:
    """The session's throwaway OpenSSH server on 127.0.0.1 (tests/sshd.py), started on first
    use and stopped at the end; the tests using it skip, saying why, when it cannot be had."""
    try:
        server = Sshd()
    except SshdUnavailable as exc:
        pytest.skip(f"no sshd: {exc}")
    atexit.register(server.close)  # an interrupted session (its watchdog covers a killed one)
    try:
        try:
            server.start()
        except SshdUnavailable as exc:
            pytest.skip(f"no sshd: {exc}")
        yield server
    finally:
        server.close()
        atexit.unregister(server.close)
