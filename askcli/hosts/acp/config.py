"""The agent's session config options (ACP ``configOptions``, in session/new's reply, in
session/set_config_option's and in the ``config_option_update`` session update): read
(:func:`parse`), shown one line each (:func:`line`), and ``--config ID=VALUE`` checked against
them (:func:`resolve`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ...escaping import visible
from ...terminal.rendering import display_width
from ..child import MAX_NAMES, as_dict, as_text

MODE = "mode"  # the category of the option that stands for the session's modes


class ConfigOption(NamedTuple):
    """One config option: its id, its current value and the values it takes (as text:
    ``true``/``false`` for a boolean), each with its name and description."""

    id: str
    current: str
    values: tuple[tuple[str, str, str], ...]  # (value, name, description)
    boolean: bool = False
    category: str = ""


def parse(raw: Any) -> dict[str, ConfigOption]:
    """The options in ``configOptions`` by id, in the agent's order; entries without an id
    are left out."""
    options: dict[str, ConfigOption] = {}
    for entry in raw if isinstance(raw, list) else []:
        entry = as_dict(entry)
        option_id = as_text(entry.get("id"))
        if not option_id or len(options) >= MAX_NAMES:
            continue
        category = as_text(entry.get("category"))
        if entry.get("type") == "boolean":
            current = "true" if entry.get("currentValue") is True else "false"
            values = (("true", "", ""), ("false", "", ""))
            options[option_id] = ConfigOption(option_id, current, values, True, category)
            continue
        choices: list[tuple[str, str, str]] = []
        for item in entry.get("options") or []:
            item = as_dict(item)
            group = item.get("options")  # a group holds options of its own
            for choice in group if isinstance(group, list) else [item]:
                choice = as_dict(choice)
                value = as_text(choice.get("value"))
                if value and len(choices) < MAX_NAMES:
                    choices.append(
                        (value, as_text(choice.get("name")), as_text(choice.get("description")))
                    )
        current = as_text(entry.get("currentValue"))
        options[option_id] = ConfigOption(option_id, current, tuple(choices), False, category)
    return options


def line(option: ConfigOption, width: int) -> str:
    """``(config ID=CURRENT: VALUE, VALUE, ...)``, escaped, cut to ``width`` columns."""
    text = visible(f"(config {option.id}={option.current}: ")
    text += ", ".join(visible(value) for value, _, _ in option.values) + ")"
    if display_width(text) <= width:
        return text
    while text and display_width(text) > width - 2:
        text = text[:-1]
    return text + "…)"


def text(value: str | bool) -> str:
    """A value to set as the text it is shown as."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def changed(before: dict[str, ConfigOption], after: dict[str, ConfigOption]) -> list[ConfigOption]:
    """The options of ``after`` that are new or differ from ``before``."""
    return [option for key, option in after.items() if before.get(key) != option]


def mode_option(options: dict[str, ConfigOption]) -> ConfigOption | None:
    """The option that stands for the session's modes (category ``mode``), if any."""
    return next((o for o in options.values() if o.category == MODE and not o.boolean), None)


def offered(options: dict[str, ConfigOption]) -> str:
    """What the agent offers, for the error of an unknown id."""
    if not options:
        return "it offers no config options"
    return "its options: " + ", ".join(visible(key) for key in options)


def values_of(option: ConfigOption) -> str:
    """The values an option takes, each with its name when that says more."""
    shown = []
    for value, name, _ in option.values:
        about = f" ({name})" if name and name.casefold() != value.casefold() else ""
        shown.append(visible(value + about))
    return ", ".join(shown)


class ConfigError(ValueError):
    """A ``--config`` the agent does not offer: what it offers instead, in one line."""


def resolve(
    wanted: Sequence[tuple[str, str]], options: dict[str, ConfigOption]
) -> list[tuple[str, str | bool]]:
    """``--config`` pairs as session/set_config_option's ``(configId, value)``: a boolean's
    value as true or false; ConfigError for an id or value the agent does not offer."""
    resolved: list[tuple[str, str | bool]] = []
    for key, value in wanted:
        option = options.get(key)
        if option is None:
            raise ConfigError(f"the agent has no config option {key!r}; {offered(options)}")
        if value not in (v for v, _, _ in option.values):
            raise ConfigError(
                f"the agent's config option {key!r} has no value {value!r}; "
                f"its values: {values_of(option)}"
            )
        resolved.append((key, value == "true" if option.boolean else value))
    return resolved
