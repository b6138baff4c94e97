"""What a failed request of the agent's says, and what to do when it wants a sign-in."""

from __future__ import annotations

from typing import Any

from ..child import as_dict, as_text

AUTH_REQUIRED = -32000  # ACP's error code: the agent needs the person to sign in first
SIGN_IN = "it needs you to sign in: "


def failure(exc: BaseException) -> str:
    """What a failed request says, as shown (a replayed one says what was recorded)."""
    shown = getattr(exc, "shown", None)
    if isinstance(shown, str):
        return shown
    said = str(exc)
    data = getattr(exc, "data", None)
    details = data if isinstance(data, str) else as_dict(data).get("details")
    if isinstance(details, str) and details.strip() and details.strip() not in said:
        said += f" ({details.strip()})"  # what the agent says of it, past JSON-RPC's words
    if getattr(exc, "code", None) == AUTH_REQUIRED:
        return SIGN_IN + said
    return f"{type(exc).__name__}: {said}"


def sign_in_lines(methods: Any) -> list[str]:
    """What to do when the agent wants a sign-in: the ways it offers (``authMethods``)."""
    lines = []
    for method in methods if isinstance(methods, list) else []:
        name = as_text(as_dict(method).get("name")) or as_text(as_dict(method).get("id"), "?")
        about = as_text(as_dict(method).get("description"))
        lines.append(f"  {name}" + (f": {about}" if about else ""))
    intro = "sign in with the agent itself (or set what it reads, such as its API key), then "
    intro += "run askcli again"
    return [f"{intro}; the ways it offers:", *lines] if lines else [intro]
