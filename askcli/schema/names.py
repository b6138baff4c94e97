"""The names of the tools and methods askcli answers, as the asking programs spell them."""

from __future__ import annotations

ASK_USER_QUESTION = "AskUserQuestion"
TODO_WRITE = "TodoWrite"
ELICITATION = "elicitation/create"  # MCP's method, the name its calls go by here
OPENCODE_QUESTION = "question"  # OpenCode's question tool

# --wording: Claude Code 2.1.88's texts go by "seed" inside askcli and in fixtures; this is
# their name for people (the current release's are "claude-code")
WORDING_2_1_88 = "claude-code-2.1.88"


def canonical_wording(name: str) -> str:
    """The one name askcli passes around for a ``--wording`` (``seed`` for 2.1.88's)."""
    return "seed" if name == WORDING_2_1_88 else name
