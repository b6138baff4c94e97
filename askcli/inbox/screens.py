"""What the person sees of the queue: one line per question, the inbox prompt's words, and
the description a ``--notify-command`` gets.

Everything here quotes an agent (its label, its question texts, a tool's input): each such
string passes :func:`askcli.escaping.visible` before it is put in a line, and a
line is cut to the terminal's width, so a question never takes more than its one line.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from ..errors import AskcliError
from ..escaping import visible
from ..schema.names import ASK_USER_QUESTION, ELICITATION, TODO_WRITE
from ..terminal.rendering import Style, display_width, truncate
from ..wire.envelopes import ToolCall, detect
from .store import QueuedQuestion, QueueState

QUESTION = "question"  # a question tool (AskUserQuestion, another agent's, an MCP form)
PERMISSION = "permission"  # any other tool: a permission prompt
TODO = "todo"  # TodoWrite: a checklist, nothing to answer


class Summary(NamedTuple):
    """What a queued call is about: its kind and the texts a person reads first (question
    texts; ``Bash: npm test`` for a permission prompt), as the agent wrote them."""

    kind: str
    texts: tuple[str, ...]
    tools: tuple[str, ...]

    @property
    def first(self) -> str:
        return self.texts[0] if self.texts else "(nothing to read)"

    @property
    def shown(self) -> str:
        """The first text escaped, as a line shows it: ``permission for Bash: npm test``."""
        what = visible(self.first)
        return f"permission for {what}" if self.kind == PERMISSION else what


def _question_texts(call: ToolCall) -> list[str]:
    """The question texts of a question tool's call, as the screens will show them."""
    from ..tools.registry import tool_for

    try:
        parsed = tool_for(call.name).parse(call.input)
        found = [q.question for q in getattr(parsed, "questions", ())]
    except (AskcliError, ValueError, TypeError, AttributeError, KeyError):
        found = []
    if found:
        return found
    data = call.input if isinstance(call.input, dict) else {}
    message = data.get("message")  # an MCP form that cannot be asked still says something
    if isinstance(message, str) and message:
        return [message]
    raw = data.get("questions")
    if isinstance(raw, list):
        return [
            q["question"] for q in raw if isinstance(q, dict) and isinstance(q.get("question"), str)
        ]
    return []


def _is_question_tool(name: str) -> bool:
    if name in (ASK_USER_QUESTION, ELICITATION):
        return True
    from ..wire.dialects import by_tool

    return by_tool(name) is not None


def summary(document: Any) -> Summary:
    """The kind and texts of a queued document (any envelope askcli reads)."""
    try:
        envelope = detect(document) if isinstance(document, dict) else None
    except AskcliError:
        envelope = None
    if envelope is None:
        return Summary(QUESTION, ("(a document askcli cannot read)",), ())
    kinds: list[str] = []
    texts: list[str] = []
    tools: list[str] = []
    for call in envelope.calls:
        tools.append(call.name)
        if call.name == TODO_WRITE:
            kinds.append(TODO)
            texts.append("a todo list")
        elif _is_question_tool(call.name):
            kinds.append(QUESTION)
            texts += _question_texts(call) or [f"(an invalid {call.name} call)"]
        else:
            from ..terminal.screens import tool_line

            kinds.append(PERMISSION)
            texts.append(tool_line(call.name, call.input))
    kind = next((k for k in (QUESTION, PERMISSION, TODO) if k in kinds), QUESTION)
    return Summary(kind, tuple(texts), tuple(tools))


def has_secret(document: Any) -> bool:
    """Some answer of the document is a secret (Codex's ``isSecret``, a form field that
    is ``writeOnly`` or of format ``password``): the queue erases it once delivered."""
    try:
        envelope = detect(document) if isinstance(document, dict) else None
    except AskcliError:
        return False
    return envelope is not None and any(_secret_call(call) for call in envelope.calls)


def _secret_call(call: ToolCall) -> bool:
    from ..tools.registry import tool_for

    try:
        parsed = tool_for(call.name).parse(call.input)
    except (AskcliError, ValueError, TypeError, AttributeError, KeyError):
        return False
    return any(getattr(q, "secret", False) for q in getattr(parsed, "questions", ()))


def asks_nothing(document: Any) -> bool:
    """Every call of the document is a TodoWrite (shown, accepted at once) or there is no
    call at all: nothing for the person to decide."""
    found = summary(document)
    return found.kind == TODO or not found.tools


def label(question: QueuedQuestion) -> str:
    """``claude ~/api``, escaped."""
    return visible(question.agent.label) or "?"


KEPT = 20  # columns of a question's text a long label leaves it


def fit(width: int, name: str, text: str = "", *, fixed: str = "") -> tuple[str, str]:
    """``name`` (an asker's label) and ``text`` (a question's) cut so that a line of both
    and ``fixed`` (the rest of its words) takes at most ``width`` columns: the text keeps
    :data:`KEPT` columns (or its own width) when the name is long, and at least 10."""
    rest = display_width(fixed)
    keep = min(display_width(text), KEPT)
    name = truncate(name, max(width - rest - keep, 10))
    return name, truncate(text, max(width - rest - display_width(name), 10))


def line(question: QueuedQuestion, waiting: int, style: Style) -> str:
    """The line that introduces a question: ``[2 waiting] claude ~/api: Which database?
    (#3)``; a permission prompt says ``permission for Bash: npm test``."""
    found = summary(question.call)
    more = (
        f" (+{len(found.texts) - 1} more)"
        if found.kind == QUESTION and len(found.texts) > 1
        else ""
    )
    tail = f"{more}  (#{question.id})"
    head = f"[{waiting} waiting] "
    name, text = fit(style.width, label(question), found.shown, fixed=f"{head}: {tail}")
    return style.strong(f"{head}{name}: ") + text + tail


def arrival(question: QueuedQuestion, style: Style) -> str:
    """One line when a question arrives: ``new #4: codex ~/web: Deploy now?``."""
    head = f"new #{question.id}: "
    name, text = fit(style.width, label(question), summary(question.call).shown, fixed=head + ": ")
    return f"{head}{name}: {text}"


def withdrew(question: QueuedQuestion, style: Style) -> str:
    """``claude ~/api withdrew #3 (Which database?); nothing was sent``."""
    middle = f" withdrew #{question.id} ("
    name, text = fit(
        style.width,
        label(question),
        visible(summary(question.call).first),
        fixed=middle + "); nothing was sent",
    )
    return f"{name}{middle}{text}); nothing was sent"


def about(question: QueuedQuestion, style: Style, words: str, *, after: bool = False) -> str:
    """A line naming who asked ``question``: ``#3 answered: sent to claude ~/api`` (the
    label ``after`` ``words``), ``claude ~/api withdrew #3 while you answered; …``."""
    name, _ = fit(style.width, label(question), fixed=words)
    return f"{words}{name}" if after else f"{name}{words}"


def ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < 86400:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


def list_line(
    question: QueuedQuestion, style: Style, *, now: float | None = None, mine: int | None = None
) -> str:
    """One line of ``l`` and ``inbox list``: ``  #3  waiting  2m  claude ~/api: Which
    database?``; ``mine`` marks the question this inbox holds."""
    state = "shown here" if mine == question.id else question.state.value
    age = ago((now if now is not None else time.time()) - question.arrived)
    head = f"  #{question.id:<4} {state:<14} {age:>4}  "
    name, text = fit(style.width, label(question), summary(question.call).shown, fixed=head + ": ")
    return f"{head}{name}: {text}"


def as_json(question: QueuedQuestion) -> dict[str, Any]:
    """One question as ``inbox list --json`` prints it and ``--notify-command`` gets it;
    never its ticket (what an MCP asker's ``get_answer`` names: the asker's alone)."""
    found = summary(question.call)
    return {
        "id": question.id,
        "status": question.state.value,
        "agent": question.agent.label,
        "client": question.agent.client,
        "session": question.agent.session,
        "cwd": question.agent.cwd,
        "arrived": question.arrived,
        "kind": found.kind,
        "tools": list(found.tools),
        "question": found.first,
        "questions": list(found.texts),
    }


PROMPT_HELP = """\
At the inbox prompt:
  Enter, y    answer the question shown (its screens and answer grammar are those of
              askcli ask; q there declines it too)
  N, #N       show question #N instead (the one shown waits again)
  l           list the questions waiting and being answered
  q           decline the question shown (the agent gets the decline, as after q in
              its screens) and go on
  ?           this help
  Ctrl-D      leave the inbox (the question shown waits again); Ctrl-C too
"""


def prompt(question: QueuedQuestion | None) -> str:
    if question is None:
        return "Waiting for questions (l lists, ? help, Ctrl-D leaves): "
    return f"Answer #{question.id}? Enter answers, N picks another, l lists, q declines [y]: "


STATES_SHOWN = (QueueState.WAITING, QueueState.ANSWERING)
