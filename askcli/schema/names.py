"""The names of the tools and methods askcli answers, as the asking programs spell them."""

from __future__ import annotations

ASK_USER_QUESTION = "AskUserQuestion"
TODO_WRITE = "TodoWrite"
ELICITATION = "elicitation/create"  # MCP's method, the name its calls go by here
ACP_PERMISSION = "session/request_permission"  # ACP's method, asked as a call
OPENCODE_QUESTION = "question"  # OpenCode's question tool
# Codex's app-server requests to its client (JSON-RPC methods, the names their calls go by here)
CODEX_USER_INPUT = "item/tool/requestUserInput"
CODEX_COMMAND_APPROVAL = "item/commandExecution/requestApproval"
CODEX_FILE_APPROVAL = "item/fileChange/requestApproval"
CODEX_METHODS = (CODEX_USER_INPUT, CODEX_COMMAND_APPROVAL, CODEX_FILE_APPROVAL)
JSONRPC_METHODS = (ELICITATION, ACP_PERMISSION, *CODEX_METHODS)  # the requests askcli answers
