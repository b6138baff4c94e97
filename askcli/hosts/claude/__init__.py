"""``askcli claude``: host Claude Code in plain lines, answering it through askcli's prompts.

Claude Code runs as ``claude -p --input-format stream-json --output-format stream-json
--verbose --permission-prompt-tool stdio``. askcli sends the ``initialize`` control request
and the person's prompts (as stream-json messages, never on the command line), shows what
Claude Code says as plain lines on stderr, answers its ``can_use_tool`` control requests
with askcli's own prompts (the question UI for AskUserQuestion, the permission prompt for
any other tool) and the ``elicitation`` requests of its MCP servers (their forms), and prints
each turn's result text on stdout. The link to Claude Code is an
object with ``send``/``receive``/``close``, so a recorded session can stand in for the real
process.

Every line from Claude Code is untrusted: it is read in bounded memory, fields are taken
with typed accessors, and a line askcli cannot use is reported in one escaped line and
skipped. Whatever it shows passes through :func:`~askcli.escaping.visible` (one line per
item) and the terminal gate.
"""

from __future__ import annotations

from .process import FLAGS, ChildClaude, find_claude
from .recording import ClaudeRecorder, ScriptedClaude
from .session import host
from .stream_json import StreamLink, parse_line

__all__ = [
    "FLAGS",
    "ChildClaude",
    "ClaudeRecorder",
    "ScriptedClaude",
    "StreamLink",
    "find_claude",
    "host",
    "parse_line",
]
