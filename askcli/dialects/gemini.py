"""Placeholder: being written (issue 12)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidCall
from ..inputs import AskInput
from ..results import ToolResult
from . import Asked, Dialect


def parse(raw: Any) -> AskInput:
    raise InvalidCall("gemini", [])


def reply(asked: Asked) -> ToolResult:
    raise NotImplementedError


DIALECT = Dialect("gemini", "gemini", parse, reply, dict)
