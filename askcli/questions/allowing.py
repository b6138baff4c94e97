"""What a line typed at a permission prompt (``Allow?``) means; nothing is guessed.

``1``, ``y``, ``yes`` allow; ``2``, ``a``, ``always`` allow for good; ``n``, ``no``, ``q``
deny; ``3`` denies and asks next what the agent should do instead; ``n: TEXT`` (or
``n TEXT``, ``3: TEXT``) denies with TEXT for the agent. ``N.`` is ``N``, as at a question.
Under Claude Code's ``default_to_no`` no single key approves: only the words ``yes`` and
``always`` do, and an empty line denies. Any other line is :class:`Unclear`: asked again.

A request that brings its own options (ACP's) is answered by :func:`parse_option_line`: a
number picks that option, ``y`` the allow-once one and ``n`` the reject-once one, never an
"always" one (:class:`NoOnce` where there is no once option of that side).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..records import same_kind
from .answers import Help, normalize


@same_kind
class Allow(NamedTuple):
    """Allow the call; ``always``: and the lasting rule offered with it (choice 2)."""

    always: bool = False


@same_kind
class Deny(NamedTuple):
    """Deny the call; ``words`` (when given) go to the agent as what to do instead."""

    words: str | None = None


@same_kind
class AskWords(NamedTuple):
    """``3``: deny, and ask next what the agent should do instead."""


@same_kind
class Unclear(NamedTuple):
    """A line that is no answer here (``ok``, ``Yes.``, ``4``, ...): ``word`` as read."""

    word: str


AllowCommand = Allow | Deny | AskWords | Help | Unclear

# the words that approve, approve for good, and deny: by default, and under default_to_no
# (no single key approves, Enter declines); 3 is AskWords in both
KEYS = {
    False: (("1", "y", "yes"), ("2", "a", "always"), ("n", "no", "q")),
    True: (("yes",), ("always",), ("", "n", "no", "q")),
}
# n or 3, then ":" (or, for n, a space as in ``n TEXT`` at a question), then the words
_WITH_WORDS = re.compile(r"[n3]\s*:(.*)|n\s(.*)", re.IGNORECASE | re.DOTALL)


def command_word(line: str) -> str:
    """An answer line as a command word: normalized, lower case, ``N.`` read as ``N``."""
    word = normalize(line).lower()
    return word[:-1] if re.fullmatch(r"[0-9]+\.", word) else word


def parse_allow_line(line: str, *, careful: bool = False) -> AllowCommand:
    """Read one line typed at ``Allow?``; ``careful``: the request has ``default_to_no``."""
    word = command_word(line)
    approve, lasting, deny = KEYS[careful]
    if word in approve:
        return Allow()
    if word in lasting:
        return Allow(always=True)
    if word in deny:
        return Deny()
    if word == "3":
        return AskWords()
    if word in ("?", "help"):
        return Help()
    typed = line.strip().lstrip("\ufeff").strip()  # the words as typed, not normalized
    found = _WITH_WORDS.fullmatch(normalize(typed[:1]) + typed[1:]) if typed else None
    if found is not None:
        words = (found.group(1) if found.group(1) is not None else found.group(2)).strip()
        return Deny(words or None)
    return Unclear(word)


# -- a choice among an agent's own options (ACP's session/request_permission) -----------


@same_kind
class OptionPick(NamedTuple):
    """The option at index ``at`` (0-based): chosen by its number, or by ``y``/``n`` for a
    once option."""

    at: int


@same_kind
class NoOnce(NamedTuple):
    """``y`` or ``n`` (``word`` as read) where the options hold no once option of that
    side (``allow`` or ``reject``): ``y`` and ``n`` never select an "always" one."""

    word: str
    side: str


OptionCommand = OptionPick | NoOnce | Unclear


def parse_option_line(
    line: str, count: int, allow: int | None, reject: int | None
) -> OptionCommand:
    """Read one line typed at ``Choose 1-N``: a number (``N.`` too) picks that option,
    ``y``/``yes`` the allow-once option ``allow``, ``n``/``no``/``q`` the reject-once one
    ``reject`` (indexes, None where there is none). Nothing else is guessed."""
    word = command_word(line)
    if word.isdigit() and 1 <= int(word) <= count:
        return OptionPick(int(word) - 1)
    for words, index, side in (
        (("y", "yes"), allow, "allow"),
        (("n", "no", "q"), reject, "reject"),
    ):
        if word in words:
            return OptionPick(index) if index is not None else NoOnce(word, side)
    return Unclear(word)
