"""What the person sees of an AskUserQuestion call: question blocks, prompts, review, help.

Every function returns text for stderr. Model text goes through
:func:`~askcli.escaping.visible` first; colour and layout are added afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..escaping import visible
from ..questions.state import AnswerState, Mode
from ..schema.shapes import AskInput, SharedQuestion
from .rendering import CONTINUED, ROOM_TO_TYPE, Style, display_width, truncate, wrap

HEADER_COLUMNS = 12
OTHER_LABEL = "Other"
OTHER_DESCRIPTION = "type your own answer"


def chip(header: str) -> str:
    """The header as a chip: ``[Library]``, cut to 11 columns and ``…`` past 12."""
    return f"[{truncate(visible(header), HEADER_COLUMNS)}]"


def _with_prefix(lines: list[str], plain: str, styled: str) -> list[str]:
    """Swap the plain ``plain`` prefix of the first line for its coloured form."""
    if lines and lines[0].startswith(plain) and plain != styled:
        lines[0] = styled + lines[0][len(plain) :]
    return lines


def context_text(text: str, style: Style, who: str = "Assistant") -> str:
    """An assistant text block (or ``who`` else wrote it), shown before the questions that
    follow it."""
    label = f"{visible(who)}: "
    lines = wrap(visible(text.strip(), multiline=True), style.width, first=label, rest="  ")
    return "\n" + "\n".join(_with_prefix(lines, label, style.strong(label))) + "\n"


def question_block(
    question: SharedQuestion, index: int, total: int, style: Style, *, keys: bool = False
) -> str:
    """The question with its chip and position, then the numbered options and Other;
    ``keys``: then the line of the keys it takes (:func:`keys_hint`)."""
    head = chip(question.header)
    title = f"{head} {visible(question.question, multiline=True)}"
    lines = wrap(title, style.width, rest="  ")
    position = f"(question {index + 1} of {total})"
    if display_width(lines[-1]) + 3 + len(position) <= style.width:
        lines[-1] += "   " + style.dim(position)
    else:
        lines.append("  " + style.dim(position))
    lines = _with_prefix(lines, head, style.chip(head))
    if question.description and question.description.strip():
        about = visible(question.description.strip(), multiline=True)
        lines += [style.dim(row) for row in wrap(about, style.width, first="  ", rest="  ")]
    if question.typed:
        return "\n" + "\n".join(lines + typed_lines(question, style)) + "\n"
    options = [(o.label, o.description) for o in question.options]
    if question.other:
        options.append((OTHER_LABEL, OTHER_DESCRIPTION))
    # one layout for all options of a question: if one description needs its own line,
    # every option of the question shows its description below its label
    apart = any(
        _apart(number, label, description, style.width)
        for number, (label, description) in enumerate(options[: len(question.options)], start=1)
    )
    for number, (label, description) in enumerate(options, start=1):
        lines += option_lines(number, label, description, style, apart=apart)
    previews = [str(n) for n, o in enumerate(question.options, start=1) if o.preview]
    hints = []
    if previews:
        hints.append(f"(p N shows a preview: options {', '.join(previews)})")
    if question.multiSelect and (question.min_items or question.max_items):
        hints.append(f"({_items(question.min_items, question.max_items)})")
    if not question.required:
        hints.append("(optional: s skips it)")
    if question.secret:
        hints.append("(a secret: what you type here is not shown)")
    if keys:
        hints.append(keys_hint(len(options), question.multiSelect, index > 0, style.width))
    for hint in hints:
        lines += [style.dim(row) for row in wrap(hint, style.width, first="  ", rest="   ")]
    return "\n" + "\n".join(lines) + "\n"


def keys_hint(choices: int, multi: bool, back: bool, width: int = 80) -> str:
    """The keys a choice question takes, in one line under its options (shown at the first
    choice question of a run): its numbers, ``,`` for several, ``?``, ``b`` when there is a
    question before it, ``q``; shorter where the line does not fit the width."""
    several = ", 1,3 choose several" if multi else ""
    going_back = ", b back" if back else ""
    text = f"(keys: 1-{choices} choose{several}, ? help{going_back}, q decline)"
    if display_width(text) + 2 > width:
        several = ", 1,3" if multi else ""
        text = f"(1-{choices}{several}, ? help{going_back}, q decline)"
    return text


def message_hint(to: str, width: int = 80) -> str:
    """Above the first ``> `` of ``askcli claude`` and ``askcli acp`` at a terminal: what it
    takes and how to leave; shorter where the line does not fit the width."""
    text = f"(type a message to {to}, then Enter; Ctrl-C stops a turn, Ctrl-D ends)"
    if display_width(text) + 2 > width:
        text = "(a message, then Enter; Ctrl-D ends)"
    return text


def _items(low: int | None, high: int | None) -> str:
    if low and high:
        return f"choose {low}-{high} options" if low != high else f"choose {low} options"
    if low:
        return f"choose at least {low} option{'s' if low != 1 else ''}"
    return f"choose at most {high} option{'s' if high != 1 else ''}"


def typed_lines(question: SharedQuestion, style: Style) -> list[str]:
    """Below a text or number question: what to type, its limits, its placeholder."""
    rule = question.rule
    what = rule.describe() if rule is not None else ""
    head = f"Type {what}" if what else "Type your answer"
    if question.secret:
        head += " (it is not shown back)"
    elif not question.required:
        head += " (optional: s skips it)"
    rows = wrap(head + ".", style.width, first="  ", rest="  ")
    if question.placeholder and question.placeholder.strip():
        shown = visible(question.placeholder.strip(), multiline=True)
        example = shown if shown.lower().startswith(("e.g.", "eg ")) else f"e.g. {shown}"
        rows += [style.dim(row) for row in wrap(example, style.width, first="  ", rest="  ")]
    rows += [style.dim(row) for row in wrap(TYPED_HINT, style.width, first="  ", rest="  ")]
    return rows


TYPED_HINT = "(a command word alone is the command: b back, s skip, q decline; =q types q)"


def _apart(number: int, label: str, description: str, width: int) -> bool:
    """The option's description needs lines of its own: it does not fit beside the label,
    spans lines, or the label itself holds `` - ``."""
    name = visible(label)
    about = visible(description.strip(), multiline=True)
    together = f"  {number}. {name} - {about}"
    return bool(about) and ("\n" in about or " - " in name or display_width(together) > width)


def option_lines(
    number: int, label: str, description: str, style: Style, *, apart: bool = False
) -> list[str]:
    """``  N. label - description`` when it fits on one line; else (or with ``apart``) the
    label, wrapped under itself, with the description on its own lines below it. A label
    holding `` - `` always gets its description on a line of its own, so that the two are
    never confused. The label is bold when colour is on."""
    prefix = f"  {number}. "
    indent = " " * len(prefix)
    name = visible(label)
    about = visible(description.strip(), multiline=True)
    if about and not apart and not _apart(number, label, description, style.width):
        head, tail, body = [prefix + name], f" - {about}", []
    else:
        head, tail = wrap(name, style.width, first=prefix, rest=indent), ""
        body = wrap(about, style.width, first=indent, rest=indent) if about else []
    rows = [f"  {style.strong(f'{number}.')} {style.strong(head[0][len(prefix) :])}{tail}"]
    rows += [indent + style.strong(row[len(indent) :]) for row in head[1:]]
    return rows + body


def answer_text(state: AnswerState, index: int, secret: bool = False) -> str:
    answer = state.answers.get(state.questions[index].text, "")
    if secret and answer:
        return f"(hidden, {len(answer)} characters)"
    return visible(answer, multiline=True)


def current_answer(state: AnswerState, style: Style, secret: bool = False) -> str:
    """Shown when the person comes back to a question they answered."""
    shown = answer_text(state, state.at, secret)
    lines = wrap(shown, style.width, first="  current answer: ")
    notes = notes_line(state, style, secret) if state.at in state.notes else ""
    return "\n".join(lines) + "\n" + notes


def notes_line(state: AnswerState, style: Style, secret: bool = False) -> str:
    """The current question's notes (``n`` alone clears them); a secret question's hidden."""
    note = state.notes[state.at]
    shown = f"(hidden, {len(note)} characters)" if secret else visible(note, multiline=True)
    lines = wrap(shown, style.width, first="  notes: ")
    return "\n".join(lines) + "\n"


def suggested_answer(state: AnswerState, style: Style, asker: str = "the agent") -> str:
    """Shown at a question the call came with an answer to: the agent's suggestion, which
    an empty line takes (the person confirms what a model wrote, never unseen)."""
    numbers = state.suggested[state.at]
    question = state.current
    other = state.other_text.get(state.at, "")
    text = ", ".join(other if n == question.other else question.labels[n - 1] for n in numbers)
    first = f"  suggested by {asker} ({','.join(map(str, numbers))}): "
    lines = wrap(visible(text, multiline=True), style.width, first=first, rest="    ")
    return "\n".join(lines) + "\n"


def prompt(state: AnswerState, width: int = 80, *, secret: bool = False) -> str:
    """The prompt for the state's mode; ``[...]`` shows what an empty line takes. On a
    narrow terminal a shorter form leaves room to type on the same line."""
    if state.mode is Mode.OTHER_TEXT:
        return "Other, type your answer: "
    if state.mode is Mode.RESPOND_TEXT:
        return "Your reply to the agent, instead of answering: "
    if state.mode is Mode.CLARIFY_TEXT:
        return "What would you like to clarify? "
    if state.mode is Mode.REVIEW:
        missing = state.unanswered()
        # [y] only where an empty line submits: else it goes to what needs an answer
        return (
            f"Answer question {missing[0]} first [{missing[0]}]: " if missing else "Submit? [y]: "
        )
    if state.mode is Mode.CONFIRM_DECLINE:
        total = len(state.questions)
        what = "the question" if total == 1 else f"all {total} questions"
        return f"Decline {what}? [y/N] "
    question = state.current
    if question.typed:
        given = state.default_text()
        if given is None:
            return "Answer: "
        shown = truncate(visible(given), max(8, width // 3))
        return f"Answer [{shown}]: " if not secret else "Answer [hidden, Enter keeps it]: "
    default = state.default_numbers()
    bracket = f" [{','.join(map(str, default))}]" if default else ""
    choices = question.choices
    if question.yesno:
        return f"Choose 1-{choices} or y/n{bracket}: "
    if question.multi:  # every form says that several may be chosen
        forms = (
            f"Choose 1-{choices}, several allowed (e.g. 1,3){bracket}: ",
            f"Choose 1-{choices}, several (e.g. 1,3){bracket}: ",
            f"Several of 1-{choices} (e.g. 1,3){bracket}: ",
            f"Several of 1-{choices}{bracket}: ",
        )
        return next((f for f in forms if len(f) + ROOM_TO_TYPE <= width), forms[-1])
    return f"Choose 1-{choices}{bracket}: "


def review_block(data: AskInput, state: AnswerState, style: Style) -> str:
    lines = ["", style.strong("Review your answers:")]
    for i, question in enumerate(data.questions):
        head = chip(question.header)
        prefix = f"  {i + 1}. "
        title = f"{head} {visible(question.question, multiline=True)}"
        lines += wrap(title, style.width, first=prefix, rest=" " * len(prefix))
        answer = answer_text(state, i, question.secret) or (
            "(no answer yet)" if question.required else "(no answer: skipped)"
        )
        lines += wrap(answer, style.width, first="       ")
        note = state.notes.get(i)
        if note:
            shown = f"(hidden, {len(note)} characters)" if question.secret else note
            lines += wrap(visible(shown, multiline=True), style.width, first="       notes: ")
    count = len(data.questions)
    change = "1 changes the answer" if count == 1 else f"1-{count} changes an answer"
    hint = f"Enter or y submits, {change}, b goes back, q declines, ? for help."
    missing = state.unanswered()
    if missing:  # Enter cannot submit yet
        first = f"Question {missing[0]} needs an answer first"
        hint = f"{first}: Enter goes to it, q declines, ? for help."
    lines += wrap(hint, style.width)
    return "\n".join(lines) + "\n"


def not_submitted(count: int, style: Style) -> str:
    """Said after ``n`` at the review: nothing was submitted, and what to type instead."""
    change = "1 changes the answer" if count == 1 else f"1-{count} changes an answer"
    text = f"Not submitted: {change}, b goes back, q declines."
    return "\n".join(wrap(text, style.width, rest="  ")) + "\n"


def title_block(title: str, style: Style) -> str:
    """The call's title (Claude Code's extended questions), shown once above them."""
    lines = wrap(visible(title.strip(), multiline=True), style.width, rest="  ")
    return "\n" + "\n".join(style.strong(line) for line in lines) + "\n"


def resumed(data: AskInput, state: AnswerState, style: Style) -> str:
    """Shown when a journal has lines kept from an interrupted conversation about this call,
    before ``Resume? [Y/n]``."""
    head = wrap("You were answering this call before; kept from then:", style.width, rest="  ")
    lines = ["", *(style.strong(row) for row in head)]
    kept = 0
    for i, question in enumerate(data.questions):
        if question.question not in state.answers:
            continue
        kept += 1
        answer = answer_text(state, i, question.secret)
        text = f"{chip(question.header)} {visible(question.question)} -> {answer}"
        lines += wrap(text, style.width, first="  ", rest="    ")
    if not kept:
        lines.append("  (no answers yet)")
    hint = "Enter or y goes on from there; n starts again from the first question."
    lines += wrap(hint, style.width)
    return "\n".join(lines) + "\n"


RESUME_PROMPT = "Resume? [Y/n] "
REPLACED_SHOWN = 40  # columns of each replaced answer shown


def replaced(answers: list[tuple[int, str]], style: Style) -> str:
    """Said when a one-line answer replaced answers resumed from before (question index,
    the answer it replaced): they are never replaced unsaid."""
    what = "the answer" if len(answers) == 1 else "the answers"
    each = ", ".join(
        f'question {i + 1} (was "{truncate(visible(answer), REPLACED_SHOWN)}")'
        for i, answer in answers
    )
    text = f"Replaced {what} kept from before: {each}."
    return "\n".join(wrap(text, style.width, rest="  ")) + "\n"


def skipped(index: int, width: int = 80) -> str:
    """Said after ``s``."""
    text = f"Skipped question {index + 1}; answer it from the review."
    return "\n".join(wrap(text, width, rest="  ")) + "\n"


def preview_block(question: SharedQuestion, number: int, style: Style) -> str:
    option = question.options[number - 1]
    if not option.preview:
        missing = f"Option {number} ({visible(option.label)}) has no preview."
        return "\n".join(wrap(missing, style.width, rest="  ")) + "\n"
    title = wrap(f"--- preview of {number}. {visible(option.label)} ---", style.width, rest="  ")
    # each line wraps under its own indent, going on after the mark the permission prompts
    # use (which the preview itself cannot write: it is escaped), so code keeps its shape
    # and a wrap is never taken for a line of the preview
    shown = visible(option.preview, multiline=True).replace(CONTINUED[0], "\\u21aa")
    body = wrap(shown, style.width, hang=CONTINUED)
    end = style.dim("--- end of preview ---")
    return "\n".join([*(style.dim(row) for row in title), *body, end]) + "\n"


QUESTION_HELP = (
    ("N", "choose option N, also written N. ({other} is Other: then type your own answer)"),
    ("LABEL", "an option's label, typed whole, chooses it too"),
    ("N,M N-M", "choose several options, in the order typed{multi}"),
    ("+N -N", "add or remove option N from the choice shown{multi}"),
    ("Enter", "take the choice shown in [brackets], if any"),
    (
        "A; B; C",
        "answer every question on one line, in order, then see the review: each part as "
        "above, empty for its default, Other as N=TEXT (a text with ; is typed at its "
        "own question)",
    ),
    ("Q:A Q:A", "the same by question number, e.g. 1:2 3:1,3"),
    ("p N", "show option N's preview"),
    ("n TEXT", "add notes to this question (n alone clears them)"),
    ("b back", "back to the previous question"),
    ("s skip", "skip: answer it later, from the review"),
    ("c chat", "chat about this: decline and tell the agent what to clarify (c TEXT at once)"),
    ("q quit", "decline to answer (asked to confirm once answers were given)"),
    ("? h help", "this help"),
)
# Claude Code's followUp and response, where the asker takes them (AskUserQuestion)
EXTRAS_HELP = (
    ("m [TEXT]", "ask me more first: the agent asks further questions before it starts"),
    ("r [TEXT]", "reply in your own words instead of answering"),
)
HELP_FOOTER = (
    "A label that is also a word above (b, q, ...) is the word: type its number. "
    "At the Other and chat prompts, an empty line or b goes back."
)

REVIEW_HELP = (
    ("Enter y", "submit these answers (yes too); while a question has no answer, Enter goes to it"),
    ("n no", "do not submit yet (then a number, b or q)"),
    ("N", "change the answer to question N"),
    ("b back", "back to the last question"),
    ("c chat", "chat about this: decline and tell the agent what to clarify"),
    ("q quit", "decline to answer (asked to confirm once answers were given)"),
    ("? h help", "this help"),
)


def help_text(state: AnswerState, width: int = 80) -> str:
    """Every answer word of the current screen, wrapped to ``width`` with hanging indents."""
    entries: tuple[tuple[str, str], ...] = REVIEW_HELP
    footer = ""
    extras = EXTRAS_HELP if state.extras else ()
    if state.mode is not Mode.REVIEW:
        multi = "" if state.current.multi else " (not for this question)"
        entries = tuple(
            (key, text.format(other=state.current.other, multi=multi))
            for key, text in QUESTION_HELP
        )
        footer = HELP_FOOTER
    lines: list[str] = []
    for key, text in entries[:-1] + extras + entries[-1:]:
        prefix = f"  {key:<8} "
        lines += wrap(text, width, first=prefix, rest=" " * len(prefix))
    if footer:
        lines += wrap(footer, width, first="  ")
    return "\n".join(lines) + "\n"


def refusal(reason: str, style: Style) -> str:
    """``! reason``, wrapped to the width under a hanging indent."""
    lines = wrap(f"! {reason}", style.width, rest="  ")
    return "\n".join(style.warn(line) for line in lines) + "\n"


def notes_saved(notes: Mapping[int, str], index: int) -> str:
    return "Notes saved.\n" if index in notes else "Notes cleared.\n"


def tool_line(name: str, tool_input: Any) -> str:
    """One line for a tool use: ``Bash: npm test``, ``Edit: src/app.py``."""
    data = tool_input if isinstance(tool_input, dict) else {}
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "query"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{name}: {value}"
    for key in ("subject", "description", "prompt", "skill"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{name}: {value}"
    if name == "TaskUpdate" and isinstance(data.get("taskId"), str | int):
        status = data.get("status")
        status = status if isinstance(status, str) else ""
        return f"{name}: #{data['taskId']} {status}".rstrip()
    return name
