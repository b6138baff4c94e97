"""askcli: the human side of an AI agent's AskUserQuestion tool, in plain terminal lines."""

from __future__ import annotations

from .questions.outcome import Outcome
from .runners.session import Reply, ask
from .status import ExitStatus
from .version import __version__
from .wire.results import ToolResult

__all__ = ["ExitStatus", "Outcome", "Reply", "ToolResult", "__version__", "ask"]
