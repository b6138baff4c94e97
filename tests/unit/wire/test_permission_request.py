"""wire/calls.permission_request: the one can_use_tool request askcli builds for the calls
of other hosts (the hook's input, an ACP agent's request, askcli claude --inbox)."""

from __future__ import annotations

from askcli.wire.calls import permission_request
from askcli.wire.envelopes import EnvelopeKind, detect
from askcli.wire.permission_request import care_of


def test_the_least_request() -> None:
    assert permission_request("acp_1", "Bash", {"command": "ls"}) == {
        "type": "control_request",
        "request_id": "acp_1",
        "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}},
    }


def test_every_field_is_where_claude_code_puts_it() -> None:
    care = {"decision_reason": "touches /etc", "default_to_no": True}
    built = permission_request(
        "r1",
        "Bash",
        {"command": "ls /etc"},
        tool_use_id="toolu_1",
        session_id="s1",
        suggestions=[{"type": "addRules"}],
        care=care,
    )
    assert list(built) == ["type", "request_id", "session_id", "request"]
    assert built["request"] == {
        "subtype": "can_use_tool",
        "tool_name": "Bash",
        "input": {"command": "ls /etc"},
        "tool_use_id": "toolu_1",
        "permission_suggestions": [{"type": "addRules"}],
        **care,
    }
    envelope = detect(built)  # read as askcli ask reads Claude Code's own request
    assert envelope.kind is EnvelopeKind.CONTROL and envelope.request_id == "r1"
    (call,) = envelope.calls
    assert (call.id, call.name, call.suggestions) == ("toolu_1", "Bash", [{"type": "addRules"}])
    assert call.care == care_of(built["request"])
    assert call.default_to_no


def test_the_fields_that_say_a_person_must_decide() -> None:
    """2.1.332's shapes: matched_ask_rule {source, tool_name, rule_content?}, mcp_server
    {name, source} (a plain name read too); anything else is ignored."""
    care = care_of(
        {
            "requires_user_interaction": True,
            "matched_ask_rule": {"source": "projectSettings", "tool_name": "WebFetch"},
            "mcp_server": "probe",
        }
    )
    assert care is not None and care.needs_person and care.person_only
    assert care.ask_rule == "WebFetch, from projectSettings" and care.mcp_server == "probe"
    ignored = care_of(
        {"requires_user_interaction": "true", "matched_ask_rule": [], "mcp_server": {"n": 1}}
    )
    assert ignored is None
    rule = care_of({"matched_ask_rule": {"tool_name": "Bash", "rule_content": "rm:*"}})
    assert rule is not None and rule.needs_person and not rule.person_only
    assert rule.ask_rule == "Bash(rm:*)"
