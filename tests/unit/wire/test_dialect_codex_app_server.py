"""Codex's app-server requests in askcli ask: item/tool/requestUserInput (answers by question id,
isOther, isSecret), item/commandExecution/requestApproval (its availableDecisions) and
item/fileChange/requestApproval, answered with the responses Codex's schema (0.171.0,
``codex app-server generate-json-schema --experimental``) describes; a real terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from askcli.runners.recordings import play
from askcli.status import ExitStatus
from askcli.wire.dialects import by_tool, codex_app_server_models
from askcli.wire.shipped_json import load

from tests.support.terminals import Terminal

PKG = {
    "id": "pkg_manager",
    "header": "Pkg mgr",
    "question": "Which package manager?",
    "isOther": True,
    "isSecret": False,
    "options": [
        {"label": "pnpm", "description": "fast, strict"},
        {"label": "npm", "description": "bundled with node"},
    ],
}
TOKEN = {
    "id": "token",
    "header": "Token",
    "question": "Your registry token?",
    "isOther": False,
    "isSecret": True,
    "options": None,
}
TURN = {"threadId": "thr_1", "turnId": "turn_1", "itemId": "item_1"}


def user_input(*questions: dict[str, Any], request_id: Any = 3) -> dict[str, Any]:
    params = {**TURN, "isBlocking": True, "questions": list(questions)}
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "item/tool/requestUserInput",
        "params": params,
    }


def command(**extra: Any) -> dict[str, Any]:
    params = {**TURN, "startedAtMs": 1765000000000, "command": "rm -rf build", "cwd": "/w", **extra}
    return {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "item/commandExecution/requestApproval",
        "params": params,
    }


def file_change(**extra: Any) -> dict[str, Any]:
    params = {**TURN, "startedAtMs": 1765000000000, **extra}
    return {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "item/fileChange/requestApproval",
        "params": params,
    }


def answered(document: Any, answers: list[str]) -> tuple[Any, int, str]:
    """The JSON-RPC response line, the exit status and stderr."""
    outcome = play(calls=[document], answers=answers)
    (line,) = outcome.stdout
    return json.loads(line), outcome.status, outcome.stderr


def response_model(name: str) -> type[BaseModel]:
    model: type[BaseModel] = getattr(codex_app_server_models, name)
    return model


# -- the models mirror Codex's schema ------------------------------------------------------

MODELS = [
    "ToolRequestUserInputParams",
    "ToolRequestUserInputResponse",
    "CommandExecutionRequestApprovalParams",
    "CommandExecutionRequestApprovalResponse",
    "FileChangeRequestApprovalParams",
    "FileChangeRequestApprovalResponse",
]


@pytest.mark.parametrize("name", MODELS)
def test_models_have_the_schemas_fields(name: str) -> None:
    schema = load(f"codex-app-server-{name}.json")
    model = response_model(name)
    fields = model.model_fields
    assert set(fields) == set(schema["properties"]), name
    required = {key for key, field in fields.items() if field.is_required()}
    assert required == set(schema.get("required", [])), name


def test_nested_models_have_the_schemas_fields() -> None:
    schema = load("codex-app-server-ToolRequestUserInputParams.json")["definitions"]
    question = schema["ToolRequestUserInputQuestion"]
    assert set(codex_app_server_models.ToolRequestUserInputQuestion.model_fields) == set(
        question["properties"]
    )
    decisions = load("codex-app-server-CommandExecutionRequestApprovalResponse.json")
    words = {
        one["enum"][0]
        for one in decisions["definitions"]["CommandExecutionApprovalDecision"]["oneOf"]
        if "enum" in one
    }
    literal, *_ = get_args(codex_app_server_models.CommandExecutionApprovalDecision)
    assert set(get_args(literal)) == words


def test_the_dialects_are_found_by_method() -> None:
    for method in (
        "item/tool/requestUserInput",
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
    ):
        dialect = by_tool(method)
        assert dialect is not None
        assert dialect.definition()["title"].endswith("Params")


# -- item/tool/requestUserInput -------------------------------------------------------------


def test_user_input_answers_by_question_id() -> None:
    reply, status, err = answered(user_input(PKG, TOKEN), ["3", "yarn, pinned", "s3cr3t", "y"])
    assert status == ExitStatus.ANSWERED
    assert reply == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "answers": {
                "pkg_manager": {"answers": ["None of the above", "user_note: yarn, pinned"]},
                "token": {"answers": ["user_note: s3cr3t"]},
            }
        },
    }
    response_model("ToolRequestUserInputResponse").model_validate(reply["result"])
    assert "s3cr3t" not in err


def test_user_input_a_label_and_a_skipped_question() -> None:
    reply, status, _ = answered(user_input(PKG, TOKEN), ["1", "s", "y"])
    assert status == ExitStatus.ANSWERED
    assert reply["result"] == {"answers": {"pkg_manager": {"answers": ["pnpm"]}}}


def test_user_input_without_is_other_has_no_other() -> None:
    reply, _, err = answered(user_input({**PKG, "isOther": False}), ["2", "y"])
    assert "Other - type your own answer" not in err
    assert "Choose 1-2" in err
    assert reply["result"] == {"answers": {"pkg_manager": {"answers": ["npm"]}}}


@pytest.mark.parametrize(
    ("answers", "status"),
    [(["q"], ExitStatus.DECLINED), ([], ExitStatus.NO_ANSWER)],
    ids=["declined", "input-ended"],
)
def test_user_input_not_answered_is_no_answers(answers: list[str], status: ExitStatus) -> None:
    reply, got, _ = answered(user_input(PKG), answers)
    assert got == status
    assert reply == {"jsonrpc": "2.0", "id": 3, "result": {"answers": {}}}


def test_user_input_invalid_params_is_invalid_params() -> None:
    bad = user_input(PKG)
    del bad["params"]["isBlocking"]
    reply, status, err = answered(bad, [])
    assert status == ExitStatus.INVALID
    assert reply["error"]["code"] == -32602, reply
    assert "isBlocking" in reply["error"]["message"]
    assert "invalid item/tool/requestUserInput call" in err


def test_another_method_is_method_not_found() -> None:
    document = {"jsonrpc": "2.0", "id": 8, "method": "item/permissions/requestApproval"}
    reply, _, _ = answered(document, [])
    assert reply["error"]["code"] == -32601
    assert "item/tool/requestUserInput" in reply["error"]["message"]


# -- the approvals ---------------------------------------------------------------------------

AMEND = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["rm", "-rf"]}}
NETWORK = {
    "applyNetworkPolicyAmendment": {
        "network_policy_amendment": {"action": "allow", "host": "pypi.org"}
    }
}


def test_command_approval_offers_the_available_decisions_in_order() -> None:
    document = command(reason="clean the build", availableDecisions=["accept", AMEND, "cancel"])
    reply, status, err = answered(document, ["2"])
    assert status == ExitStatus.ANSWERED
    assert reply == {"jsonrpc": "2.0", "id": 4, "result": {"decision": AMEND}}
    response_model("CommandExecutionRequestApprovalResponse").model_validate(reply["result"])
    assert "Run rm -rf build?" in err
    assert "in /w; reason: clean the build" in err
    assert (
        "  1. Yes, proceed - this once\n"
        "  2. Yes, and don't ask again for commands that start with `rm -rf`\n"
        "  3. No, and stop - Codex's turn is interrupted\n"
    ) in err, err


def test_command_approval_network_amendment() -> None:
    document = command(
        availableDecisions=["accept", NETWORK, "decline"],
        networkApprovalContext={"host": "pypi.org", "protocol": "https"},
    )
    reply, _, err = answered(document, ["2"])
    assert reply["result"] == {"decision": NETWORK}
    assert "network: https to pypi.org" in err
    assert "Always allow pypi.org" in err


def test_command_approval_without_decisions_offers_codexs_four() -> None:
    reply, status, err = answered(command(), ["3"])
    assert status == ExitStatus.DECLINED
    assert reply["result"] == {"decision": "decline"}
    assert "Choose 1-4" in err


def test_human_command_has_no_accept_for_session() -> None:
    reply, _, err = answered(command(kind="humanCommand"), ["1"])
    assert "don't ask again this session" not in err
    assert reply["result"] == {"decision": "accept"}


@pytest.mark.parametrize(
    ("answers", "decision", "status"),
    [(["q"], "decline", ExitStatus.DECLINED), ([], "cancel", ExitStatus.NO_ANSWER)],
    ids=["q", "input-ended"],
)
def test_command_approval_not_chosen(answers: list[str], decision: str, status: int) -> None:
    reply, got, _ = answered(command(), answers)
    assert got == status
    assert reply["result"] == {"decision": decision}


def test_command_approval_not_chosen_only_decline_offered() -> None:
    reply, _, _ = answered(command(availableDecisions=["accept", "decline"]), [])
    assert reply["result"] == {"decision": "decline"}


def test_command_approval_unknown_decision_word_is_invalid() -> None:
    reply, status, _ = answered(command(availableDecisions=["accept", "maybe"]), [])
    assert status == ExitStatus.INVALID
    assert reply["error"]["code"] == -32602


def test_file_change_approval() -> None:
    document = file_change(reason="write the config", grantRoot="/w/conf")
    reply, status, err = answered(document, ["2"])
    assert status == ExitStatus.ANSWERED
    assert reply == {"jsonrpc": "2.0", "id": 5, "result": {"decision": "acceptForSession"}}
    response_model("FileChangeRequestApprovalResponse").model_validate(reply["result"])
    assert "Apply Codex's file changes?" in err
    assert "reason: write the config; and write under /w/conf for the rest of the session" in err


def test_hostile_strings_are_escaped() -> None:
    reply, _, err = answered(command(command="echo \x1b]0;owned\x07", reason="\x1b[2J"), ["1"])
    assert "\x1b" not in err
    assert reply["result"] == {"decision": "accept"}


# -- a real terminal -------------------------------------------------------------------------


@pytest.mark.pty
def test_user_input_at_a_terminal_never_echoes_a_secret(tmp_path: Path) -> None:
    call = tmp_path / "request.json"
    call.write_text(json.dumps(user_input(PKG, TOKEN, request_id="r-1")))
    term = Terminal(["ask", str(call)], tmp_path)
    term.expect("[Pkg mgr] Which package manager?   (question 1 of 2)")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("[Token] Your registry token?   (question 2 of 2)")
    term.expect("Answer: ")
    term.type("hunter2")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert "hunter2" not in term.log.getvalue()
    assert reply == {
        "jsonrpc": "2.0",
        "id": "r-1",
        "result": {
            "answers": {
                "pkg_manager": {"answers": ["pnpm"]},
                "token": {"answers": ["user_note: hunter2"]},
            }
        },
    }


@pytest.mark.pty
def test_command_approval_at_a_terminal(tmp_path: Path) -> None:
    call = tmp_path / "request.json"
    call.write_text(
        json.dumps(command(availableDecisions=["accept", "acceptForSession", "cancel"]))
    )
    term = Terminal(["ask", str(call)], tmp_path)
    term.expect("Run rm -rf build?")
    term.expect("Choose 1-3: ")
    term.type("3")
    status, reply = term.finish()
    assert status == ExitStatus.DECLINED
    assert reply == {"jsonrpc": "2.0", "id": 4, "result": {"decision": "cancel"}}


def test_a_request_as_codex_sends_it_without_the_jsonrpc_key() -> None:
    """Codex's app-server leaves ``"jsonrpc"`` out of its messages (its JSONRPCRequest has
    only id, method, params, trace)."""
    document = {k: v for k, v in file_change().items() if k != "jsonrpc"}
    reply, status, _ = answered(document, ["1"])
    assert status == ExitStatus.ANSWERED
    assert reply == {"jsonrpc": "2.0", "id": 5, "result": {"decision": "accept"}}
