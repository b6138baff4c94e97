"""Envelope detection and reply shapes."""

from __future__ import annotations

import json

import pytest

from askcli.errors import UnreadableDocument
from askcli.questions.outcome import Outcome
from askcli.wire.envelopes import Context, EnvelopeKind, ToolCall, detect, generated_id, json_line
from askcli.wire.results import ToolResult

from tests.support.calls import call, example, question


def test_bare_input_gets_a_stable_generated_id() -> None:
    doc = {"questions": [question()]}
    env = detect(doc, 1)
    assert env.kind is EnvelopeKind.BARE
    (item,) = env.calls
    assert item.name == "AskUserQuestion" and item.input is doc
    assert item.id is not None and item.id.startswith("toolu_01") and len(item.id) == 30
    assert detect(doc, 1).calls[0].id == item.id
    assert detect(doc, 2).calls[0].id != item.id


def test_tool_use_block() -> None:
    env = detect({**call(), "caller": {"type": "direct"}})
    assert env.kind is EnvelopeKind.TOOL_USE
    assert env.calls == [ToolCall("toolu_test", "AskUserQuestion", call()["input"])]


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"type": "tool_use", "id": 7, "name": "AskUserQuestion", "input": {}}, '"id" is a number'),
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
    assert env.kind is EnvelopeKind.MESSAGE
    assert isinstance(env.items[0], Context)
    assert [c.id for c in env.calls] == ["toolu_01LoginAuth", "toolu_second"]


def test_message_reply_lists_every_result() -> None:
    env = detect({"role": "assistant", "content": [call(id="a"), call(id="b")]})
    results = [
        ToolResult("a", "x", Outcome.ANSWERED),
        ToolResult("b", "y", Outcome.DECLINED, True),
    ]
    assert env.replies(results) == [{"role": "user", "content": [r.block() for r in results]}]


def test_block_reply_is_the_tool_result() -> None:
    env = detect(call())
    result = ToolResult("toolu_test", "x", Outcome.ANSWERED)
    assert env.replies([result]) == [result.block()]


@pytest.mark.parametrize(
    "doc",
    [
        {"type": "tool_result", "tool_use_id": "x", "content": "y"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": 3},
        {"type": "assistant", "message": "not an object"},
        {"type": "control_request", "request_id": "r1"},
        {"object": "chat.completion", "choices": []},
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


STREAM_LINE = {
    "type": "assistant",
    "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}, call(id="t1")]},
    "parent_tool_use_id": None,
    "session_id": "sess-1",
}


def test_stream_json_assistant_line() -> None:
    env = detect(STREAM_LINE)
    assert env.kind is EnvelopeKind.STREAM_JSON
    (item,) = env.calls
    assert (item.id, item.session_id, item.agent_id) == ("t1", "sess-1", None)
    result = ToolResult("t1", "x", Outcome.ANSWERED)
    assert env.replies([result]) == [
        {"type": "user", "message": {"role": "user", "content": [result.block()]}}
    ]


def test_stream_json_line_of_a_subagent_carries_its_agent_id() -> None:
    (item,) = detect({**STREAM_LINE, "parent_tool_use_id": "toolu_task"}).calls
    assert item.agent_id == "toolu_task"


@pytest.mark.parametrize(
    "kind", ["system", "result", "stream_event", "user", "control_response", "keep_alive"]
)
def test_other_stream_json_lines_are_passed_over(kind: str) -> None:
    env = detect({"type": kind, "subtype": "x"})
    assert env.kind is EnvelopeKind.PASSED_OVER and env.calls == [] and env.replies([]) == []


def control(subtype: str = "can_use_tool", **request: object) -> dict:
    return {
        "type": "control_request",
        "request_id": "req_7",
        "request": {"subtype": subtype, **request},
    }


def test_control_request_can_use_tool() -> None:
    env = detect(control(tool_name="Bash", input={"command": "ls"}, tool_use_id="toolu_b"))
    assert env.kind is EnvelopeKind.CONTROL and env.request_id == "req_7"
    (item,) = env.calls
    assert (item.id, item.name, item.input) == ("toolu_b", "Bash", {"command": "ls"})
    allowed = ToolResult("toolu_b", "ok", Outcome.ANSWERED, updated_input={"command": "ls"})
    assert env.replies([allowed]) == [
        {
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": "req_7",
                "response": {"behavior": "allow", "updatedInput": {"command": "ls"}},
            },
        }
    ]


def test_control_requests_of_other_subtypes_get_an_error_response() -> None:
    env = detect(control("hook_callback", callback_id="c"))
    assert env.calls == []
    (reply,) = env.replies([])
    assert reply["response"]["subtype"] == "error"
    assert reply["response"]["request_id"] == "req_7"


def openai_call(id: str, name: str, arguments: str) -> dict:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_openai_chat_call_with_json_string_arguments() -> None:
    env = detect(openai_call("call_1", "AskUserQuestion", '{"questions": []}'))
    assert env.kind is EnvelopeKind.OPENAI
    (item,) = env.calls
    assert (item.id, item.input, item.problem) == ("call_1", {"questions": []}, None)
    result = ToolResult("call_1", "text", Outcome.ANSWERED)
    assert env.replies([result]) == [{"role": "tool", "tool_call_id": "call_1", "content": "text"}]


@pytest.mark.parametrize("arguments", ["{not json", "[1", '{"a": NaN'])
def test_openai_arguments_that_are_not_json_are_a_problem(arguments: str) -> None:
    (item,) = detect(openai_call("call_1", "AskUserQuestion", arguments)).calls
    assert item.problem is not None and item.problem.startswith(
        "the arguments string is not valid JSON"
    )


def test_openai_assistant_message_and_chat_completion() -> None:
    message = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [openai_call("c1", "A", "{}"), openai_call("c2", "B", "{}")],
    }
    env = detect(message)
    assert isinstance(env.items[0], Context)
    assert [c.id for c in env.calls] == ["c1", "c2"]
    results = [
        ToolResult("c1", "x", Outcome.ANSWERED),
        ToolResult("c2", "y", Outcome.ANSWERED),
    ]
    assert [r["tool_call_id"] for r in env.replies(results)] == ["c1", "c2"]
    completion = {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}
    assert [c.id for c in detect(completion).calls] == ["c1", "c2"]


def test_openai_responses_function_call_and_response_object() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_9",
        "name": "X",
        "arguments": "{}",
    }
    env = detect(item)
    assert env.kind is EnvelopeKind.RESPONSES
    result = ToolResult("call_9", "out", Outcome.ANSWERED)
    assert env.replies([result]) == [
        {"type": "function_call_output", "call_id": "call_9", "output": "out"}
    ]
    response = {
        "object": "response",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Thinking aloud"}]},
            item,
        ],
    }
    env = detect(response)
    assert isinstance(env.items[0], Context) and env.calls[0].id == "call_9"


def test_deferred_calls_reply_with_the_permission_in_every_shape() -> None:
    allowed = ToolResult("id1", "ok", Outcome.ANSWERED, updated_input={"a": 1}, deferred=True)
    permission = {"type": "permission", "behavior": "allow", "updatedInput": {"a": 1}}
    assert detect(call(id="id1")).replies([allowed]) == [{**permission, "tool_use_id": "id1"}]
    chat = detect(openai_call("id1", "Bash", "{}"))
    assert chat.replies([allowed]) == [{**permission, "tool_call_id": "id1"}]
    responses = detect({"type": "function_call", "call_id": "id1", "name": "B", "arguments": "{}"})
    assert responses.replies([allowed]) == [{**permission, "call_id": "id1"}]
