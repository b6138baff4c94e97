"""askcli: the human side of an AI agent's AskUserQuestion tool, in plain terminal lines."""

from __future__ import annotations

from .runners.session import Reply, ask
from .version import __version__
from .wire.results import Status, ToolResult

__all__ = ["Reply", "Status", "ToolResult", "__version__", "ask"]
