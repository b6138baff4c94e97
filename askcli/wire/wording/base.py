"""The wording base: :class:`Wording` words AskUserQuestion's results as Claude Code 2.1.88
did (``--wording claude-code-2.1.88``, the default), with the texts of
:mod:`askcli.wire.results`; :class:`~askcli.wire.wording.current.ClaudeCodeToday` words them
as the current release does. One object per wording, picked by name in
:mod:`askcli.wire.wording.registry`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...schema.issues import Issue
from ...schema.shapes import SharedQuestion
from ..results import answered_text, clarify_text, no_answer_text, validation_error_text

if TYPE_CHECKING:
    from ...questions.state import AnswerState
    from ...schema.shapes import AskInput


class Wording:
    """How AskUserQuestion's results are worded (``--wording``): this class words them as
    Claude Code 2.1.88 did, the default; :class:`~askcli.wire.wording.current.ClaudeCodeToday`,
    the current release. One object per wording, picked by name in :mod:`.registry`."""

    name = "claude-code-2.1.88"

    def prepare(self, data: AskInput) -> AskInput:
        """The call as it is asked: 2.1.88 requires every answer."""
        return data

    def answers(self, state: AnswerState) -> dict[str, str]:
        """The answers as the result gives them: a multi-select's labels joined by ``, ``."""
        return dict(state.answers)

    def answered_text(
        self,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        annotations: Mapping[str, Mapping[str, str]],
    ) -> str:
        """The text of submitted answers."""
        return answered_text(answers, annotations)

    def clarify_text(
        self,
        words: str,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        notes: Mapping[str, str],
    ) -> str:
        """The text of "chat about this" with the person's ``words``."""
        return clarify_text(words, [q.question for q in questions], answers)

    def follow_up_text(
        self,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        annotations: Mapping[str, Mapping[str, str]],
        response: str,
    ) -> str:
        """The person asked for more questions first (``m``); 2.1.88 had no such answer,
        so the current release's text is used."""
        from . import texts

        listed = texts.answer_list(questions, answers, annotations)
        return texts.follow_up_text(listed, response)

    def responded_text(self, response: str) -> str:
        """Free text typed instead of choosing (``r``): as :meth:`follow_up_text`, the
        current release's text."""
        from . import texts

        return texts.responded_text(response)

    def no_answer_text(
        self,
        why: str,
        idle: float | None,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        annotations: Mapping[str, Mapping[str, str]],
    ) -> str:
        """Nobody answered: ``why``; ``idle`` is the ``--timeout`` that ran out (None when
        the answers ended)."""
        return no_answer_text(why, answers)

    def invalid_text(self, raw: object, issues: list[Issue]) -> str:
        """The text of an AskUserQuestion call (``raw``, its input) failing its schema."""
        return validation_error_text(issues)


CLAUDE_CODE_2_1_88 = Wording()
