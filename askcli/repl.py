"""The AskUserQuestion REPL: screens out, answer lines in, until a decision.

:func:`ask_questions` takes its streams in a :class:`~askcli.conversation.Conversation`,
so it runs the same on a terminal, a pipe or ``io.StringIO``. It never decides results; it
returns the final state and how the conversation ended.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import screens
from .answers import Help, Notes, Preview, parse_question_line, parse_review_line
from .conversation import Conversation, Ending
from .errors import AnswerTimeout, Refused
from .rendering import Style
from .schema import AskUserQuestionInput
from .state import Action, Mode, State, Text, reduce, specs, start


@dataclass(frozen=True)
class Conclusion:
    state: State
    ending: Ending


def ask_questions(data: AskUserQuestionInput, conv: Conversation) -> Conclusion:
    """Ask the questions of ``data`` not answered in it; return where things stood."""
    state = start(specs(data), data.answers)
    shown: tuple[Mode, int] | None = None
    try:
        while state.mode is not Mode.DONE:
            view = (Mode.REVIEW if state.mode is Mode.REVIEW else Mode.QUESTION, state.index)
            if view != shown and state.mode in (Mode.QUESTION, Mode.REVIEW):
                conv.say(_screen(data, state, conv.style))
                shown = view
            line = conv.read_answer(
                screens.prompt(state), command=state.mode in (Mode.QUESTION, Mode.REVIEW)
            )
            if line is None:
                return Conclusion(state, Ending.ENDED)
            try:
                state = _step(data, state, line, conv)
            except Refused as refused:
                conv.say(screens.refusal(str(refused), conv.style))
    except AnswerTimeout:
        conv.say("\n")
        return Conclusion(state, Ending.TIMEOUT)
    except KeyboardInterrupt:
        conv.say("\n")
        return Conclusion(state, Ending.INTERRUPTED)
    return Conclusion(state, Ending.DONE)


def _screen(data: AskUserQuestionInput, state: State, style: Style) -> str:
    if state.mode is Mode.REVIEW:
        return screens.review_block(data, state, style)
    text = screens.question_block(
        data.questions[state.index], state.index, len(data.questions), style
    )
    if state.index in state.selections:
        text += screens.current_answer(state, style)
    return text


def _step(data: AskUserQuestionInput, state: State, line: str, conv: Conversation) -> State:
    """One line in: show something, or move the state on."""
    action: Action
    if state.mode in (Mode.OTHER_TEXT, Mode.CLARIFY_TEXT):
        return reduce(state, Text(line))
    if state.mode is Mode.REVIEW:
        review = parse_review_line(line, count=len(data.questions))
        if isinstance(review, Help):
            conv.say(screens.help_text(state))
            return state
        return reduce(state, review)
    command = parse_question_line(line, count=state.current.other, multi=state.current.multi)
    if isinstance(command, Help):
        conv.say(screens.help_text(state))
        return state
    if isinstance(command, Preview):
        conv.say(screens.preview_block(data.questions[state.index], command.number, conv.style))
        return state
    action = command
    state = reduce(state, action)
    if isinstance(command, Notes):
        conv.say(screens.notes_saved(state.notes, state.index))
    return state
