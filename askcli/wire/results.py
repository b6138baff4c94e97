"""Tool results: the texts Claude Code sends back to the model, and the exit statuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..questions.outcome import Outcome
from ..schema.issues import Issue, issues_json
from ..status import ExitStatus

REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
    "STOP what you are doing and wait for the user to tell you how to proceed."
)
REJECT_WITH_WORDS_PREFIX = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
    "To tell you how to proceed, the user said:\n"
)
CANCEL_MESSAGE = (
    "The user doesn't want to take this action right now. "
    "STOP what you are doing and wait for the user to tell you how to proceed."
)


# the agents' own words for a question not answered, which their output modes compare with
DISMISSED = "The user dismissed this question"  # OpenCode's, for a dismissed question
QUEUED_CANCELLED = "[Operation Cancelled] Reason: User cancelled operation"  # Gemini CLI's,
# for the other calls of a batch once one was declined


class ToolResult(NamedTuple):
    """One tool call's result: the tool_result text and how asking it ended (``outcome``,
    which gives the exit status).

    ``data`` is the tool's own data (for AskUserQuestion: questions, answers and
    annotations, so far when it was not answered); ``updated_input`` the input the tool
    runs with when the call is allowed (the call's input with the answers added).
    ``deferred`` marks a call the person allowed but askcli does not run (any tool other
    than its own): there is no tool_result yet, only the permission to run it.
    ``updated_permissions`` are the permission suggestions the person chose ("don't ask
    again"), as the host sent them. ``reply`` is the structured reply of a dialect whose
    answer is an object rather than text (an MCP elicitation's ``{action, content}``, a
    Gemini ``functionResponse``'s ``response``); ``content`` is then its text form.
    ``taken``: nobody answered, yet the call is allowed, as Claude Code takes such an end
    (``annotations[q].unanswered``, ``afkTimeoutMs``); the outcome still gives the status.
    """

    tool_use_id: str | None
    content: str
    outcome: Outcome
    is_error: bool = False
    data: Mapping[str, Any] | None = None
    updated_input: Mapping[str, Any] | None = None
    deferred: bool = False
    updated_permissions: Sequence[Any] | None = None
    reply: Mapping[str, Any] | None = None  # a structured reply (Gemini, MCP), as sent
    taken: bool = False

    @property
    def status(self) -> ExitStatus:
        """The exit status this call gives (its outcome's)."""
        return self.outcome.status

    @property
    def allowed(self) -> bool:
        return (self.taken or self.status is ExitStatus.ANSWERED) and not self.is_error

    def block(self) -> dict[str, Any]:
        """The Messages API ``tool_result`` block; ``is_error`` only when true."""
        out: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": self.content,
        }
        if self.is_error:
            out["is_error"] = True
        return out

    def permission(self, id_key: str) -> dict[str, Any]:
        """In place of a tool_result, for a deferred call: run it with ``updatedInput``."""
        return {"type": "permission", id_key: self.tool_use_id, **self.decision()}

    def decision(self) -> dict[str, Any]:
        """The Agent SDK permission decision (``canUseTool``'s PermissionResult)."""
        if self.allowed:
            allow: dict[str, Any] = {
                "behavior": "allow",
                "updatedInput": dict(self.updated_input or {}),
            }
            if self.updated_permissions:
                allow["updatedPermissions"] = list(self.updated_permissions)
            return allow
        out: dict[str, Any] = {"behavior": "deny", "message": self.content}
        if self.status is ExitStatus.INTERRUPTED:
            out["interrupt"] = True
        return out

    def answers(self) -> dict[str, Any]:
        """The tool's data for scripts; ``error`` holds the result text when not answered."""
        out = dict(self.data or {})
        if not self.allowed:
            out["error"] = self.content
        return out


def _pairs(answers: Mapping[str, str]) -> str:
    return ", ".join(f'"{q}"="{a}"' for q, a in answers.items())


def answered_text(answers: Mapping[str, str], annotations: Mapping[str, Mapping[str, str]]) -> str:
    """Claude Code 2.1.88's ``mapToolResultToToolResultBlockParam`` text."""
    parts = []
    for question, answer in answers.items():
        note = annotations.get(question, {})
        piece = [f'"{question}"="{answer}"']
        if note.get("preview"):
            piece.append(f"selected preview:\n{note['preview']}")
        if note.get("notes"):
            piece.append(f"user notes: {note['notes']}")
        parts.append(" ".join(piece))
    return (
        f"User has answered your questions: {', '.join(parts)}. "
        "You can now continue with the user's answers in mind."
    )


def clarify_text(words: str, questions: Sequence[str], answers: Mapping[str, str]) -> str:
    """Decline with "chat about this": the person's words and where each question stood."""
    lines = ["The user wants to clarify these questions.", words, "", "Questions asked:"]
    for question in questions:
        lines.append(f'- "{question}"')
        answer = answers.get(question)
        lines.append(f"  Answer: {answer}" if answer else "  (No answer provided)")
    return REJECT_WITH_WORDS_PREFIX + "\n".join(lines)


def _before(answers: Mapping[str, str]) -> str:
    return f" Answers given before that: {_pairs(answers)}." if answers else ""


def no_answer_text(why: str, answers: Mapping[str, str]) -> str:
    return f"No answer from the user ({why})." + _before(answers)


def declined_text(answers: Mapping[str, str]) -> str:
    """The person declined (Ctrl-C), keeping the answers typed so far."""
    return REJECT_MESSAGE + _before(answers)


def validation_error_text(issues: list[Issue], advice: str | None = None) -> str:
    """Claude Code's text for an input that fails its schema; ``advice`` (Claude Code's
    words to the model about what to do instead) comes before the issues."""
    lead = f"{advice}\n\n" if advice else ""
    return f"<tool_use_error>InputValidationError: {lead}{issues_json(issues)}</tool_use_error>"


def unreadable_text(reason: str) -> str:
    return f"<tool_use_error>InputValidationError: {reason}</tool_use_error>"
