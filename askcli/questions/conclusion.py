"""How asking one call ended: the final state, how the conversation ended, each question's fate.

Pure: the tools that ask (:mod:`askcli.tools.repl`) make a :class:`Conclusion`; the dialects
(:mod:`askcli.wire.dialects`) and the terminal read it.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from .state import AnswerState, Finish


class Ending(enum.Enum):
    """How a conversation with the person ended."""

    DONE = "done"  # the person decided
    ENDED = "ended"  # the answer stream ended first
    TIMEOUT = "timeout"  # no line within the timeout
    INTERRUPTED = "interrupted"  # Ctrl-C


class Conclusion(NamedTuple):
    state: AnswerState
    ending: Ending


def fates(conclusion: Conclusion, *, stopped: bool) -> dict[str, str]:
    """Each question's fate, by question text: ``answered`` or ``skipped`` when the answers
    were submitted; else ``declined`` (the person said no, chatted, or pressed Ctrl-C),
    ``timed out`` (``--timeout``) or ``dismissed`` (the answers ended, the terminal hung
    up, askcli was told to stop: ``stopped``, for an interrupted conversation)."""
    state, ending = conclusion.state, conclusion.ending
    if ending is Ending.DONE and state.outcome in (
        Finish.SUBMITTED,
        Finish.FOLLOW_UP,
        Finish.RESPONDED,
    ):
        answered = state.answers
        return {q.text: "answered" if q.text in answered else "skipped" for q in state.questions}
    if ending is Ending.TIMEOUT:
        fate = "timed out"
    elif ending is Ending.DONE:
        fate = "declined"
    elif ending is Ending.INTERRUPTED:
        fate = "dismissed" if stopped else "declined"
    else:
        fate = "dismissed"
    return {q.text: fate for q in state.questions}
