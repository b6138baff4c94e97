"""An inbox's eyes on the queue while the person types: a thread that tidies after dead
askers and inboxes and notices arrivals, questions that wait again and withdrawals, and
another that keeps this inbox's claims alive (its heartbeat). The watch tells the main
thread through a pipe, so that a prompt waiting for a line
(:meth:`askcli.lines.FdLineReader.watch`) wakes at once.

The heartbeat waits behind nothing: neither the person nor the watch's looks and tidies
(each a round trip to a distant server). It has a connection of its own and beats on fixed
deadlines of the monotonic clock, so that a slow link delays a beat by one round trip, not
by everything else's. Each thread has its own connection to the queue (SQLite connections
stay in the thread that made them) and neither writes to the terminal: they only record
events; what is said, and when, is the main thread's business. Each ``--notify-command``
runs in a thread of its own, bounded in time, its process group ended when it overstays or
the inbox closes.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ...errors import InboxError
from ..store import base as base
from ..store.base import QueuedQuestion, QueueState, Store

PERIOD = 0.02  # seconds between looks at the queue
HEARTBEAT = min(1.0, base.LEASE / 4)  # seconds between heartbeats (the lease: store.LEASE)
ROUND = 5.0  # seconds one round of the watch (or one heartbeat) tries a store out of reach
TIDY = 0.5  # seconds between tidies
LOOK = 1.0  # seconds between looks at the queue at the most, when changes are pushed
COMMAND_TIMEOUT = 10.0  # seconds a --notify-command may run


class QueueChange(enum.Enum):
    ARRIVED = "arrived"  # a new question waits
    RETURNED = "returned"  # a question waits again (its inbox closed or died)
    WITHDRAWN = "withdrawn"  # its asker gave up, or died
    TAKEN = "taken"  # the question this inbox holds is another inbox's now (taken over)
    MOVED = "moved"  # one offered to be taken over is not that inbox's any more
    PROBLEM = "problem"  # something to say in one line (a failed --notify-command)


class QueueEvent(NamedTuple):
    kind: QueueChange
    question: QueuedQuestion | None = None
    text: str = ""


class Watch:
    """The watching thread of inbox ``inbox`` on the queue at ``path``. ``current`` is the
    id of the question the main thread holds (its withdrawal is an event like any other);
    ``on_arrival`` is called in the thread for each new question (``--notify-command``);
    ``person``: only the questions that person may answer are watched (None: every one)."""

    def __init__(
        self,
        store: Store,
        inbox: str,
        *,
        on_arrival: Callable[[QueuedQuestion], None] | None = None,
        period: float = PERIOD,
        person: str | None = None,
    ) -> None:
        self.opened = store
        self.person = person
        self.inbox = inbox
        self.on_arrival = on_arrival
        self.period = period
        self.current: int | None = None
        # (question, inbox holding it) offered to be taken over, while the offer is shown
        self.offered: tuple[int, str] | None = None
        self._events: list[QueueEvent] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.fd, self._wake = os.pipe()
        os.set_blocking(self.fd, False)
        os.set_blocking(self._wake, False)
        self._thread = threading.Thread(target=self._run, name="askcli-inbox-watch", daemon=True)
        self._beating = threading.Thread(target=self._beat, name="askcli-inbox-beat", daemon=True)
        self._failed = False
        self._taken_told: set[tuple[int, str]] = set()  # (question, its new inbox) said
        self.beats: list[float] = []  # when the last heartbeats were made (monotonic)

    def start(self, timeout: float = 5.0) -> None:
        """Start watching; returns once the queue was looked at once (what waits then is
        not an arrival)."""
        self._thread.start()
        self._ready.wait(timeout)
        self._beating.start()

    def stop(self) -> None:
        """Stop the threads (2 s at the most: a daemon thread that waits on a server out of
        reach ends with the process) and close the pipe; once."""
        if self._stop.is_set():
            return
        self._stop.set()
        until = time.monotonic() + 2.0  # a thread stuck on a server out of reach is let be
        for thread in (self._thread, self._beating):
            if thread.is_alive():
                thread.join(max(0.0, until - time.monotonic()))
        if self._thread.is_alive():  # it may still write: its pipe stays (never a reused fd)
            return
        for fd in (self.fd, self._wake):
            with contextlib.suppress(OSError):
                os.close(fd)

    def events(self) -> list[QueueEvent]:
        """The events since the last call (the pipe emptied)."""
        with contextlib.suppress(OSError):
            while os.read(self.fd, 4096):
                pass
        with self._lock:
            found, self._events = self._events, []
        return found

    def put(self, event: QueueEvent) -> None:
        with self._lock:
            self._events.append(event)
        with contextlib.suppress(OSError):  # a full pipe already says "look"
            os.write(self._wake, b".")

    # -- the thread ------------------------------------------------------------------

    def _beat(self) -> None:
        """The heartbeat: every :data:`HEARTBEAT` seconds by the monotonic clock, on a
        connection of its own; a beat that could not be made is tried again at the next."""
        store = self.opened.reopen()
        try:
            due = time.monotonic()
            while not self._stop.is_set():
                store.deadline = time.monotonic() + ROUND
                with contextlib.suppress(InboxError):  # the watch says the store is away
                    store.heartbeat(self.inbox, self.person)
                    self.beats = [*self.beats[-9:], time.monotonic()]
                due += HEARTBEAT
                now = time.monotonic()
                if due < now:  # late (a beat took long, or the process was stopped)
                    due = now
                self._stop.wait(due - now)
        finally:
            store.close()

    def _run(self) -> None:
        store = self.opened.reopen()  # a connection of this thread
        try:
            seen: set[int] = set()
            waiting: set[int] = set()
            told: set[int] = set()  # withdrawals said
            changes = store.changes()  # before the first look: nothing after it is missed
            try:
                store.deadline = time.monotonic() + ROUND
                seen = set(store.ids(states=(QueueState.WAITING, QueueState.ANSWERING)))
                waiting = set(store.ids(person=self.person))
            except InboxError:
                pass
            self._ready.set()
            tidy = time.monotonic()
            look = tidy + LOOK
            while not self._stop.is_set():
                changed = changes.wait(self.period)  # pushed, or (a file) True each period
                try:
                    now = time.monotonic()
                    store.deadline = now + ROUND  # a link gone dead: said, not waited on
                    if now >= tidy:
                        for gone in store.tidy():
                            if gone.id not in told:
                                told.add(gone.id)
                                self.put(QueueEvent(QueueChange.WITHDRAWN, gone))
                        tidy = now + TIDY
                    if changed or self._failed or now >= look:  # and now and then, in case
                        waiting = self._look(store, seen, waiting, told)  # a push was lost
                        look = now + LOOK
                    self._failed = False
                except InboxError as exc:
                    if not self._failed:  # said once, until it works again
                        self._failed = True
                        self.put(
                            QueueEvent(QueueChange.PROBLEM, text=f"the inbox cannot be read: {exc}")
                        )
        finally:
            self._ready.set()
            store.close()

    def _taken(self, question: QueuedQuestion) -> bool:
        """``question``, held here, is another inbox's now, or answered there already
        (said once for each inbox). An answer from here is no news: the main thread lets
        the question go once it is sent."""
        holder = question.holder_inbox or ""
        if question.state is QueueState.ANSWERED:
            holder = "(answered)"
        elif question.state is not QueueState.ANSWERING or holder in ("", self.inbox):
            return False
        if (question.id, holder) in self._taken_told:
            return False
        self._taken_told.add((question.id, holder))
        return True

    def _look(self, store: Store, seen: set[int], before: set[int], told: set[int]) -> set[int]:
        now = set(store.ids(person=self.person))
        current = self.current
        for qid in sorted(now - before):
            question = store.get(qid)
            if question is None:
                continue
            if qid in seen:
                self.put(QueueEvent(QueueChange.RETURNED, question))
            else:
                seen.add(qid)
                self.put(QueueEvent(QueueChange.ARRIVED, question))
                if self.on_arrival is not None:
                    self.on_arrival(question)
        left = before - now
        if current is not None and current not in now:
            left.add(current)  # held here: "being answered", so never in ``now``
        for qid in sorted(left):
            if qid in told:
                continue
            question = store.get(qid)
            if question is not None and question.state is QueueState.WITHDRAWN:
                told.add(qid)
                self.put(QueueEvent(QueueChange.WITHDRAWN, question))
            elif question is not None and qid == current and self._taken(question):
                self.put(QueueEvent(QueueChange.TAKEN, question))
        offered = self.offered
        if offered is not None:  # still held where the offer says?
            found = store.get(offered[0])
            if found is None or (found.state, found.holder_inbox) != (
                QueueState.ANSWERING,
                offered[1],
            ):
                self.offered = None
                self.put(QueueEvent(QueueChange.MOVED, found))
        # a question that arrived and was claimed by another inbox between two looks
        # is not an arrival here: it never waited for this person
        seen.update(store.ids(states=(QueueState.ANSWERING,)))
        return now


class Commands:
    """``--notify-command CMD``: run with a JSON description of each arriving question on
    its stdin, in a thread of its own (the inbox never waits for it), at most
    :data:`COMMAND_TIMEOUT` seconds; a failure is reported through ``problem``."""

    def __init__(
        self,
        command: str,
        problem: Callable[[str], None],
        timeout: float = COMMAND_TIMEOUT,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.env = env  # None: the inbox's own
        self.problem = problem
        self.timeout = timeout
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, question: QueuedQuestion) -> None:
        from .queue_screens import as_json

        data = (json.dumps({"event": "waiting", **as_json(question)}) + "\n").encode()
        thread = threading.Thread(target=self._run, args=(data, question.id), daemon=True)
        thread.start()

    def _run(self, data: bytes, qid: int) -> None:
        try:
            child = subprocess.Popen(
                ["/bin/sh", "-c", self.command],
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its process group is ended with it
            )
        except OSError as exc:
            self.problem(f"--notify-command could not be run: {exc.strerror or exc}")
            return
        with self._lock:
            if self._closed:
                _end(child)
                return
            self._running.add(child)
        try:
            _, err = child.communicate(data, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _end(child)
            self.problem(
                f"--notify-command for #{qid} ran longer than {self.timeout:g} s and was ended"
            )
            return
        except (OSError, ValueError):  # closed under us by close()
            _end(child)
            return
        finally:
            with self._lock:
                self._running.discard(child)
        if child.returncode != 0 and not self._closed:
            said = err.decode("utf-8", "replace").strip().splitlines()
            tail = f": {said[-1][:200]}" if said else ""
            how = (
                f"exited with status {child.returncode}"
                if child.returncode > 0
                else f"was killed by signal {-child.returncode}"
            )
            self.problem(f"--notify-command for #{qid} {how}{tail}")

    def close(self) -> None:
        """End every command still running (the inbox closes)."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for child in running:
            _end(child)


def _end(child: subprocess.Popen[bytes]) -> None:
    """End ``child`` and its process group, reap it and close its pipes."""
    with contextlib.suppress(OSError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(1.0)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(1.0)
    for pipe in (child.stdin, child.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
