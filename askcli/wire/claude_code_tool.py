"""AskUserQuestion as Claude Code 2.1.332 defines it for its model, byte for byte.

The ``tools`` entries of the requests 2.1.332 sent to the API in a ``-p`` session (the
standard schema, ``data/claude-code-ask-user-question.json``) and with
``CLAUDE_CODE_QUESTION_EXTENDED=1`` (the extended one, whose questions may be ``text`` or
``number``: ``data/claude-code-ask-user-question-extended.json``), copied whole.
``askcli schema --format claude-code`` and ``claude-code-extended`` print them.
"""

from __future__ import annotations

from typing import Any

from .shipped_json import load

VERSION = "2.1.332"


def definition(extended: bool = False) -> dict[str, Any]:
    """The Messages API tool, as Claude Code sends it."""
    suffix = "-extended" if extended else ""
    tool: dict[str, Any] = load(f"claude-code-ask-user-question{suffix}.json")
    return tool
