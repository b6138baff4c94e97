"""ACP's session/request_permission as a dialect: the request read, the option grammar, every
option kind's response, cancelled whenever nobody chose, and askcli ask answering one."""

from __future__ import annotations

import copy
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from askcli.errors import AnswerTimeout, InvalidCall
from askcli.inbox.person_side.queue_screens import summary
from askcli.questions.allowing import NoOnce, OptionPick, Unclear, parse_option_line
from askcli.runners.recordings import play
from askcli.terminal import signals
from askcli.tools.registry import REGISTRY
from askcli.wire.dialects.acp_permission import OptionKind, parse
from askcli.wire.envelopes import json_line

from tests.support.calls import ask_stopped
from tests.support.processes import run_askcli

OPTIONS = [
    {"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Never", "kind": "reject_always"},
]
TOOL_CALL = {
    "toolCallId": "t1",
    "title": "echo hi",
    "kind": "execute",
    "rawInput": {"command": "echo hi"},
    "content": [{"type": "diff", "path": "a.txt", "oldText": "old\n", "newText": "new\n"}],
    "locations": [{"path": "/w/a.txt", "line": 3}],
}
SCREEN = [
    "",
    "The agent asks to run: echo hi",
    "  kind: execute",
    "  content (edit of a.txt):",
    "      --- a/a.txt",
    "      +++ b/a.txt",
    "      @@ -1 +1 @@",
    "      -old",
    "      +new",
    "  locations: /w/a.txt:3",
    "  input:",
    "      {",
    '        "command": "echo hi"',
    "      }",
    "  1. Allow for this session  (allow_always)",
    "  2. Allow  (allow_once)",
    "  3. Reject  (reject_once)",
    "  4. Never  (reject_always)",
]
PROMPT = "Choose 1-4, y = 2, n = 3: "
CANCELLED = {"outcome": {"outcome": "cancelled"}}


def request(options: list[dict[str, Any]] = OPTIONS, **params: Any) -> dict[str, Any]:
    body = {"sessionId": "s1", "toolCall": TOOL_CALL, "options": options, **params}
    return {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": body}


def answered(answers: list[str], document: Any = None) -> tuple[Any, int, str]:
    """The JSON-RPC response, the exit status and stderr."""
    outcome = play(calls=[document or request()], answers=answers)
    (line,) = outcome.stdout
    return json.loads(line), outcome.status, outcome.stderr


def selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


# -- the request ----------------------------------------------------------------------------


def test_the_request_is_read_whole() -> None:
    found = parse(request()["params"])
    assert found.title == "echo hi"
    assert [o.option_id for o in found.options] == [o["optionId"] for o in OPTIONS]
    kinds = [OptionKind.ALLOW_ALWAYS, OptionKind.ALLOW_ONCE, OptionKind.REJECT_ONCE]
    assert [o.kind for o in found.options] == [*kinds, OptionKind.REJECT_ALWAYS]
    assert (found.allow, found.reject) == (1, 2)
    assert found.details["locations"] == "/w/a.txt:3"
    assert found.details["input"] == {"command": "echo hi"}


def test_what_does_not_fit_acp_s_schema_is_shown_as_sent() -> None:
    odd = [{"optionId": "x", "kind": "allow_sometimes"}, "not an option", {"optionId": "y"}]
    found = parse({"toolCall": {"toolCallId": "t9"}, "options": odd})
    assert found.title == "t9"  # no title: the call's id
    assert [(o.name, o.kind, o.kind_text) for o in found.options] == [
        ("?", None, "allow_sometimes"),
        ("?", None, "?"),
    ]
    assert (found.allow, found.reject) == (None, None)
    assert parse({}).title == "a tool call" and parse({}).options == ()


@pytest.mark.parametrize("raw", [None, [], "params", 3])
def test_params_that_are_not_an_object_are_invalid(raw: Any) -> None:
    with pytest.raises(InvalidCall):
        parse(raw)


def test_it_is_registered_as_a_tool() -> None:
    assert "session/request_permission" in REGISTRY


# -- the grammar ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "allow", "reject", "meaning"),
    [
        ("1", 1, 2, OptionPick(0)),
        ("4.", 1, 2, OptionPick(3)),
        (" y ", 1, 2, OptionPick(1)),
        ("YES", 1, 2, OptionPick(1)),
        ("n", 1, 2, OptionPick(2)),
        ("q", 1, 2, OptionPick(2)),
        ("no", None, 2, OptionPick(2)),
        ("y", None, 2, NoOnce("y", "allow")),
        ("n", 1, None, NoOnce("n", "reject")),
        ("5", 1, 2, Unclear("5")),
        ("0", 1, 2, Unclear("0")),
        ("ok", 1, 2, Unclear("ok")),
        ("allow", 1, 2, Unclear("allow")),
        ("", 1, 2, Unclear("")),
    ],
)
def test_a_line_picks_an_option_or_nothing(
    line: str, allow: int | None, reject: int | None, meaning: Any
) -> None:
    assert parse_option_line(line, 4, allow, reject) == meaning


# -- the answer -----------------------------------------------------------------------------


def test_the_screen_is_the_call_whole_then_the_options() -> None:
    reply, status, err = answered(["2"])
    assert err == "\n".join(SCREEN) + "\n" + PROMPT + "2\n"
    assert reply == {"jsonrpc": "2.0", "id": 7, "result": selected("proceed_once")}
    assert status == 0


@pytest.mark.parametrize(
    ("typed", "chosen", "status"),
    [
        ("1", "proceed_always", 0),
        ("2", "proceed_once", 0),
        ("y", "proceed_once", 0),
        ("3", "cancel", 1),
        ("n", "cancel", 1),
        ("4", "never", 1),
    ],
)
def test_every_option_kind_is_selected_by_its_id(typed: str, chosen: str, status: int) -> None:
    reply, got, _ = answered([typed])
    assert reply["result"] == selected(chosen)
    assert got == status  # an allow option allows, a reject option declines


def test_y_and_n_never_select_an_always_option() -> None:
    always = [OPTIONS[0], OPTIONS[3]]
    reply, status, err = answered(["y", "n", "2"], request(always))
    assert reply["result"] == selected("never")
    assert "Choose 1-2: " in err
    for word, side in (("y", "allow"), ("n", "reject")):
        assert (
            f"! the agent offers no {side}_once option and {word} never selects an "
            '"always" one: type the number of the option you choose (1-2)'
        ) in err
    assert status == 1


def test_a_line_that_picks_nothing_is_asked_again_then_the_input_ending_cancels() -> None:
    reply, status, err = answered(["ok", "Yes."])
    assert reply["result"] == CANCELLED
    assert err.count("! type 1-4, y = 2, n = 3\n") == 2
    assert err.endswith("askcli: no answer (the input ended): the request is answered cancelled\n")
    assert status == 3


def test_a_timeout_cancels() -> None:
    reply, err = ask_stopped(request(), "ok\n", AnswerTimeout(5))
    (line,) = [json.loads(json_line(r)) for r in reply.replies]
    assert line["result"] == CANCELLED
    assert int(reply.status) == 3
    assert "no answer (no reply within 5 seconds): the request is answered cancelled" in err


def test_ctrl_c_cancels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals, "_received", [signal.SIGINT])
    reply, _ = ask_stopped(request(), "", KeyboardInterrupt())
    (line,) = [json.loads(json_line(r)) for r in reply.replies]
    assert line["result"] == CANCELLED
    assert int(reply.status) == 130


def test_no_options_is_cancelled_without_asking() -> None:
    reply, status, err = answered([], request([]))
    assert reply["result"] == CANCELLED
    assert "the agent's permission request has no options: answered cancelled" in err
    assert "Choose" not in err
    assert status == 2


def test_params_that_cannot_be_asked_are_an_invalid_params_error() -> None:
    document = copy.deepcopy(request())
    document["params"] = "nope"
    reply, status, _ = answered([], document)
    assert reply["error"]["code"] == -32602 and "result" not in reply
    assert status == 2


def test_another_method_is_still_not_found() -> None:
    document = {**request(), "method": "fs/read_text_file"}
    reply, _, _ = answered([], document)
    assert reply["error"]["code"] == -32601
    assert "elicitation/create, session/request_permission, " in reply["error"]["message"]


def test_the_agent_s_strings_are_escaped() -> None:
    hostile = {"optionId": "o", "name": "Allow\x1b[2J", "kind": "allow_once\x07"}
    call = {**TOOL_CALL, "title": "echo\x1b]0;owned\x07 hi"}
    document = request([hostile])
    document["params"]["toolCall"] = call
    reply, _, err = answered(["1"], document)
    assert "\x1b" not in err and "\x07" not in err
    assert "\\x1b[2J" in err
    assert reply["result"] == selected("o")


def test_the_inbox_lists_it_by_its_title() -> None:
    found = summary(request())
    assert (found.kind, found.texts) == ("permission", ("echo hi",))


@pytest.mark.process
def test_askcli_ask_answers_one_piped_in(tmp_path: Path) -> None:
    path = tmp_path / "answers.txt"
    path.write_text("maybe\n2\n")
    proc = run_askcli("ask", "--answers", str(path), input=json.dumps(request()))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": selected("proceed_once"),
    }
    assert PROMPT + "maybe\n! type 1-4, y = 2, n = 3\n" in proc.stderr
    document = tmp_path / "request.json"
    document.write_text(json.dumps(request()))
    proc = run_askcli("ask", str(document), input="")
    assert proc.returncode == 3
    assert json.loads(proc.stdout)["result"] == CANCELLED
