"""What the person sees of the queue: one line per question, the inbox prompt's words, and
the description a ``--notify-command`` gets.

Everything here quotes an agent (its label, its question texts, a tool's input): each such
string passes :func:`askcli.escaping.visible` before it is put in a line. Every line is laid
out to the terminal's width (:func:`lay_out`): the question's text first, cut at a word, then
its asker with the folder shortened from the left; on a narrow terminal the asker takes a
second line. The help and the prompts wrap at spaces.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ...errors import AskcliError
from ...escaping import visible
from ...schema.names import ACP_PERMISSION, ASK_USER_QUESTION, ELICITATION, TODO_WRITE
from ...status import ExitStatus
from ...terminal.rendering import Style, display_width, last_columns, truncate, wrap, wrap_prompt
from ...wire.envelopes import ToolCall, detect
from ..routing import note
from ..store.base import Agent, QueuedQuestion, QueueState

Teams = Mapping[str, Sequence[str]]  # every team and its members (a store's teams.all())
NO_TEAMS: Teams = {}

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
    from ...tools.registry import tool_for

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
    from ...wire.dialects import by_tool

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
        elif call.name == ACP_PERMISSION:  # an ACP agent's permission request: its title
            from ...wire.dialects.acp_permission import title

            kinds.append(PERMISSION)
            texts.append(title(call.input) if isinstance(call.input, dict) else call.name)
        else:
            from ...terminal.screens import tool_line

            kinds.append(PERMISSION)
            texts.append(tool_line(call.name, call.input))
    kind = next((k for k in (QUESTION, PERMISSION, TODO) if k in kinds), QUESTION)
    return Summary(kind, tuple(texts), tuple(tools))


def has_secret(document: Any) -> bool:
    """Some answer of the document is a secret (Codex's ``isSecret``, a form field that
    is ``writeOnly``, of any type, or of format ``password``): the queue erases it once
    delivered."""
    try:
        envelope = detect(document) if isinstance(document, dict) else None
    except AskcliError:
        return False
    return envelope is not None and any(_secret_call(call) for call in envelope.calls)


def _secret_call(call: ToolCall) -> bool:
    from ...tools.registry import tool_for

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
    """``claude ~/api (pid 4242)``, escaped."""
    return visible(question.agent.label) or "?"


SEP = "  "  # between a question's text and its asker
INDENT = "  "  # the lines of a question after its first
LEAST = 20  # columns a question's text keeps beside its asker (or half the room, if more)
FOLDER_LEAST = 5  # columns of a folder worth showing: ``…/api``


def folder(path: str, columns: int) -> str:
    """``path`` shortened from the left to ``columns``: ``…/services/api``, ``…/api``, else
    the end of its last part (``…gateway``)."""
    if display_width(path) <= columns:
        return path
    if columns < 2:
        return ""
    parts = path.split("/")
    for i in range(1, len(parts)):
        tail = "/".join(parts[i:])
        if tail and display_width(tail) + 2 <= columns:
            return "…/" + tail
    return "…" + last_columns(path, columns - 1)


def who(agent: Agent, columns: int) -> str:
    """The asker in at most ``columns`` (when it can be): ``claude ~/api (pid 4242)``. A
    long one loses the left of its folder first (``claude …/api (pid 4242)``), then the
    folder, then the end of its client's name: what tells two askers of one folder apart
    (pid, session, conversation) goes last. Escaped."""
    client = visible(agent.client) or "?"
    tag = f" ({visible(agent.tag)})" if agent.tag else ""
    where = visible(agent.where)
    full = f"{client} {where}{tag}" if where else client + tag
    if display_width(full) <= columns:
        return full
    room = columns - display_width(client + tag) - 1
    if where and room >= min(FOLDER_LEAST, display_width(where)):
        return f"{client} {folder(where, room)}{tag}"
    room = columns - display_width(tag)
    if room >= FOLDER_LEAST:
        return truncate(client, room) + tag
    return truncate(client + tag, max(columns, 1))


def _least(agent: Agent) -> int:
    """The width of the shortest asker a line shows beside a question's text: its folder
    as ``…/api`` (the whole folder when shorter), its tag whole."""
    tag = f" ({visible(agent.tag)})" if agent.tag else ""
    short = display_width((visible(agent.client) or "?") + tag)
    where = visible(agent.where)
    if not where:
        return short
    last = where.rsplit("/", 1)[-1]
    return short + 1 + min(display_width(where), display_width(last) + 2)


def lay_out(
    width: int, head: str, text: str, agent: Agent, *, more: str = "", tail: str = ""
) -> list[str]:
    """The lines about one question: ``head``, its ``text`` (then ``more``), its asker,
    ``tail``, in ``width`` columns; the text comes first and keeps the room.

    One line when the whole fits, or when the text keeps :data:`LEAST` columns (or half
    the room) beside a shortened asker (``…/api``, the folder shortened from the left).
    Otherwise the text takes the first line (cut at a word, with ``…``) and the asker the
    next; a head too wide to leave the text room has a line of its own."""
    room = width - display_width(head + more + SEP + tail)
    size = display_width(text)
    asker = who(agent, 10 * width)
    if size + display_width(asker) <= room:
        return [f"{head}{text}{more}{SEP}{asker}{tail}"]
    least = _least(agent)
    if room - least >= min(size, max(LEAST, room // 2)):
        asker = who(agent, max(least, room - size))
        cut = truncate(text, room - display_width(asker), words=True)
        return [f"{head}{cut}{more}{SEP}{asker}{tail}"]
    lines = []
    first = width - display_width(head + more)
    if first < min(size, 12):
        lines += wrap(head.rstrip(), width, rest=INDENT)
        head, first = INDENT, width - display_width(INDENT + more)
    if first < min(size, 12):  # what it says after the text takes lines of its own
        lines.append(f"{head}{truncate(text, width - display_width(head), words=True)}")
        lines += wrap(more.strip(), width, first=INDENT, rest=INDENT)
    else:
        lines.append(f"{head}{truncate(text, first, words=True)}{more}")
    asker = who(agent, width - display_width(INDENT + tail))
    return [*lines, f"{INDENT}{asker}{tail}"]


def line(question: QueuedQuestion, waiting: int, style: Style, teams: Teams = NO_TEAMS) -> str:
    """The line(s) that introduce a question: ``[2 waiting] #3 Which database?  claude
    ~/api (pid 4242)``; a permission prompt says ``permission for Bash: npm test``; one
    addressed to a person or team says so (``(for team ops)``)."""
    found = summary(question.call)
    more = (
        f" (+{len(found.texts) - 1} more)"
        if found.kind == QUESTION and len(found.texts) > 1
        else ""
    )
    more += note(question._replace(holder=None), teams)
    head = f"[{waiting} waiting] #{question.id} "
    lines = lay_out(style.width, head, found.shown, question.agent, more=more)
    return "\n".join([style.strong(lines[0][: len(head)]) + lines[0][len(head) :], *lines[1:]])


def arrival(question: QueuedQuestion, style: Style, teams: Teams = NO_TEAMS) -> str:
    """When a question arrives: ``new #4: Deploy now?  codex ~/web (pid 4242)``; ``new #4:
    Deploy now? (for bob)  ...`` when it is addressed."""
    head = f"new #{question.id}: "
    more = note(question._replace(holder=None), teams)
    text = summary(question.call).shown
    return "\n".join(lay_out(style.width, head, text, question.agent, more=more))


def withdrew(question: QueuedQuestion, style: Style) -> str:
    """``#3 withdrawn, nothing was sent: Which database?  claude ~/api (pid 4242)``."""
    head = f"#{question.id} withdrawn, nothing was sent: "
    text = visible(summary(question.call).first)
    return "\n".join(lay_out(style.width, head, text, question.agent))


def about(
    question: QueuedQuestion, style: Style, words: str, *, after: bool = False, before: str = ""
) -> str:
    """Words naming who asked ``question``: ``#3 answered: sent to claude ~/api (pid 4242)``
    (the asker ``after`` ``words``), ``claude ~/api withdrew #3 while you answered; …``
    (``before`` that: ``askcli: ``); the asker shortened as :func:`who` does, the words
    wrapped at spaces."""
    agent = question.agent
    width = style.width
    room = width - display_width(before + words)
    if room >= _least(agent):
        asker = who(agent, room)
        return before + (f"{words}{asker}" if after else f"{asker}{words}")
    if after:
        lines = wrap(before + words.rstrip(), width, rest=INDENT)
        return "\n".join([*lines, INDENT + who(agent, width - len(INDENT))])
    asker = who(agent, width - display_width(before))
    lines = wrap(words.strip(), width, first=INDENT, rest=INDENT)
    return "\n".join([before + asker, *lines])


def ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < 86400:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


WIDE_LIST = 60  # columns from which the list's number, state and age are in columns


def shown_state(question: QueuedQuestion) -> str:
    """``waiting``, ``being answered``, ``answered``, ``withdrawn``; an answered question
    whose answer was a decline (``q``) says ``declined``."""
    result = question.result
    if question.state is QueueState.ANSWERED and declined(result):
        return "declined"
    return question.state.value


def declined(result: Any) -> bool:
    """The reply the inbox stored (:func:`askcli.inbox.asker_side.reply_to_json`) is a decline."""
    return isinstance(result, dict) and result.get("status") == ExitStatus.DECLINED


def list_line(
    question: QueuedQuestion,
    style: Style,
    *,
    now: float | None = None,
    mine: int | None = None,
    teams: Teams = NO_TEAMS,
) -> str:
    """The line(s) of a question in ``l`` and ``inbox list``: ``  #3    waiting    2m
    Which database?  claude ~/api (pid 4242)``; ``mine`` marks the question this inbox
    holds. A narrow terminal gets ``#3 waiting 2m Which…`` and the asker below. Who it is
    for and who answers it are said after its text: ``(for bob, being answered by bob)``."""
    state = "shown here" if mine == question.id else shown_state(question)
    age = ago((now if now is not None else time.time()) - question.arrived)
    if style.width >= WIDE_LIST:
        head = f"  #{question.id:<4} {state:<14} {age:>4}  "
    else:
        head = f"#{question.id} {state} {age}  "
    text = summary(question.call).shown
    shown = question._replace(holder=None) if mine == question.id else question
    more = note(shown, teams)
    return "\n".join(lay_out(style.width, head, text, question.agent, more=more))


def as_json(question: QueuedQuestion) -> dict[str, Any]:
    """One question as ``inbox list --json`` prints it and ``--notify-command`` gets it;
    never its ticket (what an MCP asker's ``get_answer`` names: the asker's alone)."""
    found = summary(question.call)
    return {
        "id": question.id,
        "status": question.state.value,
        "declined": declined(question.result),
        "agent": question.agent.label,
        "client": question.agent.client,
        "session": question.agent.session,
        "cwd": question.agent.cwd,
        "arrived": question.arrived,
        "kind": found.kind,
        "tools": list(found.tools),
        "question": found.first,
        "questions": list(found.texts),
        "to": question.to,
        "being_answered_by": question.holder,
        "answered_by": question.answered_by,
        "answered_host": question.answered_host,
        "answered_from": question.answered_from,
        "finished": _iso(question.finished),
    }


def _iso(seconds: float | None) -> str | None:
    """A time as ISO 8601 in UTC, to the second."""
    import datetime

    if seconds is None:
        return None
    found = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return found.isoformat("T", "seconds")


HELP_ROWS = (
    (
        "Enter, y",
        "answer the question shown (its screens and answer grammar are those of askcli ask;"
        " q there declines it too)",
    ),
    ("N, #N", "show question #N instead (the one shown waits again)"),
    ("l", "list the questions waiting and being answered"),
    ("t N", "take question #N over from your other inbox that holds it"),
    (
        "q",
        "decline the question shown (the agent gets the decline, as after q in its screens)"
        " and go on",
    ),
    ("?", "this help"),
    ("Ctrl-D", "leave the inbox (the question shown waits again); Ctrl-C too"),
)
KEYS_BESIDE = 40  # columns from which the help's keys stand beside their words


def help_text(width: int) -> str:
    """The inbox prompt's help, wrapped at spaces to ``width``: each key beside its words,
    or (narrower than :data:`KEYS_BESIDE`) above them."""
    lines = wrap("At the inbox prompt:", width, rest=INDENT)
    for keys, words in HELP_ROWS:
        if width >= KEYS_BESIDE:
            lines += wrap(words, width, first=f"  {keys:<10}  ", rest=" " * 14)
        else:
            lines += wrap(keys, width, first=INDENT) + wrap(words, width, first=INDENT * 2)
    return "\n".join(lines) + "\n"


ROOM_TO_TYPE = 6  # columns an inbox prompt leaves for what is typed (a key, a number)


def prompt(question: QueuedQuestion | None, width: int = 80) -> str:
    """The inbox prompt, in fewer words where the full ones do not fit ``width``."""
    forms: tuple[str, ...]
    if question is None:
        forms = (
            "Waiting for questions (l lists, ? help, Ctrl-D leaves): ",
            "Waiting (? help, Ctrl-D leaves): ",
            "Waiting (? help): ",
        )
    else:
        n = question.id
        forms = (  # the keys are kept as long as any form with them fits
            f"Answer #{n}? Enter answers, N picks another, l lists, q declines [y]: ",
            f"Answer #{n}? Enter, N, l, q, ? [y]: ",
            f"Answer #{n}? Enter,N,l,q,? [y]: ",
            f"#{n}? Enter,N,l,q,? [y]: ",
            f"Answer #{n}? [y]: ",
        )
    for form in forms:
        if display_width(form) + ROOM_TO_TYPE <= width:
            return form
    return wrap_prompt(forms[-1], width)


STATES_SHOWN = (QueueState.WAITING, QueueState.ANSWERING)
