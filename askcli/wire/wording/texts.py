"""AskUserQuestion's result texts as the current Claude Code release words them.

``--wording claude-code`` (or ``ASKCLI_WORDING``) gives these texts of Claude Code 2.1.332,
taken from its ``mapToolResultToToolResultBlockParam`` and its terminal dialog and checked
against the real binary (:class:`ClaudeCodeToday`); ``claude-code-2.1.88``, the default,
keeps Claude Code 2.1.88's texts (:mod:`askcli.wire.results`). The cases, in Claude Code's
order of precedence: idle (askcli's ``--timeout``), the person asked for more questions
(``followUp``), free text typed instead of choosing (``response``), answers (clean when
every answer is an option's label, else the careful form), nothing answered. Pure
functions, questions and answers in, text out, and the wording object that uses them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from ...schema.shapes import SharedQuestion
from ..results import REJECT_WITH_WORDS_PREFIX

VERSION = "2.1.332"  # the Claude Code release these texts are taken from
TOOL = "AskUserQuestion"
NOTES_ONLY = "(notes only)"  # an answer that stands for none (Claude Code's own marker)
MORE = "The user asked for more questions"
UNANSWERED_CAPABILITY = "ask_user_question_unanswered_v1"
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def join_labels(labels: Sequence[str]) -> str:
    """A multi-select answer as Claude Code joins it: ``", "`` between the labels, a label
    that holds ``", "`` or ``"`` written as a JSON string."""
    return ", ".join(
        json.dumps(label, ensure_ascii=False) if ", " in label or '"' in label else label
        for label in labels
    )


def split_labels(text: str) -> list[str] | None:
    """The labels of a joined answer (the inverse of :func:`join_labels`); None when the
    text is not such a list."""
    out: list[str] = []
    rest = text
    while True:
        if rest.startswith('"'):
            end, escaped = -1, False
            for i in range(1, len(rest)):
                ch = rest[i]
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    end = i
                    break
            if end == -1:
                return None
            try:
                item = json.loads(rest[: end + 1])
            except ValueError:
                return None
            if not isinstance(item, str):
                return None
            out.append(item)
            rest = rest[end + 1 :]
        else:
            cut = rest.find(", ")
            piece = rest if cut == -1 else rest[:cut]
            if '"' in piece:
                return None
            out.append(piece)
            rest = "" if cut == -1 else rest[cut:]
        if rest == "":
            return out
        if not rest.startswith(", "):
            return None
        rest = rest[2:]
        if rest == "":
            return None


def _answered(answer: str | None) -> bool:
    return bool(answer) and answer != NOTES_ONLY


def answer_list(
    questions: Sequence[SharedQuestion],
    answers: Mapping[str, str],
    annotations: Mapping[str, Mapping[str, str]],
) -> str:
    """The answers as Claude Code lists them, in the order of the questions: ``"Q"="A"``
    (or ``"Q"=(no option selected)`` for notes alone), then the chosen preview and the
    notes; nothing is escaped."""
    parts = []
    for question in questions:
        text = question.question
        answer = answers.get(text)
        note = annotations.get(text, {})
        if not _answered(answer) and not note.get("notes"):
            continue
        piece = [f'"{text}"="{answer}"' if _answered(answer) else f'"{text}"=(no option selected)']
        if note.get("preview"):
            piece.append(f"selected preview:\n{note['preview']}")
        if note.get("notes"):
            piece.append(f"notes: {note['notes']}")
        parts.append(" ".join(piece))
    return ", ".join(parts)


def _clean(
    question: SharedQuestion,
    answers: Mapping[str, str],
    annotations: Mapping[str, Mapping[str, str]],
) -> bool:
    """Claude Code's check that an answer needs no careful reading: an option's label (or
    labels), a number within bounds, or no answer; never text, never notes."""
    if annotations.get(question.question, {}).get("notes"):
        return False
    answer = answers.get(question.question)
    if question.kind in ("text", "number"):
        if not answer:
            return True
        if question.kind == "text":
            return False
        value = answer.strip()
        if not _PLAIN_NUMBER.fullmatch(value) or not math.isfinite(float(value)):
            return False
        rule = question.rule
        low = rule.minimum if rule is not None else None
        high = rule.maximum if rule is not None else None
        return (low is None or float(value) >= low) and (high is None or float(value) <= high)
    labels = {option.label for option in question.options}
    if not answer or answer == NOTES_ONLY or answer in labels:
        return True
    if not question.multiSelect:
        return False
    split = split_labels(answer)
    if not split:
        return False
    return join_labels(split) == answer and all(s in labels for s in split)


def answered_text(
    questions: Sequence[SharedQuestion],
    answers: Mapping[str, str],
    annotations: Mapping[str, Mapping[str, str]],
) -> str:
    """The result of submitted answers (Claude Code's three forms)."""
    listed = answer_list(questions, answers, annotations)
    if not listed:
        return "The user did not answer the questions."
    if all(_clean(q, answers, annotations) for q in questions):
        return (
            f"Your questions have been answered: {listed}. "
            "You can now continue with these answers in mind."
        )
    return (
        f"The user answered: {listed}. Read the answers carefully \u2014 they may request "
        "clarification, changes, or that you not proceed \u2014 and follow what they actually say."
    )


def responded_text(response: str) -> str:
    """Free text typed instead of choosing (``response``); the answers are not listed."""
    return f"The user responded: {response}"


def follow_up_text(listed: str, response: str | None = None) -> str:
    """The person asked for more questions before the agent goes on (``followUp``)."""
    wrote = f' They also wrote: "{response}".' if response and response.strip() else ""
    if listed:
        return (
            f"{MORE} before you proceed. So far they answered: {listed}.{wrote} Call {TOOL} "
            "again with follow-up questions that build on these answers (do not repeat these); "
            "do not start the task yet."
        )
    return (
        f"{MORE} before answering.{wrote} Call {TOOL} again now with further questions about "
        "this decision (do not repeat these); do not proceed with the task yet."
    )


def idle_text(seconds: float, listed: str) -> str:
    """Nobody answered in time (askcli's ``--timeout``, Claude Code's idle timeout), with
    what was selected before."""
    shown = math.floor(seconds + 0.5)  # JavaScript's Math.round
    text = (
        f"No response after {shown}s \u2014 the user may be away from keyboard. Proceed using "
        "your best judgment based on the context so far; you can re-ask this question later if "
        "it's still relevant."
    )
    return f"{text}\n\nBefore going idle the user had selected: {listed}." if listed else text


def clarify_text(
    words: str,
    questions: Sequence[str],
    answers: Mapping[str, str],
    notes: Mapping[str, str],
) -> str:
    """ "Chat about this": Claude Code's text for the dialog's chat row. Claude Code then
    sends the person's words as their next message; askcli, which answers the call alone,
    puts them last, after a blank line."""
    lines = []
    for question in questions:
        answer = answers.get(question)
        lines.append(f'- "{question}"')
        lines.append(f"  Answer: {answer}" if answer else "  (No answer provided)")
        if notes.get(question):
            lines.append(f"  User notes: {notes[question]}")
    feedback = (
        "The user wants to clarify these questions.\n"
        "    This means they may have additional information, context or questions for you.\n"
        "    Take their response into account and then reformulate the questions if "
        "appropriate.\n"
        "    Start by asking them what they would like to clarify.\n"
        "\n"
        "    Questions asked:\n" + "\n".join(lines)
    )
    said = f"\n\n{words}" if words.strip() else ""
    return REJECT_WITH_WORDS_PREFIX + feedback + said


STEER = (
    "This call included a question with fewer than 2 options, so it was rejected and the "
    "person never saw it. A question with a single option has no decision in it. Do not retry "
    "this call and do not invent a filler second option. Instead, state the one path you were "
    "going to offer as the approach you are taking, then continue with the task. If this call "
    "also contained questions with 2 to 4 options (each with distinct labels), you may re-ask "
    "those questions alone in a new call. Ask a question only when the person has at least two "
    "genuinely distinct choices."
)
EXTENDED_STEER = (
    "This call included a choice question with fewer than 2 options, so it was rejected and the "
    'person never saw it. If that question is open-ended, re-ask it with "kind": "text" and no '
    "options; if there is really only one path, state it as the approach you are taking and "
    "continue with the task. Do not invent a filler second option."
)


def steer(raw: object) -> str | None:
    """Claude Code's advice to the model for a call it refused because a (choice) question
    had fewer than two options, if that is what happened."""
    from ...schema.extended_questions import is_extended

    questions = raw.get("questions") if isinstance(raw, dict) else None
    if not isinstance(questions, list):
        return None
    extended = is_extended(raw)
    for question in questions[:256]:
        if not isinstance(question, dict):
            continue
        if extended and question.get("kind") in ("text", "number"):
            continue
        options = question.get("options")
        if isinstance(options, list) and len(options) < 2:
            return EXTENDED_STEER if extended else STEER
    return None
