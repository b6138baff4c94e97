"""Placeholder: the current Claude Code release's AskUserQuestion texts (issue 12)."""

from __future__ import annotations

from typing import Any

WORDINGS = ("seed", "claude-code")


def current_definition() -> dict[str, Any]:
    raise NotImplementedError
