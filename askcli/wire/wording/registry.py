"""The ``--wording`` registry: each wording's name -> the object that words AskUserQuestion's
results (:class:`askcli.wire.wording.base.Wording`). A name is looked up once, where the command
line or a fixture gives it; the object is passed on from there."""

from __future__ import annotations

from .base import CLAUDE_CODE_2_1_88, Wording
from .current import CLAUDE_CODE

DEFAULT = CLAUDE_CODE_2_1_88
WORDINGS: dict[str, Wording] = {wording.name: wording for wording in (DEFAULT, CLAUDE_CODE)}
NAMES = tuple(WORDINGS)
OLD_NAMES = {"seed": DEFAULT.name}  # still accepted, from --wording and in fixtures


def wording_named(name: str) -> Wording:
    """The wording called ``name`` (or one of :data:`OLD_NAMES`); KeyError when none is."""
    return WORDINGS[OLD_NAMES.get(name, name)]


def as_wording(given: Wording | str) -> Wording:
    """``given``, or the wording it names (the Python API of fixtures takes either)."""
    return given if isinstance(given, Wording) else wording_named(given)
