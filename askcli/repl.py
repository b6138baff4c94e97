"""The AskUserQuestion REPL: screens out, answer lines in, until a decision.

:func:`ask_questions` takes its streams in a :class:`~askcli.conversation.Conversation`,
so it runs the same on a terminal, a pipe or ``io.StringIO``. It never decides results; it
returns the final state and how the conversation ended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from . import screens
from .answers import (
    Help,
    Notes,
    Preview,
    Skip,
    parse_confirm,
    parse_question_line,
    parse_review_line,
)
from .conversation import Conversation, Ending
from .errors import AnswerTimeout, Refused
from .inputs import AskInput
from .rendering import Style
from .state import Action, Mode, Outcome, State, Text, reduce, specs, start


class Conclusion(NamedTuple):
    state: State
    ending: Ending


def ask_questions(
    data: AskInput,
    conv: Conversation,
    *,
    resume: Sequence[str] = (),
    keep: Callable[[str], None] = lambda _: None,
    drop: Callable[[], None] = lambda: None,
) -> Conclusion:
    """Ask the questions of ``data`` not answered in it; return where things stood.

    ``resume`` are answer lines kept from an interrupted conversation about the same call:
    what they give is shown and ``Resume? [Y/n]`` asked; ``n`` starts afresh and calls
    ``drop`` (the kept lines are forgotten). ``keep`` gets every line that moved the state
    on, except those of a decline's confirmation.
    """
    notes = {q: a["notes"] for q, a in (data.annotations or {}).items() if "notes" in a}
    fresh = start(specs(data), data.answers, notes)
    state = replay(data, fresh, resume)
    shown: tuple[Mode, int] | None = None
    try:
        if state != fresh:
            conv.say(screens.resumed(data, state, conv.style))
            going_on = _ask_resume(conv)
            if going_on is None:
                return Conclusion(state, Ending.ENDED)
            if not going_on:
                state = fresh
                drop()
        while state.mode is not Mode.DONE:
            view = (Mode.REVIEW if state.mode is Mode.REVIEW else Mode.QUESTION, state.at)
            if view != shown and state.mode in (Mode.QUESTION, Mode.REVIEW) and not conv.quiet:
                # a screen is written whole, never paged: a paging key could be taken for
                # an answer, or an answer for a paging key (the terminal has scrollback)
                conv.say(_screen(data, state, conv.style))
                shown = view
            line = conv.read_answer(
                "" if conv.quiet else screens.prompt(state, conv.style.width),
                command=state.mode in (Mode.QUESTION, Mode.REVIEW),
            )
            if line is None:
                return Conclusion(state, Ending.ENDED)
            try:
                meaning = interpret(data, state, line)
            except Refused as refused:
                conv.say(screens.refusal(str(refused), conv.style))
                continue
            if isinstance(meaning, Help):
                conv.say(screens.help_text(state, conv.style.width))
            elif isinstance(meaning, Preview):
                question = data.questions[state.at]
                conv.say(screens.preview_block(question, meaning.number, conv.style))
            else:
                before = state
                try:
                    state = reduce(state, meaning)
                except Refused as refused:
                    conv.say(screens.refusal(str(refused), conv.style))
                    continue
                if Mode.CONFIRM_DECLINE not in (before.mode, state.mode):
                    keep(line)
                if isinstance(meaning, Notes):
                    conv.say(screens.notes_saved(state.notes, state.at))
                elif isinstance(meaning, Skip):
                    conv.say(screens.skipped(before.at))
    except AnswerTimeout:
        conv.say("\n")
        return Conclusion(state, Ending.TIMEOUT)
    except KeyboardInterrupt:
        conv.say("\n")
        return Conclusion(state, Ending.INTERRUPTED)
    return Conclusion(state, Ending.DONE)


def interpret(data: AskInput, state: State, line: str) -> Action | Help | Preview:
    """What one line means in ``state``: an action for the state machine, or something to
    show (help, a preview). Refused when it means nothing usable."""
    if state.mode in (Mode.OTHER_TEXT, Mode.CLARIFY_TEXT):
        return Text(line)
    if state.mode is Mode.CONFIRM_DECLINE:
        return parse_confirm(line, default=False)
    if state.mode is Mode.REVIEW:
        return parse_review_line(line, count=len(data.questions))
    question = state.current
    return parse_question_line(
        line, count=question.other, multi=question.multi, labels=question.labels
    )


def _ask_resume(conv: Conversation) -> bool | None:
    """``Resume? [Y/n]``: True to go on with the kept answers, False to start afresh,
    None when the answers ended."""
    while True:
        line = conv.read_answer("" if conv.quiet else screens.RESUME_PROMPT)
        if line is None:
            return None
        try:
            return parse_confirm(line, default=True).yes
        except Refused as refused:
            conv.say(screens.refusal(str(refused), conv.style))


def replay(data: AskInput, state: State, lines: Sequence[str]) -> State:
    """``state`` after ``lines``, shown nothing; a line that no longer fits is skipped.

    Kept lines never end the call: where one would submit it, the person gets the review
    instead, so a resumed call is always shown before it is submitted; a kept decline is
    dropped and the person decides again."""
    for line in lines:
        try:
            meaning = interpret(data, state, line)
            if isinstance(meaning, Help | Preview):
                continue
            after = reduce(state, meaning)
        except Refused:
            continue
        if after.mode is Mode.DONE and after.outcome is Outcome.SUBMITTED:
            review = len(state.questions)
            return after._replace(at=review, mode=Mode.REVIEW, outcome=None, reviewing=False)
        if after.mode is Mode.DONE:  # a decline: the person decides again
            return state
        if after.mode is not Mode.CONFIRM_DECLINE:
            state = after
    return state


def _screen(data: AskInput, state: State, style: Style) -> str:
    if state.mode is Mode.REVIEW:
        return screens.review_block(data, state, style)
    text = screens.question_block(data.questions[state.at], state.at, len(data.questions), style)
    if state.at in state.selections:
        text += screens.current_answer(state, style)
    else:
        if state.at in state.suggested:
            text += screens.suggested_answer(state, style)
        if state.at in state.notes:
            text += screens.notes_line(state, style)
    return text
