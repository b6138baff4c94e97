"""A throwaway OpenSSH server for the tests, and a person's ``ssh -tt`` to it in a pexpect pty.

The server runs from the system's own ``sshd`` (Debian: ``apt-get install openssh-server``;
``.ci/run`` installs it when missing) with everything of its own in a temporary folder: its
config, its host key, a client key made for the session and the ``authorized_keys`` that lets
it in as the user running the tests (root too, for this server alone: ``PermitRootLogin
prohibit-password``). It listens on 127.0.0.1 alone at a free port, takes public keys alone,
and is stopped at the end; a watchdog process stops it and removes the folder if the tests'
process dies first (SIGKILL included).

``Sshd.spawn(command)`` runs ``command`` (a line for the user's shell on the server) under
``ssh -tt``: a pty on both sides, as a person's SSH session has. ``remote(argv, env=...,
cwd=...)`` makes that line from a command's arguments. Killing the spawned ``ssh`` drops the
connection: sshd closes the remote pty, and the remote session hangs up as it does when a
network goes.
"""

from __future__ import annotations

import io
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pexpect

from tests.support.watchdog import start_watchdog

READY_TIMEOUT = 10.0  # seconds for the server to accept connections once started
SBIN = "/usr/sbin:/sbin"  # where Debian puts sshd, often off a user's PATH
PRIVSEP = Path("/run/sshd")  # the empty folder sshd run by root chroots its children into


class SshdUnavailable(RuntimeError):
    """Why no server could be had (the tests skip with it)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on at the time of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def find_programs() -> tuple[Path, Path, Path]:
    """sshd, ssh and ssh-keygen; SshdUnavailable naming what is missing."""
    found = {
        name: shutil.which(name, path=f"{os.environ.get('PATH', '')}:{SBIN}")
        for name in ("sshd", "ssh", "ssh-keygen")
    }
    missing = [name for name, path in found.items() if path is None]
    if missing:
        raise SshdUnavailable(
            f"{', '.join(missing)} not found on PATH nor in {SBIN} "
            "(Debian: apt-get install openssh-server openssh-client; .ci/run installs them)"
        )
    return Path(found["sshd"] or ""), Path(found["ssh"] or ""), Path(found["ssh-keygen"] or "")


def remote(
    argv: Sequence[str | Path], *, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> str:
    """The line for the user's shell on the server that runs ``argv`` with ``env`` added to
    the session's environment, in ``cwd``."""
    words = ["env", *(f"{key}={value}" for key, value in (env or {}).items()), *map(str, argv)]
    line = " ".join(shlex.quote(word) for word in words)
    return f"cd {shlex.quote(str(cwd))} && {line}" if cwd is not None else line


class Sshd:
    """One server in its own temporary folder; ``close()`` stops it and removes the folder."""

    def __init__(self) -> None:
        self.sshd, self.ssh, self.keygen = find_programs()
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.port: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="askcli-sshd-"))
        try:
            self._keys()
        except BaseException:
            self.close()
            raise

    @property
    def key(self) -> Path:
        """The client's private key."""
        return self.dir / "client"

    @property
    def log(self) -> Path:
        return self.dir / "sshd.log"

    def _keys(self) -> None:
        for name in ("host", "client"):
            done = subprocess.run(
                [self.keygen, "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", self.dir / name],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            if done.returncode != 0:
                raise SshdUnavailable(f"ssh-keygen failed: {done.stderr.strip()}")
        authorized = self.dir / "authorized_keys"
        authorized.write_text((self.dir / "client.pub").read_text())
        authorized.chmod(0o600)

    def _config(self) -> Path:
        root = os.getuid() == 0
        config = self.dir / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "# written by tests/support/sshd.py: a throwaway server for the tests",
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.dir / 'host'}",
                    f"PidFile {self.dir / 'sshd.pid'}",
                    f"AuthorizedKeysFile {self.dir / 'authorized_keys'}",
                    "AuthenticationMethods publickey",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "StrictModes no",  # the folder is the tests' own, in /tmp
                    f"PermitRootLogin {'prohibit-password' if root else 'no'}",
                    f"AllowUsers {self.user}",
                    "UseDNS no",
                    "PrintMotd no",
                    "PrintLastLog no",
                    "X11Forwarding no",
                    "AllowTcpForwarding no",
                    "",
                ]
            )
        )
        return config

    def start(self) -> None:
        """Start the server and wait until it accepts connections (``READY_TIMEOUT``);
        SshdUnavailable with its log's last lines otherwise."""
        if self.proc is not None:
            return
        if os.getuid() == 0 and not PRIVSEP.is_dir():
            PRIVSEP.mkdir(mode=0o755)  # as Debian's ssh service makes it at boot
        for _attempt in range(3):
            self.port = free_port()
            test = subprocess.run(
                [self.sshd, "-t", "-f", self._config()], capture_output=True, text=True, timeout=30
            )
            if test.returncode != 0:
                raise SshdUnavailable(f"sshd -t refused the config: {test.stderr.strip()}")
            log = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                self.proc = subprocess.Popen(
                    [self.sshd, "-D", "-e", "-f", self.dir / "sshd_config"],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                    start_new_session=True,
                )
            finally:
                os.close(log)
            self._start_watchdog()
            if self._wait_ready():
                return
            self.stop()
        raise SshdUnavailable(f"sshd did not start:\n{self.log.read_text()[-2000:]}")

    def _wait_ready(self) -> bool:
        assert self.proc is not None and self.port is not None
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False  # the port was taken meanwhile, or worse: the log says
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return True
            time.sleep(0.05)
        return False

    def _start_watchdog(self) -> None:
        """A process of its own session that waits for this one to end, then stops the
        server and removes the folder; ``close()`` ends it first."""
        assert self.proc is not None
        tidy = f"""
            kill -TERM -{self.proc.pid} 2>/dev/null
            rm -rf {shlex.quote(str(self.dir))}
        """
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()
        self._watchdog = start_watchdog(tidy)

    def ssh_argv(self, command: str, *, tty: bool = True) -> list[str]:
        """``ssh`` to the server as the user running the tests, running ``command`` there:
        no config, no known hosts, this session's key alone; ``tty``: ``-tt``."""
        assert self.port is not None, "start() the server first"
        return [
            str(self.ssh),
            *(["-tt"] if tty else ["-T"]),
            "-F",
            "/dev/null",
            "-i",
            str(self.key),
            "-p",
            str(self.port),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            f"{self.user}@127.0.0.1",
            command,
        ]

    def spawn(
        self,
        command: str,
        *,
        columns: int = 80,
        rows: int = 24,
        term: str = "dumb",
        timeout: float = 5,
    ) -> pexpect.spawn:
        """``command`` on the server under ``ssh -tt`` in a pexpect pty ``columns`` wide: a
        person's SSH session. ``child.logfile_read`` (a StringIO) keeps what it showed; the
        remote pty takes the size and ``TERM`` of this one."""
        env = {**os.environ, "TERM": term}
        env.pop("SSH_AUTH_SOCK", None)  # this session's key alone, never an agent's
        argv = self.ssh_argv(command)
        child = pexpect.spawn(
            argv[0],
            argv[1:],
            env=env,
            timeout=timeout,
            encoding="utf-8",
            dimensions=(rows, columns),
        )
        child.logfile_read = io.StringIO()
        return child

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the listener and its sessions
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        """Stop the server, end the watchdog and remove the folder (again: nothing)."""
        try:
            self.stop()
        finally:
            if self._watchdog is not None:
                self._watchdog.kill()
                self._watchdog.wait()
                self._watchdog = None
            shutil.rmtree(self.dir, ignore_errors=True)
