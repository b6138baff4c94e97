"""The answer-line grammar."""

from __future__ import annotations

import re

import pytest

from askcli.errors import Refused
from askcli.questions.allowing import Allow, AskWords, Deny, Unclear, parse_allow_line
from askcli.questions.answers import (
    Adjust,
    Back,
    Clarify,
    Confirm,
    Decline,
    Default,
    Help,
    Notes,
    NotSubmitted,
    OneLine,
    Pick,
    Preview,
    Reopen,
    Skip,
    Submit,
    parse_confirm,
    parse_part,
    parse_question_line,
    parse_review_line,
)


def single(line: str, count: int = 4) -> object:
    return parse_question_line(line, count=count, multi=False)


def multi(line: str, count: int = 5) -> object:
    return parse_question_line(line, count=count, multi=True)


@pytest.mark.parametrize(
    ("line", "numbers"),
    [("2", (2,)), (" 3 ", (3,)), ("4", (4,)), ("２", (2,)), ("07", (7,))],
)
def test_single_numbers(line: str, numbers: tuple[int, ...]) -> None:
    assert parse_question_line(line, count=9, multi=False) == Pick(numbers)


@pytest.mark.parametrize(
    ("line", "numbers"),
    [
        ("1,3", (1, 3)),
        ("3,1", (3, 1)),
        ("1 3", (1, 3)),
        ("1, 3", (1, 3)),
        ("1-3", (1, 2, 3)),
        ("1 - 3", (1, 2, 3)),
        ("4,1-2", (4, 1, 2)),
        ("2,2,1", (2, 1)),
        ("1-3,2", (1, 2, 3)),
        ("１，３", (1, 3)),
        ("１、３", (1, 3)),
        ("１－３", (1, 2, 3)),
        ("5", (5,)),
        ("2-2", (2,)),
    ],
)
def test_multi_lists_keep_typed_order(line: str, numbers: tuple[int, ...]) -> None:
    assert multi(line) == Pick(numbers)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("0", "there is no option 0; choose from 1-5"),
        ("6", "there is no option 6; choose from 1-5"),
        ("-", "'-' is not an option number; choose from 1-5"),
        ("1,,2", "the list has an empty item; separate numbers with one comma, e.g. 1,3"),
        ("1,", "the list has an empty item; separate numbers with one comma, e.g. 1,3"),
        ("1-", "the range '1-' has no end; write it as N-M, e.g. 1-5"),
        ("3-1", "a range goes from low to high: write 1-3, not 3-1"),
        ("2-9", "there is no option 9; choose from 1-5"),
        ("0-2", "there is no option 0; choose from 1-5"),
        ("1-99999999999", "there is no option that large; choose from 1-5"),
        ("9" * 5000, "there is no option that large; choose from 1-5"),
        ("٣", "type an option number from 1-5, or ? for help"),
        ("dayjs", "type an option number from 1-5, or ? for help"),
        ("1.5", "type an option number from 1-5, or ? for help"),
        (
            '{"type": "tool_use"}',
            "that looks like JSON, not an answer; type an option number from 1-5",
        ),
        ("p", "say which option to preview: p N; choose from 1-4"),
        ("p 5", "there is no option 5 to preview; choose from 1-4"),
        ("p x", "say which option to preview: p N; choose from 1-4"),
    ],
)
def test_unusable_lines_get_a_reason(line: str, reason: str) -> None:
    with pytest.raises(Refused) as refused:
        multi(line)
    assert str(refused.value) == reason


def test_a_list_on_a_single_select_question_is_refused() -> None:
    for line in ("1,2", "1 2", "1-2"):
        with pytest.raises(Refused, match="this question takes one answer"):
            single(line)


def test_empty_and_blank_lines_are_the_default() -> None:
    assert single("") == Default()
    assert single("   ") == Default()
    assert single("\u3000") == Default()  # an ideographic space is blank too


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("b", Back()),
        ("B", Back()),
        ("back", Back()),
        ("s", Skip()),
        ("skip", Skip()),
        ("q", Decline()),
        ("quit", Decline()),
        ("c", Clarify()),
        ("c why not both?", Clarify("why not both?")),
        ("?", Help()),
        ("help", Help()),
        ("p 2", Preview(2)),
        ("p2", Preview(2)),
        ("ｐ ２", Preview(2)),
        ("n keep it small", Notes("keep it small")),
        ("n   spaced  out  ", Notes("spaced  out")),
        ("n", Notes("")),
        ("N Capital", Notes("Capital")),
    ],
)
def test_letter_commands(line: str, command: object) -> None:
    assert single(line) == command


def test_notes_keep_the_typed_text_not_its_normalized_form() -> None:
    assert single("n ＡＢＣ 全角") == Notes("ＡＢＣ 全角")


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("", Default()),  # submits, or goes to a question with no answer
        ("y", Submit()),
        ("YES", Submit()),
        ("2", Reopen(2)),
        ("２", Reopen(2)),
        ("b", Back()),
        ("q", Decline()),
        ("c", Clarify()),
        ("c later", Clarify("later")),
        ("?", Help()),
        ("n", NotSubmitted()),
        ("no", NotSubmitted()),
        (" No ", NotSubmitted()),
        ("ｎｏ", NotSubmitted()),
    ],
)
def test_review_lines(line: str, command: object) -> None:
    assert parse_review_line(line, count=3) == command


@pytest.mark.parametrize("line", ["0", "4", "1,2", "n note", "nope", "x", "s"])
def test_review_refusals(line: str) -> None:
    with pytest.raises(Refused):
        parse_review_line(line, count=3)


LABELS = ("date-fns (Recommended)", "dayjs", "Temporal")


@pytest.mark.parametrize(
    ("line", "number"),
    [
        ("2.", 2),
        (" ２． ", 2),
        ("dayjs", 2),
        ("DayJS", 2),
        ("  ｄａｙｊｓ ", 2),
        ("date-fns", 1),
        ("date-fns (recommended)", 1),
        ("other", 4),
        ("Temporal", 3),
    ],
)
def test_a_number_with_a_dot_or_an_exact_label_is_that_option(line: str, number: int) -> None:
    assert parse_question_line(line, count=4, multi=False, labels=LABELS) == Pick((number,))


@pytest.mark.parametrize("line", ["day", "dayjs temporal", "2.x", "2..", "dayjs."])
def test_near_labels_are_refused(line: str) -> None:
    with pytest.raises(Refused, match="type an option number"):
        parse_question_line(line, count=4, multi=False, labels=LABELS)


def test_command_words_win_over_labels_and_numbers_over_label_names() -> None:
    labels = ("b", "q", "s", "n later", "3", "Back")
    count = len(labels) + 1
    for word, command in [("b", Back()), ("q", Decline()), ("s", Skip()), ("back", Back())]:
        assert parse_question_line(word, count=count, multi=False, labels=labels) == command
    assert parse_question_line("3", count=count, multi=False, labels=labels) == Pick((3,))


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("n later", Pick((1,))),
        ("C compiler", Pick((2,))),
        ("p 3", Pick((3,))),
        ("n other notes", Notes("other notes")),
        ("c why?", Clarify("why?")),
    ],
)
def test_a_whole_label_wins_over_the_notes_chat_and_preview_forms(
    typed: str, meant: object
) -> None:
    labels = ("n later", "C compiler", "p 3")
    assert parse_question_line(typed, count=4, multi=False, labels=labels) == meant


def test_labels_that_differ_only_in_case_are_refused_as_ambiguous() -> None:
    with pytest.raises(Refused, match="more than one option"):
        parse_question_line("yes", count=3, multi=False, labels=("Yes", "YES"))


@pytest.mark.parametrize(
    ("line", "changes"),
    [
        ("+3", ((True, 3),)),
        ("-2", ((False, 2),)),
        ("+3 -2", ((True, 3), (False, 2))),
        ("+ 3+4", ((True, 3), (True, 4))),
        ("＋３", ((True, 3),)),
        ("+5", ((True, 5),)),
    ],
)
def test_plus_and_minus_change_a_multiselect_answer(
    line: str, changes: tuple[tuple[bool, int], ...]
) -> None:
    assert multi(line) == Adjust(changes)


@pytest.mark.parametrize(
    ("line", "parts"),
    [
        ("1,4; 4; 2; 1", OneLine(((1, "1,4"), (2, " 4"), (3, " 2"), (4, " 1")))),
        ("1；2", OneLine(((1, "1"), (2, "2")))),
        ("1; ; 2", OneLine(((1, "1"), (2, " "), (3, " 2")))),
        ("2;", OneLine(((1, "2"),))),
        ("1:2 2:1,3", OneLine(((1, "2"), (2, "1,3")), True)),
        ("1:2 2:1, 3", OneLine(((1, "2"), (2, "1, 3")), True)),
        ("2 : 4=at noon 1:1", OneLine(((2, " 4=at noon"), (1, "1")), True)),
        ("1:4=at 10:30; 2:1", OneLine(((1, "4=at 10:30"), (2, "1")), True)),
    ],
)
def test_one_line_answers_are_split_into_parts(line: str, parts: OneLine) -> None:
    assert multi(line) == parts


def test_one_line_forms_may_not_be_mixed() -> None:
    with pytest.raises(Refused, match="every part as Q:A"):
        multi("1:2; 3")


@pytest.mark.parametrize(
    ("text", "multi_", "expected"),
    [
        ("", False, (None, None)),
        ("2", False, ((2,), None)),
        ("2.", False, ((2,), None)),
        ("dayjs", False, ((2,), None)),
        ("4=my own", False, ((4,), "my own")),
        ("=my own", False, ((4,), "my own")),
        ("1,4=my own", True, ((1, 4), "my own")),
        ("1-3", True, ((1, 2, 3), None)),
    ],
)
def test_one_line_parts(
    text: str, multi_: bool, expected: tuple[tuple[int, ...] | None, str | None]
) -> None:
    assert parse_part(text, count=4, multi=multi_, labels=LABELS) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("4", "Other (4) needs its text: write 4=your answer"),
        ("4=", "the text after = is empty"),
        ("2=text", "= gives Other's text"),
        ("1,2", "takes one answer"),
        ("b", "type an option number"),
        ("9", "there is no option 9"),
    ],
)
def test_one_line_parts_that_do_not_fit(text: str, reason: str) -> None:
    with pytest.raises(Refused, match=re.escape(reason)):
        parse_part(text, count=4, multi=False, labels=LABELS)


@pytest.mark.parametrize(
    ("line", "default", "yes"),
    [
        ("", True, True),
        ("", False, False),
        ("y", False, True),
        ("YES", False, True),
        ("n", True, False),
        (" no ", True, False),
        ("ｙ", False, True),
    ],
)
def test_yes_or_no(line: str, default: bool, yes: bool) -> None:
    assert parse_confirm(line, default=default) == Confirm(yes)


@pytest.mark.parametrize("line", ["2", "q", "yess", "maybe"])
def test_yes_or_no_refuses_anything_else(line: str) -> None:
    with pytest.raises(Refused, match="type y for yes or n for no"):
        parse_confirm(line, default=True)


@pytest.mark.parametrize(("count", "said"), [(1, "1 to change the answer"), (3, "1-3 to change")])
def test_the_review_names_the_numbers_that_change_an_answer(count: int, said: str) -> None:
    for line in ("x", "9"):
        with pytest.raises(Refused, match=said):
            parse_review_line(line, count=count)


# ---- the permission prompt (Allow?): nothing is guessed

WORDS = "use npm ci instead"


@pytest.mark.parametrize(
    ("line", "command"),
    [
        *((typed, Allow()) for typed in ("y", "Y", "yes", "YES", "1", "1.", "１", " y ")),
        *((typed, Allow(always=True)) for typed in ("2", "2.", "a", "always", "２")),
        *((typed, Deny()) for typed in ("n", "N", "no", "q", "n:", "3:", "ｎ")),
        *((typed, AskWords()) for typed in ("3", "3.", "３", " 3 ")),
        (f"n: {WORDS}", Deny(WORDS)),
        (f"N:{WORDS}", Deny(WORDS)),
        (f"n {WORDS}", Deny(WORDS)),  # as n TEXT at a question
        (f"3: {WORDS}", Deny(WORDS)),
        (f"  n:  {WORDS}  ", Deny(WORDS)),
        ("n: ＡＢＣ 全角", Deny("ＡＢＣ 全角")),  # the words as typed
        ("?", Help()),
        ("help", Help()),
    ],
)
def test_allow_lines(line: str, command: object) -> None:
    assert parse_allow_line(line) == command


UNCLEAR = ["ok", "sure", "yep", "allow", "Yes.", "y.", "4", "4.", "0", "", "nope", "no, later"]


@pytest.mark.parametrize("line", [*UNCLEAR, WORDS, "yes, but keep the cache", "{}"])
def test_anything_else_at_allow_is_unclear(line: str) -> None:
    assert isinstance(parse_allow_line(line), Unclear)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("yes", Allow()),
        ("YES", Allow()),
        ("always", Allow(always=True)),
        ("", Deny()),  # Enter declines
        ("n", Deny()),
        ("no", Deny()),
        ("3", AskWords()),
        (f"n: {WORDS}", Deny(WORDS)),
        *((key, Unclear(key.lower())) for key in ("1", "y", "Y", "2", "a", "7")),
        ("1.", Unclear("1")),
        ("Yes.", Unclear("yes.")),
        ("yes, but keep the cache", Unclear("yes, but keep the cache")),
    ],
)
def test_allow_lines_under_default_to_no(line: str, command: object) -> None:
    """No single key approves; only the words yes and always do."""
    assert parse_allow_line(line, careful=True) == command
