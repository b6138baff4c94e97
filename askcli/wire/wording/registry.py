"""The ``--wording`` registry: each wording's name -> the object that words AskUserQuestion's
results (:class:`askcli.wire.wording.base.Wording`). A name is looked up once, where the command
line or a fixture gives it; the object is passed on from there."""

from __future__ import annotations

from .base import CLAUDE_CODE_2_1_88, Wording

DEFAULT = CLAUDE_CODE_2_1_88
CURRENT = "claude-code"  # ClaudeCodeToday's name: its texts are imported when it is named
NAMES = (DEFAULT.name, CURRENT)
OLD_NAMES = {"seed": DEFAULT.name}  # still accepted, from --wording and in fixtures


def wording_named(name: str) -> Wording:
    """The wording called ``name`` (or one of :data:`OLD_NAMES`); KeyError when none is."""
    name = OLD_NAMES.get(name, name)
    if name == DEFAULT.name:
        return DEFAULT
    if name == CURRENT:
        from .current import CLAUDE_CODE

        return CLAUDE_CODE
    raise KeyError(name)


def as_wording(given: Wording | str) -> Wording:
    """``given``, or the wording it names (the Python API of fixtures takes either)."""
    return given if isinstance(given, Wording) else wording_named(given)
