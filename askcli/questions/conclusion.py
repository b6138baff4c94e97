"""How asking one call ended: the final state and the :class:`~.outcome.Outcome`.

Pure: the tools that ask (:mod:`askcli.tools.repl`) make a :class:`Conclusion`; the dialects
(:mod:`askcli.wire.dialects`) and the terminal read it.
"""

from __future__ import annotations

from typing import NamedTuple

from .outcome import Outcome
from .state import AnswerState


class Conclusion(NamedTuple):
    """Where the answers stood, and how asking ended: the person's decision
    (``state.outcome``) or what ended it before one (Ctrl-C, a signal, a timeout, the end of
    the answers)."""

    state: AnswerState
    outcome: Outcome

    def fates(self) -> dict[str, str]:
        """Each question's fate by question text (:meth:`Outcome.fates`)."""
        return self.outcome.fates([q.text for q in self.state.questions], self.state.answers)
