"""askcli's performance figures, each beside its baseline measured in the same run.

Machines here are shared and noisy, so every figure is a median of several runs and the
targets are ratios to something measured side by side. Prints one line per figure:
what was measured, the target, the measured value, and ok/MISSED.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
ASKCLI = str(Path(PYTHON).with_name("askcli"))
RUNS = int(os.environ.get("BENCH_RUNS", "7"))
ENV = {**os.environ, "NO_COLOR": "1"}

QUESTION = {
    "question": "Which library should we use for date formatting?",
    "header": "Library",
    "options": [
        {"label": "date-fns (Recommended)", "description": "Lightweight, tree-shakeable"},
        {"label": "dayjs", "description": "Moment.js compatible, small bundle size"},
        {"label": "Temporal", "description": "Modern native API, no dependencies needed"},
    ],
    "multiSelect": False,
}
EXTRAS = {
    "question": "Which extras should come with it?",
    "header": "Extras",
    "options": [
        {"label": "Rate limiting", "description": "Slow down repeated failed logins"},
        {"label": "2FA", "description": "Time-based one-time passwords"},
        {"label": "Audit log", "description": "Record every sign-in and sign-out"},
    ],
    "multiSelect": True,
}
results: list[bool] = []


def report(name: str, target: str, value: str, ok: bool) -> None:
    results.append(ok)
    print(f"{name:<58} target {target:<16} measured {value:<26} {'ok' if ok else 'MISSED'}")
    sys.stdout.flush()


def timed(command: list[str], *, stdin: Path | None = None, stderr: Path | None = None) -> float:
    with open(stdin or os.devnull, "rb") as source, open(stderr or os.devnull, "wb") as err:
        started = time.perf_counter()
        subprocess.run(
            command, stdin=source, stdout=subprocess.DEVNULL, stderr=err, env=ENV, check=False
        )
        return time.perf_counter() - started


def median(run: Callable[[], float], runs: int = RUNS) -> float:
    return statistics.median(run() for _ in range(runs))


def side_by_side(*runs: Callable[[], float], count: int = RUNS) -> list[float]:
    """The median of each of ``runs``, measured in turns (one of each, again and again), so
    that a noisy moment of a shared machine weighs on all of them alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(count):
        for spent, run in zip(times, runs, strict=True):
            spent.append(run())
    return [statistics.median(spent) for spent in times]


def peak_kib(command: list[str], stdin: Path) -> int:
    """Peak RSS of ``command``, measured from a small parent so that nothing of this
    script's own memory (shared by a forked child until it execs) is counted."""
    probe = (
        "import resource, subprocess, sys\n"
        "with open(sys.argv[1], 'rb') as source:\n"
        "    subprocess.run(sys.argv[2:], stdin=source, stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [PYTHON, "-c", probe, str(stdin), *command], capture_output=True, text=True, env=ENV
    )
    return int(out.stdout.strip())


def call(n: int) -> str:
    block = {
        "type": "tool_use",
        "id": f"toolu_bench{n:06d}",
        "name": "AskUserQuestion",
        "input": {"questions": [QUESTION, EXTRAS]},
    }
    return json.dumps(block)


def stream(path: Path, count: int) -> Path:
    """``count`` calls of two questions, each followed by its answer lines."""
    with open(path, "w") as out:
        for n in range(count):
            out.write(call(n) + "\n2\n1,3\n\n")
    return path


FLOOR = """\
import json, sys
from askcli.schema.models import AskUserQuestionInput
out = sys.stdout
for line in sys.stdin:
    if line.startswith("{"):
        block = json.loads(line)
        AskUserQuestionInput.model_validate(block["input"])
        reply = {"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}
        out.write(json.dumps(reply) + "\\n")
"""


def bench_start(work: Path) -> None:
    one = work / "one-question.json"
    one.write_text(
        json.dumps(
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "AskUserQuestion",
                "input": {"questions": [QUESTION]},
            }
        )
    )
    answer = work / "answer.txt"
    answer.write_text("2\n")
    base, bare, ask = side_by_side(
        lambda: timed([PYTHON, "-c", "import click, pydantic"]),
        lambda: timed([PYTHON, "-c", "pass"]),
        lambda: timed([ASKCLI, "ask", str(one)], stdin=answer),
        count=max(RUNS, 11),
    )
    ratio = ask / base
    print(
        f"  python -c pass {bare * 1000:.1f} ms;"
        f" python -c 'import click, pydantic' {base * 1000:.1f} ms;"
        f" askcli ask one-question.json {ask * 1000:.1f} ms"
    )
    report(
        "start: askcli ask one question / import click, pydantic",
        "<= 1.10x",
        f"{ratio:.2f}x",
        ratio <= 1.10,
    )


def bench_throughput(work: Path) -> None:
    count = 10_000
    path = stream(work / "stream.txt", count)
    calls_only = work / "calls.jsonl"
    calls_only.write_text("".join(call(n) + "\n" for n in range(count)))
    ask, floor = side_by_side(
        lambda: timed([ASKCLI, "ask"], stdin=path),
        lambda: timed([PYTHON, "-c", FLOOR], stdin=calls_only),
        count=5,
    )
    rate = count / ask
    print(
        f"  {count} calls of 2 questions, stderr to /dev/null (screens nobody sees are not drawn):"
        f" askcli {ask:.2f} s, floor (json.loads + the pydantic model + json.dumps) {floor:.2f} s"
    )
    report(
        "throughput: calls per second (2 questions, answers scripted)",
        ">= 5000/s",
        f"{rate:,.0f}/s",
        rate >= 5000,
    )
    report(
        "throughput: askcli time / floor script time",
        "<= 3.00x",
        f"{ask / floor:.2f}x",
        ask / floor <= 3.0,
    )
    drawn = median(lambda: timed([ASKCLI, "ask"], stdin=path, stderr=work / "screens.txt"), runs=3)
    report(
        "throughput: the same with the screens written to a file",
        "reported",
        f"{count / drawn:,.0f}/s",
        True,
    )


def bench_memory(work: Path) -> None:
    small = stream(work / "small.txt", 1_000)
    large = stream(work / "large.txt", 100_000)
    low = statistics.median(peak_kib([ASKCLI, "ask"], small) for _ in range(3))
    high = statistics.median(peak_kib([ASKCLI, "ask"], large) for _ in range(3))
    grown = (high - low) / 1024
    print(f"  peak RSS: 1,000 calls {low / 1024:.1f} MiB, 100,000 calls {high / 1024:.1f} MiB")
    report(
        "memory: peak RSS 100,000 calls - 1,000 calls",
        "<= 5.0 MiB",
        f"{grown:+.1f} MiB",
        grown <= 5.0,
    )


def bench_todos(work: Path) -> None:
    count = 8_400
    block = {"type": "tool_use", "name": "TodoWrite"}
    todos = {"todos": [{"content": "a", "status": "pending", "activeForm": "b"}]}
    content = [{**block, "id": f"t{n}", "input": todos} for n in range(count)]
    message = work / "todo-message.json"
    message.write_text(json.dumps({"role": "assistant", "content": content}, separators=(",", ":")))
    state = work / "todo-state" / "todos.json"

    def kept() -> float:
        if state.exists():
            state.unlink()
        return timed([ASKCLI, "ask", "--state", str(state), str(message)])

    keeping = median(kept, runs=5)
    discarding = median(lambda: timed([ASKCLI, "ask", "--state", os.devnull, str(message)]), runs=5)
    print(
        f"  one message of {count} TodoWrite blocks: state kept {keeping:.2f} s,"
        f" --state /dev/null {discarding:.2f} s"
    )
    report(
        "todo state: 8,400 TodoWrite blocks, kept / not kept",
        "<= 2.00x",
        f"{keeping / discarding:.2f}x",
        keeping / discarding <= 2.0,
    )


def bench_hostile(work: Path) -> None:
    """Calls within the size limit built to be slow: answered in well under a second."""
    base = median(lambda: timed([PYTHON, "-c", "import click, pydantic"]), runs=5)
    one_line = work / "todos-340k.json"
    one_line.write_text(json.dumps({"todos": [{}] * 340_000}, separators=(",", ":")))
    pretty = work / "todos-pretty.json"
    pretty.write_text(json.dumps({"todos": [{}] * 200_000}, indent=0))
    options = work / "options-200k.json"
    many = {"question": "q?", "header": "h", "options": [{}] * 200_000}
    options.write_text(json.dumps({"questions": [many]}, separators=(",", ":")))
    worst = 0.0
    for path in (one_line, pretty, options):
        seconds = median(lambda path=path: timed([ASKCLI, "ask", str(path)]), runs=3)
        peak = peak_kib([ASKCLI, "ask", str(path)], Path(os.devnull))
        print(
            f"  {path.name} ({path.stat().st_size:,} bytes):"
            f" {seconds:.2f} s, peak {peak / 1024:.0f} MiB"
        )
        worst = max(worst, seconds)
        report(
            f"hostile call: {path.name}, peak RSS",
            "<= 100 MiB",
            f"{peak / 1024:.0f} MiB",
            peak <= 100 * 1024,
        )
    report(
        "hostile calls: slowest / import click, pydantic",
        "<= 12.00x",
        f"{worst / base:.2f}x ({worst:.2f} s)",
        worst / base <= 12.0,
    )


def bench_replay() -> None:
    fixtures = sorted((ROOT / "fixtures").glob("*.json"))
    seconds = median(lambda: timed([ASKCLI, "replay", str(ROOT / "fixtures")]), runs=5)
    report(
        "replay: askcli replay fixtures/ (one process)",
        "reported",
        f"{len(fixtures) / seconds:,.0f} fixtures/s",
        True,
    )


class Inbox:
    """Where the inbox figures are measured: an SQLite file, or a PostgreSQL database (one
    per figure) of a throwaway cluster on loopback (tests/support/postgres.py)."""

    def __init__(self, name: str, cluster: Any = None) -> None:
        self.name = name
        self.cluster = cluster

    def where(self, folder: Path) -> str:
        if self.cluster is None:
            return str(folder / "inbox.db")
        return str(self.cluster.url(self.cluster.new_database()))

    def label(self, what: str) -> str:
        return f"inbox ({self.name}): {what}"


def _inbox_env(work: Path, name: str, inbox: Inbox) -> dict[str, str]:
    folder = work / f"{name}-{inbox.name}"
    folder.mkdir()
    return {
        **ENV,
        "ASKCLI_INBOX": inbox.where(folder),
        "XDG_STATE_HOME": str(folder / "state"),
        "ASKCLI_NOTIFY": "none",
    }


def _lines(stream: IO[str], into: queue.Queue[tuple[float, str]]) -> None:
    """Each line of ``stream`` with the moment it was read, until it ends."""
    for line in stream:
        into.put((time.perf_counter(), line))
    into.put((time.perf_counter(), ""))


def _until(lines: queue.Queue[tuple[float, str]], text: str, timeout: float = 10.0) -> float:
    """The moment a line holding ``text`` was read."""
    deadline = time.monotonic() + timeout
    while True:
        seen, line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        if text in line:
            return seen
        if not line:
            raise RuntimeError(f"the stream ended before {text!r}")


def bench_inbox_arrival(work: Path, inbox_at: Inbox) -> None:
    """A question submitted to the queue until a waiting ``askcli inbox`` says it arrived."""
    from askcli.inbox.store import Agent, open_store

    env = _inbox_env(work, "arrival", inbox_at)
    store = open_store(env["ASKCLI_INBOX"])
    inbox = subprocess.Popen(
        [ASKCLI, "inbox"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert inbox.stdin is not None and inbox.stderr is not None
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    reader = threading.Thread(target=_lines, args=(inbox.stderr, lines), daemon=True)
    reader.start()
    spent: list[float] = []
    try:
        _until(lines, "(nothing waits in the inbox)")
        for n in range(max(RUNS, 11)):
            document = json.loads(call(n))
            started = time.perf_counter()
            question = store.submit(document, Agent("bench", None, str(work)))
            spent.append(_until(lines, f"new #{question.id}:") - started)
            store.withdraw(question.id)  # so that the inbox waits with nothing to show again
            _until(lines, "(nothing waits in the inbox)")
            time.sleep(0.05)
    finally:
        inbox.stdin.close()  # the end of the input: the inbox leaves
        try:
            inbox.wait(10)
        except subprocess.TimeoutExpired:
            inbox.kill()
            inbox.wait()
        reader.join(5)
    value = statistics.median(spent)
    print(
        f"  {len(spent)} arrivals: min {min(spent) * 1000:.1f} ms, max {max(spent) * 1000:.1f} ms"
    )
    report(
        inbox_at.label("arrival in a waiting askcli inbox (median)"),
        "<= 100 ms",
        f"{value * 1000:.1f} ms",
        value <= 0.100,
    )


def bench_inbox_delivery(work: Path, inbox_at: Inbox) -> None:
    """An answer stored by an inbox until its ``askcli ask --inbox`` asker prints it."""
    from askcli.inbox.person_side.commands import inbox_id
    from askcli.inbox.store import open_store

    env = _inbox_env(work, "delivery", inbox_at)
    store = open_store(env["ASKCLI_INBOX"])
    me = inbox_id()
    store.heartbeat(me)
    source = work / "delivery.json"
    spent: list[float] = []
    for n in range(max(RUNS, 11)):
        source.write_text(call(n) + "\n")
        asker = subprocess.Popen(
            [ASKCLI, "ask", "--inbox", str(source)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert asker.stdout is not None
        try:
            deadline = time.monotonic() + 10
            held = store.claim(me)
            while held is None and time.monotonic() < deadline:
                time.sleep(0.005)
                held = store.claim(me)
            if held is None:
                raise RuntimeError("the asker's question never arrived")
            result = {"type": "tool_result", "tool_use_id": f"toolu_bench{n:06d}", "content": "ok"}
            reply = {"replies": [result], "status": 0, "results": []}
            time.sleep(0.1)  # the asker is waiting by now, as it would be for a person
            started = time.perf_counter()
            store.answer(me, held.id, reply)
            line = asker.stdout.readline()
            spent.append(time.perf_counter() - started)
            if f"toolu_bench{n:06d}" not in line:
                raise RuntimeError(f"the asker printed {line!r}")
        finally:
            asker.wait(10)
    store.leave(me)
    value = statistics.median(spent)
    print(f"  {len(spent)} answers: min {min(spent) * 1000:.1f} ms, max {max(spent) * 1000:.1f} ms")
    report(
        inbox_at.label("delivery of an answer to its asker (median)"),
        "<= 100 ms",
        f"{value * 1000:.1f} ms",
        value <= 0.100,
    )


def bench_inbox_load(work: Path, inbox_at: Inbox, askers: int = 50, each: int = 20) -> None:
    """``askers`` askcli ask --inbox processes of ``each`` calls, answered by two scripted
    inboxes at once (in process, with the screens' code): none lost, none answered twice."""
    import io

    from askcli.inbox.asker_side import reply_to_json
    from askcli.inbox.person_side.commands import inbox_id
    from askcli.inbox.store import QueueState, open_store
    from askcli.lines import TextLineReader
    from askcli.runners.session import answer_document
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.options import RunOptions
    from askcli.wire.documents import Document

    env = _inbox_env(work, "load", inbox_at)
    path = env["ASKCLI_INBOX"]
    total = askers * each
    sources = []
    for a in range(askers):
        source = work / f"asker-{a}.jsonl"
        source.write_text("".join(call(a * each + n) + "\n" for n in range(each)))
        sources.append(source)
    answered: list[list[int]] = [[], []]
    done = threading.Event()

    def scripted(slot: int) -> None:
        store = open_store(path)
        me = inbox_id() + f":{slot}"
        store.heartbeat(me)
        changes = store.changes()  # pushed (PostgreSQL), or a look every few ms
        while not done.is_set():
            held = store.claim(me)
            if held is None:
                changes.wait(0.25 if store.pushes else 0.002)
                continue
            conv = Conversation(
                TextLineReader(io.StringIO("2\n1,3\n\n"), interactive=False),
                io.StringIO(),
                options=RunOptions(quiet=True),
            )
            # as askcli inbox does: the screens' code, the reply stored for its asker
            reply = answer_document(Document(held.call), conv, held.id)
            if store.answer(me, held.id, reply_to_json(reply)):
                answered[slot].append(held.id)
        store.leave(me)

    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            [ASKCLI, "ask", "--inbox", str(source)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        for source in sources
    ]
    inboxes = [threading.Thread(target=scripted, args=(slot,)) for slot in (0, 1)]
    for thread in inboxes:
        thread.start()
    outputs = [proc.communicate(timeout=600)[0] for proc in procs]
    seconds = time.perf_counter() - started
    done.set()
    for thread in inboxes:
        thread.join(10)
    ids = [json.loads(line)["tool_use_id"] for out in outputs for line in out.splitlines()]
    expected = {f"toolu_bench{n:06d}" for n in range(total)}
    lost = len(expected - set(ids))
    twice = len(ids) - len(set(ids)) + len(set(answered[0]) & set(answered[1]))
    store = open_store(path)
    kept = store.questions(states=tuple(QueueState))
    right = all(
        '"Which library should we use for date formatting?"="dayjs"' in json.loads(line)["content"]
        for out in outputs
        for line in out.splitlines()
    )
    print(
        f"  {askers} askers x {each} calls = {total}: {len(ids)} results in {seconds:.2f} s;"
        f" answered by inbox 1: {len(answered[0])}, inbox 2: {len(answered[1])};"
        f" {sum(q.state is QueueState.ANSWERED for q in kept)} answered in the queue"
    )
    report(
        inbox_at.label(f"{askers} askers x {each} questions, lost / answered twice"),
        "0 / 0",
        f"{lost} / {twice}",
        lost == 0 and twice == 0 and right and len(ids) == total,
    )
    report(
        inbox_at.label("calls per second through the queue (2 inboxes)"),
        "reported",
        f"{total / seconds:,.0f}/s",
        True,
    )


TEAM_ASKERS = 500
TEAM_TIMEOUT = 300.0  # seconds the whole team figure may take


def bench_team(work: Path, askers: int = TEAM_ASKERS) -> None:
    """``askers`` askcli ask --inbox processes of one question each, half on each of two
    agents' machines (network namespaces with pid and UTS namespaces of their own, reaching
    the server over veth pairs: tests/faults/net.py), answered by two scripted inboxes at
    once: none lost, none answered twice; delivery (answer stored to result read) p50 / p99,
    calls per second and the most connections the server held at once. Skipped, saying why,
    where namespaces cannot be made (not root, no ip or nft)."""
    import io
    import selectors
    import signal

    sys.path.insert(0, str(ROOT))
    from askcli.inbox.asker_side import reply_to_json
    from askcli.inbox.person_side.commands import inbox_id
    from askcli.inbox.store import open_store
    from askcli.lines import TextLineReader
    from askcli.runners.session import answer_document
    from askcli.terminal.conversation import Conversation
    from askcli.terminal.options import RunOptions
    from askcli.wire.documents import Document

    from tests.faults.net import SUBNET, Lab, LabUnavailable, unavailable
    from tests.support.postgres import Cluster, ClusterUnavailable

    label = "team (PostgreSQL, 2 agents' namespaces)"
    why = unavailable()
    if why is not None:
        print(f"  {label}: not measured: {why}")
        return
    try:
        lab = Lab(work / "team", ("agent1", "agent2"))
    except LabUnavailable as exc:
        print(f"  {label}: not measured: {exc}")
        return
    procs: list[subprocess.Popen[bytes]] = []
    try:
        try:
            cluster = Cluster(
                listen=("127.0.0.1", *lab.db_addresses),
                trusted=(f"{SUBNET}.0.0/16",),
                inside=lab.in_db([]),
                max_connections=2 * askers + 50,
            )
            cluster.start()
        except ClusterUnavailable as exc:
            print(f"  {label}: not measured: {str(exc).splitlines()[0]}")
            return
        try:
            database = cluster.new_database()
            admin = cluster.admin_url(database)
            open_store(admin).ids()  # the schema made before everyone starts
            answered_at: dict[str, float] = {}
            answered: list[list[int]] = [[], []]
            done = threading.Event()
            peak = [0]

            def scripted(slot: int) -> None:
                store = open_store(admin)
                me = inbox_id() + f":{slot}"
                store.heartbeat(me)
                changes = store.changes()
                while not done.is_set():
                    held = store.claim(me)
                    if held is None:
                        changes.wait(0.25)
                        continue
                    conv = Conversation(
                        TextLineReader(io.StringIO("2\n"), interactive=False),
                        io.StringIO(),
                        options=RunOptions(quiet=True),
                    )
                    reply = answer_document(Document(held.call), conv, held.id)
                    storing = time.perf_counter()  # delivery: from the answer's commit on
                    if store.answer(me, held.id, reply_to_json(reply)):
                        answered_at[held.call["id"]] = storing
                        answered[slot].append(held.id)
                store.leave(me)
                store.close()

            def sampled() -> None:
                with cluster.connect(database) as db:
                    while not done.is_set():
                        row = db.execute(
                            "SELECT count(*) FROM pg_stat_activity"
                            " WHERE backend_type = 'client backend'"
                        ).fetchone()
                        peak[0] = max(peak[0], int(row[0]) if row else 0)
                        time.sleep(0.1)

            one: dict[str, Any] = {
                "question": "Which library should we use for date formatting?",
                "header": "Library",
                "options": [
                    {"label": "date-fns", "description": "Lightweight, tree-shakeable"},
                    {"label": "dayjs", "description": "Moment.js compatible, small bundle size"},
                ],
                "multiSelect": False,
            }
            threads = [threading.Thread(target=scripted, args=(slot,)) for slot in (0, 1)]
            threads.append(threading.Thread(target=sampled))
            for thread in threads:
                thread.start()
            machines = list(lab.machines.values())
            selector = selectors.DefaultSelector()
            delivered: dict[str, float] = {}
            outputs: dict[int, bytes] = {}
            arriving: queue.Queue[tuple[IO[bytes], int]] = queue.Queue()
            deadline = time.monotonic() + TEAM_TIMEOUT

            def reading() -> None:
                """Each asker's stdout as it comes (the moment its result is read), from its
                start: the pipes registered here as the askers are started."""
                registered = ended = 0
                while ended < askers and time.monotonic() < deadline:
                    while not arriving.empty():
                        pipe, n = arriving.get()
                        selector.register(pipe, selectors.EVENT_READ, n)
                        registered += 1
                    if registered == ended:
                        time.sleep(0.01)
                        continue
                    for key, _ in selector.select(timeout=0.05):
                        chunk = os.read(key.fd, 65536)
                        if chunk:
                            outputs[key.data] = outputs.get(key.data, b"") + chunk
                            delivered.setdefault(f"toolu_team{key.data:04d}", time.perf_counter())
                        else:
                            selector.unregister(key.fileobj)
                            ended += 1

            reader = threading.Thread(target=reading)
            reader.start()
            started = time.perf_counter()
            for n in range(askers):
                machine = machines[n % 2]
                source = machine.home / f"team-{n}.json"
                block = {
                    "type": "tool_use",
                    "id": f"toolu_team{n:04d}",
                    "name": "AskUserQuestion",
                    "input": {"questions": [one]},
                }
                source.write_text(json.dumps(block))
                url = cluster.url(database, host=machine.gateway)
                env = {
                    **ENV,
                    "ASKCLI_INBOX": f"{url}?sslmode=disable&gssencmode=disable",
                    "XDG_STATE_HOME": str(machine.home / "state"),
                    "HOME": str(machine.home),
                }
                with open(machine.home / f"team-{n}.err", "wb") as err:
                    proc = subprocess.Popen(
                        machine.command([ASKCLI, "ask", "--inbox", str(source)]),
                        stdout=subprocess.PIPE,
                        stderr=err,
                        env=env,
                        start_new_session=True,
                    )
                procs.append(proc)
                assert proc.stdout is not None
                arriving.put((proc.stdout, n))
            reader.join(TEAM_TIMEOUT)
            seconds = time.perf_counter() - started
            done.set()
            for thread in threads:
                thread.join(10)
            selector.close()
        finally:
            for proc in procs:
                if proc.poll() is None:
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
                if proc.stdout is not None:
                    proc.stdout.close()
            cluster.close()
        errors = {}
        for n in range(askers):
            with contextlib.suppress(OSError):
                errors[n] = (
                    lab.machines[("agent1", "agent2")[n % 2]].home / f"team-{n}.err"
                ).read_text()
    finally:
        lab.close()
    ids = []
    for out in outputs.values():
        for line in out.decode(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                ids.append(json.loads(line)["tool_use_id"])
    missing = sorted(set(range(askers)) - {int(i.removeprefix("toolu_team")) for i in ids})
    unreached = [n for n in missing if "cannot be reached" in errors.get(n, "")]
    for n in missing[:3]:
        said = errors.get(n, "").strip().splitlines()
        print(f"  asker {n} printed no result; its last line: {said[-1] if said else '(none)'}")
    if missing:
        print(
            f"  {len(missing)} askers printed no result, {len(unreached)} of them because the"
            " server could not be reached in time (their question was never queued)"
        )
    lost = askers - len(set(ids))
    twice = len(ids) - len(set(ids)) + len(set(answered[0]) & set(answered[1]))
    spent = sorted(delivered[i] - answered_at[i] for i in delivered if i in answered_at)
    if not spent:
        print(f"  {label}: no answer was delivered")
        report(f"{label}: {askers} askers, lost / answered twice", "0 / 0", f"{lost} / ?", False)
        return
    p50 = spent[len(spent) // 2]
    p99 = spent[min(len(spent) - 1, int(len(spent) * 0.99))]
    print(
        f"  {askers} askers on 2 machines: {len(set(ids))} results in {seconds:.1f} s; answered by"
        f" inbox 1: {len(answered[0])}, inbox 2: {len(answered[1])}; delivery min"
        f" {spent[0] * 1000:.1f} ms, max {spent[-1] * 1000:.1f} ms"
    )
    report(f"{label}: {askers} askers, lost / answered twice", "0 / 0", f"{lost} / {twice}",
           lost == 0 and twice == 0)  # fmt: skip
    report(f"{label}: delivery p50", "<= 100 ms", f"{p50 * 1000:.1f} ms", p50 <= 0.100)
    report(f"{label}: delivery p99", "reported", f"{p99 * 1000:.1f} ms", True)
    report(f"{label}: calls per second", "reported", f"{askers / seconds:,.0f}/s", True)
    report(f"{label}: most connections at once", "reported", f"{peak[0]}", True)


def importtime() -> None:
    out = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", "import askcli.cli"],
        capture_output=True,
        text=True,
        env=ENV,
    )
    rows = []
    for line in out.stderr.splitlines()[1:]:
        self_us, cumulative, name = (
            part.strip() for part in line[len("import time:") :].split("|", 2)
        )
        rows.append((int(cumulative), int(self_us), name))
    print("  python -X importtime -c 'import askcli.cli', top cumulative (us):")
    for cumulative, self_us, name in sorted(rows, reverse=True)[:10]:
        print(f"    {cumulative:>8} {self_us:>8}  {name}")
    check = (
        "import sys, askcli.cli\n"
        "slow = ('pydantic', 'pydantic_core', 'importlib_metadata', 'pkg_resources')\n"
        "found = [m for m in sys.modules if m.split('.')[0] in slow or m == 'importlib.metadata']\n"
        "print(' '.join(sorted(found)))\n"
    )
    loaded = subprocess.run(
        [PYTHON, "-c", check], capture_output=True, text=True, env=ENV
    ).stdout.strip()
    report(
        "start: pydantic / importlib.metadata imported before the prompt",
        "none",
        loaded or "none",
        not loaded,
    )


def inboxes(work: Path) -> None:
    """The inbox figures on SQLite, then on PostgreSQL beside them (skipped, saying why,
    where no PostgreSQL server can be started)."""
    for bench in (bench_inbox_arrival, bench_inbox_delivery, bench_inbox_load):
        bench(work, Inbox("SQLite"))
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import Cluster, ClusterUnavailable

    try:
        cluster = Cluster()
        cluster.start()
    except ClusterUnavailable as exc:
        print(f"  inbox (PostgreSQL): not measured: {str(exc).splitlines()[0]}")
        return
    try:
        for bench in (bench_inbox_arrival, bench_inbox_delivery, bench_inbox_load):
            bench(work, Inbox("PostgreSQL", cluster))
    finally:
        cluster.close()


def main() -> None:
    if "--team" in sys.argv[1:]:  # the team figures alone
        with tempfile.TemporaryDirectory(prefix="askcli-bench-") as scratch:
            bench_team(Path(scratch))
        print(f"{sum(results)}/{len(results)} figures meet their targets")
        return
    print(
        f"askcli benchmarks: median of {RUNS} runs unless said; {os.cpu_count()} CPUs;"
        f" Python {sys.version.split()[0]}"
    )
    with tempfile.TemporaryDirectory(prefix="askcli-bench-") as scratch:
        work = Path(scratch)
        importtime()
        bench_start(work)
        bench_throughput(work)
        bench_memory(work)
        bench_todos(work)
        bench_hostile(work)
        bench_replay()
        inboxes(work)
        bench_team(work)
    print(f"{sum(results)}/{len(results)} figures meet their targets")


if __name__ == "__main__":
    main()
