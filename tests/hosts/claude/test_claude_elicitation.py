"""``askcli claude``: an MCP server's elicitation, passed on by Claude Code as a control
request, is asked as a form and answered ``{action, content}``."""

from __future__ import annotations

from typing import Any

from tests.support.claude import INIT_OK, RESULT, hosted


def elicitation(rid: str, **request: Any) -> dict[str, Any]:
    return {
        "type": "control_request",
        "request_id": rid,
        "request": {"subtype": "elicitation", "mcp_server_name": "deploy", **request},
    }


FORM = elicitation(
    "req_e1",
    message="Where should the preview go?",
    mode="form",
    requested_schema={
        "type": "object",
        "properties": {
            "region": {"type": "string", "title": "Region", "enum": ["eu", "us"]},
            "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 3},
        },
        "required": ["region"],
    },
)


def sent_responses(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["response"] for m in sent if m["type"] == "control_response"]


def test_a_form_is_asked_and_its_content_sent_back() -> None:
    status, out, err, sent = hosted([INIT_OK, FORM, RESULT], ["2", "5", "2", ""])
    assert status == 0 and out == "Done.\n"
    assert "deploy" in err and "Where should the preview go?" in err
    assert "! the answer must be at most 3" in err
    (response,) = sent_responses(sent)
    assert response == {
        "subtype": "success",
        "request_id": "req_e1",
        "response": {"action": "accept", "content": {"region": "us", "replicas": 2}},
    }


def test_declining_the_form_says_decline() -> None:
    status, _, _, sent = hosted([INIT_OK, FORM, RESULT], ["q"])
    (response,) = sent_responses(sent)
    assert response["response"] == {"action": "decline"}
    assert status == 0  # the turn went on: Claude Code decides what a decline means


def test_answers_running_out_cancel_the_form_and_end_the_session() -> None:
    status, _, err, sent = hosted([INIT_OK, FORM, RESULT], [])
    (response,) = sent_responses(sent)
    assert response["response"] == {"action": "cancel"}
    assert status == 3 and "no answer (the input ended)" in err


def test_a_form_askcli_cannot_ask_is_refused_with_the_reason() -> None:
    nested = elicitation(
        "req_e2",
        message="x",
        requested_schema={"type": "object", "properties": {"a": {"type": "object"}}},
    )
    _, _, err, sent = hosted([INIT_OK, nested, RESULT], [])
    (response,) = sent_responses(sent)
    assert response["subtype"] == "error" and response["request_id"] == "req_e2"
    assert response["error"] == (
        "Invalid params: requestedSchema.properties.a: nested objects are not supported: a "
        "form has only "
        "top-level properties of primitive types"
    )
    assert "nested objects are not supported" in err


def test_url_consent_names_the_host_a_browser_opens_and_refuses_other_schemes() -> None:
    evil = elicitation(
        "req_u1",
        message="Sign in",
        mode="url",
        elicitation_id="u1",
        url="https://evil.example\\@github.com/",
    )
    script = elicitation(
        "req_u2", message="Run", mode="url", elicitation_id="u2", url="javascript:alert(1)"
    )
    _, _, err, sent = hosted([INIT_OK, evil, script, RESULT], ["n"])
    assert "\n  domain: evil.example\n" in err and "domain: github.com" not in err
    declined, refused = sent_responses(sent)
    assert declined["response"] == {"action": "decline"}
    assert refused["subtype"] == "error" and refused["request_id"] == "req_u2"
    assert refused["error"] == (
        "Invalid params: url: askcli asks only about http and https URLs, not javascript:"
    )
