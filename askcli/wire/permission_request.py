"""What a Claude Code ``can_use_tool`` request says about how it wants to be asked.

Claude Code 2.1.332 sends, beside the tool and its input: ``title``, ``display_name`` and
``description`` (the words of its own dialog), ``decision_reason`` (why it asks; it may
carry ANSI escapes) with ``decision_reason_type``, ``blocked_path``, and two requests to be
careful: ``default_to_no`` (the ask must not be approvable by a single stray keystroke) and
``suppress_always_allow_rule`` (no persistent-rule affordance may be offered). Two more say
a person must decide: ``requires_user_interaction`` (no one-tap approval: the person answers
on the prompt itself) and ``matched_ask_rule`` (``{source, tool_name, rule_content?}``: the
person's own ``permissions.ask`` rule asked for this prompt). ``mcp_server`` names the MCP
server behind an ``mcp__*`` tool (``{name, source}``; a plain name is read too), in
``can_use_tool`` and in the PermissionRequest hook's input alike. All of it is untrusted: a
string field that is not a string is ignored, a flag counts only when ``true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

TEXTS = ("title", "display_name", "description", "decision_reason", "decision_reason_type")
FLAGS = ("default_to_no", "suppress_always_allow_rule", "requires_user_interaction")
# what a hook input may carry, passed on as sent
KEYS = (*TEXTS, "blocked_path", *FLAGS, "matched_ask_rule", "mcp_server")


class Care(NamedTuple):
    """The request's own words, and its requests to be careful."""

    title: str | None = None
    display_name: str | None = None
    description: str | None = None
    reason: str | None = None
    reason_type: str | None = None
    blocked_path: str | None = None
    default_to_no: bool = False  # Enter declines; approving takes the word ``yes``
    no_lasting_rule: bool = False  # no "don't ask again" / always is offered
    person_only: bool = False  # requires_user_interaction: no one-key nor scripted approval
    ask_rule: str | None = None  # matched_ask_rule as shown: ``Bash(rm:*), from userSettings``
    mcp_server: str | None = None  # the MCP server as shown: ``name, source user``

    @property
    def needs_person(self) -> bool:
        """Only a person at a terminal may approve: no scripted answer, ``--allow`` or
        remembered answer does (``requires_user_interaction``, ``matched_ask_rule``)."""
        return self.person_only or self.ask_rule is not None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _ask_rule(value: Any) -> str | None:
    """``matched_ask_rule`` as the rule reads in settings, then where it is from."""
    if not isinstance(value, Mapping):
        return None
    tool, content, source = (_text(value.get(k)) for k in ("tool_name", "rule_content", "source"))
    rule = (tool or "?") + (f"({content})" if content is not None else "")
    return rule + (f", from {source}" if source is not None else "")


def _server(value: Any) -> str | None:
    """``mcp_server``: ``{name, source}`` (2.1.332) as ``name, source S``, or a plain name."""
    if isinstance(value, Mapping):
        name, source = _text(value.get("name")), _text(value.get("source"))
        if name is None:
            return None
        return name + (f", source {source}" if source is not None else "")
    return _text(value)


def care_of(request: Mapping[str, Any]) -> Care | None:
    """The :class:`Care` of a ``can_use_tool`` request; None when it carries none of it."""
    care = Care(
        title=_text(request.get("title")),
        display_name=_text(request.get("display_name")),
        description=_text(request.get("description")),
        reason=_text(request.get("decision_reason")),
        reason_type=_text(request.get("decision_reason_type")),
        blocked_path=_text(request.get("blocked_path")),
        default_to_no=request.get("default_to_no") is True,
        no_lasting_rule=request.get("suppress_always_allow_rule") is True,
        person_only=request.get("requires_user_interaction") is True,
        ask_rule=_ask_rule(request.get("matched_ask_rule")),
        mcp_server=_server(request.get("mcp_server")),
    )
    return None if care == Care() else care


def passed_on(value: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of :data:`KEYS` that ``value`` (a hook input) carries, as sent."""
    return {key: value[key] for key in KEYS if key in value}
