"""The shared question model: typed (text, number), yes/no, no Other, optional questions,
multi-select bounds and secret answers, through the reducer and the REPL."""

from __future__ import annotations

import io
import re

import pytest

from askcli.errors import Refused
from askcli.lines import TextLineReader
from askcli.questions.answers import Skip, Submit
from askcli.questions.outcome import Outcome
from askcli.questions.state import Conclusion, Mode, Text, reduce, spec, specs, start
from askcli.schema.shapes import AskInput, Option, SharedQuestion
from askcli.schema.value_rules import ValueRule, as_number
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.tools.repl import ask_questions

YES_NO = (Option("Yes", ""), Option("No", ""))


def ask(
    *questions: SharedQuestion, lines: list[str], given: dict[str, str] | None = None
) -> tuple[Conclusion, str]:
    data = AskInput(tuple(questions), given)
    err = io.StringIO()
    reader = TextLineReader(io.StringIO("".join(f"{line}\n" for line in lines)))
    conv = Conversation(reader, err, Style(width=80))
    conclusion = ask_questions(data, conv)
    return conclusion, err.getvalue()


def text_q(text: str = "Name?", **extra: object) -> SharedQuestion:
    return SharedQuestion(text, "Name", (), kind="text", **extra)  # type: ignore[arg-type]


def number_q(text: str = "How many?", **rule: object) -> SharedQuestion:
    return SharedQuestion(text, "Count", (), kind="number", rule=ValueRule("number", **rule))  # type: ignore[arg-type]


def test_a_text_question_takes_the_line_as_typed() -> None:
    conclusion, err = ask(text_q(), lines=["  Ada Lovelace  "])
    assert conclusion.outcome is Outcome.ANSWERED
    assert dict(conclusion.state.answers) == {"Name?": "Ada Lovelace"}
    assert "Type your answer." in err and "Answer: " in err
    assert "Other" not in err


def test_a_command_word_alone_is_the_command_and_equals_types_it() -> None:
    conclusion, _ = ask(text_q(), lines=["q"])
    assert conclusion.state.outcome is Outcome.DECLINED
    conclusion, _ = ask(text_q(), lines=["=q"])
    assert dict(conclusion.state.answers) == {"Name?": "q"}


def test_an_empty_line_at_a_text_question_without_default_is_refused() -> None:
    conclusion, err = ask(text_q(), lines=["", "x"])
    assert "! type your answer, or ? for help" in err
    assert dict(conclusion.state.answers) == {"Name?": "x"}


def test_a_suggested_text_is_the_default_the_person_confirms() -> None:
    conclusion, err = ask(text_q(), lines=[""], given={"Name?": "Grace"})
    assert "Answer [Grace]: " in err
    assert dict(conclusion.state.answers) == {"Name?": "Grace"}


def test_a_number_question_checks_bounds_and_step_and_normalizes() -> None:
    q = number_q(minimum=1, maximum=10, step=0.5, unit="px")
    conclusion, err = ask(q, lines=["11", "2.2", "abc", "2.50px"])
    assert "! the answer must be at most 10" in err
    assert "! the answer must go in steps of 0.5 from 1" in err
    assert "! type a number from 1 to 10, in steps of 0.5 (px)" in err
    assert "Type a number from 1 to 10, in steps of 0.5 (px)." in err
    assert dict(conclusion.state.answers) == {"How many?": "2.5"}


@pytest.mark.parametrize(
    ("rule", "bad", "good", "says"),
    [
        (ValueRule(min_length=3), "ab", "abc", "at least 3 characters"),
        (ValueRule(max_length=2), "abc", "ab", "at most 2 characters"),
        (ValueRule(pattern="^[a-z]+$"), "A1", "ok", "must match the pattern ^[a-z]+$"),
        (ValueRule(format="email"), "nobody", "a@b.io", "email address"),
        (ValueRule(format="uri"), "example.com", "https://example.com/", "URI"),
        (ValueRule(format="date"), "30/11/2026", "2026-11-30", "YYYY-MM-DD"),
        (ValueRule(format="date-time"), "2026-11-30 14:00", "2026-11-30T14:00:00Z", "zone"),
        (ValueRule("integer", minimum=0), "1.5", "3", "whole number"),
        (ValueRule("integer", minimum=0), "-1", "0", "at least 0"),
    ],
)
def test_value_rules_refuse_what_the_asker_would(
    rule: ValueRule, bad: str, good: str, says: str
) -> None:
    with pytest.raises(Refused, match=re.escape(says)):
        rule.check(bad)
    assert rule.check(good) == good


def test_numbers_go_out_as_json_numbers() -> None:
    assert as_number("3", "number") == 3 and isinstance(as_number("3", "number"), int)
    assert as_number("2.5", "number") == 2.5
    assert as_number("7", "integer") == 7


def test_a_pattern_python_cannot_read_is_refused_not_ignored() -> None:
    with pytest.raises(Refused, match="cannot be checked"):
        ValueRule(pattern="(unclosed").check("x")


def test_yes_no_takes_y_and_n_and_has_no_other() -> None:
    q = SharedQuestion("Proceed?", "Go", YES_NO, kind="yesno", other=False)
    conclusion, err = ask(q, lines=["3", "n"])
    assert "Choose 1-2 or y/n: " in err
    assert "Choose 1-2 or y/n: 3\n! there is no option 3; choose from 1-2\n" in err
    assert dict(conclusion.state.answers) == {"Proceed?": "No"}
    assert "Other" not in err


def test_a_choice_without_other_numbers_only_its_options() -> None:
    q = SharedQuestion("Which?", "Pick", (Option("A", ""), Option("B", "")), other=False)
    conclusion, err = ask(q, lines=["other", "3", "2"])
    assert "Choose 1-2: " in err and "3. Other" not in err
    assert dict(conclusion.state.answers) == {"Which?": "B"}


def test_more_than_four_options_are_numbered_in_full() -> None:
    options = tuple(Option(f"O{i}", "") for i in range(1, 8))
    conclusion, err = ask(SharedQuestion("Which?", "Pick", options), lines=["7"])
    assert "  8. Other - type your own answer" in err
    assert dict(conclusion.state.answers) == {"Which?": "O7"}


def test_multi_select_bounds_are_kept() -> None:
    q = SharedQuestion(
        "Which?",
        "Pick",
        tuple(Option(x, "") for x in "ABCD"),
        multiSelect=True,
        other=False,
        min_items=2,
        max_items=3,
    )
    conclusion, err = ask(q, lines=["1", "1,2,3,4", "1,3", ""])
    assert "(choose 2-3 options)" in err
    assert "! choose at least 2 options" in err and "! choose at most 3 options" in err
    assert dict(conclusion.state.answers) == {"Which?": "A, C"}


def test_an_optional_question_may_be_skipped_and_submitted() -> None:
    conclusion, err = ask(
        text_q("Name?", required=False), text_q("City?"), lines=["s", "Paris", ""]
    )
    assert conclusion.state.outcome is Outcome.ANSWERED
    assert dict(conclusion.state.answers) == {"City?": "Paris"}
    assert conclusion.fates() == {"Name?": "skipped", "City?": "answered"}
    assert "(no answer: skipped)" in err


def test_a_required_question_still_blocks_submit() -> None:
    state = start(specs(AskInput((text_q("Name?"), text_q("City?")))))
    state = reduce(reduce(state, Skip()), Text("x"))
    assert state.mode is Mode.REVIEW
    with pytest.raises(Refused, match="question 1 has no answer yet"):
        reduce(state, Submit())


def test_statuses_say_each_question_s_fate() -> None:
    two = (text_q("Name?"), text_q("City?"))
    conclusion, _ = ask(*two, lines=["Ada", "q", "y"])
    assert conclusion.fates() == {"Name?": "declined", "City?": "declined"}
    conclusion, _ = ask(*two, lines=["Ada"])
    assert conclusion.outcome is Outcome.ENDED
    assert conclusion.fates() == {"Name?": "dismissed", "City?": "dismissed"}


def test_a_secret_answer_is_never_shown_back() -> None:
    q = text_q("Token?", secret=True)
    conclusion, err = ask(q, text_q("Name?"), lines=["hunter2", "Ada", ""])
    assert dict(conclusion.state.answers)["Token?"] == "hunter2"
    assert "hunter2" not in err
    assert "(hidden)" in err and "(hidden, 7 characters)" in err


def test_one_line_answers_cover_typed_questions() -> None:
    q = SharedQuestion("Which?", "Pick", (Option("A", ""), Option("B", "")))
    conclusion, _ = ask(q, number_q(minimum=0), lines=["2; 42", ""])
    assert dict(conclusion.state.answers) == {"Which?": "B", "How many?": "42"}


def test_one_line_answers_refuse_a_bad_typed_part_whole() -> None:
    q = SharedQuestion("Which?", "Pick", (Option("A", ""), Option("B", "")))
    conclusion, err = ask(q, number_q(minimum=0), lines=["2; -1", "1", "5", ""])
    assert "! question 2: the answer must be at least 0; nothing was changed" in err
    assert dict(conclusion.state.answers) == {"Which?": "A", "How many?": "5"}


def test_an_askuserquestion_question_is_as_before() -> None:
    q = SharedQuestion("Which?", "Pick", (Option("A", ""), Option("B", "")))
    s = spec(q)
    assert (s.choices, s.other, s.has_other, s.typed, s.required) == (3, 3, True, False, True)


def test_a_lone_optional_question_is_left_out_with_s() -> None:
    conclusion, err = ask(text_q("Name?", required=False), lines=["s"])
    assert "(optional: s skips it)" in err
    assert conclusion.state.outcome is Outcome.ANSWERED
    assert conclusion.fates() == {"Name?": "skipped"}


def test_a_lone_required_question_cannot_be_skipped() -> None:
    conclusion, err = ask(text_q("Name?"), lines=["s", "Ada"])
    assert "! this is the only question; answer it, or q to decline" in err
    assert dict(conclusion.state.answers) == {"Name?": "Ada"}


def test_y_and_n_answer_a_yes_no_question_that_also_offers_other() -> None:
    q = SharedQuestion("Proceed?", "Go", YES_NO, kind="yesno")
    conclusion, err = ask(q, lines=["n"])
    assert "  3. Other - type your own answer" in err
    assert dict(conclusion.state.answers) == {"Proceed?": "No"}


def test_a_pattern_written_to_backtrack_forever_is_refused_in_time() -> None:
    rule = ValueRule(pattern="^(a|aa)+$")
    with pytest.raises(Refused, match="takes too long to check this answer"):
        rule.check("a" * 40 + "!")
    assert rule.check("aaaa") == "aaaa"
