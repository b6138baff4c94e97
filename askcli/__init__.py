"""askcli: the human side of an AI agent's AskUserQuestion tool, in plain terminal lines."""

from __future__ import annotations

__version__ = "0.1.0.dev0"

from .results import Status, ToolResult  # noqa: E402
from .session import Reply, ask  # noqa: E402

__all__ = ["Reply", "Status", "ToolResult", "__version__", "ask"]
