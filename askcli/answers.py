"""The answer-line grammar: what one typed line means at a question or the review.

Parsing is pure: a line and the shape of the question in, a command out, or
:class:`~askcli.errors.Refused` with a one-line reason. Full-width digits and letters,
the full-width comma ``，`` and the ideographic comma ``、`` are read as their ASCII
forms; free text (Other, notes, clarifications) is kept as typed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from .errors import Refused
from .records import same_kind


@same_kind
class Pick(NamedTuple):
    """Option numbers, 1-based, in the order typed; ``len(options) + 1`` is Other."""

    numbers: tuple[int, ...]


@same_kind
class Default(NamedTuple):
    """An empty line: take what the prompt shows in brackets."""


@same_kind
class Preview(NamedTuple):
    number: int


@same_kind
class Notes(NamedTuple):
    text: str


@same_kind
class Back(NamedTuple):
    """Back to the previous question."""


@same_kind
class Skip(NamedTuple):
    """Leave this question for later; the review screen shows it unanswered."""


@same_kind
class Decline(NamedTuple):
    """Decline the call."""


@same_kind
class Clarify(NamedTuple):
    """Chat about this; ``text`` when typed on the same line (``c TEXT``)."""

    text: str | None = None


@same_kind
class Help(NamedTuple):
    """Show the help."""


@same_kind
class Submit(NamedTuple):
    """Submit the answers (the review screen)."""


@same_kind
class Reopen(NamedTuple):
    """Reopen question ``number`` (1-based) from the review screen."""

    number: int


QuestionCommand = Pick | Default | Preview | Notes | Back | Skip | Decline | Clarify | Help
ReviewCommand = Submit | Reopen | Back | Decline | Clarify | Help

_WORDS: dict[str, Back | Skip | Decline | Clarify | Help] = {
    "b": Back(),
    "back": Back(),
    "s": Skip(),
    "skip": Skip(),
    "q": Decline(),
    "quit": Decline(),
    "c": Clarify(),
    "chat": Clarify(),
    "?": Help(),
    "h": Help(),
    "help": Help(),
}
_ITEM = re.compile(r"([0-9]+)(?:-([0-9]*))?")
_NUMBER_LINE = re.compile(r"[0-9,\-\s]+")
_MAX_DIGITS = 6


def _number(digits: str) -> int:
    """The value of ASCII ``digits``; anything longer than six digits is out of range anyway."""
    return int(digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS


def _shown(n: int) -> str:
    return str(n) if n < 10**_MAX_DIGITS else "that large"


def normalize(line: str) -> str:
    """NFKC (full-width forms to ASCII), both CJK commas to ``,``, outer spaces and a
    byte-order mark (an answers file written by Windows tools) trimmed."""
    text = unicodedata.normalize("NFKC", line).replace("、", ",")
    return text.strip().lstrip("\ufeff").strip()


def _text_after_command(line: str) -> str | None:
    """For ``n TEXT`` / ``c TEXT``: the text after the one-letter command, else None."""
    stripped = line.strip()
    if len(stripped) < 2 or not stripped[1].isspace():
        return None
    return stripped[2:].strip()


def parse_numbers(text: str, *, count: int, multi: bool) -> tuple[int, ...]:
    """Parse ``N``, ``N,M``, ``N M`` or ``N-M`` (already normalized) for ``count`` choices."""
    if text.isascii() and text.isdigit() and len(text) <= _MAX_DIGITS:  # the usual answer
        number = int(text)
        if 1 <= number <= count:
            return (number,)
    spaced = re.sub(r"\s*-\s*", "-", text)
    chunks = [c.strip() for c in spaced.split(",")]
    if any(not c for c in chunks):
        raise Refused("the list has an empty item; separate numbers with one comma, e.g. 1,3")
    items = [item for chunk in chunks for item in chunk.split()]
    numbers: list[int] = []
    for item in items:
        match = _ITEM.fullmatch(item)
        if not match:
            raise Refused(f"{item!r} is not an option number; choose from 1-{count}")
        low = _number(match.group(1))
        if match.group(2) is None:
            picked = [low]
        elif match.group(2) == "":
            raise Refused(f"the range {item!r} has no end; write it as N-M, e.g. 1-{count}")
        else:
            high = _number(match.group(2))
            if low > high:
                raise Refused(f"a range goes from low to high: write {high}-{low}, not {item}")
            # out-of-range ends are refused below without building a huge range
            picked = list(range(low, high + 1)) if low >= 1 and high <= count else [low, high]
        for n in picked:
            if not 1 <= n <= count:
                raise Refused(f"there is no option {_shown(n)}; choose from 1-{count}")
            if n not in numbers:
                numbers.append(n)
    if not numbers:
        raise Refused(f"type an option number from 1-{count}")
    if len(numbers) > 1 and not multi:
        raise Refused("this question takes one answer; type a single number")
    return tuple(numbers)


def parse_question_line(line: str, *, count: int, multi: bool) -> QuestionCommand:
    """Read one line typed at a question with ``count`` choices (Other included)."""
    text = normalize(line)
    if not text:
        return Default()
    word = text.lower()
    if word in _WORDS:
        return _WORDS[word]
    head = word[0]
    if head == "n" and (word == "n" or word[1].isspace()):
        notes = _text_after_command(line)
        return Notes(notes if notes is not None else "")
    if head == "c" and word[1:2].isspace():
        return Clarify(_text_after_command(line) or None)
    if head == "p" and (word == "p" or word[1].isspace() or word[1].isdigit()):
        target = word[1:].strip()
        if not re.fullmatch("[0-9]+", target):
            raise Refused(f"say which option to preview: p N, with N from 1-{count - 1}")
        number = _number(target)
        if not 1 <= number < count:
            raise Refused(
                f"there is no option {_shown(number)} to preview; choose from 1-{count - 1}"
            )
        return Preview(number)
    if text.startswith("{"):
        raise Refused(f"that looks like JSON, not an answer; type an option number from 1-{count}")
    if not _NUMBER_LINE.fullmatch(text):
        raise Refused(f"type an option number from 1-{count}, or ? for help")
    return Pick(parse_numbers(text, count=count, multi=multi))


def parse_review_line(line: str, *, count: int) -> ReviewCommand:
    """Read one line typed at the review screen of ``count`` questions."""
    text = normalize(line)
    word = text.lower()
    if word in ("", "y", "yes"):
        return Submit()
    command = _WORDS.get(word)
    if command is not None and not isinstance(command, Skip):
        return command
    if word[0] == "c" and word[1:2].isspace():
        return Clarify(_text_after_command(line) or None)
    if re.fullmatch("[0-9]+", text):
        number = _number(text)
        if 1 <= number <= count:
            return Reopen(number)
        raise Refused(f"there is no question {_shown(number)}; type 1-{count} to change an answer")
    raise Refused(f"press Enter or y to submit, 1-{count} to change an answer, q to decline")
