"""The answer-line grammar."""

from __future__ import annotations

import pytest

from askcli.answers import (
    Back,
    Clarify,
    Decline,
    Default,
    Help,
    Notes,
    Pick,
    Preview,
    Reopen,
    Skip,
    Submit,
    parse_question_line,
    parse_review_line,
)
from askcli.errors import Refused


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
        ("-1", "'-1' is not an option number; choose from 1-5"),
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
        ("p", "say which option to preview: p N, with N from 1-4"),
        ("p 5", "there is no option 5 to preview; choose from 1-4"),
        ("p x", "say which option to preview: p N, with N from 1-4"),
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
        ("", Submit()),
        ("y", Submit()),
        ("YES", Submit()),
        ("2", Reopen(2)),
        ("２", Reopen(2)),
        ("b", Back()),
        ("q", Decline()),
        ("c", Clarify()),
        ("c later", Clarify("later")),
        ("?", Help()),
    ],
)
def test_review_lines(line: str, command: object) -> None:
    assert parse_review_line(line, count=3) == command


@pytest.mark.parametrize("line", ["0", "4", "1,2", "n note", "no", "x", "s"])
def test_review_refusals(line: str) -> None:
    with pytest.raises(Refused):
        parse_review_line(line, count=3)
