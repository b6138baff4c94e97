"""askcli: the human side of an AI agent's AskUserQuestion tool, in plain terminal lines."""

from __future__ import annotations

from .runners.session import Reply, ask
from .status import ExitStatus
from .version import __version__
from .wire.results import ToolResult

__all__ = ["ExitStatus", "Reply", "ToolResult", "__version__", "ask"]
