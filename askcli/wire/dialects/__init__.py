"""Every agent's question tool in that agent's own shape and words: :mod:`.base` (what a
dialect is), :mod:`.opencode`, :mod:`.codex`, :mod:`.gemini` and :mod:`.elicitation` (MCP's
forms), each looked up here by its tool or its name."""

from __future__ import annotations

from .base import Dialect


def _all() -> tuple[Dialect, ...]:
    from . import codex, codex_app_server, elicitation, gemini, opencode

    return (
        opencode.DIALECT,
        codex.DIALECT,
        gemini.DIALECT,
        elicitation.DIALECT,
        codex_app_server.USER_INPUT,
        codex_app_server.COMMAND_APPROVAL,
        codex_app_server.FILE_APPROVAL,
    )


def by_tool(name: str) -> Dialect | None:
    """The dialect whose tool is called ``name``, if any."""
    for dialect in _all():
        if dialect.tool == name:
            return dialect
    return None


def by_name(name: str) -> Dialect | None:
    for dialect in _all():
        if dialect.name == name:
            return dialect
    return None
