"""The names of the tools and methods askcli answers, as the asking programs spell them."""

from __future__ import annotations

ASK_USER_QUESTION = "AskUserQuestion"
TODO_WRITE = "TodoWrite"
ELICITATION = "elicitation/create"  # MCP's method, the name its calls go by here
ACP_PERMISSION = "session/request_permission"  # ACP's method, asked as a call
OPENCODE_QUESTION = "question"  # OpenCode's question tool
