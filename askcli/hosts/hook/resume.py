"""``askcli resume``: run Claude Code again for each deferred question once it is answered.

``askcli hook --defer-after`` leaves a question nobody answered in time in the inbox,
deferred under Claude Code's session and the call's tool_use id, and Claude Code's
``claude -p`` stops (``stop_reason: "tool_deferred"``). ``askcli resume`` waits for the
answers of the deferred questions and, as each comes, runs ``claude -p --resume SESSION``
in the session's folder: Claude Code runs the deferred call again, its hook finds the
question answered (:meth:`askcli.inbox.store.Store.adopt`) and the model gets the answer.
The resumed run's output goes to askcli's stdout; askcli's own lines go to stderr. It ends
when no deferred question is left (a resumed run that defers again is waited for too), at
``--timeout``, or at a signal: then the questions stay deferred in the inbox and a resumed
run still going is stopped (SIGTERM). Resuming a session is a claim in the inbox
(:func:`~askcli.inbox.store.deferred.claim_resume`): of two ``askcli resume`` at once, one
resumes it and the other says who does; the claim is released when the run ends, and lapses
when the process that made it is gone.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import InboxError
from ...escaping import visible
from ...inbox import asker_identity
from ...inbox.person_side.holding import since
from ...inbox.store import LEASE, QueuedQuestion, QueueState, Store, deferred, open_store
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.rendering import folded_for, terminal_text

STOP_GRACE = 10.0  # seconds a resumed run has to end after SIGTERM, before SIGKILL
RENEW = LEASE / 3  # seconds between renewals of the claim of a resumed run going on


class Resumer:
    """Resumes the sessions of the deferred questions in ``store`` with ``command`` (its
    words; ``-p --resume SESSION`` and ``extra`` are added), saying what it does to ``say``."""

    def __init__(
        self,
        store: Store,
        command: Sequence[str],
        extra: Sequence[str],
        say: Callable[[str], None],
    ) -> None:
        self.store = store
        self.command = list(command)
        self.extra = list(extra)
        self.say = say
        self.tried: set[int] = set()  # the questions resumed (once each)
        self.failed = False
        self.running: subprocess.Popen[bytes] | None = None

    def pending(self) -> list[QueuedQuestion]:
        """The deferred questions of this machine (its sessions' folders are here) not
        resumed yet by this run."""
        host = asker_identity.me().host
        return [
            q
            for q in deferred.waiting(self.store)
            if q.id not in self.tried and q.asker_host == host
        ]

    def resume(self, question: QueuedQuestion) -> None:
        """Run Claude Code again for the session of ``question`` (answered), in its folder."""
        self.tried.add(question.id)
        session, cwd = question.agent.session, question.agent.cwd
        if not session or not cwd or not Path(cwd).is_dir():
            self.failed = True
            self.say(f"question {question.id}: its session or folder is gone; not resumed")
            return
        holder = deferred.claim_resume(self.store, question.id)
        if holder is None:  # taken back or withdrawn meanwhile
            return
        if not holder.mine:
            self.say(
                f"question {question.id}: session {session} {resumed_by(holder)}; not run here"
            )
            return
        try:
            status = self.run_session(question.id, session, cwd)
        finally:
            self.stop()  # a signal: the run ends before the claim does
            with contextlib.suppress(InboxError):  # else it lapses with this process
                deferred.release_resume(self.store, question.id)
        if status is None:
            return
        after = self.store.get(question.id)
        if after is not None and after.deferred is not None:
            self.failed = True
            self.say(
                f"question {question.id}: the resumed run (exit status {status}) did not take "
                "its answer; it stays in the inbox"
            )
        elif status:
            self.failed = True
            self.say(f"question {question.id}: the resumed run ended with exit status {status}")

    def run_session(self, question_id: int, session: str, cwd: str) -> int | None:
        """Run Claude Code on ``session`` in ``cwd``, renewing this process's claim while it
        goes on; its exit status, or None when it cannot run."""
        argv = [*self.command, "-p", "--resume", session, *self.extra]
        self.say(f"question {question_id} was answered: {shlex.join(argv)} (in {cwd})")
        try:
            self.running = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL)
        except OSError as exc:
            self.failed = True
            self.say(f"cannot run {self.command[0]}: {exc.strerror or exc}")
            return None
        while True:
            try:
                status = self.running.wait(RENEW)
                break
            except subprocess.TimeoutExpired:
                with contextlib.suppress(InboxError):  # out of reach: it may lapse
                    deferred.still_resuming(self.store, question_id)
        self.running = None
        return status

    def stop(self) -> None:
        """A signal ends the run: the resumed Claude Code still going is stopped too."""
        child = self.running
        if child is None or child.poll() is not None:
            return
        with contextlib.suppress(OSError):
            child.terminate()
        try:
            child.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                child.kill()
            child.wait()


def resumed_by(holder: deferred.Resuming) -> str:
    """``is being resumed by another askcli resume (pid 4242, since 14:02)``."""
    where = "" if holder.host == asker_identity.me().host else f" on {holder.host}"
    pid = "" if holder.pid is None else f"pid {holder.pid}{where}, "
    return f"is being resumed by another askcli resume ({pid}{since(holder.since)})"


def ids(questions: Sequence[QueuedQuestion]) -> str:
    return ", ".join(f"#{q.id}" for q in questions)


def run(resumer: Resumer, timeout: float | None) -> int:
    """Resume each deferred session as its answer comes; the exit status: 0 every one
    resumed, 1 one could not be, 3 ``timeout`` passed with questions still unanswered."""
    deadline = None if timeout is None else time.monotonic() + timeout
    waiting_for: list[int] = []
    resumed_any = False
    while True:
        changes = resumer.store.changes()  # before the look: nothing after it is missed
        pending = resumer.pending()
        if not pending:
            if not resumed_any:
                resumer.say("no deferred question is waiting in the inbox")
            return ExitStatus.FAILED if resumer.failed else ExitStatus.OK
        ready = [q for q in pending if q.state is QueueState.ANSWERED]
        for question in ready:
            resumer.resume(question)
            resumed_any = True
        if ready:
            continue
        if [q.id for q in pending] != waiting_for:
            waiting_for = [q.id for q in pending]
            resumer.say(
                f"waiting for the answer to deferred question {ids(pending)} "
                f"(askcli inbox in {resumer.store.where})"
            )
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            resumer.say(
                f"no answer within {timeout:g} seconds; question {ids(pending)} stays "
                "deferred in the inbox"
            )
            return ExitStatus.NO_ANSWER
        changes.wait(None if left is None else min(left, 0.5))


def main(
    *, command: str, extra: Sequence[str], timeout: float | None, where: str | None = None
) -> int:
    """``askcli resume``: see the module."""
    signals.install()
    err = sys.stderr

    def say(text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            err.write(terminal_text(folded_for(err, f"askcli resume: {visible(text)}\n")))
            err.flush()

    try:
        words = shlex.split(command)
    except ValueError as exc:
        say(f"--command cannot be read: {exc}")
        return ExitStatus.USAGE
    if not words:
        say("--command is empty: name Claude Code's command (default: claude)")
        return ExitStatus.USAGE
    resumer: Resumer | None = None
    try:
        resumer = Resumer(open_store(where), words, extra, say)
        return run(resumer, timeout)
    except InboxError as exc:
        say(str(exc))
        return ExitStatus.FAILED
    except KeyboardInterrupt:
        if resumer is not None:
            resumer.stop()
        say(f"{signals.stop_notice()}: the deferred questions stay in the inbox")
        return signals.exit_status(ExitStatus.INTERRUPTED)
    finally:
        if resumer is not None:
            resumer.store.close()
