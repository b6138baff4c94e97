"""zod-style issues without pydantic: their names and text, and the checks made before a
call is validated (kept out of :mod:`askcli.schema.validation` so that start-up need not import
pydantic)."""

from __future__ import annotations

import json
import math
from typing import Any

Issue = dict[str, Any]
Path = list[str | int]


def zod_type(value: Any) -> str:
    """The name zod's ``getParsedType`` gives a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "nan" if isinstance(value, float) and math.isnan(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def object_expected(value: Any) -> Issue:
    """zod's issue for an input that is not a JSON object."""
    received = zod_type(value)
    return {
        "code": "invalid_type",
        "expected": "object",
        "received": received,
        "path": [],
        "message": f"Expected object, received {received}",
    }


MAX_TEXT = 100_000  # characters in any one string of a call's input


def _too_long(path: Path, what: str = "") -> Issue:
    issue: Issue = {
        "code": "too_big",
        "maximum": MAX_TEXT,
        "type": "string",
        "inclusive": True,
        "exact": False,
        "message": f"String must contain at most {MAX_TEXT} character(s)",
        "path": path,
    }
    if what:
        issue["message"] = what
    return issue


def long_text(value: Any) -> Issue | None:
    """A zod-style issue for the first string (or key) in ``value`` longer than
    :data:`MAX_TEXT`, checked before a call is validated or shown; else None.

    Walked without recursion, in document order; only non-empty containers are visited,
    so a call of many small items costs one type check per item."""
    if isinstance(value, str):
        return _too_long([]) if len(value) > MAX_TEXT else None
    stack: list[tuple[Any, Path]] = [(value, [])]
    while stack:
        node, path = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        inner: list[tuple[Any, Path]] = []
        for key, item in pairs:
            if isinstance(key, str) and len(key) > MAX_TEXT:
                return _too_long([*path, key], "An object key is too long")
            if isinstance(item, str):
                if len(item) > MAX_TEXT:
                    return _too_long([*path, key])
            elif item and isinstance(item, dict | list):
                inner.append((item, [*path, key]))
        stack.extend(reversed(inner))
    return None


def issues_json(issues: list[Issue]) -> str:
    """The issues as ``JSON.stringify(issues, null, 2)`` prints them."""
    return json.dumps(issues, indent=2, ensure_ascii=False)


def describe_issues(issues: list[Issue]) -> str:
    """One line for a person: ``questions[0].options: Array must contain ...; ...``."""
    parts = []
    for issue in issues:
        where = format_path(issue["path"])
        parts.append(f"{where}: {issue['message']}" if where else issue["message"])
    return "; ".join(parts)


def format_path(path: Path) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
