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
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# What a terminal could act on, or what hides text, beyond C0: DEL, C1 controls, the
# invisible characters above (bidi embeddings, overrides, isolates and marks among them),
# line/paragraph separators, lone surrogates (from JSON "\udXXX").
UNSAFE_BEYOND_C0 = f"\x7f-\x9f\u2028\u2029{INVISIBLE}\ud800-\udfff"
# ... and C0 controls but tab and newline
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{UNSAFE_BEYOND_C0}]")
_UNSAFE_SINGLE_LINE = re.compile(f"[\x00-\x08\x0b-\x1f\n{UNSAFE_BEYOND_C0}]")


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
