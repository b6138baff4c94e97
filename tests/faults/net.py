"""Machines of their own on this one: network namespaces joined by veth pairs, each with a pid
and UTS namespace of its own, and nftables rules that lose packets or cut a machine off.

Every address is on a veth pair made here, inside a namespace made here: the database's
namespace holds one end of each pair (``10.213.N.1``), machine N the other (``10.213.N.2``, its
``eth0``); nothing is added to the namespace the tests run in, and no packet leaves these
pairs. :class:`Lab` makes them and undoes everything it made on ``close()`` (processes,
namespaces and with them their veths and nft tables), and a watchdog process does the same if
the tests die first (SIGKILL included). :func:`unavailable` says why a lab cannot be made here
(not root, no ``ip`` or ``nft``, namespaces refused), for a skip.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from tests.support.watchdog import start_watchdog

SUBNET = "10.213"  # 10.213.N.0/24: the pair between the database and machine N
NFT_TABLE = "askcli_faults"
COMMAND_TIMEOUT = 20.0  # seconds for one ip / nft / nsenter set-up command


class LabUnavailable(RuntimeError):
    """Why no lab can be made here (the fault tests skip with it)."""


def unavailable() -> str | None:
    """Why namespaces, veths and nft rules cannot be made here; None when they can."""
    if os.geteuid() != 0:
        return "the fault suite makes network namespaces: it must run as root"
    for tool in ("ip", "nft", "unshare", "nsenter", "hostname"):
        if shutil.which(tool) is None:
            hint = " (Debian: apt-get install nftables)" if tool == "nft" else ""
            return f"{tool} is not installed{hint}"
    name = f"askf-probe-{secrets.token_hex(3)}"
    try:
        _run(["ip", "netns", "add", name])
        try:
            _run(["ip", "netns", "exec", name, "nft", "add", "table", "inet", NFT_TABLE])
            _run(["ip", "netns", "exec", name, "unshare", "--pid", "--fork", "--uts", "true"])
        finally:
            with contextlib.suppress(LabUnavailable):
                _run(["ip", "netns", "del", name])
    except LabUnavailable as exc:
        return f"namespaces cannot be made here: {exc}"
    return None


def _run(argv: Sequence[str], *, stdin: str | None = None) -> str:
    """Run a set-up command; LabUnavailable with its stderr when it fails."""
    try:
        done = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LabUnavailable(f"{shlex.join(argv)}: {exc}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise LabUnavailable(f"{shlex.join(argv)}: {said[-1] if said else done.returncode}")
    return done.stdout


def inner_pid(outer: int, timeout: float = 5.0) -> int:
    """The pid (in our pid namespace) of the one child of ``outer`` (unshare or nsenter fork
    once: the child is the process in the new namespace)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            children = Path(f"/proc/{outer}/task/{outer}/children").read_text().split()
        except OSError:
            children = []
        if children:
            return int(children[0])
        if time.monotonic() > deadline:
            raise LabUnavailable(f"process {outer} started no child within {timeout:.0f} s")
        time.sleep(0.01)


def first_of(outer: int, comm: str, timeout: float = 5.0) -> int:
    """The first process named ``comm`` down the line of first children from ``outer``."""
    deadline = time.monotonic() + timeout
    pid = outer
    while True:
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            name = ""
        if name == comm:
            return pid
        if name in ("ip", "unshare"):
            pid = inner_pid(pid, max(0.1, deadline - time.monotonic()))
            continue
        if time.monotonic() > deadline:
            raise LabUnavailable(f"no {comm} process started under {outer}")
        time.sleep(0.01)


class Machine:
    """A machine: a network namespace with one veth to the database's, and a pid and UTS
    namespace (its own pids, its own host name) whose first process is ``init``."""

    def __init__(self, lab: Lab, number: int, name: str) -> None:
        self.lab = lab
        self.number = number
        self.name = name  # its host name
        self.netns = f"{lab.prefix}-{name}"
        self.address = f"{SUBNET}.{number}.2"
        self.gateway = f"{SUBNET}.{number}.1"  # the database's end of the pair
        self.home = lab.folder / name
        self.home.mkdir(parents=True, exist_ok=True)
        self._unshare: subprocess.Popen[bytes] | None = None
        self.init = 0

    def build(self) -> None:
        lab = self.lab
        _run(["ip", "netns", "add", self.netns])
        lab.netns.append(self.netns)
        here, there = f"{lab.prefix}{self.number}d", f"{lab.prefix}{self.number}m"
        _run(["ip", "link", "add", here, "type", "veth", "peer", "name", there])
        _run(["ip", "link", "set", here, "netns", lab.db_netns])
        _run(["ip", "link", "set", there, "netns", self.netns, "name", "eth0"])
        db = ["ip", "-n", lab.db_netns]
        _run([*db, "addr", "add", f"{self.gateway}/24", "dev", here])
        _run([*db, "link", "set", here, "up"])
        me = ["ip", "-n", self.netns]
        _run([*me, "addr", "add", f"{self.address}/24", "dev", "eth0"])
        _run([*me, "link", "set", "eth0", "up"])
        _run([*me, "link", "set", "lo", "up"])
        # the table whose chains the faults fill: nothing dropped until a rule says so
        self.nft(
            f"table inet {NFT_TABLE} {{\n"
            "  chain input { type filter hook input priority 0; policy accept; }\n"
            "  chain output { type filter hook output priority 0; policy accept; }\n"
            "}\n"
        )
        self._unshare = subprocess.Popen(
            [
                *("ip", "netns", "exec", self.netns),
                *("unshare", "--pid", "--fork", "--uts", "--mount-proc", "--kill-child", "--"),
                *("sh", "-c", f"hostname {shlex.quote(self.name)} && exec sleep 86400"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.init = first_of(self._unshare.pid, "sleep")
        deadline = time.monotonic() + 5
        while self.run_here(["hostname"]).strip() != self.name:
            if time.monotonic() > deadline:
                raise LabUnavailable(f"machine {self.name} did not take its host name")
            time.sleep(0.02)

    def command(self, argv: Sequence[str], cwd: Path | None = None) -> list[str]:
        """``argv`` as a command that runs in this machine (its network, pids, host name)."""
        return [
            "nsenter", "-t", str(self.init), "-p", "-u", "-n", "-m",
            f"--wd={cwd or self.home}", "--", *argv,
        ]  # fmt: skip

    def run_here(self, argv: Sequence[str]) -> str:
        return _run(self.command(argv))

    def nft(self, script: str) -> None:
        _run(["ip", "netns", "exec", self.netns, "nft", "-f", "-"], stdin=script)

    # -- faults ----------------------------------------------------------------------

    def cut_off(self) -> None:
        """A partition: every packet to or from the database dropped, silently."""
        self.nft(
            f"add rule inet {NFT_TABLE} input iifname eth0 drop\n"
            f"add rule inet {NFT_TABLE} output oifname eth0 drop\n"
        )

    def lossy(self, percent: int) -> None:
        """``percent`` % of the packets each way dropped at random."""
        self.nft(
            f"add rule inet {NFT_TABLE} input iifname eth0 numgen random mod 100 < {percent} drop\n"
            f"add rule inet {NFT_TABLE} output oifname eth0 numgen random mod 100 < {percent}"
            " drop\n"
        )

    def heal(self) -> None:
        """Every rule gone: the network is whole again."""
        self.nft(f"flush chain inet {NFT_TABLE} input\nflush chain inet {NFT_TABLE} output\n")

    def close(self) -> None:
        if self.init:
            with contextlib.suppress(OSError):
                os.kill(self.init, signal.SIGKILL)  # the pid namespace ends with its first
        if self._unshare is not None:
            with contextlib.suppress(OSError):
                os.killpg(self._unshare.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._unshare.wait(5)
            self._unshare = None
        self.init = 0


class Lab:
    """The database's namespace and the machines around it, made under ``folder``."""

    def __init__(self, folder: Path, machines: Sequence[str]) -> None:
        self.folder = folder
        self.prefix = f"af{secrets.token_hex(2)}"  # short: veth names are 15 bytes at most
        self.db_netns = f"{self.prefix}-db"
        self.netns: list[str] = []
        self.machines: dict[str, Machine] = {}
        self._watchdog: subprocess.Popen[bytes] | None = None
        try:
            self._start_watchdog()
            _run(["ip", "netns", "add", self.db_netns])
            self.netns.append(self.db_netns)
            _run(["ip", "-n", self.db_netns, "link", "set", "lo", "up"])
            for number, name in enumerate(machines, start=1):
                machine = Machine(self, number, name)
                self.machines[name] = machine
                machine.build()
        except BaseException:
            self.close()
            raise

    @property
    def db_addresses(self) -> list[str]:
        return [machine.gateway for machine in self.machines.values()]

    def in_db(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as a command run in the database's network namespace."""
        return ["ip", "netns", "exec", self.db_netns, *argv]

    def _start_watchdog(self) -> None:
        """A process of its own session that waits for this one to end, then ends what the
        lab started and deletes its namespaces; ``close()`` ends it first."""
        tidy = f"""
            for ns in $(ip netns list | awk '{{print $1}}' | grep '^{self.prefix}-'); do
              for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null; done
              ip netns del "$ns" 2>/dev/null
            done
        """
        self._watchdog = start_watchdog(tidy)

    def close(self) -> None:
        """End the machines, delete the namespaces (their veths and nft tables with them) and
        the watchdog; again: nothing."""
        for machine in self.machines.values():
            machine.close()
        for ns in reversed(self.netns):
            with contextlib.suppress(LabUnavailable):
                for pid in _run(["ip", "netns", "pids", ns]).split():
                    with contextlib.suppress(OSError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
            with contextlib.suppress(LabUnavailable):
                _run(["ip", "netns", "del", ns])
        self.netns.clear()
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()
            self._watchdog = None
