"""Envelope detection and reply shapes."""

from __future__ import annotations

import json

import pytest

from askcli.envelopes import Context, Kind, ToolCall, detect, generated_id, json_line
from askcli.errors import UnreadableDocument
from askcli.results import Status, ToolResult

from .helpers import call, example, question


def test_bare_input_gets_a_stable_generated_id() -> None:
    doc = {"questions": [question()]}
    env = detect(doc, 1)
    assert env.kind is Kind.BARE
    (item,) = env.calls
    assert item.name == "AskUserQuestion" and item.input is doc
    assert item.id is not None and item.id.startswith("toolu_01") and len(item.id) == 30
    assert detect(doc, 1).calls[0].id == item.id
    assert detect(doc, 2).calls[0].id != item.id


def test_tool_use_block() -> None:
    env = detect({**call(), "caller": {"type": "direct"}})
    assert env.kind is Kind.TOOL_USE
    assert env.calls == [ToolCall("toolu_test", "AskUserQuestion", call()["input"])]


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"type": "tool_use", "name": "AskUserQuestion", "input": {}}, 'no string "id"'),
        ({"type": "tool_use", "id": "toolu_1", "input": {}}, 'no string "name"'),
        ({"type": "tool_use", "id": "toolu_1", "name": "AskUserQuestion"}, 'no "input"'),
    ],
)
def test_malformed_tool_use_blocks_carry_a_problem(block: dict, problem: str) -> None:
    (item,) = detect(block).calls
    assert item.problem is not None and problem in item.problem


def test_messages_api_response_with_text_and_several_tool_uses() -> None:
    message = example("login.json")
    message["content"].append({"type": "thinking", "thinking": "hidden"})
    message["content"].append(call(id="toolu_second"))
    env = detect(message)
    assert env.kind is Kind.MESSAGE
    assert isinstance(env.items[0], Context)
    assert [c.id for c in env.calls] == ["toolu_01LoginAuth", "toolu_second"]


def test_message_reply_lists_every_result() -> None:
    env = detect({"role": "assistant", "content": [call(id="a"), call(id="b")]})
    results = [ToolResult("a", "x", Status.ANSWERED), ToolResult("b", "y", Status.DECLINED, True)]
    assert env.reply(results) == {"role": "user", "content": [r.block() for r in results]}


def test_block_reply_is_the_tool_result() -> None:
    env = detect(call())
    result = ToolResult("toolu_test", "x", Status.ANSWERED)
    assert env.reply([result]) == result.block()


@pytest.mark.parametrize(
    "doc",
    [
        {"type": "tool_result", "tool_use_id": "x", "content": "y"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": 3},
    ],
)
def test_documents_that_are_no_call_are_unreadable(doc: dict) -> None:
    with pytest.raises(UnreadableDocument):
        detect(doc)


def test_json_line_is_compact_and_escapes_what_a_terminal_would_act_on() -> None:
    line = json_line({"t": "a\x1b[2J\x9b\u202e\u2028\udc80中"})
    assert line == '{"t":"a\\u001b[2J\\u009b\\u202e\\u2028\\udc80中"}'
    assert json.loads(line)["t"].startswith("a\x1b")


def test_generated_ids_use_the_base62_alphabet() -> None:
    assert generated_id({}, 1)[8:].isalnum()
