"""MCP elicitation/create (2025-11-25): form and URL mode, each reply case, the checks made
before anything is sent, invalid params, hostile strings, --output modes, a real terminal."""

from __future__ import annotations

import copy
import io
import json
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from askcli.errors import AnswerTimeout
from askcli.lines import TextLineReader
from askcli.runners.recordings import play
from askcli.runners.session import answer_document
from askcli.schema.names import ELICITATION
from askcli.status import ExitStatus
from askcli.terminal import signals
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.wire.definitions import tool_definition
from askcli.wire.dialects import by_name, by_tool
from askcli.wire.documents import Document
from askcli.wire.envelopes import Output, json_line

from tests.support.attacks import ATTACKS, LINE_BREAKS, check_bytes
from tests.support.calls import ask_stopped, example
from tests.support.paths import EXAMPLES
from tests.support.processes import run_askcli
from tests.support.terminals import Terminal

FORM = example("elicitation.json")
URL = example("elicitation-url.json")
CONTROL = example("elicitation-control.json")
WARN = "(a command word alone is the command: b back, s skip, q decline; =q types q)"


def request(properties: dict[str, Any], required: list[str] | None = None, **params: Any) -> Any:
    """A JSON-RPC elicitation/create request for a form of ``properties``."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    body = {"message": "Tell me", "requestedSchema": schema, **params}
    return {"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": body}


def url_request(url: str, **params: Any) -> Any:
    body = {"mode": "url", "elicitationId": "e1", "url": url, "message": "Open it", **params}
    return {"jsonrpc": "2.0", "id": 4, "method": "elicitation/create", "params": body}


def result_of(calls: list[Any], answers: list[str]) -> tuple[Any, int, str]:
    """The JSON-RPC response (or control response), the exit status and stderr."""
    outcome = play(calls=calls, answers=answers)
    (line,) = outcome.stdout
    return json.loads(line), outcome.status, outcome.stderr


def sent(calls: list[Any], answers: list[str]) -> Any:
    """The ElicitResult sent back."""
    reply, _, _ = result_of(calls, answers)
    return reply["result"]


# -- golden transcripts -------------------------------------------------------------------

SESSIONS: dict[str, tuple[list[Any], list[str], list[str], list[str], int]] = {
    "form_answered": (
        [FORM],
        ["Monalisa Octocat", "octocat@github.com", "30", ""],
        [
            "",
            "The MCP server asks: Please provide your contact information",
            "",
            "[name] Your full name   (question 1 of 3)",
            "  Type your answer.",
            f"  {WARN}",
            "Answer: Monalisa Octocat",
            "",
            "[email] Your email address   (question 2 of 3)",
            "  Type an email address.",
            f"  {WARN}",
            "Answer: octocat@github.com",
            "",
            "[age] Your age   (question 3 of 3)",
            "  Type a number of at least 18 (optional: s skips it).",
            f"  {WARN}",
            "Answer: 30",
            "",
            "Review your answers:",
            "  1. [name] Your full name",
            "       Monalisa Octocat",
            "  2. [email] Your email address",
            "       octocat@github.com",
            "  3. [age] Your age",
            "       30",
            "Enter or y submits, 1-3 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: ",
            "",
        ],
        [
            '{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":'
            '{"name":"Monalisa Octocat","email":"octocat@github.com","age":30}}}'
        ],
        0,
    ),
    "url_consent": (
        [URL],
        ["y"],
        [
            "",
            "The MCP server asks: Please provide your API key to continue.",
            "",
            "[URL] Open this URL in your browser?",
            "  https://mcp.example.com/ui/set_api_key",
            "  domain: mcp.example.com",
            "  askcli opens nothing: if you say yes, open it yourself.   (question 1 of 1)",
            "  1. Yes - I will open it myself",
            "  2. No - decline",
            "  (keys: 1-2 choose, ? help, q decline)",
            "Choose 1-2 or y/n: y",
            "",
        ],
        ['{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}'],
        0,
    ),
    "url_suspicious_declined": (
        [url_request("http://bank.example@xn--pple-43d.com/login")],
        ["", "n"],
        [
            "",
            "The MCP server asks: Open it",
            "",
            "[URL] Open this URL in your browser?",
            "  http://bank.example@xn--pple-43d.com/login",
            "  domain: xn--pple-43d.com (Unicode: аpple.com)",
            "  ! not https: what you send on that page can be read on the way",
            "  ! the URL carries a user name before an @: the host is xn--pple-43d.com",
            "  ! non-ASCII domain аpple.com: it may imitate another",
            "  askcli opens nothing: if you say yes, open it yourself.   (question 1 of 1)",
            "  1. Yes - I will open it myself",
            "  2. No - decline",
            "  (keys: 1-2 choose, ? help, q decline)",
            "Choose 1-2 or y/n: ",
            "! there is no default here; type an option number from 1-2",
            "Choose 1-2 or y/n: n",
            "",
        ],
        ['{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}'],
        1,
    ),
    "url_backslash_look_alike": (
        [url_request("https://evil.example\\@github.com/")],
        ["n"],
        [
            "",
            "The MCP server asks: Open it",
            "",
            "[URL] Open this URL in your browser?",
            "  https://evil.example\\@github.com/",
            "  domain: evil.example",
            "  ! a browser reads the backslash as /: the host is evil.example",
            "  askcli opens nothing: if you say yes, open it yourself.   (question 1 of 1)",
            "  1. Yes - I will open it myself",
            "  2. No - decline",
            "  (keys: 1-2 choose, ? help, q decline)",
            "Choose 1-2 or y/n: n",
            "",
        ],
        ['{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}'],
        1,
    ),
    "declined": (
        [FORM],
        ["q"],
        [
            "",
            "The MCP server asks: Please provide your contact information",
            "",
            "[name] Your full name   (question 1 of 3)",
            "  Type your answer.",
            f"  {WARN}",
            "Answer: q",
            "",
        ],
        ['{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}'],
        1,
    ),
    "input_ended": (
        [FORM],
        ["Ada"],
        [
            "",
            "The MCP server asks: Please provide your contact information",
            "",
            "[name] Your full name   (question 1 of 3)",
            "  Type your answer.",
            f"  {WARN}",
            "Answer: Ada",
            "",
            "[email] Your email address   (question 2 of 3)",
            "  Type an email address.",
            f"  {WARN}",
            "Answer: ",
            "askcli: no answer (the input ended)",
            "",
        ],
        ['{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}'],
        3,
    ),
    "claude_code_control_request": (
        [CONTROL],
        ["y", "", "3", "s", "", ""],
        [
            "",
            'MCP server "booking" asks: No tables for 4 on 2024-12-25 at 19:00. Would you',
            "  like to check another date?",
            "",
            "[checkAltern…] Checkalternative",
            "  Would you like to check another date?   (question 1 of 5)",
            "  1. Yes",
            "  2. No",
            "  (keys: 1-2 choose, ? help, q decline)",
            "Choose 1-2 or y/n: y",
            "",
            "[alternative…] Alternativedate",
            "  Alternative date (YYYY-MM-DD)   (question 2 of 5)",
            "  Type your answer (optional: s skips it).",
            f"  {WARN}",
            "Answer [2024-12-26]: ",
            "",
            "[size] Size   (question 3 of 5)",
            "  1. S",
            "  2. M",
            "  3. L",
            "  (optional: s skips it)",
            "  suggested by the server (2): M",
            "Choose 1-3 [2]: 3",
            "",
            "[email] Email   (question 4 of 5)",
            "  Type your answer (optional: s skips it).",
            f"  {WARN}",
            "Answer: s",
            "Skipped question 4; answer it from the review.",
            "",
            "[count] Count   (question 5 of 5)",
            "  Type a whole number from 1 to 9 (optional: s skips it).",
            f"  {WARN}",
            "Answer [1]: ",
            "",
            "Review your answers:",
            "  1. [checkAltern…] Checkalternative",
            "     Would you like to check another date?",
            "       Yes",
            "  2. [alternative…] Alternativedate",
            "     Alternative date (YYYY-MM-DD)",
            "       2024-12-26",
            "  3. [size] Size",
            "       L",
            "  4. [email] Email",
            "       (no answer: skipped)",
            "  5. [count] Count",
            "       1",
            "Enter or y submits, 1-5 changes an answer, b goes back, q declines, ? for help.",
            "Submit? [y]: ",
            "",
        ],
        [
            '{"type":"control_response","response":{"subtype":"success","request_id":'
            '"req_el_01","response":{"action":"accept","content":{"checkAlternative":true,'
            '"alternativeDate":"2024-12-26","size":"L","count":1}}}}'
        ],
        0,
    ),
}


@pytest.mark.parametrize("name", SESSIONS)
def test_golden_transcript(name: str) -> None:
    calls, answers, stderr, stdout, status = SESSIONS[name]
    outcome = play(calls=copy.deepcopy(calls), answers=answers)
    assert outcome.stderr.split("\n") == stderr
    assert outcome.stdout == stdout
    assert outcome.status == status


# -- form values: typed as the schema says, in the order chosen ---------------------------

COLOURS = {
    "type": "array",
    "title": "Colours",
    "minItems": 1,
    "maxItems": 2,
    "items": {
        "anyOf": [
            {"const": "#FF0000", "title": "Red"},
            {"const": "#00FF00", "title": "Green"},
            {"const": "#0000FF", "title": "Blue"},
        ]
    },
}


def test_every_schema_form_is_sent_as_its_type() -> None:
    properties = {
        "name": {"type": "string", "title": "Name"},
        "ratio": {"type": "number", "title": "Ratio"},
        "count": {"type": "integer", "title": "Count"},
        "ok": {"type": "boolean", "title": "OK?"},
        "size": {"type": "string", "enum": ["s", "m", "l"]},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "colour": {
            "type": "string",
            "oneOf": [{"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}],
        },
        "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}},
        "colours": COLOURS,
    }
    lines = ["Ada", "2.50", "7", "n", "2", "Beta", "1", "3,1", "3 1", ""]
    assert sent([request(properties)], lines) == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "ratio": 2.5,
            "count": 7,
            "ok": False,
            "size": "m",
            "legacy": "b",
            "colour": "#FF0000",
            "tags": ["z", "x"],
            "colours": ["#0000FF", "#FF0000"],
        },
    }


def test_legacy_enum_names_and_titles_are_shown_values_are_sent() -> None:
    reply, _, err = result_of(
        [request({"c": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]}})],
        ["2", ""],
    )
    assert "  1. Alpha\n  2. Beta\n" in err and "Other" not in err
    assert reply["result"] == {"action": "accept", "content": {"c": "b"}}


def test_defaults_are_suggested_and_confirmed() -> None:
    properties = {
        "when": {"type": "string", "format": "date", "default": "2024-12-26"},
        "n": {"type": "number", "default": 95.5},
        "ok": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["S", "M"], "default": "M"},
        "colours": {**COLOURS, "default": ["#00FF00", "#FF0000"]},
    }
    reply, status, err = result_of([request(properties)], ["", "", "", "", "", ""])
    assert "Answer [2024-12-26]: " in err and "Answer [95.5]: " in err
    assert "Choose 1-2 or y/n [1]: " in err and "Choose 1-2 [2]: " in err
    assert "Choose 1-3, several allowed (e.g. 1,3) [2,1]: " in err
    assert reply["result"]["content"] == {
        "when": "2024-12-26",
        "n": 95.5,
        "ok": True,
        "size": "M",
        "colours": ["#00FF00", "#FF0000"],
    }
    assert status == 0


def test_a_default_outside_the_schema_is_not_sent_unseen() -> None:
    properties = {
        "n": {"type": "integer", "maximum": 3, "default": 9},
        "size": {"type": "string", "enum": ["S", "M"], "default": "XL"},
    }
    reply, _, err = result_of([request(properties)], ["", "2", "", "2", ""])
    assert "! the answer must be at most 3" in err
    assert "! there is no default here; type an option number from 1-2" in err
    assert reply["result"]["content"] == {"n": 2, "size": "M"}


def test_an_optional_property_skipped_is_left_out_of_content() -> None:
    reply = sent([FORM], ["Ada", "ada@example.com", "s", ""])
    assert reply == {"action": "accept", "content": {"name": "Ada", "email": "ada@example.com"}}


def test_required_properties_must_be_answered_before_submitting() -> None:
    """y is refused while one has no answer; Enter goes to each in turn (issue 29)."""
    lines = ["s", "s", "s", "y", "", "Ada", "", "a@b.co", ""]
    assert sent([FORM], lines) == {
        "action": "accept",
        "content": {"name": "Ada", "email": "a@b.co"},
    }
    _, _, err = result_of([FORM], lines)
    assert "! question 1 has no answer yet; Enter or 1 answers it" in err
    assert "Answer question 1 first [1]: " in err and "Answer question 2 first [2]: " in err


@pytest.mark.parametrize(
    ("schema", "bad", "reason", "good", "value"),
    [
        ({"type": "string", "minLength": 3}, "ab", "at least 3 characters", "abc", "abc"),
        ({"type": "string", "maxLength": 2}, "abc", "at most 2 characters", "ab", "ab"),
        (
            {"type": "string", "format": "email"},
            "nope",
            "type an email address",
            "a@b.co",
            "a@b.co",
        ),
        ({"type": "string", "format": "uri"}, "x y", "type a URI", "https://a.b/", "https://a.b/"),
        (
            {"type": "string", "format": "date"},
            "26/12/2024",
            "as YYYY-MM-DD",
            "2024-12-26",
            "2024-12-26",
        ),
        (
            {"type": "string", "format": "date-time"},
            "2024-12-26",
            "with its zone",
            "2024-12-26T19:00:00Z",
            "2024-12-26T19:00:00Z",
        ),
        ({"type": "string", "pattern": "^[A-Za-z]+$"}, "abc1", "match the pattern", "abc", "abc"),
        ({"type": "integer"}, "2.5", "type a whole number", "2", 2),
        ({"type": "number", "minimum": 0, "maximum": 100}, "101", "at most 100", "-0", 0),
        ({"type": "number", "minimum": 18}, "eleven", "type a number of at least 18", "18", 18),
    ],
)
def test_values_are_checked_before_they_are_sent(
    schema: dict[str, Any], bad: str, reason: str, good: str, value: Any
) -> None:
    reply, status, err = result_of([request({"v": schema})], [bad, good, ""])
    assert reason in err
    assert reply["result"] == {"action": "accept", "content": {"v": value}}
    assert status == 0


def test_a_multi_select_keeps_to_min_and_max_items() -> None:
    reply, _, err = result_of([request({"c": COLOURS}, ["c"])], ["1,2,3", "", "2", ""])
    assert "(choose 1-2 options)" in err
    assert "! choose at most 2 options" in err
    assert reply["result"]["content"] == {"c": ["#00FF00"]}


# -- every other reply -------------------------------------------------------------------


def test_chat_about_this_declines_and_keeps_the_words_for_scripts() -> None:
    outcome = play(calls=[FORM], answers=["c", "what is this for?"], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["action"] == "decline" and data["clarification"] == "what is this for?"
    assert data["status"] == {"name": "declined", "email": "declined", "age": "declined"}
    assert data["error"] == '{"action":"decline"}'
    assert outcome.status == 1
    assert sent([FORM], ["c", "why?"]) == {"action": "decline"}


def test_decline_after_answers_is_confirmed_once() -> None:
    reply, status, err = result_of([FORM], ["Ada", "q", "y"])
    assert "Decline all 3 questions? [y/N] y" in err
    assert reply["result"] == {"action": "decline"} and status == 1


def test_an_empty_form_is_a_yes_or_no() -> None:
    call = request({})
    reply, status, err = result_of([call], ["y"])
    assert "[Confirm] Accept? The form has nothing to fill in." in err
    assert reply["result"] == {"action": "accept", "content": {}} and status == 0
    assert sent([call], ["n"]) == {"action": "decline"}
    missing = copy.deepcopy(call)
    del missing["params"]["requestedSchema"]["properties"]
    assert sent([missing], ["1"]) == {"action": "accept", "content": {}}


@pytest.mark.parametrize("field", [{"writeOnly": True}, {"format": "password"}])
def test_a_write_only_or_password_field_is_a_secret(field: dict[str, Any]) -> None:
    """Not echoed back, not shown on the review, sent as typed (and erased from the inbox
    once delivered: tests/inbox/test_inbox_safety.py)."""
    call = request({"pin": {"type": "string", "title": "PIN", **field}}, ["pin"])
    reply, status, stderr = result_of([call], ["4711", ""])
    assert status == 0
    assert reply["result"] == {"action": "accept", "content": {"pin": "4711"}}
    assert "4711" not in stderr
    assert "(hidden)" in stderr


PIN = "80417263"


@pytest.mark.parametrize(
    ("field", "typed", "value"),
    [
        ({"type": "integer"}, [PIN, ""], int(PIN)),
        ({"type": "number"}, ["8041.7263", ""], 8041.7263),
        ({"type": "boolean"}, ["2", ""], False),
        ({"type": "string", "enum": ["crimson", "blue"]}, ["1", ""], "crimson"),
        ({"type": "array", "items": {"enum": ["crimson", "b"]}}, ["1", ""], ["crimson"]),
    ],
    ids=["integer", "number", "boolean", "enum", "multi"],
)
def test_a_write_only_field_of_any_type_is_a_secret(
    field: dict[str, Any], typed: list[str], value: Any, tmp_path: Path
) -> None:
    """An integer PIN is as secret as a string one: not echoed, not on the review, never
    journaled (erased from the inbox and kept from its log: tests/inbox/test_inbox_safety.py)."""
    call = request({"pin": {**field, "title": "Code", "writeOnly": True}}, ["pin"])
    (parsed,) = by_name("elicitation").parse(call["params"]).questions
    assert parsed.secret
    reply, status, stderr = result_of([call], typed)
    assert status == 0, stderr
    assert reply["result"] == {"action": "accept", "content": {"pin": value}}
    review = stderr[stderr.index("Review your answers:") :]
    assert "(hidden" in review
    assert not any(word in review for word in ("80417263", "8041.7263", "crimson", " No"))
    assert "80417263" not in stderr and "8041.7263" not in stderr
    journal = tmp_path / "journal.jsonl"
    conv = Conversation(
        TextLineReader(io.StringIO(typed[0] + "\n")),
        io.StringIO(),
        Style(),
        RunOptions(journal_file=journal),
    )
    # the input ends at the review: a journal keeps the lines of an unfinished call
    assert answer_document(Document(call), conv).status is ExitStatus.NO_ANSWER
    assert not journal.exists() or typed[0] not in journal.read_text()


def test_a_lone_optional_property_may_be_left_out() -> None:
    call = request({"n": {"type": "string"}})
    reply, status, err = result_of([call], ["s", ""])
    assert "(optional: s skips it)" in err
    assert reply["result"] == {"action": "accept", "content": {}} and status == 0
    assert sent([call], ["x", ""]) == {"action": "accept", "content": {"n": "x"}}


def test_a_lone_field_is_reviewed_before_it_is_sent() -> None:
    """The spec: clients MUST let the person review (and change) what is sent."""
    call = request({"n": {"type": "string"}}, ["n"])
    reply, status, err = result_of([call], ["x", "1", "y", ""])
    assert "Review your answers:" in err and "Submit? [y]: " in err
    assert reply["result"] == {"action": "accept", "content": {"n": "y"}} and status == 0
    reply, _, _ = result_of([call], ["x"])
    assert reply["result"] == {"action": "cancel"}  # nothing is sent unreviewed


def stopped(exc: BaseException, lines: str, call: Any = FORM) -> tuple[Any, int, Any, str]:
    """Ask ``call`` with ``lines`` typed, then ``exc``: the reply, status, data, stderr."""
    reply, err = ask_stopped(call, lines, exc)
    (result,) = reply.results
    (line,) = [json_line(r) for r in reply.replies]
    return json.loads(line), int(reply.status), result.answers(), err


def test_a_timeout_cancels() -> None:
    reply, status, data, err = stopped(AnswerTimeout(5), "Ada\n")
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}}
    assert status == 3
    assert data["answers"] == {"name": "Ada"} and data["why"] == "no reply within 5 seconds"
    assert set(data["status"].values()) == {"timed out"}
    assert "askcli: no answer (no reply within 5 seconds)" in err


def test_ctrl_c_is_dismissing_the_dialog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals, "_received", [signal.SIGINT])
    reply, status, data, _ = stopped(KeyboardInterrupt(), "Ada\n")
    assert reply["result"] == {"action": "cancel"}
    assert status == 130
    assert set(data["status"].values()) == {"dismissed"} and "why" not in data


@pytest.mark.parametrize(
    ("sig", "why"),
    [(signal.SIGHUP, "the terminal hung up"), (signal.SIGTERM, "askcli was stopped")],
)
def test_hangup_and_terminate_cancel_saying_why(
    sig: signal.Signals, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(signals, "_received", [sig])
    reply, status, data, _ = stopped(KeyboardInterrupt(), "", URL)
    assert reply["result"] == {"action": "cancel"}
    assert status == 130  # cli.py turns it into 129 / 143
    assert data["why"] == why and data["status"] == {"url": "dismissed"}


def test_claude_code_gets_decline_and_cancel_in_its_control_response() -> None:
    reply, status, _ = result_of([CONTROL], ["q"])
    assert reply == {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": "req_el_01",
            "response": {"action": "decline"},
        },
    }
    assert status == 1
    reply, status, _ = result_of([CONTROL], [])
    assert reply["response"]["response"] == {"action": "cancel"} and status == 3


def test_a_stream_of_requests_each_gets_its_response() -> None:
    outcome = play(stdin=[json.dumps(FORM), "q", json.dumps(URL), "y"])
    assert [json.loads(line) for line in outcome.stdout] == [
        {"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}},
        {"jsonrpc": "2.0", "id": 3, "result": {"action": "accept"}},
    ]
    assert outcome.status == 1


# -- URL mode ----------------------------------------------------------------------------


def test_a_long_url_is_shown_whole() -> None:
    url = "https://auth.example.com/authorize?" + "&".join(f"p{n}=v{n}" for n in range(40))
    _, _, err = result_of([url_request(url)], ["n"])
    shown = "".join(line.strip() for line in err.split("\n")[3:12])
    assert url in shown and "…" not in err


def test_a_url_is_never_opened_or_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import subprocess
    import webbrowser

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("askcli must not open or fetch the URL")

    monkeypatch.setattr(webbrowser, "open", forbidden)
    monkeypatch.setattr(socket, "create_connection", forbidden)
    monkeypatch.setattr(socket, "getaddrinfo", forbidden)
    monkeypatch.setattr(subprocess, "Popen", forbidden)
    assert sent([URL], ["y"]) == {"action": "accept"}


# -- invalid params ----------------------------------------------------------------------

INVALID: dict[str, tuple[Any, str]] = {
    "no message": ({"requestedSchema": {"type": "object", "properties": {}}}, "message: Required"),
    "message not text": ({"message": 3, "requestedSchema": {}}, "Expected string, received number"),
    "no schema": ({"message": "m"}, "requestedSchema: Required"),
    "schema not object": (
        {"message": "m", "requestedSchema": []},
        "Expected object, received array",
    ),
    "nested object": (
        {"message": "m", "requestedSchema": {"properties": {"a": {"type": "object"}}}},
        "requestedSchema.properties.a: nested objects are not supported",
    ),
    "array of free text": (
        {
            "message": "m",
            "requestedSchema": {
                "properties": {"t": {"type": "array", "items": {"type": "string"}}}
            },
        },
        "an array must be a multi-select of strings",
    ),
    "unknown type": (
        {"message": "m", "requestedSchema": {"properties": {"a": {"type": "file"}}}},
        'askcli cannot ask a property of type "file"',
    ),
    "no type": (
        {"message": "m", "requestedSchema": {"properties": {"a": {"title": "A"}}}},
        "the property has no type askcli can ask",
    ),
    "empty enum": (
        {"message": "m", "requestedSchema": {"properties": {"a": {"type": "string", "enum": []}}}},
        "the enum has no values to choose from",
    ),
    "numbers in enum": (
        {"message": "m", "requestedSchema": {"properties": {"a": {"enum": ["x", 2]}}}},
        "requestedSchema.properties.a.enum[1]: Expected string, received number",
    ),
    "impossible length": (
        {
            "message": "m",
            "requestedSchema": {
                "properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}
            },
        },
        "minLength is more than maxLength",
    ),
    "impossible items": (
        {
            "message": "m",
            "requestedSchema": {"properties": {"c": {**COLOURS, "minItems": 4, "maxItems": 5}}},
        },
        "minItems is 4 but there are 3 values",
    ),
    "required not a list": (
        {"message": "m", "requestedSchema": {"properties": {}, "required": "a"}},
        "requestedSchema.required: Expected array, received string",
    ),
    "unknown mode": ({"mode": "sms", "message": "m"}, 'mode "sms" is not supported'),
    "url missing": ({"mode": "url", "message": "m", "elicitationId": "1"}, "url: Required"),
    "url not absolute": (
        {"mode": "url", "message": "m", "elicitationId": "1", "url": "/relative/path"},
        "the url is not an absolute URL with a host",
    ),
    "url not a web address": (
        {"mode": "url", "message": "m", "elicitationId": "1", "url": "javascript:alert(1)"},
        "url: askcli asks only about http and https URLs, not javascript:",
    ),
    "url that no browser opens": (
        {"mode": "url", "message": "m", "elicitationId": "1", "url": "https://exa mple.com/"},
        "url: the url is not an absolute URL with a host",
    ),
}


@pytest.mark.parametrize("name", INVALID)
def test_params_askcli_cannot_ask_are_refused_with_the_reason(name: str) -> None:
    params, reason = INVALID[name]
    call = {"jsonrpc": "2.0", "id": "r7", "method": "elicitation/create", "params": params}
    outcome = play(calls=[call], answers=["1"])
    (line,) = outcome.stdout
    reply = json.loads(line)
    assert reply["id"] == "r7" and "result" not in reply
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("Invalid params: ")
    assert reason in reply["error"]["message"]
    assert set(reply["error"]) == {"code", "message"}
    errors = [line for line in outcome.stderr.split("\n") if "invalid" in line]
    assert len(errors) == 1 and reason in errors[0]
    assert outcome.status == 2
    assert "[" not in outcome.stderr.split("invalid")[0].split("\n")[-1]  # nothing asked


def test_a_request_without_params_is_refused() -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create"}
    reply, status, _ = result_of([call], [])
    assert reply["error"] == {
        "code": -32602,
        "message": 'Invalid params: the request has no "params" object',
    }
    assert status == 2


def test_claude_code_gets_the_reason_in_an_error_control_response() -> None:
    bad = copy.deepcopy(CONTROL)
    bad["request"]["requested_schema"]["properties"]["size"] = {"type": "object"}
    reply, status, err = result_of([bad], [])
    assert reply["response"] == {
        "subtype": "error",
        "request_id": "req_el_01",
        "error": "Invalid params: requestedSchema.properties.size: nested objects are not "
        "supported: a form has only top-level properties of primitive types",
    }
    assert status == 2
    assert err.startswith('\nMCP server "booking" asks: No tables for 4')


def test_what_real_servers_send_is_taken() -> None:
    properties = {
        # Python SDK 1.x: Optional[str] as anyOf with null, no type
        "email": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "E"},
        "nick": {"type": ["string", "null"]},
        "size": {"enum": ["S", "M"]},
        "pick": {"oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
    }
    call = request(properties, title="Prefs")
    call["params"]["requestedSchema"]["title"] = "BookingPreferences"
    call["params"]["requestedSchema"]["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    call["params"]["_meta"] = {"progressToken": 1}
    call["params"]["task"] = {"ttl": 1000}
    reply = sent([call], ["e@x.io", "neo", "1", "2", ""])
    assert reply["content"] == {"email": "e@x.io", "nick": "neo", "size": "S", "pick": "b"}


def test_claude_codes_property_order_is_the_order_asked() -> None:
    control = copy.deepcopy(CONTROL)
    control["request"]["property_order"] = ["count", "checkAlternative"]
    _, _, err = result_of([control], ["q"])
    assert "[count] Count   (question 1 of 5)" in err


def test_titles_that_repeat_are_made_unique() -> None:
    properties = {
        "a": {"type": "string", "title": "Name"},
        "b": {"type": "string", "title": "Name"},
        "c": {"type": "string", "enum": ["x", "y"], "enumNames": ["Same", "Same"]},
    }
    reply, _, err = result_of([request(properties)], ["1", "2", "Same (y)", ""])
    assert "[a] Name   (question 1 of 3)" in err and "[b] Name (2)   (question 2 of 3)" in err
    assert "  1. Same\n  2. Same (y)\n" in err
    assert reply["result"]["content"] == {"a": "1", "b": "2", "c": "y"}


# -- soft rules (askcli check --strict) --------------------------------------------------


@pytest.mark.process
def test_check_strict_names_the_soft_rules_broken() -> None:
    properties = {
        "password": {"type": "string", "pattern": "^[a-z]+$"},
        "c": {"type": "string", "enum": ["a"], "enumNames": ["A"]},
        "id": {"type": "string", "format": "uuid"},
        "site": {"type": "string", "description": "see https://example.com/help"},
    }
    call = request(properties, ["nope"])
    proc = run_askcli("check", "--strict", "-", input=json.dumps(call) + "\n")
    assert proc.returncode == 0
    out = proc.stdout
    assert "required names 'nope', which is no property" in out
    assert "password.pattern is not part of the 2025-11-25 StringSchema" in out
    assert "password looks like a secret; form mode must not ask for passwords" in out
    assert "c.enumNames is the legacy form; use oneOf with const and title" in out
    assert "id.format 'uuid' is not one of email, uri, date, date-time; not checked" in out
    assert "site holds a URL; form fields should not" in out
    assert "1 valid, 0 invalid, 6 warning(s)" in out
    plain = url_request("http://example.com/")
    del plain["params"]["elicitationId"]
    proc = run_askcli("check", "--strict", "-", input=json.dumps(plain) + "\n")
    assert "elicitationId is missing" in proc.stdout and "url is not https" in proc.stdout


# -- hostile strings ---------------------------------------------------------------------


def in_message(text: str) -> Any:
    return request({"a": {"type": "string"}}, message=text)


def in_server_name(text: str) -> Any:
    control = copy.deepcopy(CONTROL)
    control["request"]["mcp_server_name"] = text
    return control


def in_title(text: str) -> Any:
    return request({"a": {"type": "string", "title": text}, "b": {"type": "boolean"}})


def in_description(text: str) -> Any:
    return request({"a": {"type": "string", "title": "T", "description": text}})


def in_key(text: str) -> Any:
    return request({text: {"type": "string"}, "b": {"type": "boolean"}})


def in_enum(text: str) -> Any:
    return request({"a": {"type": "string", "enum": [text, "b"]}, "b": {"type": "boolean"}})


def in_titled_option(text: str) -> Any:
    items = {"anyOf": [{"const": "v", "title": text}, {"const": "w", "title": "W"}]}
    return request({"a": {"type": "array", "items": items}})


def in_default(text: str) -> Any:
    return request({"a": {"type": "string", "default": text}, "b": {"type": "boolean"}})


def in_url(text: str) -> Any:
    return url_request(f"https://example.com/{text}")


def in_host(text: str) -> Any:
    return url_request(f"https://{text}.example.com/")


def in_elicitation_id(text: str) -> Any:
    return url_request("https://example.com/", elicitationId=text)


def in_mode(text: str) -> Any:
    return url_request("https://example.com/", mode=text)


HOSTILE = {
    "message": (in_message, ["x"]),
    "server-name": (in_server_name, ["q"]),
    "title": (in_title, ["x", "y", ""]),
    "description": (in_description, ["x"]),
    "key": (in_key, ["x", "y", ""]),
    "enum": (in_enum, ["1", "y", ""]),
    "titled-option": (in_titled_option, ["1", ""]),
    "default": (in_default, ["", "y", ""]),
    "url": (in_url, ["y"]),
    "host": (in_host, ["y"]),
    "elicitation-id": (in_elicitation_id, ["y"]),
    "mode": (in_mode, []),
}
# the message is text of several lines, shown under a hanging indent as an assistant's is
ONE_LINE = ["server-name", "title", "key", "enum", "titled-option", "url", "host"]


@pytest.mark.parametrize("field", HOSTILE)
@pytest.mark.parametrize("attack", ATTACKS, ids=[f"a{n}" for n in range(len(ATTACKS))])
def test_no_raw_control_reaches_the_terminal(field: str, attack: str) -> None:
    build, answers = HOSTILE[field]
    outcome = play(calls=[build(attack)], answers=answers)
    check_bytes(outcome.stderr.encode("utf-8", "surrogatepass"), "stderr")
    for line in outcome.stdout:
        check_bytes(line.encode("utf-8", "surrogatepass"), "stdout")
    assert "Traceback" not in outcome.stderr
    assert len(outcome.stdout) == 1


@pytest.mark.parametrize("field", ONE_LINE)
@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[f"b{n}" for n in range(len(LINE_BREAKS))])
def test_a_line_break_in_a_one_line_field_cannot_forge_a_line(field: str, brk: str) -> None:
    build, answers = HOSTILE[field]
    outcome = play(calls=[build(f"x{brk}FORGED line")], answers=answers)
    for line in outcome.stderr.split("\n") + outcome.stdout:
        assert not line.lstrip().startswith("FORGED"), (field, outcome.stderr)
    assert len(outcome.stdout) == 1


def test_a_url_cannot_forge_its_domain_line() -> None:
    _, _, err = result_of([url_request("https://evil.example/\ndomain: bank.example")], ["n"])
    assert "  domain: evil.example\n" in err
    assert "\n  domain: bank.example" not in err


def test_what_the_person_types_is_sent_as_typed_and_echoed_escaped() -> None:
    outcome = play(calls=[request({"a": {"type": "string"}})], answers=["\u202ehi", ""])
    check_bytes(outcome.stderr.encode(), "stderr")
    assert json.loads(outcome.stdout[0])["result"]["content"] == {"a": "\u202ehi"}
    assert "\\u202ehi" in outcome.stdout[0]


def test_a_control_character_typed_is_refused_never_sent() -> None:
    answers = ["\x1b[2Jhi", "hi", ""]
    outcome = play(calls=[request({"a": {"type": "string"}})], answers=answers)
    check_bytes(outcome.stderr.encode(), "stderr")
    assert "! \\x1b[2J (an escape sequence) is not text" in outcome.stderr
    assert json.loads(outcome.stdout[0])["result"]["content"] == {"a": "hi"}


# -- --output ----------------------------------------------------------------------------


def test_output_answers_is_the_content_by_property() -> None:
    outcome = play(calls=[FORM], answers=["Ada", "a@b.co", "s", ""], output=Output.ANSWERS)
    assert json.loads(outcome.stdout[0]) == {
        "questions": FORM["params"],
        "answers": {"name": "Ada", "email": "a@b.co"},
        "status": {"name": "answered", "email": "answered", "age": "skipped"},
        "action": "accept",
    }


def test_notes_are_refused_mcp_has_no_place_for_them() -> None:
    outcome = play(calls=[URL], answers=["n see the wiki", "y"], output=Output.ANSWERS)
    assert "! this agent has no place for notes" in outcome.stderr
    data = json.loads(outcome.stdout[0])
    assert "notes" not in data and data["action"] == "accept"


def test_output_answers_when_cancelled_has_the_answers_so_far_and_an_error() -> None:
    outcome = play(calls=[FORM], answers=["Ada"], output=Output.ANSWERS)
    data = json.loads(outcome.stdout[0])
    assert data["answers"] == {"name": "Ada"} and data["action"] == "cancel"
    assert data["status"] == {"name": "dismissed", "email": "dismissed", "age": "dismissed"}
    assert data["error"] == '{"action":"cancel"}' and data["why"] == "the input ended"
    assert outcome.status == 3


def test_output_text_is_the_result_as_json() -> None:
    outcome = play(calls=[URL], answers=["y"], output=Output.TEXT)
    assert outcome.stdout == ['{"action":"accept"}']
    outcome = play(calls=[FORM], answers=["q"], output=Output.TEXT)
    assert outcome.stdout == ['{"action":"decline"}'] and outcome.status == 1


def test_output_text_of_params_askcli_cannot_ask_is_the_reason() -> None:
    call = request({"a": {"type": "object"}})
    outcome = play(calls=[call], answers=[], output=Output.TEXT)
    assert outcome.stdout == [
        "Invalid params: requestedSchema.properties.a: nested objects are not supported: "
        "a form has only top-level properties of primitive types"
    ]
    assert outcome.status == 2


def test_output_sdk_allows_with_the_result_or_denies() -> None:
    outcome = play(calls=[FORM], answers=["Ada", "a@b.co", "40", ""], output=Output.SDK)
    assert json.loads(outcome.stdout[0]) == {
        "behavior": "allow",
        "updatedInput": {
            "action": "accept",
            "content": {"name": "Ada", "email": "a@b.co", "age": 40},
        },
    }
    outcome = play(calls=[FORM], answers=["q"], output=Output.SDK)
    assert json.loads(outcome.stdout[0]) == {"behavior": "deny", "message": '{"action":"decline"}'}


# -- the dialect's definition ------------------------------------------------------------


def test_the_dialect_is_found_by_its_method_and_name() -> None:
    dialect = by_tool(ELICITATION)
    assert dialect is not None and dialect is by_name("elicitation")


@pytest.mark.process
def test_schema_format_elicitation_is_the_params_schema_and_the_examples_fit_it() -> None:
    import jsonschema  # type: ignore[import-untyped]

    definition = tool_definition("elicitation")
    assert definition["title"] == "ElicitRequestParams"
    validator = jsonschema.Draft202012Validator(definition)
    validator.check_schema(definition)
    for name in ("elicitation.json", "elicitation-url.json"):
        validator.validate(example(name)["params"])
    validator.validate({"message": "m", "requestedSchema": {"type": "object", "properties": {}}})
    assert not validator.is_valid({"mode": "url", "message": "m", "url": "https://a.b/"})
    proc = run_askcli("schema", "--format", "elicitation")
    assert proc.returncode == 0 and json.loads(proc.stdout) == definition
    definition["$defs"].clear()
    assert tool_definition("elicitation")["$defs"]  # a copy each time


# -- a real terminal ---------------------------------------------------------------------


@pytest.mark.pty
def test_a_form_at_a_terminal(tmp_path: Path) -> None:
    term = Terminal(["ask", str(EXAMPLES / "elicitation.json")], tmp_path)
    term.expect("The MCP server asks: Please provide your contact information")
    term.expect("[name] Your full name   (question 1 of 3)")
    term.expect("Answer: ")
    term.type("Monalisa Octocat")
    term.expect("[email] Your email address")
    term.expect("Answer: ")
    term.type("octocat")
    term.expect("! type an email address, e.g. name@example.com")
    term.expect("Answer: ")
    term.type("octocat@github.com")
    term.expect("Type a number of at least 18 (optional: s skips it).")
    term.expect("Answer: ")
    term.type("30")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "action": "accept",
            "content": {"name": "Monalisa Octocat", "email": "octocat@github.com", "age": 30},
        },
    }


# -- no input makes a traceback ----------------------------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_WORDS = st.sampled_from(
    [
        "type",
        "enum",
        "enumNames",
        "oneOf",
        "anyOf",
        "items",
        "default",
        "title",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "format",
        "pattern",
        "const",
    ]
)
_PROPERTY = st.dictionaries(
    _WORDS,
    st.sampled_from(["string", "number", "integer", "boolean", "array", "object", "null"]) | _JSON,
    max_size=5,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    properties=st.dictionaries(st.text(max_size=5), _PROPERTY, max_size=3),
    required=_JSON,
    mode=st.sampled_from([None, "form", "url", 3]),
    url=_JSON | st.sampled_from(["https://a.example/", "http://xn--a.b/", "https://[::1]:99/"]),
)
def test_any_params_are_asked_or_refused_never_a_traceback(
    properties: Any, required: Any, mode: Any, url: Any
) -> None:
    params: dict[str, Any] = {
        "message": "m",
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
        "url": url,
        "elicitationId": "e",
    }
    if mode is not None:
        params["mode"] = mode
    call = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params}
    outcome = play(calls=[call], answers=["1", "1", "1", "", "y"])
    assert len(outcome.stdout) == 1 and "Traceback" not in outcome.stderr
    reply = json.loads(outcome.stdout[0])
    assert ("result" in reply) != ("error" in reply)
