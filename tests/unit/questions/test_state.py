"""The question state machine, without any I/O."""

from __future__ import annotations

import re

import pytest

from askcli.errors import Refused
from askcli.questions.answers import (
    Adjust,
    Back,
    Clarify,
    Confirm,
    Decline,
    Default,
    Notes,
    OneLine,
    Pick,
    Reopen,
    Skip,
    Submit,
)
from askcli.questions.outcome import Outcome
from askcli.questions.state import (
    AnswerState,
    Mode,
    QuestionSpec,
    Text,
    foreign_keys,
    reduce,
    start,
)


def spec(
    text: str = "Q1?",
    labels: tuple[str, ...] = ("A", "B", "C"),
    multi: bool = False,
    previews: tuple[str | None, ...] | None = None,
) -> QuestionSpec:
    return QuestionSpec(text, labels, previews or (None,) * len(labels), multi)


def apply(state: AnswerState, *actions: object) -> AnswerState:
    for action in actions:
        state = reduce(state, action)  # type: ignore[arg-type]
    return state


ONE = (spec(),)
TWO = (spec("Q1?"), spec("Q2?", ("X", "Y"), multi=True))


def test_single_question_single_select_submits_without_review() -> None:
    state = apply(start(ONE), Pick((2,)))
    assert state.outcome is Outcome.ANSWERED
    assert state.answers == {"Q1?": "B"}


@pytest.mark.parametrize("action", [Pick((1,)), Submit(), Decline(), Text("x"), Back()])
def test_a_finished_state_refuses_every_action(action: object) -> None:
    answered = apply(start(ONE), Pick((2,)))  # the mode it was in stays: the outcome says
    declined = apply(start(TWO), Decline())
    for done in (answered, declined):
        with pytest.raises(Refused, match="the questions are already answered"):
            reduce(done, action)  # type: ignore[arg-type]


def test_single_multiselect_question_goes_to_review() -> None:
    state = apply(start((spec(multi=True),)), Pick((3, 1)))
    assert state.mode is Mode.REVIEW
    assert state.answers == {"Q1?": "C, A"}
    assert apply(state, Submit()).outcome is Outcome.ANSWERED


def test_questions_in_order_then_review() -> None:
    state = start(TWO)
    assert (state.at, state.mode) == (0, Mode.QUESTION)
    state = apply(state, Pick((1,)))
    assert (state.at, state.mode) == (1, Mode.QUESTION)
    state = apply(state, Pick((2, 1)))
    assert (state.at, state.mode) == (2, Mode.REVIEW)
    assert state.answers == {"Q1?": "A", "Q2?": "Y, X"}


def test_other_asks_for_text_then_uses_it() -> None:
    state = apply(start(ONE), Pick((4,)))
    assert state.mode is Mode.OTHER_TEXT
    state = apply(state, Text("my own"))
    assert state.answers == {"Q1?": "my own"}
    assert state.outcome is Outcome.ANSWERED


def test_other_text_is_kept_verbatim() -> None:
    state = apply(start(ONE), Pick((4,)), Text("  spaced out "))
    assert state.answers == {"Q1?": "  spaced out "}


def test_other_inside_a_multiselect_list_keeps_its_place() -> None:
    state = apply(start((spec(multi=True),)), Pick((2, 4, 1)), Text("mine"))
    assert state.answers == {"Q1?": "B, mine, A"}


@pytest.mark.parametrize("text", ["", "   ", "b", " B "])
def test_an_empty_line_or_b_at_the_other_prompt_goes_back_to_the_question(text: str) -> None:
    state = apply(start(TWO), Pick((1,)), Pick((3,)))
    assert state.mode is Mode.OTHER_TEXT
    state = reduce(state, Text(text))
    assert (state.mode, state.at, state.pending) == (Mode.QUESTION, 1, ())
    assert state.answers == {"Q1?": "A"}  # nothing recorded for question 2


def test_other_text_must_be_utf8() -> None:
    state = apply(start(ONE), Pick((4,)))
    with pytest.raises(Refused, match="not valid UTF-8"):
        reduce(state, Text("bad \udcff byte"))


def test_default_is_the_recommended_first_option() -> None:
    questions = (spec(labels=("Fast (Recommended)", "Slow")),)
    state = start(questions)
    assert state.default_numbers() == (1,)
    assert apply(state, Default()).answers == {"Q1?": "Fast (Recommended)"}


def test_no_default_without_a_recommendation() -> None:
    with pytest.raises(Refused, match="there is no default here"):
        reduce(start(ONE), Default())


def test_a_recommendation_that_is_not_first_is_no_default() -> None:
    state = start((spec(labels=("Slow", "Fast (Recommended)")),))
    assert state.default_numbers() is None


def test_default_on_a_revisited_question_keeps_the_answer() -> None:
    state = apply(start(TWO), Pick((4,)), Text("own"), Back())
    assert state.at == 0
    assert state.default_numbers() == (4,)
    state = apply(state, Default())
    assert state.answers["Q1?"] == "own"
    assert state.at == 1


def test_back_goes_to_the_previous_question_and_refuses_on_the_first() -> None:
    state = start(TWO)
    with pytest.raises(Refused, match="nothing before it"):
        reduce(state, Back())
    state = apply(state, Pick((1,)), Back())
    assert (state.at, state.mode) == (0, Mode.QUESTION)


def test_back_from_review_goes_to_the_last_question() -> None:
    state = apply(start(TWO), Pick((1,)), Pick((1,)), Back())
    assert (state.at, state.mode) == (1, Mode.QUESTION)


def test_reopen_from_review_returns_to_review() -> None:
    state = apply(start(TWO), Pick((1,)), Pick((1,)), Reopen(1))
    assert (state.at, state.mode) == (0, Mode.QUESTION)
    state = apply(state, Pick((3,)))
    assert state.mode is Mode.REVIEW
    assert state.answers == {"Q1?": "C", "Q2?": "X"}


def test_reopen_of_a_missing_question_is_refused() -> None:
    state = apply(start(TWO), Pick((1,)), Pick((1,)))
    with pytest.raises(Refused):
        reduce(state, Reopen(3))


def test_given_answers_are_defaults_the_person_confirms() -> None:
    state = start(TWO, {"Q1?": "B"})
    assert (state.at, state.answers) == (0, {})  # asked, and not an answer yet
    assert state.default_numbers() == (2,)
    state = apply(state, Default())
    assert state.answers == {"Q1?": "B"}
    state = apply(state, Pick((1,)), Reopen(1), Pick((3,)))  # and may be reopened
    assert apply(state, Submit()).answers == {"Q1?": "C", "Q2?": "X"}


def test_all_answers_given_still_asks_every_question() -> None:
    state = start(TWO, {"Q1?": "A", "Q2?": "Y, X"})
    assert (state.mode, state.at) == (Mode.QUESTION, 0)
    state = apply(state, Default(), Default())
    assert state.mode is Mode.REVIEW
    assert apply(state, Submit()).answers == {"Q1?": "A", "Q2?": "Y, X"}


def test_a_given_answer_that_is_no_label_is_suggested_as_other() -> None:
    state = start(TWO, {"Q1?": "my own", "Q2?": "Y, something else"})
    assert state.suggested == {0: (4,), 1: (2, 3)}
    state = apply(state, Default(), Default())
    assert state.answers == {"Q1?": "my own", "Q2?": "Y, something else"}


def test_answers_to_questions_not_in_the_call_are_not_kept() -> None:
    given = {"Other question?": "forged", "Q1?": "A"}
    assert foreign_keys(TWO, given) == ["Other question?"]
    state = apply(start(TWO, given), Default(), Pick((1,)), Submit())
    assert state.answers == {"Q1?": "A", "Q2?": "X"}


def test_notes_in_the_call_are_shown_as_notes_the_person_may_clear() -> None:
    state = start(TWO, notes={"Q1?": " from the model ", "Nope?": "x"})
    assert state.notes == {0: "from the model"}
    assert apply(state, Notes("")).notes == {}


def test_notes_are_set_replaced_and_cleared() -> None:
    state = apply(start(ONE), Notes("first"))
    assert state.notes == {0: "first"}
    state = apply(state, Notes("second"))
    assert state.notes == {0: "second"}
    state = apply(state, Notes(""))
    assert state.notes == {}


def test_choosing_an_option_with_a_preview_records_it() -> None:
    questions = (spec(previews=("code A", None, None)),)
    assert apply(start(questions), Pick((1,))).previews == {0: "code A"}
    assert apply(start(questions), Pick((2,))).previews == {}


def test_multiselect_records_no_preview() -> None:
    questions = (spec(multi=True, previews=("code A", None, None)),)
    assert apply(start(questions), Pick((1,))).previews == {}


def test_changing_to_an_option_without_preview_drops_it() -> None:
    questions = (spec("Q1?", previews=("code", None, None)), spec("Q2?"))
    state = apply(start(questions), Pick((1,)), Back(), Pick((2,)))
    assert state.previews == {}


def test_decline_with_nothing_answered_is_at_once() -> None:
    assert apply(start(TWO), Decline()).outcome is Outcome.DECLINED
    given = start(TWO, {"Q1?": "A"})  # the call's own answers are not the person's
    assert apply(given, Decline()).outcome is Outcome.DECLINED


@pytest.mark.parametrize("where", ["question", "review"])
def test_decline_after_answers_is_confirmed_once(where: str) -> None:
    state = apply(start(TWO), Pick((1,)))
    if where == "review":
        state = apply(state, Pick((1,)))
    asked = reduce(state, Decline())
    assert asked.mode is Mode.CONFIRM_DECLINE
    back = reduce(asked, Confirm(False))
    assert back == state  # back where it was, nothing lost
    with pytest.raises(Refused, match="type y to decline"):
        reduce(asked, Pick((1,)))
    assert reduce(asked, Confirm(True)).outcome is Outcome.DECLINED


@pytest.mark.parametrize("text", ["", "  ", "b"])
def test_an_empty_line_or_b_at_the_chat_prompt_goes_back(text: str) -> None:
    at_question = apply(start(TWO), Pick((2,)))
    assert apply(at_question, Clarify(), Text(text)) == at_question
    at_review = apply(at_question, Pick((1,)))
    assert apply(at_review, Clarify(), Text(text)) == at_review


def test_clarify_reads_words_then_ends() -> None:
    state = apply(start(TWO), Pick((2,)), Clarify())
    assert state.mode is Mode.CLARIFY_TEXT
    state = apply(state, Text("why these two?"))
    assert (state.outcome, state.clarification) == (Outcome.CLARIFIED, "why these two?")
    assert state.answers == {"Q1?": "B"}


def test_clarify_with_words_on_the_same_line() -> None:
    state = apply(start(ONE), Clarify("no idea"))
    assert (state.outcome, state.clarification) == (Outcome.CLARIFIED, "no idea")


def test_a_list_on_a_single_select_question_is_refused_by_the_state_too() -> None:
    with pytest.raises(Refused, match="one answer"):
        reduce(start(ONE), Pick((1, 2)))
    with pytest.raises(Refused):
        reduce(start(ONE), Pick((9,)))


def test_review_actions_are_refused_at_a_question() -> None:
    with pytest.raises(Refused):
        reduce(start(ONE), Submit())


def test_nothing_happens_after_the_end() -> None:
    state = apply(start(ONE), Decline())
    with pytest.raises(Refused):
        reduce(state, Pick((1,)))


def test_the_state_is_not_mutated() -> None:
    before = start(TWO)
    after = apply(before, Pick((1,)), Notes("x"))
    assert before.answers == {} and before.notes == {}
    assert after is not before


def test_skip_leaves_a_question_for_the_review() -> None:
    state = apply(start(TWO), Skip())
    assert (state.at, state.answers) == (1, {})
    state = apply(state, Pick((1,)))
    assert state.mode is Mode.REVIEW
    with pytest.raises(Refused, match="question 1 has no answer yet; Enter or 1 answers it"):
        reduce(state, Submit())
    assert (apply(state, Default()).mode, apply(state, Default()).at) == (Mode.QUESTION, 0)
    state = apply(state, Reopen(1), Pick((2,)))
    assert state.mode is Mode.REVIEW
    assert apply(state, Submit()).outcome is Outcome.ANSWERED


def test_answers_keep_the_order_they_were_first_given_like_the_seed() -> None:
    state = apply(start(TWO), Skip(), Pick((1,)), Reopen(1), Pick((2,)))
    assert list(state.answers) == ["Q2?", "Q1?"]
    state = apply(state, Reopen(2), Pick((2,)))  # changing an answer keeps its place
    assert list(state.answers) == ["Q2?", "Q1?"]
    assert state.answers == {"Q2?": "Y", "Q1?": "B"}


def test_skip_is_refused_when_there_is_no_review() -> None:
    with pytest.raises(Refused, match="the only question"):
        reduce(start(ONE), Skip())


def test_an_empty_given_answer_is_no_suggestion() -> None:
    state = start(TWO, {"Q1?": "", "Q2?": "X"})
    assert (state.at, state.suggested) == (0, {1: (1,)})
    state = apply(state, Pick((2,)), Default(), Submit())
    assert list(state.answers.items()) == [("Q1?", "B"), ("Q2?", "X")]


FOUR = (
    spec("Q1?", ("A (Recommended)", "B", "C"), multi=True),
    spec("Q2?", ("D", "E", "F")),
    spec("Q3?", ("G", "H")),
    spec("Q4?", ("I", "J")),
)


def one_line(parts: list[tuple[int, str]], numbered: bool = False) -> OneLine:
    return OneLine(tuple(parts), numbered)


def test_one_line_answers_every_question_in_order_then_the_review() -> None:
    line = one_line([(1, "1,3"), (2, "4=my own"), (3, ""), (4, "J")])
    with pytest.raises(Refused, match="question 3: there is no default"):
        reduce(start(FOUR), line)
    line = one_line([(1, "1,3"), (2, "4=my own"), (3, "2."), (4, "J")])
    state = reduce(start(FOUR), line)
    assert (state.mode, state.at) == (Mode.REVIEW, 4)
    assert state.answers == {"Q1?": "A (Recommended), C", "Q2?": "my own", "Q3?": "H", "Q4?": "J"}
    assert apply(state, Submit()).outcome is Outcome.ANSWERED


def test_one_line_empty_parts_take_each_default() -> None:
    state = start(FOUR, {"Q3?": "G"})
    state = reduce(state, one_line([(1, ""), (2, "1"), (3, ""), (4, "1")]))
    assert state.answers == {"Q1?": "A (Recommended)", "Q2?": "D", "Q3?": "G", "Q4?": "I"}


def test_one_line_by_question_number_leaves_the_rest_for_the_review() -> None:
    state = reduce(start(FOUR), one_line([(2, "2"), (1, "2-3")], numbered=True))
    assert state.mode is Mode.REVIEW
    assert state.answers == {"Q2?": "E", "Q1?": "B, C"}  # in the order given
    with pytest.raises(Refused, match="question 3 has no answer yet"):
        reduce(state, Submit())


@pytest.mark.parametrize(
    ("parts", "numbered", "reason"),
    [
        ([(1, "1"), (2, "1"), (3, "1"), (4, "1"), (5, "1")], False, "5 answers for 4 questions"),
        ([(5, "1")], True, "there is no question 5; the questions are 1-4"),
        ([(1, "1"), (1, "2")], True, "question 1 is answered twice"),
        ([(1, "1"), (2, "1,2")], False, "question 2: this question takes one answer"),
        ([(1, "1"), (2, "4")], False, "question 2: Other (4) needs its text"),
        ([(1, "1"), (2, "x")], False, "question 2: type an option number from 1-4"),
        ([(1, "9")], False, "question 1: there is no option 9"),
        ([(1, "1"), (2, "4=\udc80")], False, "question 2: that line is not valid UTF-8"),
    ],
)
def test_one_line_that_does_not_fit_changes_nothing(
    parts: list[tuple[int, str]], numbered: bool, reason: str
) -> None:
    state = apply(start(FOUR), Pick((2,)))
    with pytest.raises(Refused, match=re.escape(reason)) as refused:
        reduce(state, one_line(parts, numbered))
    assert "\n" not in str(refused.value)


def test_one_line_on_a_single_question_submits_it() -> None:
    assert reduce(start(ONE), one_line([(1, "2")])).outcome is Outcome.ANSWERED


def test_one_line_keeps_an_earlier_other_text_for_an_empty_part() -> None:
    state = apply(start(FOUR), Pick((2,)), Pick((4,)), Text("mine"), Back())
    state = reduce(state, one_line([(1, "1"), (2, ""), (3, "1"), (4, "1")]))
    assert state.answers["Q2?"] == "mine"


@pytest.mark.parametrize(
    ("before", "changes", "after"),
    [
        ((), ((True, 3),), "A (Recommended), C"),  # from the recommended default
        ((Pick((2,)), Back()), ((True, 3), (False, 2)), "C"),  # from the current answer
        ((Pick((1, 2)), Back()), ((False, 1),), "B"),
    ],
)
def test_plus_and_minus_change_the_current_or_default_selection(
    before: tuple[object, ...], changes: tuple[tuple[bool, int], ...], after: str
) -> None:
    state = apply(start(FOUR), *before)
    state = reduce(state, Adjust(changes))
    assert state.answers["Q1?"] == after
    assert state.at == 1  # answered: on to the next question


def test_plus_and_minus_from_the_suggested_answer() -> None:
    questions = (spec("Q1?", ("A", "B", "C"), multi=True),)
    state = start(questions, {"Q1?": "A, B"})
    assert reduce(state, Adjust(((False, 1),))).answers == {"Q1?": "B"}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        (((True, 1),), "option 1 is already chosen"),
        (((False, 2),), "option 2 is not chosen"),
        (((False, 1),), "leave nothing chosen"),
        (((True, 9),), "there is no option 9"),
    ],
)
def test_plus_and_minus_that_do_not_fit(changes: tuple[tuple[bool, int], ...], reason: str) -> None:
    with pytest.raises(Refused, match=reason):
        reduce(start(FOUR), Adjust(changes))


def test_plus_and_minus_on_single_select_are_refused() -> None:
    with pytest.raises(Refused, match="takes one answer"):
        reduce(start(ONE), Adjust(((True, 2),)))


def test_adding_other_asks_for_its_text_and_keeps_one_given() -> None:
    state = reduce(start(FOUR), Adjust(((True, 4),)))
    assert (state.mode, state.pending) == (Mode.OTHER_TEXT, (1, 4))
    state = apply(state, Text("mine"), Back(), Adjust(((True, 2),)))
    assert state.answers["Q1?"] == "A (Recommended), mine, B"
