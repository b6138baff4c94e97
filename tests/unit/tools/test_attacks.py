"""Terminal safety: attack strings in every field a model controls never reach the terminal raw.

Each of the attack strings is put in each field, the session is run, and the bytes written to
stderr (and stdout) are checked: no ESC, no C0 control but newline, no DEL, no C1 control, no
bidi override, isolate or mark, no line/paragraph separator, no lone surrogate.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

import askcli
from askcli.runners.recordings import play
from askcli.terminal.rendering import Style

from tests.support.attacks import ATTACKS, LINE_BREAKS, check_bytes
from tests.support.calls import call, option, question
from tests.support.processes import askcli_path

SGR = re.compile(r"\x1b\[(?:0|1|2|31|32|33|36|1;36)m")


def in_question(text: str) -> dict[str, Any]:
    return call(question(text=text))


def in_header(text: str) -> dict[str, Any]:
    return call(question(header=text))


def in_label(text: str) -> dict[str, Any]:
    q = question(labels=(text, "B"))
    q["options"][0]["description"] = "about the first"
    return call(q)


def in_description(text: str) -> dict[str, Any]:
    q = question()
    q["options"][0]["description"] = text
    return call(q)


def in_preview(text: str) -> dict[str, Any]:
    q = {"question": "Q?", "header": "h", "options": [option("a", "", preview=text), option("b")]}
    return call(q)


def in_assistant_text(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}, call()]}


def in_todo(text: str) -> dict[str, Any]:
    return {"todos": [{"content": text, "status": "in_progress", "activeForm": text}]}


def in_tool_input(text: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": "t", "name": "Bash", "input": {text: text, "cmd": text}}


def in_tool_name(text: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": "t", "name": text, "input": {"a": 1}}


def in_invalid_call(text: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": text, "name": "AskUserQuestion", "input": {text: 1}}


def in_multiselect_review(text: str) -> dict[str, Any]:
    return call(question(text=text, labels=(text, "B"), multi=True))


def in_todo_session(text: str) -> dict[str, Any]:
    todo = {"type": "tool_use", "id": text, "name": "TodoWrite", "input": in_todo("x")}
    message = {"role": "assistant", "content": [todo]}
    return {"type": "assistant", "message": message, "session_id": text}


def in_subagent_todo(text: str) -> dict[str, Any]:
    return {**in_todo_session("x"), "parent_tool_use_id": text}


def in_control_request(text: str) -> dict[str, Any]:
    request = {"subtype": "can_use_tool", "tool_name": text, "input": {"a": "b"}}
    return {"type": "control_request", "request_id": text, "request": {**request, "agent_id": text}}


def in_control_subtype(text: str) -> dict[str, Any]:
    return {"type": "control_request", "request_id": text, "request": {"subtype": text}}


def in_openai_call(text: str) -> dict[str, Any]:
    return {"id": text, "type": "function", "function": {"name": text, "arguments": text}}


def in_responses_call(text: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": text, "name": text, "arguments": "{" + text}


def in_document_type(text: str) -> dict[str, Any]:
    return {"type": text, "id": text}


def in_unknown_key(text: str) -> dict[str, Any]:
    return call(question(), **{text: 1})


def in_answers_key(text: str) -> dict[str, Any]:
    return call(question(), answers={text: text}, annotations={text: {"notes": text}})


def in_todo_status(text: str) -> dict[str, Any]:
    return {"todos": [{"content": "c", "status": text, "activeForm": "a"}]}


def in_stream_json_message(text: str) -> dict[str, Any]:
    return {"type": "assistant", "message": text, "session_id": text}


FIELDS: dict[str, tuple[Callable[[str], dict[str, Any]], list[str]]] = {
    "question": (in_question, ["?", "1"]),
    "header": (in_header, ["1"]),
    "label": (in_label, ["1"]),
    "description": (in_description, ["1"]),
    "preview": (in_preview, ["p 1", "1"]),
    "assistant-text": (in_assistant_text, ["1"]),
    "todo": (in_todo, []),
    "tool-input": (in_tool_input, ["y"]),
    "tool-name": (in_tool_name, ["n"]),
    "invalid-call": (in_invalid_call, []),
    "review": (in_multiselect_review, ["1,2", ""]),
    "todo-session": (in_todo_session, []),
    "subagent-todo": (in_subagent_todo, []),
    "control-request": (in_control_request, ["n"]),
    "control-subtype": (in_control_subtype, []),
    "openai-call": (in_openai_call, []),
    "responses-call": (in_responses_call, []),
    "document-type": (in_document_type, []),
    "unknown-key": (in_unknown_key, []),
    "answers-key": (in_answers_key, ["", ""]),
    "todo-status": (in_todo_status, []),
    "stream-json-message": (in_stream_json_message, []),
}
# fields shown as one line each (names, ids, keys, labels): a line break in them must never
# start a line of its own on the terminal or in the result
ONE_LINE_FIELDS = [
    "header",
    "label",
    "todo",
    "tool-name",
    "invalid-call",
    "todo-session",
    "subagent-todo",
    "control-request",
    "control-subtype",
    "openai-call",
    "responses-call",
    "document-type",
    "unknown-key",
    "answers-key",
    "todo-status",
    "stream-json-message",
]


def test_there_are_enough_attacks() -> None:
    assert len(ATTACKS) >= 30


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_no_raw_control_reaches_the_terminal(field: str, attack: str) -> None:
    build, answers = FIELDS[field]
    outcome = play(calls=[build(attack)], answers=answers)
    check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")
    for line in outcome.stdout:
        check_bytes(line.encode("utf-8", "surrogatepass"), "stdout")
    assert "Traceback" not in outcome.stderr


@pytest.mark.parametrize("field", ONE_LINE_FIELDS)
@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[f"b{n}" for n in range(len(LINE_BREAKS))])
def test_a_line_break_in_a_one_line_field_cannot_forge_a_line(field: str, brk: str) -> None:
    build, answers = FIELDS[field]
    outcome = play(calls=[build(f"x{brk}FORGED line")], answers=answers)
    for line in outcome.stderr.split("\n") + outcome.stdout:
        assert not line.lstrip().startswith("FORGED"), (field, outcome.stderr, outcome.stdout)
    assert len(outcome.stdout) == 1, outcome.stdout  # one reply line for the one document


@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_what_the_person_types_is_echoed_escaped(attack: str) -> None:
    doc = call(question(multi=True))
    outcome = play(calls=[doc], answers=["3", attack if attack.strip() else "x", f"n {attack}", ""])
    check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")


@pytest.mark.parametrize("attack", ATTACKS[:12], ids=[f"a{n}" for n in range(12)])
def test_with_colour_on_every_escape_is_askclis_own(attack: str) -> None:
    out = io.StringIO()
    askcli.ask(
        call(question(text=attack, header=attack, labels=(attack, "b"))),
        input=io.StringIO("p 1\n1\n"),
        output=out,
        style=Style(colour=True),
    )
    shown = out.getvalue()
    assert "\x1b[1;36m" in shown  # colour is on
    check_bytes(SGR.sub("", shown).encode("utf-8", "surrogatepass"), "stderr")


@pytest.mark.process
def test_the_installed_binary_writes_no_raw_control_bytes() -> None:
    stream = []
    for build, answers in FIELDS.values():
        for attack in ATTACKS:
            stream.append(json.dumps(build(attack)))
            stream += answers
    proc = subprocess.run(
        [str(askcli_path()), "ask"],
        input="\n".join(stream).encode() + b"\n",
        capture_output=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert len(proc.stdout.splitlines()) >= len(ATTACKS) * (len(FIELDS) - 1)
    check_bytes(proc.stderr, "stderr")
    check_bytes(proc.stdout, "stdout")
    assert b"Traceback" not in proc.stderr
