"""The schema: exactly the seed's zod rules, both ways, and zod-shaped issues."""

from __future__ import annotations

from typing import Any

import pytest

from askcli.errors import InvalidCall
from askcli.schema.inputs import parse_ask as parse_input
from askcli.schema.issues import describe_issues
from askcli.schema.shapes import UNIQUENESS_MESSAGE, is_recommended

from tests.support.calls import option, question


def issues(data: Any) -> list[dict[str, Any]]:
    with pytest.raises(InvalidCall) as caught:
        parse_input(data)
    return caught.value.issues


def ok(data: Any) -> None:
    parse_input(data)


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_one_to_four_questions_are_accepted(count: int) -> None:
    ok({"questions": [question(f"Q{i}?") for i in range(count)]})


@pytest.mark.parametrize(("count", "code"), [(0, "too_small"), (5, "too_big")])
def test_questions_outside_one_to_four_are_refused(count: int, code: str) -> None:
    found = issues({"questions": [question(f"Q{i}?") for i in range(count)]})
    assert [(i["code"], i["path"]) for i in found] == [(code, ["questions"])]


@pytest.mark.parametrize("count", [2, 3, 4])
def test_two_to_four_options_are_accepted(count: int) -> None:
    ok({"questions": [question(labels=tuple("ABCD"[:count]))]})


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (1, "Array must contain at least 2 element(s)"),
        (5, "Array must contain at most 4 element(s)"),
    ],
)
def test_options_outside_two_to_four_are_refused(count: int, message: str) -> None:
    found = issues({"questions": [question(labels=tuple("ABCDE"[:count]))]})
    assert [(i["message"], i["path"]) for i in found] == [(message, ["questions", 0, "options"])]


def test_zod_issue_shape_for_a_length_problem() -> None:
    (found,) = issues({"questions": []})
    assert list(found) == ["code", "minimum", "type", "inclusive", "exact", "message", "path"]
    assert found == {
        "code": "too_small",
        "minimum": 1,
        "type": "array",
        "inclusive": True,
        "exact": False,
        "message": "Array must contain at least 1 element(s)",
        "path": ["questions"],
    }


def test_unknown_top_level_keys_are_refused_together() -> None:
    found = issues({"questions": [question()], "caller": "x", "usage": 1})
    assert found == [
        {
            "code": "unrecognized_keys",
            "keys": ["caller", "usage"],
            "path": [],
            "message": "Unrecognized key(s) in object: 'caller', 'usage'",
        }
    ]


def test_unknown_keys_inside_questions_and_options_are_ignored() -> None:
    q = question()
    q["extra"] = True
    q["options"][0]["icon"] = "x"
    parsed = parse_input({"questions": [q]})
    assert parsed.questions[0].options[0].label == "A"


def test_optional_top_level_keys_are_accepted() -> None:
    ok(
        {
            "questions": [question("Q?")],
            "answers": {"Q?": "A"},
            "annotations": {"Q?": {"notes": "n", "preview": "p"}},
            "metadata": {"source": "remember"},
        }
    )


@pytest.mark.parametrize(
    ("where", "value", "expected", "received"),
    [
        ("question", 1, "string", "number"),
        ("header", None, "string", "null"),
        ("multiSelect", "true", "boolean", "string"),
        ("multiSelect", 1, "boolean", "number"),
        ("multiSelect", None, "boolean", "null"),
        ("options", {}, "array", "object"),
    ],
)
def test_types_are_strict(where: str, value: Any, expected: str, received: str) -> None:
    q = question()
    q[where] = value
    (found,) = issues({"questions": [q]})
    assert found["code"] == "invalid_type"
    assert (found["expected"], found["received"]) == (expected, received)
    assert found["path"] == ["questions", 0, where]
    assert found["message"] == f"Expected {expected}, received {received}"


def test_missing_fields_are_required() -> None:
    found = issues({"questions": [{"options": [option("A"), {"label": "B"}]}]})
    assert [(i["path"], i["message"], i["expected"]) for i in found] == [
        (["questions", 0, "question"], "Required", "string"),
        (["questions", 0, "header"], "Required", "string"),
        (["questions", 0, "options", 1, "description"], "Required", "string"),
    ]


def test_missing_multiselect_defaults_to_false() -> None:
    parsed = parse_input({"questions": [question(multi=None)]})
    assert parsed.questions[0].multiSelect is False


def test_optional_fields_may_be_absent_but_not_null() -> None:
    q = question()
    q["options"][0]["preview"] = None
    found = issues({"questions": [q], "answers": None})
    assert [(i["path"], i["received"]) for i in found] == [
        (["questions", 0, "options", 0, "preview"], "null"),
        (["answers"], "null"),
    ]


def test_answers_must_map_strings_to_strings() -> None:
    found = issues({"questions": [question()], "answers": {"Which one?": 2}})
    assert found[0]["path"] == ["answers", "Which one?"]


def test_top_level_must_be_an_object() -> None:
    (found,) = issues(["questions"])
    assert found["message"] == "Expected object, received array"


def test_issues_come_in_zod_order() -> None:
    q = question(labels=("A",))
    q["question"] = 3
    q["options"][0].pop("description")
    found = issues({"zz": 1, "questions": [q]})
    assert [(i["code"], i["path"]) for i in found] == [
        ("invalid_type", ["questions", 0, "question"]),
        ("too_small", ["questions", 0, "options"]),
        ("invalid_type", ["questions", 0, "options", 0, "description"]),
        ("unrecognized_keys", []),
    ]


def test_question_texts_must_be_unique() -> None:
    found = issues({"questions": [question("Same?"), question("Same?")]})
    assert found == [{"code": "custom", "message": UNIQUENESS_MESSAGE, "path": []}]


def test_labels_must_be_unique_within_a_question() -> None:
    found = issues({"questions": [question(labels=("A", "A"))]})
    assert found[-1]["message"] == UNIQUENESS_MESSAGE


def test_same_labels_in_different_questions_are_fine() -> None:
    ok({"questions": [question("One?"), question("Two?")]})


def test_uniqueness_is_checked_beside_length_problems_but_not_type_problems() -> None:
    dirty = issues({"questions": [question("S?"), question("S?")], "zz": 1})
    assert [i["code"] for i in dirty] == ["unrecognized_keys", "custom"]
    broken = question("S?")
    broken["header"] = 1
    aborted = issues({"questions": [question("S?"), broken]})
    assert [i["code"] for i in aborted] == ["invalid_type"]


def test_descriptive_hints_are_not_rules() -> None:
    ok(
        {
            "questions": [
                question(
                    "A statement without a question mark",
                    header="A header far longer than twelve",
                    labels=("A label of many more than five words", "Other"),
                    multi=True,
                )
            ]
        }
    )


def test_empty_strings_are_allowed_as_zod_allows_them() -> None:
    ok({"questions": [{"question": "", "header": "", "options": [option("a"), option("b")]}]})


def test_describe_issues_is_one_readable_line() -> None:
    text = describe_issues(issues({"questions": [question(labels=("A",))], "zz": 1}))
    assert text == (
        "questions[0].options: Array must contain at least 2 element(s); "
        "Unrecognized key(s) in object: 'zz'"
    )
    assert "\n" not in text


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("date-fns (Recommended)", True),
        ("Server-to-Server only (recommended)", True),
        ("Recommended approach", False),
        ("dayjs", False),
    ],
)
def test_recommended_labels(label: str, expected: bool) -> None:
    assert is_recommended(label) is expected
