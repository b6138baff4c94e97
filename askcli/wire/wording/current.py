"""``--wording claude-code``: :class:`ClaudeCodeToday` words AskUserQuestion's results with
the current Claude Code release's texts (:mod:`.texts`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...schema.issues import Issue
from ...schema.shapes import SharedQuestion
from ..results import validation_error_text
from .base import Wording
from .texts import answer_list, answered_text, clarify_text, idle_text, join_labels, steer

if TYPE_CHECKING:
    from ...questions.state import AnswerState
    from ...schema.shapes import AskInput


class ClaudeCodeToday(Wording):
    """``--wording claude-code``: the current release's texts, and every question may be
    left unanswered, as in Claude Code's dialog."""

    name = "claude-code"

    def prepare(self, data: AskInput) -> AskInput:
        return data._replace(questions=tuple(q._replace(required=False) for q in data.questions))

    def answers(self, state: AnswerState) -> dict[str, str]:
        """As Claude Code's dialog writes them: a multi-select's labels joined by
        :func:`join_labels` (a label holding ``", "`` quoted)."""
        out = dict(state.answers)
        for i, question in enumerate(state.questions):
            if question.multi and state.selections.get(i) and question.text in out:
                out[question.text] = join_labels(state.parts(i))
        return out

    def answered_text(
        self,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        annotations: Mapping[str, Mapping[str, str]],
    ) -> str:
        return answered_text(questions, answers, annotations)

    def clarify_text(
        self,
        words: str,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        notes: Mapping[str, str],
    ) -> str:
        return clarify_text(words, [q.question for q in questions], answers, notes)

    def no_answer_text(
        self,
        why: str,
        idle: float | None,
        questions: Sequence[SharedQuestion],
        answers: Mapping[str, str],
        annotations: Mapping[str, Mapping[str, str]],
    ) -> str:
        """Claude Code's idle text when the ``--timeout`` ran out."""
        if idle:
            return idle_text(idle, answer_list(questions, answers, annotations))
        return super().no_answer_text(why, idle, questions, answers, annotations)

    def invalid_text(self, raw: object, issues: list[Issue]) -> str:
        """Claude Code's advice first, where it gives one (:func:`steer`)."""
        return validation_error_text(issues, steer(raw))


CLAUDE_CODE = ClaudeCodeToday()
