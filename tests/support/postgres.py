"""A throwaway PostgreSQL cluster for the tests, from the server's own binaries (Debian's).

The cluster lives in a temporary folder, listens on 127.0.0.1 alone at a free port and is run by a
user other than root (initdb and the server refuse root): the ``postgres`` user, else ``nobody``.
Roles: ``SUPERUSER``, reached on 127.0.0.1 without a password (trust), and ``PASSWORD_ROLE``,
whose password ``PASSWORD`` is checked with scram-sha-256. psycopg is imported only when a
connection is made, so that this module loads without it.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from tests.support.watchdog import start_watchdog

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

SUPERUSER = "askcli_test"  # not "askcli": a schema of that name would be on its search_path
PASSWORD_ROLE = "askcli_pw"
PASSWORD = "askcli-pw-secret"
SERVER_BINARIES = ("initdb", "pg_ctl", "postgres")
DEBIAN_LIB = Path("/usr/lib/postgresql")
READY_TIMEOUT = 20.0  # seconds for the server to accept connections once started
INITDB_TIMEOUT = 120.0
TAIL_LINES = 12  # lines of initdb's output or of the server log quoted when they fail

# the cluster's access rules, first match wins: the superuser without a password on loopback,
# every other role (PASSWORD_ROLE) with its password
PG_HBA = f"""\
# TYPE  DATABASE  USER  ADDRESS  METHOD  (written by tests/support/postgres.py)
local   all       all              trust
host    all       {SUPERUSER}  127.0.0.1/32  trust
host    all       all   127.0.0.1/32  scram-sha-256
"""


class ClusterUnavailable(RuntimeError):
    """Why no cluster could be had (the tests skip with it)."""


def find_bindir(path: str | None = None, lib: Path = DEBIAN_LIB) -> Path | None:
    """The folder of initdb, pg_ctl and postgres: initdb's on PATH (symlinks followed), else the
    newest ``lib/<version>/bin``; None without them."""
    candidates: list[Path] = []
    initdb = shutil.which("initdb", path=path)
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    if lib.is_dir():
        versions = [bindir for bindir in lib.glob("*/bin") if bindir.parent.name.isdigit()]
        candidates += sorted(versions, key=lambda bindir: int(bindir.parent.name), reverse=True)
    for bindir in candidates:
        if all(os.access(bindir / name, os.X_OK) for name in SERVER_BINARIES):
            return bindir
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on at the time of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def tail(text: str, lines: int = TAIL_LINES) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def server_user() -> pwd.struct_passwd | None:
    """The user the server runs as when we are root (None when we are not)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise ClusterUnavailable("running as root, and neither a postgres nor a nobody user exists")


class Cluster:
    """One initialised cluster in its own temporary folder; ``close()`` stops it and removes the
    folder. A watchdog process does both if this process dies first (SIGKILL included)."""

    def __init__(
        self,
        bindir: Path | None = None,
        *,
        listen: Sequence[str] = ("127.0.0.1",),
        trusted: Sequence[str] = (),
        inside: Sequence[str] = (),
        max_connections: int = 300,
        settings: Sequence[str] = (),
    ) -> None:
        """``listen``: the addresses the server listens on; ``trusted``: networks (CIDR)
        whose clients are let in as any role without a password, besides 127.0.0.1;
        ``inside``: a command prefix the server's commands run under (the fault suite's
        ``ip netns exec NS``: the server then lives in that network namespace, and this
        process reaches it through its Unix socket); ``max_connections``: the server's;
        ``settings``: lines of postgresql.conf after the tests' own (a later one wins)."""
        self.max_connections = max_connections
        self.settings = tuple(settings)
        self.listen = tuple(listen)
        self.trusted = tuple(trusted)
        self.inside = [str(part) for part in inside]
        found = bindir or find_bindir()
        if found is None:
            raise ClusterUnavailable(
                "PostgreSQL's server binaries (initdb, pg_ctl, postgres) are not on PATH nor in "
                f"{DEBIAN_LIB}/*/bin (Debian: apt-get install postgresql)"
            )
        self.bindir = found
        self.user = server_user()
        self.port: int | None = None  # chosen at the first start, kept for the cluster's life
        self.running = False
        self._databases = itertools.count(1)
        self._roles_made = False
        self._watchdog: subprocess.Popen[bytes] | None = None
        self.dir = self._make_dir()
        try:
            self._start_watchdog()
            self._initdb()
        except BaseException:
            self.close()
            raise

    @property
    def data(self) -> Path:
        return self.dir / "data"

    @property
    def log(self) -> Path:
        """The server's log (stderr), appended to by every start."""
        return self.dir / "server.log"

    # --- running things as the server's user

    def _as_user(self, argv: Sequence[str | Path]) -> list[str]:
        command = [*self.inside, *(str(arg) for arg in argv)]
        if self.user is None:
            return command
        if shutil.which("setpriv"):
            uid, gid = self.user.pw_uid, self.user.pw_gid
            setpriv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--init-groups", "--"]
            return [*self.inside, *setpriv, *command[len(self.inside) :]]
        if shutil.which("runuser"):
            runuser = ["runuser", "-u", self.user.pw_name, "--"]
            return [*self.inside, *runuser, *command[len(self.inside) :]]
        raise ClusterUnavailable("running as root, and neither setpriv nor runuser is installed")

    def _env(self) -> dict[str, str]:
        """This process's environment without libpq's PG* variables, messages in English."""
        env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
        env.update(LC_ALL="C", LANG="C")
        return env

    def _run(self, argv: Sequence[str | Path], timeout: float) -> subprocess.CompletedProcess[str]:
        """A command as the server's user, its stdout and stderr together."""
        return subprocess.run(
            self._as_user(argv),
            cwd=self.dir,
            env=self._env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )

    def _make_dir(self) -> Path:
        """The cluster's folder, owned by the server's user, who must be able to reach it (a
        TMPDIR inside /root is not: then /tmp)."""
        user = self.user
        if user is None:
            return Path(tempfile.mkdtemp(prefix="askcli-pg-"))
        for parent in (None, "/tmp"):
            folder = Path(tempfile.mkdtemp(prefix="askcli-pg-", dir=parent))
            os.chown(folder, user.pw_uid, user.pw_gid)
            self.dir = folder
            if self._run(["test", "-w", folder], timeout=10).returncode == 0:
                return folder
            shutil.rmtree(folder, ignore_errors=True)
        raise ClusterUnavailable(f"the user {user.pw_name} cannot write to a folder in /tmp")

    def _start_watchdog(self) -> None:
        """A process of its own session that waits for this one to end, then stops the server
        at once (SIGQUIT) and removes the folder; ``close()`` ends it first."""
        pidfile = shlex.quote(str(self.data / "postmaster.pid"))
        data = shlex.quote(str(self.data))
        tidy = f"""
            pid=$(head -n 1 {pidfile} 2>/dev/null)
            if [ -n "$pid" ] && tr '\\0' ' ' < /proc/"$pid"/cmdline | grep -qF -- {data}; then
              kill -QUIT "$pid" 2>/dev/null
              for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
              kill -KILL "$pid" 2>/dev/null
            fi
            rm -rf {shlex.quote(str(self.dir))}
        """
        self._watchdog = start_watchdog(tidy)

    def _initdb(self) -> None:
        argv: list[str | Path] = [
            self.bindir / "initdb",
            "--pgdata",
            self.data,
            "--username",
            SUPERUSER,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        ]
        try:
            done = self._run(argv, timeout=INITDB_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            output = exc.output if isinstance(exc.output, str) else ""
            raise ClusterUnavailable(
                f"initdb took over {INITDB_TIMEOUT:.0f} s:\n{tail(output)}"
            ) from None
        if done.returncode != 0:
            raise ClusterUnavailable(
                f"initdb failed (status {done.returncode}) in {self.data}:\n{tail(done.stdout)}"
            )
        # opened for writing, not replaced: the files keep their owner (the server's user)
        with open(self.data / "pg_hba.conf", "w", encoding="utf-8") as hba:
            for network in self.trusted:  # first: the first line that matches decides
                hba.write(f"host    all       all  {network}  trust\n")
            hba.write(PG_HBA)
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                "\n# tests/support/postgres.py: loopback only, no durability, sockets in its"
                " folder\n"
                f"listen_addresses = '{','.join(self.listen)}'\n"
                f"unix_socket_directories = '{self.dir}'\n"
                "fsync = off\n"
                "synchronous_commit = off\n"
                "full_page_writes = off\n"
                "logging_collector = off\n"
                # an askcli asker holds two connections (its own, and one that listens):
                # 50 askers at once and their inboxes need more than the default 100
                f"max_connections = {self.max_connections}\n"
            )
            conf.writelines(f"{line}\n" for line in self.settings)

    # --- the server

    def start(self) -> None:
        """Start the server and wait (``READY_TIMEOUT``) until it accepts connections on
        127.0.0.1. The first start picks the port (another one if it was taken meanwhile);
        later starts keep it. ``ClusterUnavailable`` with the log's last lines otherwise."""
        if self.running:
            return
        first = self.port is None
        for _attempt in range(3 if first else 1):
            if first:
                self.port = free_port()
            log_size = self.log.stat().st_size if self.log.exists() else 0
            done = self._pg_ctl("start", "--log", self.log, "--options", f"-p {self.port}")
            if done.returncode == 0:
                break
            log = self._log_since(log_size)
            if not (first and re.search(r"could not (bind|create listen)", log)):
                raise ClusterUnavailable(
                    f"pg_ctl start failed (status {done.returncode}):\n{tail(done.stdout)}\n"
                    f"{self.log}:\n{tail(log)}"
                )
        else:
            raise ClusterUnavailable(f"no free port for the server after 3 tries ({self.log})")
        self.running = True
        self._wait_ready()
        if not self._roles_made:
            with self.connect() as conn:
                conn.execute(
                    f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{PASSWORD}'"  # constants
                )
            self._roles_made = True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (fast: clients are disconnected, nothing is waited for;
        ``immediate``: the server quits at once, as in a crash, and recovers at the next
        start)."""
        if not self.running:
            return
        done = self._pg_ctl("stop", f"--mode={mode}")
        if done.returncode != 0:
            self._pg_ctl("stop", "--mode=immediate")
        self._kill_postmaster()
        self.running = False

    def restart(self, mode: str = "fast") -> None:
        """``stop(mode)`` then ``start()``: same port, same data; open connections are
        broken."""
        self.stop(mode)
        self.start()

    def close(self) -> None:
        """Stop the server, end the watchdog and remove the folder (again: nothing)."""
        try:
            if self.running:
                self.stop()
            else:
                self._kill_postmaster()
        finally:
            if self._watchdog is not None:
                self._watchdog.kill()
                self._watchdog.wait()
                self._watchdog = None
            shutil.rmtree(self.dir, ignore_errors=True)

    def _pg_ctl(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        timeout = f"{READY_TIMEOUT:.0f}"
        argv = [self.bindir / "pg_ctl", *args, "--pgdata", self.data, "--wait", "-t", timeout]
        try:
            return self._run(argv, timeout=READY_TIMEOUT + 10)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(argv, 1, f"pg_ctl {args[0]} did not return")

    def _kill_postmaster(self) -> None:
        """SIGQUIT, then SIGKILL, to a server pg_ctl could not stop: the pid in postmaster.pid
        when that process is this cluster's server (its command line names our data folder)."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError):
            return
        if os.fsencode(self.data) not in cmdline:
            return
        for sig in (signal.SIGQUIT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except OSError:
                return
            deadline = time.monotonic() + 5
            while alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not alive(pid):
                return

    def _log_since(self, size: int) -> str:
        try:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                log.seek(size)
                return log.read()
        except OSError:
            return ""

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                with psycopg.connect(self.admin_url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    raise ClusterUnavailable(
                        f"the server did not accept connections within {READY_TIMEOUT:.0f} s "
                        f"({exc}); {self.log}:\n{tail(self._log_since(0))}"
                    ) from None
                time.sleep(0.1)

    # --- using it

    def url(
        self,
        dbname: str,
        user: str = SUPERUSER,
        password: str | None = None,
        host: str = "127.0.0.1",
    ) -> str:
        """``postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME`` (HOST: 127.0.0.1)."""
        if self.port is None:
            raise RuntimeError("the cluster was never started: its port is not chosen yet")
        auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
        return f"postgresql://{auth}@{host}:{self.port}/{quote(dbname, safe='')}"

    def admin_url(self, dbname: str) -> str:
        """The URL this process reaches the server by as the superuser: :meth:`url`, or,
        for a server inside another network namespace, its Unix socket."""
        if not self.inside:
            return self.url(dbname)
        where = quote(str(self.dir), safe="")
        return f"postgresql://{SUPERUSER}@/{quote(dbname, safe='')}?host={where}&port={self.port}"

    def connect(self, dbname: str = "postgres") -> Connection[TupleRow]:
        """A connection as the superuser, autocommit (CREATE DATABASE needs it)."""
        import psycopg

        return psycopg.connect(self.admin_url(dbname), autocommit=True, connect_timeout=5)

    def new_database(self, owner: str = SUPERUSER) -> str:
        """The name of a database just created (from template1: empty) for one test."""
        from psycopg import sql

        name = f"test_{next(self._databases)}"
        with self.connect() as conn:
            # FILE_COPY (PostgreSQL 15+) copies template1's files: about 4 times faster here,
            # without fsync, than the default WAL_LOG, which writes them all into the WAL
            strategy = " STRATEGY FILE_COPY" if conn.info.server_version >= 150000 else ""
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}" + strategy).format(
                    sql.Identifier(name), sql.Identifier(owner)
                )
            )
        return name

    def drop_database(self, name: str) -> None:
        """Drop a database, ending its sessions first (a database is 7 MB on disk)."""
        from psycopg import sql

        with self.connect() as conn:
            force = " WITH (FORCE)" if conn.info.server_version >= 130000 else ""
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}" + force).format(sql.Identifier(name)))
