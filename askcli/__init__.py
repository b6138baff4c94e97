"""askcli: the human side of an AI agent's AskUserQuestion tool, in plain terminal lines."""

from __future__ import annotations

__version__ = "0.1.0.dev0"

from .runners.session import Reply, ask
from .wire.results import Status, ToolResult

__all__ = ["Reply", "Status", "ToolResult", "__version__", "ask"]
