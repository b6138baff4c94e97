"""The question state machine: Claude Code 2.1.88's ``useMultipleChoiceState`` reducer.

:func:`start` builds the state for a call and :func:`reduce` applies one action to it,
returning a new state or raising :class:`~askcli.errors.Refused` with the reason an action
does not fit. No I/O happens here; the REPL reads lines, parses them into actions
(:mod:`askcli.questions.answers`) and draws whatever state comes back, and ends with a
:class:`Conclusion`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import Refused
from ..records import same_kind
from ..schema.shapes import PLAIN, AskInput, SharedQuestion, is_recommended
from ..schema.value_rules import ValueRule
from .answers import (
    Adjust,
    Back,
    Clarify,
    Confirm,
    Decline,
    Default,
    FollowUp,
    Notes,
    OneLine,
    Pick,
    Reopen,
    Respond,
    Skip,
    Submit,
    normalize,
    parse_part,
)
from .outcome import Outcome

TEXT_RULE = ValueRule()

ANSWER_SEPARATOR = ", "
_EMPTY: Mapping[Any, Any] = MappingProxyType({})


@same_kind
class QuestionSpec(NamedTuple):
    """What the state machine needs of one question. ``rule`` set: a typed answer (text or
    number) instead of options; ``has_other``: the automatic Other is offered; ``required``:
    the review submits only once it is answered."""

    text: str
    labels: tuple[str, ...]
    previews: tuple[str | None, ...]
    multi: bool
    rule: ValueRule | None = None
    has_other: bool = True
    required: bool = True
    min_items: int | None = None
    max_items: int | None = None
    yesno: bool = False
    takes_notes: bool = True

    @property
    def typed(self) -> bool:
        return self.rule is not None

    @property
    def choices(self) -> int:
        """How many numbers there are to choose from, Other included."""
        return len(self.labels) + (1 if self.has_other else 0)

    @property
    def other(self) -> int:
        """Other's 1-based number, the one after the last option; 0 when not offered."""
        return len(self.labels) + 1 if self.has_other else 0

    @property
    def recommended(self) -> bool:
        return is_recommended(self.labels[0])


class Mode(enum.Enum):
    """What the reducer waits for, and the screens draw. Once asking ended the mode stays
    as it was: whether and how it ended is :attr:`AnswerState.outcome` alone."""

    QUESTION = "question"  # waiting for an answer line at questions[at]
    OTHER_TEXT = "other"  # waiting for Other's free text
    CLARIFY_TEXT = "clarify"  # waiting for the words of "chat about this"
    RESPOND_TEXT = "respond"  # waiting for free text instead of choosing (r)
    REVIEW = "review"  # the submit screen
    CONFIRM_DECLINE = "confirm"  # q after answers were given: asked once to be sure


@same_kind
class Text(NamedTuple):
    """A line of free text (Other's answer, or what the person wants to clarify)."""

    text: str


Action = (
    Pick
    | Default
    | Notes
    | Back
    | Skip
    | Decline
    | Clarify
    | Submit
    | Reopen
    | Text
    | Adjust
    | OneLine
    | Confirm
    | FollowUp
    | Respond
)


@same_kind
class AnswerState(NamedTuple):
    questions: tuple[QuestionSpec, ...]
    at: int = 0  # the question shown, len(questions) for the review
    mode: Mode = Mode.QUESTION
    # question text -> answer, in the order first given: like Claude Code 2.1.88's reducer, whose
    # object spread keeps a key where it was first set, and so the result text's order
    answers: Mapping[str, str] = _EMPTY
    selections: Mapping[int, tuple[int, ...]] = _EMPTY  # 1-based numbers
    other_text: Mapping[int, str] = _EMPTY
    notes: Mapping[int, str] = _EMPTY
    previews: Mapping[int, str] = _EMPTY  # the chosen option's preview
    # answers the call itself carried (a model wrote them): shown as the default of their
    # question, for the person to confirm or change; never an answer until then
    suggested: Mapping[int, tuple[int, ...]] = _EMPTY
    suggested_text: Mapping[int, str] = _EMPTY  # the same for a typed question
    pending: tuple[int, ...] = ()  # a selection waiting for Other's text
    reviewing: bool = False  # a question reopened from the review returns there
    outcome: Outcome | None = None  # how the person ended it (answered, declined, ...)
    clarification: str = ""
    always_review: bool = False  # even a lone single-select question is reviewed
    extras: bool = False  # m (more questions) and r (free text) are taken
    response: str = ""  # the free text of r, or the words with m

    @property
    def show_review(self) -> bool:
        """Claude Code 2.1.88 hides the submit view only for a single single-select question."""
        return self.always_review or len(self.questions) > 1 or self.questions[0].multi

    @property
    def current(self) -> QuestionSpec:
        return self.questions[self.at]

    def default_numbers(self) -> tuple[int, ...] | None:
        """What an empty line takes at the current question, if anything: the person's
        answer, else the one the call suggested, else a recommended first option."""
        if self.current.rule is not None:
            return None
        chosen = self.selections.get(self.at) or self.suggested.get(self.at)
        if chosen:
            return chosen
        return (1,) if self.current.labels and self.current.recommended else None

    def unanswered(self) -> list[int]:
        """The questions (1-based) the review cannot submit without: required, no answer."""
        return [
            i + 1 for i, q in enumerate(self.questions) if q.required and q.text not in self.answers
        ]

    def default_text(self) -> str | None:
        """What an empty line takes at a typed question: its answer, else the suggested."""
        question = self.current
        if question.text in self.answers:
            return self.answers[question.text]
        return self.suggested_text.get(self.at)

    def parts(self, index: int) -> list[str]:
        """Question ``index``'s chosen labels in the order typed, Other's text as one part."""
        labels, other = self.questions[index].labels, self.questions[index].other
        return [
            self.other_text.get(index, "") if n == other else labels[n - 1]
            for n in self.selections.get(index, ())
            if n == other or n <= len(labels)
        ]

    def listed(self) -> dict[str, str | list[str]]:
        """The answers for scripts: a multi-select's as the list of its :meth:`parts` (a
        label may hold ``", "``, so the joined text cannot be split back), the rest as
        given."""
        out: dict[str, str | list[str]] = dict(self.answers)
        for i, question in enumerate(self.questions):
            if question.multi and question.text in out and self.selections.get(i):
                out[question.text] = self.parts(i)
        return out


def spec(q: SharedQuestion) -> QuestionSpec:
    """The state machine's view of one question of the shared model."""
    labels = tuple([o.label for o in q.options])
    previews = tuple([o.preview for o in q.options])
    if q[4:] == PLAIN:  # an AskUserQuestion question, the usual case: made quickly
        return _new_spec((q.question, labels, previews, q.multiSelect, *_PLAIN_SPEC))
    rule = (q.rule or TEXT_RULE) if q.typed else None
    return QuestionSpec(
        q.question,
        () if rule else labels,
        () if rule else previews,
        q.multiSelect and rule is None,
        rule,
        q.other and rule is None,
        q.required,
        q.min_items,
        q.max_items,
        q.kind == "yesno",
        q.notes,
    )


_new_spec = QuestionSpec._make
_PLAIN_SPEC = tuple(QuestionSpec._field_defaults[name] for name in QuestionSpec._fields[4:])


class Conclusion(NamedTuple):
    """How asking one call ended: where the answers stood, and the outcome, the person's
    decision (``state.outcome``) or what ended asking before one (Ctrl-C, a signal, a
    timeout, the end of the answers). The tools that ask make it; the dialects read it."""

    state: AnswerState
    outcome: Outcome

    def fates(self) -> dict[str, str]:
        """Each question's fate by question text (:meth:`Outcome.fates`)."""
        return self.outcome.fates([q.text for q in self.state.questions], self.state.answers)


def specs(data: AskInput) -> tuple[QuestionSpec, ...]:
    return tuple([spec(q) for q in data.questions])


def start(
    questions: tuple[QuestionSpec, ...],
    given: Mapping[str, str] | None = None,
    notes: Mapping[str, str] | None = None,
    *,
    review: bool = False,
    extras: bool = False,
) -> AnswerState:
    """The state before the first line. Answers in ``given`` (the call's own ``answers``)
    become the pre-selected defaults of their questions, and ``notes`` (the call's own
    annotation notes) their notes: the person sees, confirms or changes each one. Keys that
    name no question are ignored (see :func:`foreign_keys`); an empty answer does not count,
    as in Claude Code."""
    if not given and not notes:  # the usual call: nothing suggested
        return AnswerState(questions=questions, always_review=review, extras=extras)
    given = given or {}
    notes = notes or {}
    suggested: dict[int, tuple[int, ...]] = {}
    suggested_text: dict[int, str] = {}
    other_text: dict[int, str] = {}
    kept_notes: dict[int, str] = {}
    for i, question in enumerate(questions):
        answer = given.get(question.text)
        if isinstance(answer, str) and answer and question.typed:
            suggested_text[i] = answer
        elif isinstance(answer, str) and answer:
            numbers, other = _numbers_for(question, answer)
            if numbers:
                suggested[i] = numbers
            if other is not None:
                other_text[i] = other
        note = notes.get(question.text)
        if isinstance(note, str) and note.strip():
            kept_notes[i] = note.strip()
    return AnswerState(
        questions=questions,
        suggested=suggested,
        suggested_text=suggested_text,
        other_text=other_text,
        notes=kept_notes,
        always_review=review,
        extras=extras,
    )


def foreign_keys(
    questions: tuple[QuestionSpec, ...], given: Mapping[str, object] | None
) -> list[str]:
    """The keys of ``given`` that name no question of the call: a model may not answer
    (or annotate) questions the person is never shown."""
    texts = {q.text for q in questions}
    return [key for key in given or {} if key not in texts]


def _numbers_for(question: QuestionSpec, answer: str) -> tuple[tuple[int, ...], str | None]:
    """The option numbers an answer text stands for, and Other's text if it needs one.
    Without Other, text that is no option's label is dropped."""
    if answer in question.labels:
        return (question.labels.index(answer) + 1,), None
    if question.multi:
        parts = answer.split(ANSWER_SEPARATOR)
        numbers = [question.labels.index(p) + 1 for p in parts if p in question.labels]
        rest = [p for p in parts if p not in question.labels]
        if not rest or not question.has_other:
            return tuple(dict.fromkeys(numbers)), None
        return (*dict.fromkeys(numbers), question.other), ANSWER_SEPARATOR.join(rest)
    if not question.has_other:
        return (), None
    return (question.other,), answer


def reduce(state: AnswerState, action: Action) -> AnswerState:
    """Apply one action; raise Refused (state unchanged) when it does not fit."""
    if state.outcome is not None:
        raise Refused("the questions are already answered")
    if state.mode is Mode.QUESTION and isinstance(action, Pick):  # the usual lines
        return _pick(state, action.numbers)
    if state.mode is Mode.REVIEW and isinstance(action, Submit):
        return _review(state, action)
    if state.mode is Mode.CONFIRM_DECLINE:
        if not isinstance(action, Confirm):
            raise Refused("type y to decline, or n (or Enter) to go back")
        return _finish(state, Outcome.DECLINED) if action.yes else _back_from_prompt(state)
    if state.mode in (Mode.OTHER_TEXT, Mode.CLARIFY_TEXT, Mode.RESPOND_TEXT):
        text = _text(action)
        if normalize(text).lower() in ("", "b"):  # leave the sub-prompt
            return _back_from_prompt(state)
        if state.mode is Mode.OTHER_TEXT:
            return _choose(state, state.pending, text)
        if state.mode is Mode.RESPOND_TEXT:
            return _finish(state, Outcome.RESPONDED)._replace(response=text)
        return _finish(state, Outcome.CLARIFIED, clarification=text)
    if isinstance(action, Decline):
        if state.answers:  # something would be lost: asked once
            return state._replace(mode=Mode.CONFIRM_DECLINE, pending=())
        return _finish(state, Outcome.DECLINED)
    if isinstance(action, FollowUp | Respond):
        if not state.extras:
            raise Refused("this agent takes no m or r; answer the questions, or c to chat")
        if isinstance(action, FollowUp):
            return _finish(state, Outcome.FOLLOW_UP)._replace(response=action.text or "")
        if action.text:
            return _finish(state, Outcome.RESPONDED)._replace(response=_utf8(action.text))
        return state._replace(mode=Mode.RESPOND_TEXT)
    if isinstance(action, Clarify):
        if action.text:
            return _finish(state, Outcome.CLARIFIED, clarification=action.text)
        return state._replace(mode=Mode.CLARIFY_TEXT)
    if state.mode is Mode.REVIEW:
        return _review(state, action)
    return _question(state, action)


def _text(action: Action) -> str:
    if not isinstance(action, Text):
        raise Refused("a line of text is expected here")
    return _utf8(action.text)


def _utf8(text: str) -> str:
    """``text``, refused when bytes that were not UTF-8 came in it."""
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        raise Refused("that line is not valid UTF-8; type it again")
    return text


def _back_from_prompt(state: AnswerState) -> AnswerState:
    """Back to the question or review a sub-prompt (Other, chat, decline) came from."""
    mode = Mode.REVIEW if state.at == len(state.questions) else Mode.QUESTION
    return state._replace(mode=mode, pending=())


def _finish(state: AnswerState, outcome: Outcome, *, clarification: str = "") -> AnswerState:
    return state._replace(**_finished(outcome, clarification))


def _finished(outcome: Outcome, clarification: str = "") -> dict[str, Any]:
    return {"outcome": outcome, "clarification": clarification, "pending": ()}


def _question(state: AnswerState, action: Action) -> AnswerState:
    if state.current.rule is not None and isinstance(action, Default | Text):
        text = state.default_text() if isinstance(action, Default) else _text(action)
        if text is None:
            raise Refused(f"type {_typed_what(state.current)}, or ? for help")
        return _advance(_record_text(state, text))
    if isinstance(action, Default):
        numbers = state.default_numbers()
        if numbers is None:
            raise Refused(
                f"there is no default here; type an option number from 1-{state.current.choices}"
            )
        if state.current.other in numbers and state.at in state.other_text:
            return _choose(state, numbers, state.other_text[state.at])
        action = Pick(numbers)
    if isinstance(action, Pick):
        return _pick(state, action.numbers)
    if isinstance(action, Adjust):
        return _adjust(state, action)
    if isinstance(action, OneLine):
        return _one_line(state, action)
    if isinstance(action, Notes):
        if not state.current.takes_notes:
            raise Refused("this agent has no place for notes; answer with an option or Other")
        notes = dict(state.notes)
        if action.text.strip():
            notes[state.at] = action.text.strip()
        else:
            notes.pop(state.at, None)
        return state._replace(notes=notes)
    if isinstance(action, Skip):
        if not state.show_review and not state.current.required:
            return _finish(state, Outcome.ANSWERED)  # a lone optional question, left out
        if not state.show_review:
            raise Refused("this is the only question; answer it, or q to decline")
        return _advance(state)
    if isinstance(action, Back):
        if state.at == 0:
            raise Refused("this is the first question; there is nothing before it")
        return state._replace(at=state.at - 1, reviewing=False)
    raise Refused("that is for the review screen")


def _pick(state: AnswerState, numbers: tuple[int, ...]) -> AnswerState:
    question = state.current
    if question.rule is not None:
        raise Refused(f"type {_typed_what(question)}")
    choices = question.choices
    if not numbers or min(numbers) < 1 or max(numbers) > choices:
        raise Refused(f"choose from 1-{choices}")
    if len(numbers) > 1 and not question.multi:
        raise Refused("this question takes one answer; type a single number")
    _check_items(question, numbers)
    if question.other in numbers:
        return state._replace(mode=Mode.OTHER_TEXT, pending=numbers)
    return _choose(state, numbers, None)


def _adjust(state: AnswerState, action: Adjust) -> AnswerState:
    """``+N`` / ``-N`` applied to the question's answer, else its suggested or default one."""
    question = state.current
    if not question.multi:
        raise Refused("this question takes one answer; +N and -N change a list of several")
    choices = question.choices
    numbers = list(state.default_numbers() or ())
    for add, n in action.changes:
        if not 1 <= n <= choices:
            raise Refused(f"there is no option {n}; choose from 1-{choices}")
        if add and n in numbers:
            raise Refused(f"option {n} is already chosen")
        if not add and n not in numbers:
            raise Refused(f"option {n} is not chosen, so it cannot be removed")
        if add:
            numbers.append(n)
        else:
            numbers.remove(n)
    if not numbers:
        raise Refused("that would leave nothing chosen; choose at least one option")
    if question.other in numbers and state.at in state.other_text:
        return _choose(state, tuple(numbers), state.other_text[state.at])
    return _pick(state, tuple(numbers))


def _one_line(state: AnswerState, action: OneLine) -> AnswerState:
    """Several answers at once; any part that does not fit refuses the whole line."""
    total = len(state.questions)
    if not action.parts:
        raise Refused("the line has no answers; type an option number")
    if not action.numbered and len(action.parts) > total:
        raise Refused(f"the line has {len(action.parts)} answers for {total} questions")
    new = state
    given: set[int] = set()
    for number, text in action.parts:
        if not 1 <= number <= total:
            raise Refused(f"there is no question {number}; the questions are 1-{total}")
        if number in given:
            raise Refused(f"question {number} is answered twice on the line")
        given.add(number)
        question = state.questions[number - 1]
        new = new._replace(at=number - 1)
        if question.typed:
            try:
                typed = text.strip() or new.default_text()
                if typed is None:
                    raise Refused(f"there is no default; type {_typed_what(question)}")
                new = _record_text(new, typed)
            except Refused as refused:
                raise Refused(f"question {number}: {refused}; nothing was changed") from None
            continue
        try:
            numbers, other = parse_part(
                text,
                count=question.choices,
                multi=question.multi,
                labels=question.labels,
                other=question.has_other,
                yesno=question.yesno,
            )
            if other is not None:
                _utf8(other)
            if numbers is None:
                numbers = new.default_numbers()
                if numbers is None:
                    raise Refused(
                        f"there is no default; type an option number from 1-{question.choices}"
                    )
                if question.other in numbers:
                    other = new.other_text.get(number - 1)
            _check_items(question, numbers)
        except Refused as refused:
            raise Refused(f"question {number}: {refused}; nothing was changed") from None
        new = _record(new, numbers, other)
    if new.show_review:
        return new._replace(at=total, mode=Mode.REVIEW, reviewing=False)
    return _finish(new, Outcome.ANSWERED)


def _typed_what(question: QuestionSpec) -> str:
    """What a typed question wants, for a refusal: ``a number from 1 to 10``."""
    rule = question.rule or TEXT_RULE
    return rule.describe() or "your answer"


def _check_items(question: QuestionSpec, numbers: tuple[int, ...]) -> None:
    """A multi-select's bounds (an MCP form's ``minItems`` / ``maxItems``)."""
    low, high = question.min_items, question.max_items
    if low is not None and len(numbers) < low:
        raise Refused(f"choose at least {low} option{'s' if low != 1 else ''}")
    if high is not None and len(numbers) > high:
        raise Refused(f"choose at most {high} option{'s' if high != 1 else ''}")


def _record_text(state: AnswerState, text: str) -> AnswerState:
    """A typed question's answer, checked against its rule."""
    question = state.current
    value = (question.rule or TEXT_RULE).check(_utf8(text))
    return state._replace(
        answers={**state.answers, question.text: value}, pending=(), mode=Mode.QUESTION
    )


def _choose(state: AnswerState, numbers: tuple[int, ...], other: str | None) -> AnswerState:
    """Record the answer for the current question and move on, in one new state."""
    return state._replace(**{**_recorded(state, numbers, other), **_moved_on(state)})


def _record(state: AnswerState, numbers: tuple[int, ...], other: str | None) -> AnswerState:
    """Record the answer for the current question."""
    return state._replace(**_recorded(state, numbers, other))


def _recorded(state: AnswerState, numbers: tuple[int, ...], other: str | None) -> dict[str, Any]:
    """The fields :func:`_record` changes."""
    question = state.current
    other_number = question.other
    parts = [(other or "") if n == other_number else question.labels[n - 1] for n in numbers]
    answers = {**state.answers, question.text: ANSWER_SEPARATOR.join(parts)}
    other_text = state.other_text
    if other is not None or state.at in other_text:
        other_text = {k: v for k, v in other_text.items() if k != state.at}
        if other is not None:
            other_text[state.at] = other
    previews = state.previews
    chosen_preview = (
        question.previews[numbers[0] - 1]
        if not question.multi and numbers[0] != other_number
        else None
    )
    if chosen_preview is not None or state.at in previews:
        previews = {k: v for k, v in previews.items() if k != state.at}
        if chosen_preview is not None:
            previews[state.at] = chosen_preview
    return {
        "answers": answers,
        "selections": {**state.selections, state.at: numbers},
        "other_text": other_text,
        "previews": previews,
        "pending": (),
        "mode": Mode.QUESTION,
    }


def _advance(state: AnswerState) -> AnswerState:
    return state._replace(**_moved_on(state))


def _moved_on(state: AnswerState) -> dict[str, Any]:
    """The fields that move ``state`` past its question: to the next one, to the review,
    or (where there is none) to the end, submitted."""
    if state.reviewing or state.at + 1 >= len(state.questions):
        if state.show_review:
            return {"at": len(state.questions), "mode": Mode.REVIEW, "reviewing": False}
        return _finished(Outcome.ANSWERED)
    return {"at": state.at + 1}


def _review(state: AnswerState, action: Action) -> AnswerState:
    if isinstance(action, Submit | Default):
        missing = state.unanswered()
        if not missing:
            return _finish(state, Outcome.ANSWERED)
        if isinstance(action, Submit):
            raise Refused(
                f"question {missing[0]} has no answer yet; Enter or {missing[0]} answers it"
            )
        action = Reopen(missing[0])  # Enter: to what still needs an answer
    if isinstance(action, Reopen):
        i = action.number - 1
        if not 0 <= i < len(state.questions):
            raise Refused(f"there is no question {action.number}")
        return state._replace(at=i, mode=Mode.QUESTION, reviewing=True)
    if isinstance(action, Back):
        last = len(state.questions) - 1
        return state._replace(at=last, mode=Mode.QUESTION, reviewing=False)
    raise Refused("press Enter or y to submit, a number to change an answer, q to decline")
