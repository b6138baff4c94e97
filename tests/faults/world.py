"""The fault suite's world: a PostgreSQL server in a network namespace of its own, agents'
and people's machines around it (:mod:`.net`), the installed askcli run on them, and the
tally of what each asker printed against what each person was told and the audit trail.

A scenario (:class:`Scenario`) has a fresh database; its askers are ``askcli ask --inbox``
processes (one call each, a question of their own: ``Deploy NAME?`` with the options
``yes-NAME`` and ``no-NAME``), its people ``askcli inbox answer ID`` (answer lines on stdin) or
``askcli inbox`` (``--answers`` from a fifo), each on its machine and reaching the server over
its veth (directly, or through :mod:`.relay`). The harness itself reads the database through
the server's Unix socket, which no fault touches. :meth:`Scenario.tally` counts, per
question: *lost* (its asker printed nothing though nobody ended it, or a typed answer got no
word of what became of it), *duplicated* (two results, two people told "sent", two answers in
the log), *misdelivered* (another question's answer), *wrong decision* (an asker got other than
what the person was told was sent: another answer, a "no answer" after a person was told
"sent", a "no answer" for a live asker the scenario says must be answered; a person told "not
sent" of an answer the log says was theirs, or "sent" of one that was not).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from tests.faults.net import SUBNET, Lab, Machine, inner_pid
from tests.support.postgres import Cluster

ROOT = Path(__file__).resolve().parents[2]
ASKCLI = str(Path(sys.executable).with_name("askcli"))
RELAY = Path(__file__).with_name("relay.py")
RELAY_PORT = 6543
AGENTS = ("agent1", "agent2")
PEOPLE = ("alice", "bob")
AGENT_ROLE = "agent"  # the role every agent's machine connects as: it asks, never answers
# the lease other engineers are making a setting of (seconds); read here so that the scenarios
# wait for as long as a lease lasts, whatever it is set to
LEASE = float(os.environ.get("ASKCLI_LEASE", "5"))
GRACE = 2 * LEASE  # after the server starts, nothing lapses for two leases
NO_SSL = "sslmode=disable&gssencmode=disable"  # no SSLRequest: the relay reads the protocol
ANSWERED = re.compile(r'"(Deploy [^"]+)\?"="([^"]+)"')
KINDS = ("lost", "duplicated", "misdelivered", "wrong")
REPORTS: list[str] = []  # one line per scenario, printed at the end of the session


def poll(check: Callable[[], bool], what: str, timeout: float, every: float = 0.05) -> float:
    """Wait until ``check()`` holds; the seconds it took. AssertionError after ``timeout``."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)
    return time.monotonic() - started


def document(name: str) -> dict[str, Any]:
    """The call of asker ``name``: one question of its own."""
    return {
        "type": "tool_use",
        "id": f"toolu_{name.replace('-', '_')}",
        "name": "AskUserQuestion",
        "input": {
            "questions": [
                {
                    "question": f"Deploy {name}?",
                    "header": "Deploy",
                    "options": [
                        {"label": f"yes-{name}", "description": "go"},
                        {"label": f"no-{name}", "description": "stop"},
                    ],
                    "multiSelect": False,
                }
            ]
        },
    }


class Run:
    """A process on a machine, its stdout and stderr in files."""

    def __init__(
        self,
        scenario: Scenario,
        machine: Machine,
        name: str,
        argv: list[str],
        *,
        stdin: int | IO[Any] = subprocess.DEVNULL,
    ) -> None:
        self.name = name
        self.machine = machine
        self.out = scenario.folder / f"{name}.out"
        self.err = scenario.folder / f"{name}.err"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen(
                machine.command(argv, cwd=scenario.folder),
                stdin=stdin,
                stdout=out,
                stderr=err,
                env=scenario.env(machine),
                start_new_session=True,
            )
        self.pid = inner_pid(self.proc.pid)  # the askcli process itself, in our pid namespace
        self.killed = False
        self.started = time.monotonic()
        scenario.runs.append(self)

    def signal(self, sig: signal.Signals) -> None:
        if sig is signal.SIGKILL:
            self.killed = True
        with contextlib.suppress(OSError):
            os.kill(self.pid, sig)

    def done(self) -> bool:
        return self.proc.poll() is not None

    def wait(self, timeout: float) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(timeout)
        return None

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def end(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        if self.proc.poll() is None:
            self.signal(signal.SIGCONT)
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)


class Result(NamedTuple):
    """What an asker printed for its call."""

    question: str | None  # the question the answer was to (None: no answer)
    label: str | None  # the option it got
    text: str  # the result's text


class Asker(Run):
    """``askcli ask --inbox`` asking :func:`document` (``name``)."""

    def __init__(
        self, scenario: Scenario, machine: Machine, name: str, timeout: float | None = None
    ) -> None:
        source = scenario.folder / f"{name}.json"
        source.write_text(json.dumps(document(name)))
        extra = ["--timeout", f"{timeout:g}"] if timeout is not None else []
        super().__init__(scenario, machine, name, [ASKCLI, "ask", "--inbox", *extra, str(source)])
        self.question = f"Deploy {name}"
        self.must_be_answered = True  # a live asker: a "no answer" is a wrong decision
        self.finished: float | None = None
        scenario.askers.append(self)

    def qid(self, timeout: float = 30) -> int:
        """Its question's number, as it said it (``question N is waiting``)."""
        found: list[int] = []

        def said() -> bool:
            match = re.search(r"question (\d+) is waiting", self.stderr())
            if match:
                found.append(int(match.group(1)))
            return bool(found) or self.done()

        poll(said, f"{self.name}'s question to be queued", timeout)
        if not found:
            err = self.stderr()
            raise AssertionError(f"{self.name} ended before its question was queued: {err}")
        return found[0]

    def results(self) -> list[Result]:
        found = []
        for line in self.stdout().splitlines():
            try:
                content = str(json.loads(line).get("content", ""))
            except (ValueError, AttributeError):
                content = line
            match = ANSWERED.search(content)
            if match:
                found.append(Result(match.group(1), match.group(2), content))
            else:
                found.append(Result(None, None, content))
        return found

    def settled(self) -> bool:
        if self.finished is None and self.done():
            self.finished = time.monotonic()
        return self.finished is not None


class Told(NamedTuple):
    """What a person was told of an answer they gave."""

    person: str
    qid: int
    label: str
    sent: bool | None  # None: nothing was said (a typed answer dropped silently)


class Answering(Run):
    """``askcli inbox answer ID --as PERSON``: it claims at once and reads the answer line
    from stdin when :meth:`give` writes it."""

    def __init__(self, scenario: Scenario, machine: Machine, person: str, qid: int) -> None:
        self.person = person
        self.qid = qid
        self.label: str | None = None
        self.result: Told | None = None
        name = f"{person}-answer-{qid}-{len(scenario.runs)}"
        argv = [ASKCLI, "inbox", "answer", str(qid)]  # as the role of its machine
        super().__init__(scenario, machine, name, argv, stdin=subprocess.PIPE)

    def in_question(self) -> bool:
        """It ended, or it holds the question and waits for the answer line."""
        return self.done() or "Choose 1-" in self.stderr()

    def give(self, choice: int, label: str) -> None:
        assert self.proc.stdin is not None
        self.label = label
        with contextlib.suppress(OSError):
            self.proc.stdin.write(f"{choice}\n".encode())
            self.proc.stdin.close()

    def told(self, timeout: float) -> Told:
        """What it said of the answer given (it must end within ``timeout``)."""
        if self.result is not None:
            return self.result
        code = self.wait(timeout)
        assert self.label is not None
        said = self.stderr()
        sent: bool | None = None
        if code == 0 and self.stdout().strip():
            sent = True
        elif code is not None and ("not sent" in said or "nothing was sent" in said):
            sent = False
        self.result = Told(self.person, self.qid, self.label, sent)
        return self.result


class Inbox(Run):
    """``askcli inbox --answers FIFO --as PERSON``: the lines :meth:`type` writes are what
    the person typed; what it says is in its stderr."""

    def __init__(self, scenario: Scenario, machine: Machine, person: str) -> None:
        self.person = person
        fifo = scenario.folder / f"{person}-{len(scenario.runs)}.fifo"
        os.mkfifo(fifo)
        name = f"{person}-inbox-{len(scenario.runs)}"
        argv = [ASKCLI, "inbox", "--answers", str(fifo)]  # as the role of its machine
        super().__init__(scenario, machine, name, argv)
        self._fifo = open(fifo, "wb", buffering=0)  # noqa: SIM115 (kept open: no end of input)
        self.typed: dict[int, str] = {}  # question -> the label typed for it

    def type(self, *lines: str) -> None:
        with contextlib.suppress(OSError):
            self._fifo.write("".join(line + "\n" for line in lines).encode())

    def showing(self, qid: int) -> bool:
        """Whether the last question it offered is ``qid``, its prompt waiting."""
        said = self.stderr()
        last = said.rfind("] #")
        return last >= 0 and said.startswith(f"] #{qid} ", last) and said.rstrip().endswith("[y]:")

    def offered(self, qid: int, timeout: float) -> float:
        """Wait until it offers question ``qid`` (``#N ...`` then its prompt)."""
        return poll(lambda: self.showing(qid), f"{self.name} offering #{qid}", timeout)

    def answer(self, qid: int, choice: int, label: str) -> None:
        """Enter at its prompt, then ``choice`` in the question."""
        self.typed[qid] = label
        self.type("", str(choice))

    def told(self) -> list[Told]:
        said = self.stderr()
        found = []
        for qid, label in self.typed.items():
            if f"#{qid} answered: sent to" in said:
                sent: bool | None = True
            elif re.search(rf"#{qid}\b[^\n]*(not sent|nothing was sent)", said):
                sent = False
            else:
                sent = None
            found.append(Told(self.person, qid, label, sent))
        return found

    def end(self) -> None:
        with contextlib.suppress(OSError):
            self._fifo.close()
        super().end()


class Tally(NamedTuple):
    lost: int
    duplicated: int
    misdelivered: int
    wrong: int
    why: list[str]

    def line(self) -> str:
        return (
            f"lost {self.lost} / duplicated {self.duplicated} / misdelivered"
            f" {self.misdelivered} / wrong decision {self.wrong}"
        )


def _roles(url: str) -> None:
    """askcli's schema in the database at ``url`` (as its owner), and the roles of the people
    and of the agents (``askcli inbox roles``): who answered is the database's word."""
    from askcli.inbox import roles
    from askcli.inbox.store.postgres import PostgresStore

    store = PostgresStore(url)
    try:
        roles.apply(store, roles.statements(PEOPLE, {}, (AGENT_ROLE,)), lambda _: None)
    finally:
        store.close()


class World:
    """The lab (namespaces, machines) and the server in the database's namespace."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lab = Lab(folder, (*AGENTS, *PEOPLE))
        try:
            self.cluster = Cluster(
                listen=("127.0.0.1", *self.lab.db_addresses),
                # the machines, and the relay (it reaches the server on loopback): each role
                # comes in without a password, as its machine says (the lab's own server)
                trusted=(f"{SUBNET}.0.0/16", "127.0.0.1/32"),
                inside=self.lab.in_db([]),
                # a commit is on disk before it is acknowledged, as on a real server: an
                # immediate stop (a crash) loses none (the tests' own cluster does not wait)
                settings=("synchronous_commit = on", "fsync = on"),
            )
            self.cluster.start()
        except BaseException:
            self.lab.close()
            raise
        self.count = 0

    def machine(self, name: str) -> Machine:
        return self.lab.machines[name]

    def past_grace(self) -> None:
        """Wait out what a just (re)started server forgives: leases lapse again."""
        with self.cluster.connect() as db:
            row = db.execute(
                "SELECT extract(epoch FROM clock_timestamp() - pg_postmaster_start_time())::float8"
            ).fetchone()
        up = float(row[0]) if row is not None else 0.0
        if up < GRACE + 0.5:
            time.sleep(GRACE + 0.5 - up)

    @contextlib.contextmanager
    def scenario(self, name: str) -> Iterator[Scenario]:
        self.count += 1
        folder = self.folder / f"{self.count:02d}-{name}"
        folder.mkdir()
        if not self.cluster.running:
            self.cluster.start()
        database = self.cluster.new_database()
        _roles(self.cluster.admin_url(database))
        scenario = Scenario(self, name, folder, database)
        try:
            yield scenario
        except Exception as exc:  # what it measured so far, said all the same (not on Ctrl-C)
            if not scenario.reported:
                with contextlib.suppress(Exception):
                    first = str(exc).strip().splitlines()[:1]
                    why = f"{type(exc).__name__}: {first[0] if first else ''}"
                    scenario.report(scenario.tally(), None, f"stopped early ({why})")
            raise
        finally:
            scenario.close()

    def close(self) -> None:
        try:
            self.cluster.close()
        finally:
            self.lab.close()


class Scenario:
    """One scenario's database, processes and relay."""

    def __init__(self, world: World, name: str, folder: Path, database: str) -> None:
        self.world = world
        self.name = name
        self.folder = folder
        self.database = database
        self.runs: list[Run] = []
        self.askers: list[Asker] = []
        self.reported = False
        self.relay: subprocess.Popen[str] | None = None
        self.relay_said: list[str] = []
        self.through_relay = False

    def url(self, machine: Machine) -> str:
        """A person's machine connects as that person's role, an agent's as the agents'."""
        port = RELAY_PORT if self.through_relay else self.world.cluster.port
        role = machine.name if machine.name in PEOPLE else AGENT_ROLE
        return f"postgresql://{role}@{machine.gateway}:{port}/{self.database}?{NO_SSL}"

    def env(self, machine: Machine) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(machine.home),
            "XDG_STATE_HOME": str(machine.home / "state"),
            "ASKCLI_INBOX": self.url(machine),
            "ASKCLI_NOTIFY": "none",
            "NO_COLOR": "1",
            "COLUMNS": "200",
            "LC_ALL": "C.UTF-8",
        }
        if "ASKCLI_LEASE" in os.environ:
            env["ASKCLI_LEASE"] = os.environ["ASKCLI_LEASE"]
        return env

    # -- the relay -------------------------------------------------------------------

    def start_relay(self, *, delay: float = 0.0, cut: tuple[str, ...] = ()) -> None:
        """Everyone started from now on reaches the server through :mod:`.relay`."""
        argv = [sys.executable, str(RELAY), "--to", f"127.0.0.1:{self.world.cluster.port}"]
        for address in self.world.lab.db_addresses:
            argv += ["--listen", f"{address}:{RELAY_PORT}"]
        argv += ["--delay", str(delay)]
        for part in cut:
            argv += ["--cut-commit-of", part]
        self.relay = subprocess.Popen(
            self.world.lab.in_db(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert self.relay.stdout is not None
        first = self.relay.stdout.readline().strip()
        if first != "ready":
            raise AssertionError(f"the relay did not start: {first!r}")
        self._reader = threading.Thread(target=self._relay_lines, daemon=True)
        self._reader.start()
        self.through_relay = True

    def _relay_lines(self) -> None:
        assert self.relay is not None and self.relay.stdout is not None
        for line in self.relay.stdout:
            self.relay_said.append(line.strip())

    def cuts(self) -> int:
        return sum(line.startswith("cut ") for line in self.relay_said)

    # -- askers and people -----------------------------------------------------------

    def ask(self, machine: str, name: str, timeout: float | None = None) -> Asker:
        return Asker(self, self.world.machine(machine), name, timeout)

    def answering(self, machine: str, person: str, qid: int) -> Answering:
        return Answering(self, self.world.machine(machine), person, qid)

    def inbox(self, machine: str, person: str) -> Inbox:
        return Inbox(self, self.world.machine(machine), person)

    def answer_when_waiting(
        self, machine: str, person: str, qid: int, choice: int, label: str, timeout: float
    ) -> Told:
        """``inbox answer`` again and again until it may claim ``qid`` (another inbox's
        claim lapsed), then the answer; what the person was told."""
        deadline = time.monotonic() + timeout
        while True:
            attempt = self.answering(machine, person, qid)
            poll(
                attempt.in_question,
                f"{person} claiming #{qid}",
                max(1.0, deadline - time.monotonic()) + 15,
            )
            if not attempt.done():
                attempt.give(choice, label)
                return attempt.told(30)
            if time.monotonic() > deadline:
                raise AssertionError(f"{person} could not claim #{qid}: {attempt.stderr()}")
            time.sleep(0.3)

    # -- what the database says --------------------------------------------------------

    def _askcli(self, *args: str) -> list[dict[str, Any]]:
        url = self.world.cluster.admin_url(self.database)
        done = subprocess.run(
            [ASKCLI, *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "ASKCLI_INBOX": url, "NO_COLOR": "1"},
            check=False,
        )
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def log(self) -> list[dict[str, Any]]:
        """``askcli inbox log --json``."""
        return self._askcli("inbox", "log", "--json")

    def listed(self) -> list[dict[str, Any]]:
        """``askcli inbox list --all --json``."""
        return self._askcli("inbox", "list", "--all", "--json")

    def state(self, qid: int) -> str | None:
        for row in self.listed():
            if row["id"] == qid:
                return str(row["status"])
        return None

    # -- the tally ---------------------------------------------------------------------

    def told(self) -> list[Told]:
        """What every person was told of every answer they gave."""
        found: list[Told] = []
        for run in self.runs:
            if isinstance(run, Answering) and run.label is not None:
                found.append(run.told(1))
            elif isinstance(run, Inbox):
                found += run.told()
        return found

    def told_line(self) -> str:
        words = {True: "sent", False: "not sent", None: "nothing said"}
        told = ", ".join(f"{t.person} #{t.qid} {words[t.sent]}" for t in self.told())
        return f"told: {told or 'nobody answered'}"

    def tally(self) -> Tally:
        """Each question counts once in each way it went wrong."""
        log = self.log()
        told = self.told()
        why: list[str] = []
        faults: dict[int, set[str]] = {}
        qids: dict[int, Asker] = {}
        for asker in self.askers:
            with contextlib.suppress(AssertionError):  # never queued: nothing to judge
                qids[asker.qid(1)] = asker
        for qid, asker in qids.items():
            for kind, reason in self._judge(qid, asker, told, log):
                faults.setdefault(qid, set()).add(kind)
                why.append(reason)
        for t in told:
            rows = [row for row in log if row["id"] == t.qid and row["status"] == "answered"]
            theirs = any(row.get("answered_by") == t.person for row in rows)
            kind = ""
            if t.sent is None:
                kind, reason = "lost", f"{t.person}'s answer to #{t.qid}: never said sent or not"
            elif t.sent is False and theirs:
                kind, reason = "wrong", f"{t.person} told #{t.qid} was not sent; the log: it was"
            elif t.sent is True and not theirs:
                kind, reason = "wrong", f"{t.person} told #{t.qid} was sent; the log: it was not"
            if kind:
                faults.setdefault(t.qid, set()).add(kind)
                why.append(reason)
        counts = {kind: sum(kind in found for found in faults.values()) for kind in KINDS}
        return Tally(
            counts["lost"], counts["duplicated"], counts["misdelivered"], counts["wrong"], why
        )

    def _judge(
        self, qid: int, asker: Asker, told: list[Told], log: list[dict[str, Any]]
    ) -> Iterator[tuple[str, str]]:
        """How question ``qid`` went wrong for its asker: (kind, why) pairs."""
        results = asker.results()
        sent = [t for t in told if t.qid == qid and t.sent]
        answered = [row for row in log if row["id"] == qid and row["status"] == "answered"]
        if len(results) > 1:
            yield "duplicated", f"{asker.name} printed {len(results)} results"
        if len(sent) > 1:
            yield "duplicated", f"#{qid}: {len(sent)} people were told 'sent'"
        if len(answered) > 1:
            yield "duplicated", f"#{qid} answered {len(answered)} times in the log"
        if not results:
            if not asker.killed:
                yield "lost", f"{asker.name} (#{qid}) printed nothing"
            return
        got = results[0]
        if got.question is not None and got.question != asker.question:
            yield "misdelivered", f"{asker.name} (#{qid}) got the answer to {got.question!r}"
        elif got.label is not None:
            if not sent:
                yield "wrong", f"{asker.name} (#{qid}) got {got.label!r}; nobody was told 'sent'"
            elif got.label not in [t.label for t in sent]:
                yield "wrong", f"{asker.name} (#{qid}) got {got.label!r}, sent: {sent}"
        elif sent:
            who = sent[0].person
            yield "wrong", f"{asker.name} (#{qid}) got {got.text!r} though {who} was told 'sent'"
        elif asker.must_be_answered:
            yield "wrong", f"{asker.name} (#{qid}), alive, got {got.text!r}"

    def report(self, tally: Tally, recovery: float | None, more: str = "") -> str:
        took = "-" if recovery is None else f"{recovery:.1f} s"
        line = f"fault {self.name}: {tally.line()}; recovery {took}"
        if more:
            line += f"; {more}"
        if tally.why:
            line += " [" + "; ".join(tally.why) + "]"
        REPORTS.append(line)
        self.reported = True
        print(line, flush=True)
        return line

    def close(self) -> None:
        for run in self.runs:
            run.end()
        if self.relay is not None:
            with contextlib.suppress(OSError):
                assert self.relay.stdin is not None
                self.relay.stdin.close()
            with contextlib.suppress(OSError):
                os.killpg(self.relay.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.relay.wait(5)
            self._reader.join(5)
            if self.relay.stdout is not None:
                self.relay.stdout.close()
        cluster = self.world.cluster
        if cluster.running:
            with contextlib.suppress(Exception):
                cluster.drop_database(self.database)
        if os.environ.get("ASKCLI_FAULTS_KEEP") is None:
            shutil.rmtree(self.folder, ignore_errors=True)
