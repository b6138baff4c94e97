"""The AskUserQuestion REPL: screens out, answer lines in, until a decision.

:func:`ask_questions` takes its streams in a :class:`~askcli.terminal.conversation.Conversation`,
so it runs the same on a terminal, a pipe or ``io.StringIO``. It never decides results; it
returns the final state and how the conversation ended.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import AnswerTimeout, Refused
from ..escaping import first_control
from ..questions.answers import (
    Help,
    Notes,
    NotSubmitted,
    OneLine,
    Preview,
    Skip,
    parse_confirm,
    parse_question_line,
    parse_review_line,
    parse_typed_line,
)
from ..questions.outcome import Outcome
from ..questions.state import Action, AnswerState, Conclusion, Mode, Text, reduce, specs, start
from ..schema.shapes import AskInput
from ..terminal import editing, paging, screens, signals
from ..terminal.conversation import Conversation
from ..terminal.rendering import Style

if TYPE_CHECKING:
    from .journal import Journal


def journal_for(conv: Conversation, call_id: str | None) -> Journal | None:
    """Where a call's answers are kept as they are given, if anywhere: ``--journal``,
    else a file per call when a person answers at a terminal."""
    if call_id is None:
        return None
    options = conv.options
    if options.journal_file is not None:
        from .journal import Journal

        return Journal(options.journal_file)
    if options.journal_dir is None or not conv.reader.interactive:
        return None  # the usual call from a pipe: no journal, and nothing to import for one
    from .journal import Journal, journal_name  # hashlib: only when journaling

    return Journal(options.journal_dir / f"{journal_name(call_id)}.jsonl")


def converse(call_id: str | None, raw: object, data: AskInput, conv: Conversation) -> Conclusion:
    """Ask the questions of one call, with its journal when there is one: each answer line
    is kept as it is given, and a call interrupted before (not declined with Ctrl-C) offers
    to resume where it stopped (at the review, if its answers were complete) or to start
    afresh; a finished or declined call's journal entries are dropped. ``raw`` is the
    call's input as sent (its digest tells whether kept lines are about the same call)."""
    journal = journal_for(conv, call_id)
    if journal is None or call_id is None or any(q.secret for q in data.questions):
        return ask_questions(data, conv)  # a secret answer is never written down
    from .journal import input_digest

    digest = input_digest(raw)
    kept = journal.lines(call_id, digest)
    for note in journal.notes:  # a journal that cannot be used: said before asking
        conv.error(note)
    journal.notes.clear()
    key = call_id
    conclusion = ask_questions(
        data,
        conv,
        resume=kept,
        keep=lambda line: journal.record(key, digest, line),
        drop=lambda: journal.finish(key),  # "Resume? n": the kept lines are done with
    )
    # the person decided (Ctrl-C is a decline): nothing to resume. SIGHUP, SIGTERM, the end
    # of the answers or a timeout keep the lines for the next time the call is asked
    decided = conclusion.outcome.decided
    if decided and conv.options.settle is not None:
        conv.options.settle.append(lambda: journal.finish(key))  # once it was delivered
    elif decided or conclusion.outcome is Outcome.INTERRUPTED:
        journal.finish(key)
    for note in journal.notes:
        conv.error(note)
    return conclusion


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
    notes = None
    if data.annotations:
        notes = {q: a["notes"] for q, a in data.annotations.items() if "notes" in a}
    fresh = start(specs(data), data.answers, notes, review=data.review, extras=data.extras)
    state = replay(data, fresh, resume) if resume else fresh
    shown: tuple[Mode, int] | None = None
    secrets = True in [q.secret for q in data.questions]
    quiet = conv.options.quiet  # nobody sees the screens: none is drawn
    if data.title and not quiet:
        conv.say(screens.title_block(data.title, conv.style))
    try:
        kept: Mapping[str, str] = {}  # answers resumed: a one-line answer says what it replaced
        if state is not fresh and state != fresh:
            conv.say(screens.resumed(data, state, conv.style))
            going_on = _ask_resume(conv)
            if going_on is None:
                return Conclusion(state, Outcome.ENDED)
            if not going_on:
                state = fresh
                drop()
            else:
                kept = state.answers
        while state.outcome is None:
            if not quiet:  # screens nobody sees are not made
                view = (Mode.REVIEW if state.mode is Mode.REVIEW else Mode.QUESTION, state.at)
                if view != shown and state.mode in (Mode.QUESTION, Mode.REVIEW):
                    # a screen is written whole, never paged: a paging key could be taken for
                    # an answer, or an answer for a paging key (the terminal has scrollback)
                    keys = (
                        not conv.keys_shown and state.mode is Mode.QUESTION and not _typing(state)
                    )
                    conv.say(_screen(data, state, conv.style, keys=keys))
                    conv.keys_shown = conv.keys_shown or keys
                    shown = view
            # at a secret question every line is read unechoed: its answer, Other's text
            # and its notes (n TEXT) may each be the secret
            secret = (
                secrets
                and state.mode in (Mode.QUESTION, Mode.OTHER_TEXT)
                and data.questions[state.at].secret
            )
            line = conv.read_answer(
                "" if quiet else screens.prompt(state, conv.style.width, secret=secret),
                command=state.mode in (Mode.QUESTION, Mode.REVIEW),
                secret=secret,
                history=editing.TEXT if _typing(state) else editing.CHOICE,
            )
            if line is None:
                return Conclusion(state, Outcome.ENDED)
            try:
                meaning = interpret(data, state, line)
            except Refused as refused:
                conv.say(screens.refusal(str(refused), conv.style))
                continue
            if isinstance(meaning, Help):
                paging.page(conv, screens.help_text(state, conv.style.width))
            elif isinstance(meaning, NotSubmitted):
                conv.say(screens.not_submitted(len(data.questions), conv.style))
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
                said = (
                    _what_changed(meaning, before, state, kept, conv.style)
                    if isinstance(meaning, (Notes, Skip, OneLine))
                    else ""
                )
                if said:
                    conv.say(said)
    except AnswerTimeout:
        conv.say("\n")
        return Conclusion(state, Outcome.TIMED_OUT)
    except KeyboardInterrupt:
        conv.say("\n")
        return Conclusion(state, signals.interruption())
    return Conclusion(state, state.outcome)


def _what_changed(
    meaning: Action,
    before: AnswerState,
    after: AnswerState,
    kept: Mapping[str, str],
    style: Style,
) -> str:
    """What is said after a line moved the state on: notes saved, a question skipped, the
    answers resumed from before that a one-line answer replaced (never silently)."""
    if isinstance(meaning, Notes):
        return screens.notes_saved(after.notes, after.at)
    if isinstance(meaning, Skip):
        return screens.skipped(before.at, style.width)
    if not isinstance(meaning, OneLine) or not kept:
        return ""
    replaced = [
        (i, kept[q.text])
        for i, q in enumerate(before.questions)
        if q.text in kept
        and before.answers.get(q.text) == kept[q.text]  # still the resumed answer
        and after.answers.get(q.text) != kept[q.text]
    ]
    return screens.replaced(replaced, style) if replaced else ""


def _typing(state: AnswerState) -> bool:
    """The prompt takes a text of the person's (its Up recalls earlier texts, not choices)."""
    if state.mode in (Mode.OTHER_TEXT, Mode.CLARIFY_TEXT, Mode.RESPOND_TEXT):
        return True
    return state.mode is Mode.QUESTION and state.current.typed


def interpret(
    data: AskInput, state: AnswerState, line: str
) -> Action | Help | Preview | NotSubmitted:
    """What one line means in ``state``: an action for the state machine, or something to
    show (help, a preview, what else to type at the review). Refused when it means nothing
    usable."""
    if state.mode in (Mode.OTHER_TEXT, Mode.CLARIFY_TEXT, Mode.RESPOND_TEXT):
        return Text(line)
    if state.mode is Mode.CONFIRM_DECLINE:
        return parse_confirm(line, default=False)
    if state.mode is Mode.REVIEW:
        return parse_review_line(line, count=len(data.questions), extras=state.extras)
    question = state.current
    if question.rule is not None:  # a typed answer
        typed = parse_typed_line(line, extras=state.extras)
        return Text(typed) if isinstance(typed, str) else typed
    return parse_question_line(
        line,
        count=len(question.labels) + question.has_other,
        multi=question.multi,
        labels=question.labels,
        other=question.has_other,
        yesno=question.yesno,
        extras=state.extras,
        previews=[n for n, preview in enumerate(question.previews, start=1) if preview],
    )


def _ask_resume(conv: Conversation) -> bool | None:
    """``Resume? [Y/n]``: True to go on with the kept answers, False to start afresh,
    None when the answers ended."""
    while True:
        line = conv.read_answer("" if conv.options.quiet else screens.RESUME_PROMPT)
        if line is None:
            return None
        try:
            return parse_confirm(line, default=True).yes
        except Refused as refused:
            conv.say(screens.refusal(str(refused), conv.style))


def replay(data: AskInput, state: AnswerState, lines: Sequence[str]) -> AnswerState:
    """``state`` after ``lines``, shown nothing; a line that no longer fits is skipped.

    Kept lines never end the call: where one would submit it, the person gets the review
    instead, so a resumed call is always shown before it is submitted; a kept decline is
    dropped and the person decides again. A kept line that a person could not type now
    (a control character, :func:`~askcli.terminal.conversation.control_refusal`) is
    skipped."""
    for line in lines:
        if first_control(line) is not None:
            continue
        try:
            meaning = interpret(data, state, line)
            if isinstance(meaning, Help | Preview | NotSubmitted):
                continue
            after = reduce(state, meaning)
        except Refused:
            continue
        if after.outcome is Outcome.ANSWERED:
            review = len(state.questions)
            return after._replace(at=review, mode=Mode.REVIEW, outcome=None, reviewing=False)
        if after.outcome is not None:  # a decline: the person decides again
            return state
        if after.mode is not Mode.CONFIRM_DECLINE:
            state = after
    return state


def _screen(data: AskInput, state: AnswerState, style: Style, *, keys: bool = False) -> str:
    if state.mode is Mode.REVIEW:
        return screens.review_block(data, state, style)
    question = data.questions[state.at]
    text = screens.question_block(question, state.at, len(data.questions), style, keys=keys)
    if state.at in state.selections or (question.typed and question.question in state.answers):
        text += screens.current_answer(state, style, question.secret)
    else:
        if state.at in state.suggested:
            text += screens.suggested_answer(state, style, data.asker)
        if state.at in state.notes:
            text += screens.notes_line(state, style, question.secret)
    return text
