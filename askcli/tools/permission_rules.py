"""Claude Code's ``permission_suggestions``: pydantic models of its PermissionUpdate schema.

A ``can_use_tool`` request carries the rules Claude Code would add if the person chose
"don't ask again"; the chosen ones go back, as sent, in the decision's
``updatedPermissions``. Claude Code 2.1.197 checks them with a zod discriminated union
(``addRules``, ``replaceRules``, ``removeRules``, ``setMode``, ``addDirectories``,
``removeDirectories``) and drops the whole list when one entry is malformed, so only
entries these models accept are offered. Loaded only when a call carries suggestions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

Destination = Literal["userSettings", "projectSettings", "localSettings", "session", "cliArg"]
Mode = Literal["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"]

WHERE = {
    "userSettings": "in every project (user settings)",
    "projectSettings": "in this project, for everyone (project settings)",
    "localSettings": "in this project (local settings)",
    "session": "for this session",
    "cliArg": "for this session (command line)",
}
MODES = {
    "default": "ask as usual",
    "acceptEdits": "file edits are allowed without asking",
    "bypassPermissions": "nothing is asked any more",
    "plan": "plan only, change nothing",
    "dontAsk": "whatever is not allowed is denied without asking",
    "auto": "a classifier decides what is asked",
}
MAX_SUGGESTIONS = 10  # a longer list is not offered
MAX_ITEMS = 50  # rules and directories in all the suggestions together


def _not_null(value: Any) -> Any:
    """zod's ``.optional()`` admits a missing key, never ``null``."""
    if value is None:
        raise ValueError("Input should not be null")
    return value


class _StrictRule(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Rule(_StrictRule):
    toolName: str
    ruleContent: Annotated[str | None, BeforeValidator(_not_null)] = None


class RulesUpdate(_StrictRule):
    type: Literal["addRules", "replaceRules", "removeRules"]
    rules: list[Rule]
    behavior: Literal["allow", "deny", "ask"]
    destination: Destination


class ModeUpdate(_StrictRule):
    type: Literal["setMode"]
    mode: Mode
    destination: Destination


class DirectoriesUpdate(_StrictRule):
    type: Literal["addDirectories", "removeDirectories"]
    directories: list[str]
    destination: Destination


PermissionUpdate = Annotated[
    RulesUpdate | ModeUpdate | DirectoriesUpdate, Field(discriminator="type")
]
_UPDATE: TypeAdapter[RulesUpdate | ModeUpdate | DirectoriesUpdate] = TypeAdapter(PermissionUpdate)


class Offered:
    """The suggestions that can be offered: each as sent, and what it does in plain words."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.phrases: list[str] = []
        self.dropped = 0  # malformed entries, not offered
        self.too_many = False  # the list is too long to show: nothing is offered


def _rule(rule: Rule, shown: Callable[[str], str]) -> str:
    if rule.ruleContent is None:
        return f"{shown(rule.toolName)} (any input)"
    return f"{shown(rule.toolName)}({shown(rule.ruleContent)})"


def phrase(
    update: RulesUpdate | ModeUpdate | DirectoriesUpdate, shown: Callable[[str], str]
) -> str:
    """What ``update`` does, in plain words; ``shown`` makes each untrusted string visible."""
    where = WHERE[update.destination]
    if isinstance(update, ModeUpdate):
        return f"switch to {update.mode} mode ({MODES[update.mode]}) {where}"
    if isinstance(update, DirectoriesUpdate):
        paths = ", ".join(shown(path) for path in update.directories) or "no directories"
        verb = "allow access to" if update.type == "addDirectories" else "remove access to"
        return f"{verb} {paths} {where}"
    rules = ", ".join(_rule(rule, shown) for rule in update.rules) or "no rules"
    if update.type == "addRules":
        adds = {"allow": "don't ask again for", "deny": "always deny", "ask": "always ask for"}
        return f"{adds[update.behavior]} {rules} {where}"
    if update.type == "replaceRules":
        return f"replace the {update.behavior} rules {where} with {rules}"
    return f"remove the {update.behavior} rules {rules} {where}"


def offered(suggestions: Any, shown: Callable[[str], str]) -> Offered:
    """The well-formed entries of ``suggestions`` (untrusted), with their phrases."""
    found = Offered()
    if not isinstance(suggestions, list):
        found.dropped = 1
        return found
    if len(suggestions) > MAX_SUGGESTIONS:
        found.too_many = True
        return found
    items = 0
    for raw in suggestions:
        try:
            update = _UPDATE.validate_python(raw)
        except ValidationError:
            found.dropped += 1
            continue
        if isinstance(update, RulesUpdate):
            items += len(update.rules)
        elif isinstance(update, DirectoriesUpdate):
            items += len(update.directories)
        found.sent.append(raw)
        found.phrases.append(phrase(update, shown))
    if items > MAX_ITEMS:
        found.sent, found.phrases, found.too_many = [], [], True
    return found
