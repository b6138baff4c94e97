"""codex-acp 2.6.0's elicitation form for Codex's request_user_input (as the real adapter sent it
in tests/real_agents/test_acp_codex.py) read as Codex's own question, and its answers given back
as the form's content, in process."""

from __future__ import annotations

import copy
from typing import Any

from askcli.hosts.acp.forms import codex_content, codex_input
from askcli.tools.registry import check_call
from askcli.wire.dialects.codex import TOOL
from askcli.wire.envelopes import ToolCall

FORM: dict[str, Any] = {
    "message": "Codex needs your input to continue.",
    "sessionId": "01a24e14-2164-7930-bae3-05110a5a6fa4",
    "toolCallId": "call_1_0",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "pkg_manager": {
                "title": "Which package manager?",
                "description": "Pkg mgr",
                "oneOf": [
                    {
                        "const": "pnpm (Recommended)",
                        "title": "pnpm (Recommended)",
                        "description": "fast, strict",
                    },
                    {"const": "npm", "title": "npm", "description": "bundled with node"},
                    {
                        "const": "None of the above",
                        "title": "None of the above",
                        "description": "Provide a different answer in the note field.",
                    },
                ],
                "_meta": {"codex": {"isOther": True, "isSecret": False}},
                "type": "string",
            },
            "pkg_manager_note": {
                "title": "Additional answer or note",
                "_meta": {
                    "codex": {"questionId": "pkg_manager", "role": "user_note", "isSecret": False}
                },
                "type": "string",
            },
            "registry_token": {
                "title": "Which registry token?",
                "description": "Token",
                "oneOf": [
                    {"const": "CI token", "title": "CI token", "description": "the one in CI"},
                    {"const": "None", "title": "None", "description": "public packages only"},
                    {
                        "const": "None of the above",
                        "title": "None of the above",
                        "description": "Provide a different answer in the note field.",
                    },
                ],
                "_meta": {"codex": {"isOther": True, "isSecret": True}},
                "type": "string",
            },
            "registry_token_note": {
                "title": "Additional answer or note",
                "_meta": {
                    "codex": {"questionId": "registry_token", "role": "user_note", "isSecret": True}
                },
                "type": "string",
            },
        },
        "required": ["pkg_manager", "registry_token"],
    },
    "mode": "form",
}


def test_the_form_is_codexs_own_question() -> None:
    found = codex_input(FORM)
    assert found is not None
    shaped, notes = found
    assert notes == {"pkg_manager": "pkg_manager_note", "registry_token": "registry_token_note"}
    assert shaped == {
        "questions": [
            {
                "id": "pkg_manager",
                "header": "Pkg mgr",
                "question": "Which package manager?",
                "isOther": True,
                "isSecret": False,
                "options": [
                    {"label": "pnpm (Recommended)", "description": "fast, strict"},
                    {"label": "npm", "description": "bundled with node"},
                ],
            },
            {
                "id": "registry_token",
                "header": "Token",
                "question": "Which registry token?",
                "isOther": True,
                "isSecret": True,
                "options": [
                    {"label": "CI token", "description": "the one in CI"},
                    {"label": "None", "description": "public packages only"},
                ],
            },
        ]
    }
    _, parsed = check_call(ToolCall("call_1_0", TOOL, shaped))
    assert [q.secret for q in parsed.questions] == [False, True]


def test_the_answers_fill_the_form_as_codex_acp_reads_it() -> None:
    data = {
        "answers": {
            "pkg_manager": {"answers": ["None of the above", "user_note: yarn, pinned"]},
            "registry_token": {"answers": ["CI token", "user_note: the new one"]},
        }
    }
    notes = {"pkg_manager": "pkg_manager_note", "registry_token": "registry_token_note"}
    assert codex_content(data, notes) == {
        "pkg_manager": "None of the above",
        "pkg_manager_note": "yarn, pinned",
        "registry_token": "CI token",
        "registry_token_note": "the new one",
    }
    assert codex_content({"answers": {"pkg_manager": {"answers": []}}}, notes) == {}


def test_another_form_is_not_codexs() -> None:
    plain = copy.deepcopy(FORM)
    del plain["requestedSchema"]["properties"]["pkg_manager"]["_meta"]
    assert codex_input(plain) is None
    typed = copy.deepcopy(FORM)  # a question without options: the general form asks it
    del typed["requestedSchema"]["properties"]["pkg_manager"]["oneOf"]
    assert codex_input(typed) is None
