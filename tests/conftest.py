"""What every test shares: a HOME of its own, the marks of what it needs (by folder and by
fixture; docs/development.md, "Tests"), no process unless marked so, and the fixtures several
test modules use."""

from __future__ import annotations

import atexit
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# the suite's leases (and every askcli it starts): 5 s, as the tests' timings expect
os.environ.setdefault("ASKCLI_LEASE", "5")

from askcli.inbox.store.postgres import GRACE

from tests.support.claude import Api
from tests.support.inbox import Queue
from tests.support.postgres import Cluster, ClusterUnavailable
from tests.support.real_agents import RELEASES
from tests.support.sshd import Sshd, SshdUnavailable
from tests.support.teams import team  # noqa: F401 (a fixture: a team inbox on PostgreSQL)

TESTS = Path(__file__).resolve().parent
FAULTS = TESTS / "faults"
# the marks of every test of a folder (the first folder under tests/): what its tests need
FOLDER_MARKS = {
    "cli": ("process",),
    "pty": ("pty",),
    "real_agents": ("real_agent",),
    "faults": ("postgres", "slow"),
}
# the marks of every test that uses a fixture (directly or through another): what it starts
FIXTURE_MARKS = {"postgres_cluster": "postgres", "postgres_url": "postgres", "sshd": "pty"}
# a test with one of these may start processes; any other that tries fails (see in_process)
STARTING = ("process", "pty", "real_agent", "postgres")
# what askcli reads from the environment of whoever runs the tests (their inbox, their
# addressee, their wording...): no test sees it; the XDG folders follow the test's own HOME
NOT_INHERITED = (
    "ASKCLI_INBOX",
    "ASKCLI_TO",
    "ASKCLI_WORDING",
    "ASKCLI_NOTIFY",
    "ASKCLI_MCP_TOKEN",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fault suite (tests/faults) runs only when asked for by its path (make faults):
    it builds network namespaces and takes minutes."""
    if collection_path != FAULTS:
        return None
    asked = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return not any(path == FAULTS or FAULTS in path.parents for path in asked)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test gets the marks of its folder and of the fixtures it uses (pyproject.toml
    registers them; ``make test-fast`` leaves out every test that has one)."""
    for item in items:
        folder = item.path.relative_to(TESTS).parts[0]
        for mark in FOLDER_MARKS.get(folder, ()):
            item.add_marker(mark)
        for fixture, mark in FIXTURE_MARKS.items():
            if fixture in item.fixturenames:
                item.add_marker(mark)


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test has a HOME of its own in a temporary folder, and with it its own state
    (``~/.local/state``: the default inbox, journals, todos) and config folders: nothing is
    read from or written to the home of whoever runs the tests, nor taken from their
    ``ASKCLI_*`` settings. A test that needs another HOME sets it for what it starts."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in NOT_INHERITED:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def in_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test without a mark of ``STARTING`` runs in process: starting a process fails it,
    saying which mark it lacks (so that ``make test-fast`` stays in process, and fast)."""
    if any(request.node.get_closest_marker(mark) for mark in STARTING):
        return

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError(
            f"{request.node.nodeid} starts a process: mark it process (pty when it drives a "
            "terminal, real_agent for an agent from npm), or move it to a folder that does "
            '(docs/development.md, "Tests")'
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refused)
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refused)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
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
    """The session's throwaway PostgreSQL cluster (tests/support/postgres.py), started on first
    use and stopped at the end; the tests using it skip, saying why, when it cannot be started."""
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
    """The session's throwaway OpenSSH server on 127.0.0.1 (tests/support/sshd.py), started on first
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
