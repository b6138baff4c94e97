"""Text escaping, at the ground floor: what a terminal could act on, or what hides text,
shown as visible ``\\x1b``-style escapes. Wire output and terminal screens both use it.
"""

from __future__ import annotations

import re

# Invisible characters: Unicode's default-ignorable code points (DerivedCoreProperties) and
# every format character (Cf): zero-width spaces and joiners, word joiner, BOM, tag
# characters, variation selectors, Hangul fillers, interlinear annotations, ...
INVISIBLE = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0e\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# VS16 (U+FE0F) asks for an emoji's colour presentation ("\u2764\ufe0f" is a red heart): shown
# as it is after a symbol that has an emoji form (and in a keycap, "1\ufe0f\u20e3"); anywhere
# else it only hides, and is escaped like the other variation selectors.
EMOJI_BASES = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u25fe"
    "\u2600-\u27bf\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
LONE_VS16 = f"(?<![{EMOJI_BASES}#*0-9])\ufe0f|(?<=[#*0-9])\ufe0f(?!\u20e3)"
# What a terminal could act on, or what hides text, beyond C0: DEL, C1 controls, the
# invisible characters above (bidi embeddings, overrides, isolates and marks among them),
# line/paragraph separators, lone surrogates (from JSON "\udXXX").
UNSAFE_BEYOND_C0 = f"\x7f-\x9f\u2028\u2029{INVISIBLE}\ud800-\udfff"
# ... and C0 controls but tab and newline
# (UNSAFE_BEYOND_C0 is a character class's inside; every pattern adds LONE_VS16 to it)
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{UNSAFE_BEYOND_C0}]|{LONE_VS16}")
_UNSAFE_SINGLE_LINE = re.compile(f"[\x00-\x08\x0b-\x1f\n{UNSAFE_BEYOND_C0}]|{LONE_VS16}")


def escape_character(match: re.Match[str]) -> str:
    """The matched character as ``\\n``, ``\\r``, ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    code = ord(match.group())
    if code == 0x0A:
        return "\\n"
    if code == 0x0D:
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_controls(text: str) -> str:
    """``text`` as it is but for what a terminal could act on, shown escaped."""
    return _UNSAFE.sub(escape_character, text)


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with everything that could act on a terminal shown escaped.

    With ``multiline`` newlines stay line breaks (``\\r\\n`` counts as one) and tabs become
    spaces; otherwise newlines show as ``\\n`` and tabs as one space.
    """
    if text.isascii() and text.isprintable():  # the usual case: nothing to do
        return text
    if multiline:
        text = text.replace("\r\n", "\n")
        if "\t" in text:
            text = "\n".join(line.expandtabs(4) for line in text.split("\n"))
        return escape_controls(text)
    return _UNSAFE_SINGLE_LINE.sub(escape_character, text.replace("\t", " "))


# What a typed line may not hold: C0 controls but tab (whitespace, text), DEL and C1. Each is
# found with the rest of the escape sequence it begins: a key's code (``\x1b[D``, Left), Alt
# and a key (``\x1bb``), a CSI written as one C1 character (``\x9b31m``).
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_SEQUENCE = re.compile("\x1b(?:\\[[0-?]*[ -/]*[@-~]?|O.?|.?)|\x9b[0-?]*[ -/]*[@-~]?", re.DOTALL)


def first_control(text: str) -> str | None:
    """The first control character of ``text`` that is not a tab, with the rest of the
    escape sequence it begins; None when there is none."""
    if text.isascii() and text.isprintable():  # the usual line: nothing to find
        return None
    found = _CONTROL.search(text)
    if found is None:
        return None
    sequence = _SEQUENCE.match(text, found.start())
    return sequence.group() if sequence else found.group()
