"""The answer-line grammar: what one typed line means at a question or the review.

Parsing is pure: a line and the shape of the question in, a command out, or
:class:`~askcli.errors.Refused` with a one-line reason. Full-width digits and letters,
the full-width comma ``，`` and the ideographic comma ``、`` are read as their ASCII
forms; free text (Other, notes, clarifications) is kept as typed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from ..errors import Refused
from ..records import same_kind


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
class FollowUp(NamedTuple):
    """``m``: ask me more before you start (Claude Code's ``followUp``); ``text`` when
    typed on the same line (``m TEXT``)."""

    text: str | None = None


@same_kind
class Respond(NamedTuple):
    """``r``: free text instead of choosing (Claude Code's ``response``); ``text`` when
    typed on the same line (``r TEXT``)."""

    text: str | None = None


@same_kind
class Help(NamedTuple):
    """Show the help."""


@same_kind
class Submit(NamedTuple):
    """Submit the answers (the review screen)."""


@same_kind
class NotSubmitted(NamedTuple):
    """``n`` / ``no`` at the review: nothing is submitted; the person is told what else to type."""


@same_kind
class Reopen(NamedTuple):
    """Reopen question ``number`` (1-based) from the review screen."""

    number: int


@same_kind
class Adjust(NamedTuple):
    """``+N`` / ``-N``: add or remove options of a multi-select answer, in the order typed."""

    changes: tuple[tuple[bool, int], ...]  # (add, number)


@same_kind
class OneLine(NamedTuple):
    """Answers to several questions on one line (``1,4; 4; 2`` or ``1:2 2:1,3``): the parts
    as typed, checked against their questions by the state machine."""

    parts: tuple[tuple[int, str], ...]  # (1-based question, the part's text)
    numbered: bool = False  # written as Q:A pairs


@same_kind
class Confirm(NamedTuple):
    """A yes or no typed at a ``[Y/n]`` / ``[y/N]`` prompt."""

    yes: bool


QuestionCommand = (
    Pick
    | Default
    | Preview
    | Notes
    | Back
    | Skip
    | Decline
    | Clarify
    | Help
    | Adjust
    | OneLine
    | FollowUp
    | Respond
)
ReviewCommand = (
    Submit | Default | NotSubmitted | Reopen | Back | Decline | Clarify | Help | FollowUp | Respond
)

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
_ADJUST = re.compile(r"(?:\s*[+-]\s*[0-9]+)+")
_PAIR = re.compile(r"\s*([0-9]+)\s*:(.*)", re.DOTALL)
_NEXT_PAIR = re.compile(r"\s+(?=[0-9]+\s*:)")
_DASH = re.compile(r"\s*-\s*")
_MAX_DIGITS = 6
_PLAIN_LIST = re.compile(rf"[0-9]{{1,{_MAX_DIGITS}}}(?:,[0-9]{{1,{_MAX_DIGITS}}})+")  # 1,3


def _number(digits: str) -> int:
    """The value of ASCII ``digits``; anything longer than six digits is out of range anyway."""
    return int(digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS


def _shown(n: int) -> str:
    return str(n) if n < 10**_MAX_DIGITS else "that large"


def normalize(line: str) -> str:
    """NFKC (full-width forms to ASCII), both CJK commas to ``,``, outer spaces and a
    byte-order mark (an answers file written by Windows tools) trimmed."""
    if line.isascii():  # the usual answer: NFKC leaves ASCII as it is
        return line.strip()
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
    elif multi and _PLAIN_LIST.fullmatch(text):  # and N,M,...: no range, no space
        listed = tuple(dict.fromkeys(map(int, text.split(","))))
        if min(listed) >= 1 and max(listed) <= count:
            return listed
    spaced = _DASH.sub("-", text) if "-" in text else text
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


def match_label(text: str, labels: Sequence[str], *, other: bool = True) -> int | None:
    """The number of the option whose label is ``text`` (already normalized): compared
    case-insensitively after NFKC, with or without a ``(Recommended)`` mark; ``Other``
    names Other when no option is called that (and Other is offered). Refused when two
    labels match."""
    wanted = text.casefold()
    found = []
    for n, label in enumerate(labels, start=1):
        name = normalize(label).casefold()
        bare = name.removesuffix("(recommended)").strip()
        if wanted in (name, bare):
            found.append(n)
    if len(found) > 1:
        raise Refused("that matches more than one option's label; type its number")
    if found:
        return found[0]
    if labels and other and wanted == "other":
        return len(labels) + 1
    return None


def _pick_text(
    text: str, *, count: int, multi: bool, labels: Sequence[str], other: bool = True
) -> tuple[int, ...]:
    """Numbers (``N``, ``N.``, lists and ranges) or an option's label: the options chosen."""
    if _NUMBER_LINE.fullmatch(text):
        return parse_numbers(text, count=count, multi=multi)
    if re.fullmatch(r"[0-9]+\.", text):
        return parse_numbers(text[:-1], count=count, multi=multi)
    number = match_label(text, labels, other=other)
    if number is not None:
        return (number,)
    raise Refused(f"type an option number from 1-{count}, or ? for help")


def parse_part(
    text: str,
    *,
    count: int,
    multi: bool,
    labels: Sequence[str] = (),
    other: bool = True,
    yesno: bool = False,
) -> tuple[tuple[int, ...] | None, str | None]:
    """One question's part of a one-line answer: the numbers chosen (None: the default)
    and Other's text (``N=TEXT``). Other without its text is refused. ``count`` counts
    Other when ``other`` (it is offered)."""
    text = text.strip()
    if not text:
        return None, None
    yes_no = _yes_no(text, labels) if yesno else None
    if yes_no is not None:
        return yes_no, None
    if not other:
        return _pick_text(text, count=count, multi=multi, labels=labels, other=False), None
    if "=" in text:
        left, right = text.split("=", 1)
        own = right.strip()
        if not own:
            raise Refused(f"the text after = is empty; write {count}=your answer")
        left = left.strip()
        numbers = _pick_text(left, count=count, multi=multi, labels=labels) if left else (count,)
        if count not in numbers:
            raise Refused(f"= gives Other's text; choose Other ({count}) with it: {count}=text")
        return numbers, own
    numbers = _pick_text(text, count=count, multi=multi, labels=labels)
    if count in numbers:
        raise Refused(
            f"Other ({count}) needs its text: write {count}=your answer, or answer it on its own"
        )
    return numbers, None


def split_one_line(text: str) -> OneLine | None:
    """``A; B; C`` (one part per question, in order; a final ``;`` may end the line) or
    ``Q:A Q:A`` (by question number; ``;`` may separate the pairs); None for other lines."""
    if ";" in text:
        chunks = text.split(";")
        if len(chunks) > 1 and not chunks[-1].strip():
            chunks.pop()
        pairs = [_PAIR.fullmatch(c) for c in chunks if c.strip()]
        if pairs and all(pairs):
            return OneLine(tuple([(_number(m.group(1)), m.group(2)) for m in pairs if m]), True)
        if any(pairs):
            raise Refused("write every part as Q:A (question:answer), or none of them")
        return OneLine(tuple([(i, c) for i, c in enumerate(chunks, start=1)]))
    if _PAIR.fullmatch(text):
        found = [_PAIR.fullmatch(piece) for piece in _NEXT_PAIR.split(text)]
        return OneLine(tuple([(_number(m.group(1)), m.group(2)) for m in found if m]), True)
    return None


def _yes_no(text: str, labels: Sequence[str]) -> tuple[int, ...] | None:
    """At a yes/no question (options ``Yes`` and ``No``): ``y``/``yes`` and ``n``/``no``."""
    if [normalize(label).casefold() for label in labels] != ["yes", "no"]:
        return None
    word = text.casefold()
    if word in ("y", "yes"):
        return (1,)
    if word in ("n", "no"):
        return (2,)
    return None


def _extra(line: str, word: str) -> FollowUp | Respond | None:
    """``m`` / ``m TEXT`` and ``r`` / ``r TEXT``, where the asker takes them."""
    if word[0] not in "mr" or not (len(word) == 1 or word[1].isspace()):
        return None
    text = _text_after_command(line) or None
    return FollowUp(text) if word[0] == "m" else Respond(text)


def parse_typed_line(line: str, *, extras: bool = False) -> QuestionCommand | str:
    """Read one line typed at a text or number question: the answer as typed, or a command
    when the line is a command word alone (``b``, ``s``, ``q``, ``c``, ``?``). A line
    beginning with ``=`` is always the answer, without its ``=`` (``=q`` answers "q")."""
    text = normalize(line)
    if not text:
        return Default()
    if text.startswith("="):
        return line.strip().lstrip("\ufeff")[1:]
    word = text.lower()
    if word in _WORDS:
        return _WORDS[word]
    if extras and word in ("m", "r"):  # alone: a typed answer is rarely one letter
        return FollowUp() if word == "m" else Respond()
    return line.strip().lstrip("\ufeff")


def parse_question_line(
    line: str,
    *,
    count: int,
    multi: bool,
    labels: Sequence[str] = (),
    other: bool = True,
    yesno: bool = False,
    extras: bool = False,
    previews: Sequence[int] | None = None,
) -> QuestionCommand:
    """Read one line typed at a question with ``count`` choices (Other included when
    ``other``) and the option ``labels``. A command word (``b``, ``q``, ``skip``, ...) wins
    over a label spelled the same (type its number); an option's whole label wins over the
    ``n TEXT``, ``c TEXT`` and ``p N`` forms, so typing ``C compiler`` chooses that option,
    never chats. At a yes/no question ``y`` and ``n`` answer it. ``previews``: the numbers
    of the options that have one, when known (``p N`` says which)."""
    text = normalize(line)
    if not text:
        return Default()
    if "0" <= text[0] <= "9" and _NUMBER_LINE.fullmatch(text):  # the usual answer: numbers
        return Pick(parse_numbers(text, count=count, multi=multi))
    word = text.lower()
    yes_no = _yes_no(text, labels) if yesno else None
    if yes_no is not None:
        return Pick(yes_no)
    if word in _WORDS:
        return _WORDS[word]
    extra = _extra(line, word) if extras and word[0] in "mr" else None
    if extra is not None:
        return extra
    if not _NUMBER_LINE.fullmatch(text):  # numbers mean options by number
        label = match_label(text, labels, other=other)
        if label is not None:
            return Pick((label,))
    head = word[0]
    if head == "n" and (word == "n" or word[1].isspace()):
        notes = _text_after_command(line)
        return Notes(notes if notes is not None else "")
    if head == "c" and word[1:2].isspace():
        return Clarify(_text_after_command(line) or None)
    if head == "p" and (word == "p" or word[1].isspace() or word[1].isdigit()):
        return _preview(word[1:].strip(), count - 1 if other else count, previews)
    if text.startswith("{"):
        raise Refused(f"that looks like JSON, not an answer; type an option number from 1-{count}")
    if _ADJUST.fullmatch(text):  # whether they fit the question is the state's to say
        changes = re.findall(r"([+-])\s*([0-9]+)", text)
        return Adjust(tuple([(sign == "+", _number(digits)) for sign, digits in changes]))
    if _NUMBER_LINE.fullmatch(text) or re.fullmatch(r"[0-9]+\.", text):
        return Pick(_pick_text(text, count=count, multi=multi, labels=labels, other=other))
    one_line = split_one_line(text)
    if one_line is not None:
        return one_line
    raise Refused(f"type an option number from 1-{count}, or ? for help")


def _preview(target: str, options: int, previews: Sequence[int] | None) -> Preview:
    """``p N`` at a question of ``options`` options, of which ``previews`` have one (None:
    not known): a refusal names those that do, rather than a range of options."""
    if previews is None:
        which = f"choose from 1-{options}"
    elif not previews:
        raise Refused("this question has no previews")
    elif len(previews) == 1:
        which = f"only option {previews[0]} has one"
    else:
        which = f"options {', '.join(map(str, previews))} have previews"
    if not re.fullmatch("[0-9]+", target):
        raise Refused(f"say which option to preview: p N; {which}")
    number = _number(target)
    if not 1 <= number <= options:
        raise Refused(f"there is no option {_shown(number)} to preview; {which}")
    if previews is not None and number not in previews:
        raise Refused(f"option {number} has no preview; {which}")
    return Preview(number)


def parse_confirm(line: str, *, default: bool) -> Confirm:
    """A line typed at a ``[Y/n]`` (``default`` True) or ``[y/N]`` prompt."""
    word = normalize(line).lower()
    if not word:
        return Confirm(default)
    if word in ("y", "yes"):
        return Confirm(True)
    if word in ("n", "no"):
        return Confirm(False)
    raise Refused(f"type y for yes or n for no (Enter: {'yes' if default else 'no'})")


def parse_review_line(line: str, *, count: int, extras: bool = False) -> ReviewCommand:
    """Read one line typed at the review screen of ``count`` questions (``extras``: ``m``
    and ``r`` are taken). ``n`` and ``no`` answer ``Submit?`` too: not yet. An empty line
    is :class:`Default`: it submits, or goes to a question that still needs an answer."""
    text = normalize(line)
    word = text.lower()
    if not word:
        return Default()
    if word in ("y", "yes"):
        return Submit()
    if word in ("n", "no"):
        return NotSubmitted()
    command = _WORDS.get(word)
    if command is not None and not isinstance(command, Skip):
        return command
    extra = _extra(line, word) if extras else None
    if extra is not None:
        return extra
    if word[0] == "c" and word[1:2].isspace():
        return Clarify(_text_after_command(line) or None)
    if re.fullmatch("[0-9]+", text):
        number = _number(text)
        if 1 <= number <= count:
            return Reopen(number)
        raise Refused(f"there is no question {_shown(number)}; type {_change(count)}")
    raise Refused(f"press Enter or y to submit, {_change(count)}, q to decline")


def _change(count: int) -> str:
    """How a number reopens a question at the review: ``1-3 to change an answer``."""
    return "1 to change the answer" if count == 1 else f"1-{count} to change an answer"
