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

A SIGHUP that askcli was started ignoring (``nohup``) stays ignored: askcli goes on when the
terminal goes, as it was asked to. A terminal that hung up is still seen where the answers
are read from it (:func:`hung_up`), and ends the wait as SIGHUP does.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from types import FrameType

from ..questions.outcome import Outcome
from ..status import ExitStatus
from ..wire.results import declined_text, no_answer_text

STATUS_OF_SIGNAL = {
    signal.SIGINT: ExitStatus.INTERRUPTED,
    signal.SIGTERM: ExitStatus.TERMINATED,
    signal.SIGHUP: ExitStatus.HANGUP,
}
HUNG_UP = "the terminal hung up"
NO_ANSWER_REASON = {signal.SIGHUP: HUNG_UP, signal.SIGTERM: "askcli was stopped"}
_received: list[int] = []
_settled: list[bool] = []
_handlers: list[Callable[[int, FrameType | None], None]] = []  # the one install() put in
_read_hang_up: list[bool] = []  # the hang-up was seen by a read, no SIGHUP came


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
    claude``: the first stops Claude Code's turn, a second ends the session). A SIGHUP
    ignored from the start stays ignored (:func:`handled`)."""
    handler = _hosting if every_sigint else _handler
    _handlers[:] = [handler]
    for sig in handled():
        signal.signal(sig, handler)


def handled() -> list[signal.Signals]:
    """The signals askcli handles: SIGINT, SIGTERM, and SIGHUP unless it is ignored (askcli
    was started by ``nohup``, or by a parent that ignores it)."""
    return [
        sig
        for sig in STATUS_OF_SIGNAL
        if sig != signal.SIGHUP or signal.getsignal(sig) != signal.SIG_IGN
    ]


def hung_up() -> None:
    """The terminal the answers are read from went away, seen by the read (its end was not a
    Ctrl-D): the same as SIGHUP's arrival, whether SIGHUP was ignored, withheld by a parent,
    or is still on its way. Raises KeyboardInterrupt as the handler would; nothing before
    :func:`install` (the Python API: the input ended) or when the handler would ignore it."""
    if not _handlers:
        return
    if signal.SIGHUP not in _received:
        _read_hang_up.append(True)
    _handlers[0](signal.SIGHUP, None)


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


def interruption() -> Outcome:
    """How a call that a signal interrupted ended: STOPPED after SIGTERM or SIGHUP,
    INTERRUPTED after Ctrl-C alone (the person's decline)."""
    return Outcome.INTERRUPTED if no_answer_reason() is None else Outcome.STOPPED


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
    if sig == signal.SIGHUP and _read_hang_up:
        return "the terminal hung up"
    return STOP_NOTICE.get(sig, "interrupted")


def exit_status(status: ExitStatus) -> int:
    """The process exit status for a run that ended with ``status``: a SIGTERM or SIGHUP
    says so (even after a Ctrl-C), else a Ctrl-C gives 130."""
    if status is ExitStatus.INTERRUPTED and _received:
        return STATUS_OF_SIGNAL.get(_stopping() or signal.Signals(_received[0]), int(status))
    return int(status)
