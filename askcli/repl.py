"""The AskUserQuestion conversation: screens out, answer lines in, until a decision.

:func:`ask_questions` takes its streams in a :class:`Conversation`, so it runs the same
on a terminal, a pipe or ``io.StringIO``. It never decides results; it returns the final
state and how the conversation ended.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TextIO

from . import screens
from .answers import Help, Notes, Preview, parse_question_line, parse_review_line
from .errors import AnswerTimeout, Refused
from .lines import LineReader
from .rendering import Style, visible
from .schema import AskUserQuestionInput
from .state import Action, Mode, State, Text, reduce, specs, start


@dataclass
class Conversation:
    """Where answer lines come from and where the screens go.

    ``calls_follow`` is set when the answers share a stream with the calls: there a line
    beginning with ``{`` where an answer is expected means this call's answers ran out and
    the next call begins.
    """

    reader: LineReader
    out: TextIO
    style: Style = field(default_factory=Style)
    timeout: float | None = None
    calls_follow: bool = False

    def say(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def error(self, message: str) -> None:
        """One ``askcli: ...`` line; the message may quote the model, so it is escaped."""
        self.say(f"askcli: {visible(message)}\n")


class Ending(enum.Enum):
    DONE = "done"  # the state reached a decision: submitted, declined or clarify
    ENDED = "ended"  # the answer stream ended first
    TIMEOUT = "timeout"  # no line within the timeout
    INTERRUPTED = "interrupted"  # Ctrl-C


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
            conv.say(screens.prompt(state))
            line = conv.reader.readline(conv.timeout)
            if line is None:
                conv.say("\n")
                return Conclusion(state, Ending.ENDED)
            awaiting_command = state.mode in (Mode.QUESTION, Mode.REVIEW)
            if conv.calls_follow and awaiting_command and line.lstrip().startswith("{"):
                conv.reader.unread(line)
                conv.say("\n")
                return Conclusion(state, Ending.ENDED)
            if not conv.reader.interactive:
                conv.say(visible(line) + "\n")
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
