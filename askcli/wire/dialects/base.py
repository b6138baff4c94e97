"""What every dialect is (:class:`Dialect`) and what it is given (:class:`Asked`).

A :class:`Dialect` turns one agent's tool input into the shared question model
(:class:`~askcli.schema.shapes.AskInput`) and what the person did (:class:`Asked`) into the reply
that agent expects. The screens, the answer grammar, the journal, record / replay and
``--output`` are the same for every dialect; only the input's limits and the reply differ.
Adding a dialect means one module beside this one and its entry in the package's
:func:`~askcli.wire.dialects.by_tool` list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ...questions.outcome import Outcome
from ...questions.state import Conclusion
from ...schema.issues import Issue
from ...schema.shapes import AskInput
from ..envelopes import ToolCall
from ..results import ToolResult


class Asked(NamedTuple):
    """What came of asking one call: the conclusion of the conversation, and why nobody
    answered when nobody did (``no reply within 5 seconds``, ``the input ended``)."""

    call: ToolCall
    data: AskInput
    conclusion: Conclusion
    why: str | None = None

    @property
    def answers(self) -> Mapping[str, str]:
        """The answers by question text, in the order given (typed values as typed)."""
        return self.conclusion.state.answers

    @property
    def outcome(self) -> Outcome:
        """How asking ended (CLARIFIED: the person's words are :attr:`clarification`)."""
        return self.conclusion.outcome

    @property
    def clarification(self) -> str:
        return self.conclusion.state.clarification

    def fates(self) -> dict[str, str]:
        """Each question's fate by question text (:meth:`Outcome.fates`)."""
        return self.conclusion.fates()

    def selections(self, index: int) -> tuple[int, ...]:
        """The 1-based option numbers chosen at question ``index`` (Other included)."""
        return tuple(self.conclusion.state.selections.get(index, ()))

    def other_text(self, index: int) -> str | None:
        """What the person typed as Other at question ``index``, if they chose it."""
        state = self.conclusion.state
        question = state.questions[index]
        if question.other and question.other in self.selections(index):
            return state.other_text.get(index)
        return None

    def chosen_labels(self, index: int) -> list[str]:
        """The option labels chosen at question ``index``, in the order chosen (not Other)."""
        labels = self.conclusion.state.questions[index].labels
        return [labels[n - 1] for n in self.selections(index) if n <= len(labels)]

    def notes(self, index: int) -> str | None:
        return self.conclusion.state.notes.get(index)


class Dialect(NamedTuple):
    """One agent's question tool.

    ``tool``: the name its model calls; ``parse``: the raw input to the shared model
    (InvalidCall with the agent's own reasons); ``reply``: what the person did to the
    ToolResult the agent expects (its text in ``content``, a structured reply in
    ``reply``); ``definition``: the tool as that agent defines it for its model
    (``askcli schema --format NAME``); ``warnings``: soft rules for ``check --strict``;
    ``invalid``: the text the agent's model gets for input that fails ``parse`` (default:
    Claude Code's ``<tool_use_error>``).
    """

    name: str
    tool: str
    parse: Callable[[Any], AskInput]
    reply: Callable[[Asked], ToolResult]
    definition: Callable[[], dict[str, Any]]
    warnings: Callable[[Any], list[str]] = lambda _: []
    invalid: Callable[[list[Issue]], str] | None = None  # the agent's own invalid-input text


def failed(asked: Asked, text: str, **extra: Any) -> ToolResult:
    """A ToolResult for a call that was not answered, with how asking it ended."""
    return ToolResult(asked.call.id, text, asked.outcome, is_error=True, **extra)
