"""What a Claude Code ``can_use_tool`` request says about how it wants to be asked.

Claude Code 2.1.332 sends, beside the tool and its input: ``title``, ``display_name`` and
``description`` (the words of its own dialog), ``decision_reason`` (why it asks; it may
carry ANSI escapes) with ``decision_reason_type``, ``blocked_path``, and two requests to be
careful: ``default_to_no`` (the ask must not be approvable by a single stray keystroke) and
``suppress_always_allow_rule`` (no persistent-rule affordance may be offered). All of it is
untrusted: a string field that is not a string is ignored, a flag counts only when ``true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

TEXTS = ("title", "display_name", "description", "decision_reason", "decision_reason_type")
FLAGS = ("default_to_no", "suppress_always_allow_rule")
KEYS = (*TEXTS, "blocked_path", *FLAGS)  # what a hook input may carry, passed on as sent


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


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


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
    )
    return None if care == Care() else care


def passed_on(value: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of :data:`KEYS` that ``value`` (a hook input) carries, as sent."""
    return {key: value[key] for key in KEYS if key in value}
