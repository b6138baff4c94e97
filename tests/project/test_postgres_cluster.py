"""The tests' throwaway PostgreSQL cluster itself (tests/support/postgres.py, fixtures in
conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.support import postgres
from tests.support.paths import ROOT
from tests.support.postgres import (
    PASSWORD,
    PASSWORD_ROLE,
    Cluster,
    ClusterUnavailable,
    alive,
    find_bindir,
)


def listening_addresses(port: int) -> set[str]:
    """The addresses a TCP socket listens on at this port, from /proc/net/tcp and tcp6."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_the_cluster_listens_on_127_0_0_1_only(postgres_cluster: Cluster) -> None:
    assert postgres_cluster.port is not None
    with postgres_cluster.connect() as conn:
        row = conn.execute("SHOW listen_addresses").fetchone()
        assert row == ("127.0.0.1",)
        row = conn.execute("SELECT host(inet_server_addr()), inet_server_port()").fetchone()
        assert row == ("127.0.0.1", postgres_cluster.port)
    if not Path("/proc/net/tcp").exists():
        pytest.skip("no /proc/net/tcp to list the listening sockets")
    assert listening_addresses(postgres_cluster.port) == {"0100007F"}  # 127.0.0.1, and only it


def test_each_test_has_an_empty_database_of_its_own(
    postgres_cluster: Cluster, postgres_url: str
) -> None:
    match = re.fullmatch(r"postgresql://askcli_test@127\.0\.0\.1:(\d+)/(test_\d+)", postgres_url)
    assert match, postgres_url
    assert int(match[1]) == postgres_cluster.port
    user_tables = (
        "SELECT count(*) FROM information_schema.tables"
        " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
    )
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT current_database(), current_user").fetchone() == (
            match[2],
            "askcli_test",
        )
        assert conn.execute(user_tables).fetchone() == (0,)
        conn.execute("CREATE TABLE questions (id int)")
        assert conn.execute(user_tables).fetchone() == (1,)
    other = postgres_cluster.new_database()
    assert other != match[2]
    with postgres_cluster.connect(other) as conn:
        assert conn.execute(user_tables).fetchone() == (0,)
    postgres_cluster.drop_database(other)
    with postgres_cluster.connect() as conn:
        names = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
    assert match[2] in names
    assert other not in names


def test_listen_and_notify_between_two_connections(postgres_url: str) -> None:
    with (
        psycopg.connect(postgres_url, autocommit=True) as listener,
        psycopg.connect(postgres_url, autocommit=True) as sender,
    ):
        listener.execute("LISTEN askcli_inbox")
        sender.execute("SELECT pg_notify('askcli_inbox', 'question 7')")
        got = [(n.channel, n.payload) for n in listener.notifies(timeout=5, stop_after=1)]
    assert got == [("askcli_inbox", "question 7")]


def test_restart_keeps_the_data_and_the_port_and_breaks_open_connections(
    postgres_cluster: Cluster, postgres_url: str
) -> None:
    port = postgres_cluster.port
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE answers (text text)")
        conn.execute("INSERT INTO answers VALUES ('Blue')")
        started = conn.execute("SELECT pg_postmaster_start_time()").fetchone()
        postgres_cluster.restart()
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")
    assert postgres_cluster.port == port
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT text FROM answers").fetchall() == [("Blue",)]
        assert conn.execute("SELECT pg_postmaster_start_time()").fetchone() != started


def test_a_stopped_server_refuses_connections_until_started_again(
    postgres_cluster: Cluster, postgres_url: str
) -> None:
    postgres_cluster.stop()
    try:
        with pytest.raises(psycopg.OperationalError, match="Connection refused"):
            psycopg.connect(postgres_url, connect_timeout=5)
    finally:
        postgres_cluster.start()
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_the_password_role_needs_its_password(
    postgres_cluster: Cluster, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)
    dbname = postgres_url.rsplit("/", 1)[1]
    right = postgres_cluster.url(dbname, user=PASSWORD_ROLE, password=PASSWORD)
    with psycopg.connect(right) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (PASSWORD_ROLE,)
    wrong = postgres_cluster.url(dbname, user=PASSWORD_ROLE, password="not-" + PASSWORD)
    with pytest.raises(psycopg.OperationalError) as failed:
        psycopg.connect(wrong)
    assert f'password authentication failed for user "{PASSWORD_ROLE}"' in str(failed.value)
    with pytest.raises(psycopg.OperationalError) as failed:
        psycopg.connect(postgres_cluster.url(dbname, user=PASSWORD_ROLE))
    assert "no password supplied" in str(failed.value)


def postmaster_pid(cluster: Cluster) -> int:
    return int((cluster.data / "postmaster.pid").read_text().split("\n", 1)[0])


def wait_until_gone(pid: int, folder: Path, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while (alive(pid) or folder.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid), f"the server {pid} still runs"
    assert not folder.exists(), f"{folder} is still there"


@pytest.mark.process
def test_close_stops_the_server_and_removes_its_folder() -> None:
    try:
        cluster = Cluster()
        cluster.start()
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL cluster: {exc}")
    pid = postmaster_pid(cluster)
    assert alive(pid)
    cluster.close()
    wait_until_gone(pid, cluster.dir, seconds=1)
    cluster.close()  # again: nothing


KILLED = """
import os, signal, sys
from tests.support.postgres import Cluster, ClusterUnavailable
try:
    cluster = Cluster()
    cluster.start()
except ClusterUnavailable as exc:
    print("unavailable", exc, flush=True)
    sys.exit(0)
pid = open(cluster.data / "postmaster.pid").readline().strip()
print(pid, cluster.dir, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.process
def test_a_killed_session_leaves_no_server_behind() -> None:
    """SIGKILL: no atexit, no finalizer; the cluster's watchdog stops the server."""
    proc = subprocess.run(
        [sys.executable, "-c", KILLED], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    if proc.stdout.startswith("unavailable"):
        pytest.skip(proc.stdout)
    assert proc.returncode == -9, proc.stdout + proc.stderr
    pid, folder = proc.stdout.split()
    wait_until_gone(int(pid), Path(folder))


def test_without_server_binaries_the_reason_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert find_bindir(path=str(tmp_path), lib=tmp_path / "none") is None
    monkeypatch.setattr(postgres, "find_bindir", lambda: None)
    with pytest.raises(ClusterUnavailable, match=r"initdb.*apt-get install postgresql"):
        Cluster()


def fake_bindir(folder: Path, initdb: str = "#!/bin/sh\nexit 0\n") -> Path:
    bindir = folder / "bin"
    bindir.mkdir(parents=True)
    for name in postgres.SERVER_BINARIES:
        (bindir / name).write_text(initdb if name == "initdb" else "#!/bin/sh\nexit 0\n")
        (bindir / name).chmod(0o755)
    return bindir


def test_the_binaries_on_path_come_first_then_the_newest_version(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    for version in ("9", "13", "15", "not-a-version"):
        fake_bindir(lib / version)
    (lib / "16").mkdir()  # no binaries
    assert find_bindir(path=str(tmp_path / "empty"), lib=lib) == lib / "15" / "bin"
    on_path = tmp_path / "path"
    on_path.mkdir()
    (on_path / "initdb").symlink_to(lib / "13" / "bin" / "initdb")
    assert find_bindir(path=str(on_path), lib=lib) == (lib / "13" / "bin").resolve()


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder the server's user (not root) can read: tmp_path's parents are root's alone."""
    folder = Path(tempfile.mkdtemp(prefix="askcli-pg-test-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.process
def test_a_failing_initdb_is_quoted_in_the_reason(shared_folder: Path) -> None:
    lines = "".join(f"echo line {n}\n" for n in range(30))
    bindir = fake_bindir(
        shared_folder, f"#!/bin/sh\n{lines}echo 'initdb: error: boom' >&2\nexit 3\n"
    )
    with pytest.raises(ClusterUnavailable) as failed:
        Cluster(bindir)
    reason = str(failed.value)
    assert reason.startswith("initdb failed (status 3)")
    assert reason.endswith("line 29\ninitdb: error: boom")
    assert "line 17\n" not in reason  # its last lines only
