"""askcli hook in the tests: Claude Code's hook input, a person typing at a scripted terminal, the
inbox a hook test uses."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from askcli.lines import TextLineReader
from askcli.runners.session import Reply, answer_document
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.wire.documents import Document

from tests.support.calls import COLOR

QUESTIONS = {"questions": [COLOR]}


SUGGESTIONS = [
    {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": 'python3 -c "print(6*7)"'}],
        "behavior": "allow",
        "destination": "localSettings",
    }
]


BASH = {"command": 'python3 -c "print(6*7)"', "description": "compute"}


def hook_input(event: str = "PreToolUse", tool: str = "AskUserQuestion", **more: Any) -> dict:
    """Claude Code 2.1.197's hook input, as it wrote it (recipe 2)."""
    found: dict[str, Any] = {
        "session_id": "8a7391e2-0000",
        "transcript_path": "/home/u/.claude/projects/x/8a7391e2-0000.jsonl",
        "cwd": "/home/u/api",
        "prompt_id": "42f0bbb4-0000",
        "permission_mode": "default",
        "effort": {"level": "high"},
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": QUESTIONS if tool == "AskUserQuestion" else BASH,
    }
    if event == "PreToolUse":
        found["tool_use_id"] = "toolu_a1"
    if event == "PermissionRequest":
        found["permission_suggestions"] = SUGGESTIONS
    found.update(more)
    return found


class Asked:
    """An asker that hands each document to ``ask`` (a test's stand-in for the person)."""

    here = True

    def __init__(self, ask: Callable[[dict[str, Any]], Reply]) -> None:
        self._ask = ask

    def ask(self, document: Document, conv: Conversation, seq: int = 1) -> Reply:
        assert document.value is not None
        return self._ask(document.value)


def typed(lines: str) -> tuple[Asked, io.StringIO]:
    """An asker answering at a scripted terminal, and what the person saw."""
    screen = io.StringIO()

    def ask(document: dict[str, Any]) -> Reply:
        conv = Conversation(TextLineReader(io.StringIO(lines)), screen, Style())
        return answer_document(Document(document), conv)

    return Asked(ask), screen


def _where(tmp_path: Path) -> str:
    """The test's inbox: the file, or the database ``on_each_store`` chose."""
    chosen = tmp_path / "inbox.where"
    return chosen.read_text() if chosen.exists() else str(tmp_path / "inbox.db")


def inbox_env(tmp_path: Path) -> dict[str, str]:
    return {"ASKCLI_INBOX": _where(tmp_path), "XDG_STATE_HOME": str(tmp_path / "st")}


def transcript(path: Path, *calls: str, message: str = "msg_1") -> Path:
    """A Claude Code session transcript whose last assistant message (``message``) made the
    tool calls ``calls`` (AskUserQuestion, with their ids), each block on a line of its own
    as Claude Code 2.1.332 writes them."""
    import json

    lines = [{"type": "user", "message": {"role": "user", "content": "ask me"}}]
    for call in [None, *calls]:
        block: dict[str, Any] = {"type": "text", "text": "Working."}
        if call is not None:
            block = {"type": "tool_use", "id": call, "name": "AskUserQuestion", "input": QUESTIONS}
        lines.append(
            {
                "type": "assistant",
                "message": {"id": message, "role": "assistant", "content": [block]},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def print_mode_input(tmp_path: Path, *siblings: str, session: str = "5e55-1011") -> dict:
    """The hook input of ``claude -p`` for the call toolu_a1 (with ``siblings`` beside it in
    its message), its transcript written in ``tmp_path``."""
    path = transcript(tmp_path / f"{session}.jsonl", "toolu_a1", *siblings)
    return hook_input(session_id=session, transcript_path=str(path), cwd=str(tmp_path))


PRINT_MODE = {"CLAUDE_CODE_SESSION_ATTENDED": "0"}  # what claude -p tells its hooks
