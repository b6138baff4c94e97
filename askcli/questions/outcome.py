"""How asking one call ended: one word (:class:`Outcome`), and from it, in one table, the
exit status the call gives and the fate of each of its questions.

The reducer (:mod:`askcli.questions.state`) ends in the outcomes the person decides
(answered, follow-up, responded, declined, clarified); the conversation adds those where the
person decided nothing (Ctrl-C, a signal, ``--timeout``, the answers ending); a call that
fails its schema is never asked (invalid). Every tool's :class:`~askcli.wire.results.ToolResult`
carries one, and a host ends its session from it.
"""

from __future__ import annotations

import enum
from collections.abc import Container, Sequence

from ..status import ExitStatus

ANSWERED_FATE = "answered"
SKIPPED_FATE = "skipped"  # a question the submitted answers leave open


class Outcome(enum.Enum):
    """How asking one call ended (for any tool: a permission allowed is answered, denied
    declined). Each member's row is the table: its name, the exit status it gives
    (:attr:`status`) and what became of the call's questions (:attr:`fate`)."""

    # the submitted answers (a permission: allowed)
    ANSWERED = ("answered", ExitStatus.ANSWERED, ANSWERED_FATE)
    # submitted, asking for more questions first (m)
    FOLLOW_UP = ("follow-up", ExitStatus.ANSWERED, ANSWERED_FATE)
    # free text typed instead of choosing (r)
    RESPONDED = ("responded", ExitStatus.ANSWERED, ANSWERED_FATE)
    # the person said no
    DECLINED = ("declined", ExitStatus.DECLINED, "declined")
    # "chat about this": a no, with the person's words
    CLARIFIED = ("clarified", ExitStatus.DECLINED, "declined")
    # Ctrl-C: the person's decline
    INTERRUPTED = ("interrupted", ExitStatus.INTERRUPTED, "declined")
    # SIGTERM or SIGHUP stopped askcli: nobody declined
    STOPPED = ("stopped", ExitStatus.INTERRUPTED, "dismissed")
    # the answers ended first (Ctrl-D, the question withdrawn or gone)
    ENDED = ("ended", ExitStatus.NO_ANSWER, "dismissed")
    # no line within --timeout
    TIMED_OUT = ("timed out", ExitStatus.NO_ANSWER, "timed out")
    # the call fails its schema, or cannot be read: never asked
    INVALID = ("invalid", ExitStatus.INVALID, "invalid")

    def __init__(self, word: str, status: ExitStatus, fate: str) -> None:
        # word: the value's own, so that no two members are one (aliases)
        self.status = status  # the exit status of a call that ended so
        self.fate = fate  # the fate of its questions (answered: see fates())

    @property
    def decided(self) -> bool:
        """The person decided (answered or declined, not Ctrl-C): the reducer's own ends."""
        return self.status is ExitStatus.ANSWERED or self.status is ExitStatus.DECLINED

    def fates(self, questions: Sequence[str], answered: Container[str]) -> dict[str, str]:
        """Each question's fate by question text: :attr:`fate`, but ``skipped`` for a
        question the submitted answers leave open (not in ``answered``)."""
        if self.status is not ExitStatus.ANSWERED:
            return dict.fromkeys(questions, self.fate)
        return {q: ANSWERED_FATE if q in answered else SKIPPED_FATE for q in questions}

    @classmethod
    def of_status(cls, status: ExitStatus) -> Outcome:
        """The first outcome giving ``status``, for a result that kept only its status (the
        inbox's replies); ValueError for a status no call gives (OUTPUT_FAILED, a signal's)."""
        for outcome in cls:
            if outcome.status is status:
                return outcome
        raise ValueError(f"no call ends with the exit status {int(status)}")
