"""Signals for the command line: Ctrl-C, a terminated process, a dropped SSH connection.

SIGINT, SIGTERM and SIGHUP all interrupt the current prompt (as KeyboardInterrupt does),
so that the call gets its result on stdout before askcli exits; the exit status then says
which signal it was. Ctrl-C is the person declining; after SIGTERM or SIGHUP the person
did not decline, no answer came (:func:`no_answer_reason`). Later signals are ignored while
the results are written.

``askcli claude`` (``every_sigint``): each Ctrl-C interrupts (the first stops Claude Code's
turn, a second ends the session); the first SIGTERM or SIGHUP interrupts even after a
Ctrl-C; once the session is ending (:func:`settle`) every signal is ignored, so that Claude
Code is always ended and the status written.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from types import FrameType

from ..status import ExitStatus
from ..wire.results import declined_text, no_answer_text

STATUS_OF_SIGNAL = {
    signal.SIGINT: ExitStatus.INTERRUPTED,
    signal.SIGTERM: ExitStatus.TERMINATED,
    signal.SIGHUP: ExitStatus.HANGUP,
}
NO_ANSWER_REASON = {signal.SIGHUP: "the terminal hung up", signal.SIGTERM: "askcli was stopped"}
_received: list[int] = []
_settled: list[bool] = []


def _handler(signum: int, frame: FrameType | None) -> None:
    if _received:
        return  # the first one is being handled: let the results be written
    _received.append(signum)
    raise KeyboardInterrupt


def _hosting(signum: int, frame: FrameType | None) -> None:
    if _settled or received_other_than_sigint():
        return  # askcli is ending: let Claude Code be ended and the status written
    _received.append(signum)
    raise KeyboardInterrupt


def install(*, every_sigint: bool = False) -> None:
    """Handle the three signals; with ``every_sigint`` each Ctrl-C interrupts (``askcli
    claude``: the first stops Claude Code's turn, a second ends the session)."""
    for sig in STATUS_OF_SIGNAL:
        signal.signal(sig, _hosting if every_sigint else _handler)


def settle() -> None:
    """askcli is ending: from now on the ``every_sigint`` handlers ignore every signal."""
    _settled.append(True)


def received_count() -> int:
    """How many signals the handlers took so far (one that arrived during a read is known
    by the count going up)."""
    return len(_received)


def received_other_than_sigint() -> bool:
    """A SIGTERM or SIGHUP arrived: askcli is asked to end, not to interrupt a turn."""
    return any(sig != signal.SIGINT for sig in _received)


STOP_NOTICE = {signal.SIGHUP: "the terminal hung up (SIGHUP)", signal.SIGTERM: "stopped (SIGTERM)"}


def _stopping() -> signal.Signals | None:
    """The first SIGTERM or SIGHUP received (even after a Ctrl-C), if any."""
    if not _received:  # the usual case, asked after every call
        return None
    return next((signal.Signals(sig) for sig in _received if sig != signal.SIGINT), None)


def no_answer_reason() -> str | None:
    """Why no answer came, when a SIGTERM or SIGHUP stopped askcli; None when nothing did,
    or only Ctrl-C (the person's decline)."""
    sig = _stopping()
    return None if sig is None else NO_ANSWER_REASON.get(sig)


def interrupted_text(answers: Mapping[str, str]) -> str:
    """The result of a call that askcli stopped asking, keeping the answers typed so far:
    after Ctrl-C the person's decline; after SIGHUP or SIGTERM no answer came (the person
    did not decline), saying why."""
    why = no_answer_reason()
    if why is not None:
        return no_answer_text(why, answers)
    return declined_text(answers)


def stop_notice() -> str:
    """The ``askcli: ...`` line when a run stops: Ctrl-C, or the signal that stopped it."""
    sig = _stopping()
    if sig is None:
        return "interrupted"
    return STOP_NOTICE.get(sig, "interrupted")


def exit_status(status: ExitStatus) -> int:
    """The process exit status for a run that ended with ``status``: a SIGTERM or SIGHUP
    says so (even after a Ctrl-C), else a Ctrl-C gives 130."""
    if status is ExitStatus.INTERRUPTED and _received:
        return STATUS_OF_SIGNAL.get(_stopping() or signal.Signals(_received[0]), int(status))
    return int(status)
