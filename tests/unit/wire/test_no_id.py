"""A tool_use block without ``id`` (exporters drop it) is answered like bare input, and
the review of one question says ``1 changes the answer`` (issue 12)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from askcli import fixtures
from askcli.wire.envelopes import EnvelopeKind, detect, generated_id

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli


def without_id(block: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "id"}


def notice(call_id: str) -> str:
    return f'the tool_use block has no "id"; answering it as {call_id}'


def test_a_block_without_id_gets_the_id_bare_input_would_get() -> None:
    block = without_id(call())
    env = detect(block, 3)
    assert env.kind is EnvelopeKind.TOOL_USE
    (item,) = env.calls
    assert item.id == generated_id(block, 3)
    assert item.id.startswith("toolu_01") and len(item.id) == 30
    assert (item.problem, item.notice) == (None, notice(item.id))
    assert detect(block, 3).calls[0].id == item.id  # a replay gives the same id
    assert detect(block, 4).calls[0].id != item.id


def test_blocks_without_id_in_one_message_get_ids_of_their_own() -> None:
    block = without_id(call())
    message = {"role": "assistant", "content": [{"type": "text", "text": "Hi"}, block, block]}
    first, second = detect(message, 1).calls
    assert first.id != second.id
    assert [first.notice, second.notice] == [notice(first.id or ""), notice(second.id or "")]
    assert [c.id for c in detect({**message, "type": "message"}, 1).calls] == [first.id, second.id]


def test_a_stream_json_line_without_id_keeps_its_session() -> None:
    line = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [without_id(call())]},
        "parent_tool_use_id": None,
        "session_id": "sess-1",
    }
    (item,) = detect(line, 2).calls
    assert item.id is not None and item.id.startswith("toolu_01")
    assert (item.session_id, item.notice) == ("sess-1", notice(item.id))


def test_a_block_with_id_has_no_notice() -> None:
    (item,) = detect(call(), 1).calls
    assert (item.id, item.notice) == ("toolu_test", None)


@pytest.mark.parametrize(
    ("value", "what"),
    [
        (7, "a number (7)"),
        (1.5, "a number (1.5)"),
        (10**30, "a number"),
        (None, "null"),
        (True, "a boolean (true)"),
        ([], "an array"),
        ({"id": "x"}, "an object"),
    ],
)
def test_a_present_id_that_is_no_string_is_refused_saying_what_it_is(value: Any, what: str) -> None:
    for doc in (
        {**call(), "id": value},
        {"role": "assistant", "content": [{**call(), "id": value}]},
    ):
        (item,) = detect(doc, 1).calls
        assert item.problem == f'the tool_use block\'s "id" is {what}, not a string'
        assert (item.id, item.notice) == (None, None)


@pytest.mark.process
def test_the_binary_answers_the_example_with_a_notice_and_the_same_id_each_time() -> None:
    runs = [run_askcli("ask", str(EXAMPLES / "no-id.json"), input="1,3\n\n") for _ in range(2)]
    ids = set()
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        (reply,) = [json.loads(line) for line in proc.stdout.splitlines()]
        (block,) = reply["content"]
        ids.add(block["tool_use_id"])
        line = f"askcli: {notice(block['tool_use_id'])}\n"
        assert line in proc.stderr, proc.stderr
        assert proc.stderr.index(line) < proc.stderr.index("[Pre-commit]"), proc.stderr
        assert "Lint, Types" in block["content"]
    (only,) = ids
    assert only.startswith("toolu_01")


@pytest.mark.process
def test_the_binary_refuses_a_number_id_in_one_line() -> None:
    proc = run_askcli("ask", input=json.dumps({**call(), "id": 7}) + "\n")
    assert proc.returncode == 2
    assert proc.stderr == 'askcli: the tool_use block\'s "id" is a number (7), not a string\n'
    (reply,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert reply["tool_use_id"] is None and reply["is_error"] is True


def review_hint(count: int) -> str:
    questions = [question(f"Q{i}?", multi=True) for i in range(count)]
    outcome = fixtures.play(calls=[call(*questions)], answers=["1"] * count + [""])
    assert outcome.status == 0, outcome.stderr
    (hint,) = [line for line in outcome.stderr.splitlines() if line.startswith("Enter or y")]
    return hint


def test_the_review_of_one_question_says_1_changes_the_answer() -> None:
    assert review_hint(1) == (
        "Enter or y submits, 1 changes the answer, b goes back, q declines, ? for help."
    )


@pytest.mark.parametrize("count", [2, 3])
def test_the_review_of_several_questions_says_1_n_changes_an_answer(count: int) -> None:
    assert review_hint(count) == (
        f"Enter or y submits, 1-{count} changes an answer, b goes back, q declines, ? for help."
    )
