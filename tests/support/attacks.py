"""Attack strings for every field a model controls, and the check that none reached the terminal
raw."""

from __future__ import annotations

import re
import unicodedata

ATTACKS = [
    "\x1b[2J",  # clear the screen
    "\x1b[31mred\x1b[0m",
    "\x1b]0;window title\x07",  # OSC: set the title
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",  # OSC 52: write the clipboard
    "\x1b]52;c;AAAA\x1b\\",
    "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b]1337;File=inline=1:AAAA\x07",
    "\x1b]4;1;rgb:ff/00/00\x07",  # palette
    "\x1bP+q544e\x1b\\",  # DCS
    "\x1bP$qm\x1b\\",  # DECRQSS
    "\x1b_Gf=100;AAAA\x1b\\",  # APC (graphics)
    "\x1b^privacy message\x1b\\",  # PM
    "\x9b2J",  # C1 CSI
    "\x9d0;title\x9c",  # C1 OSC ... ST
    "\x90+q\x9c",  # C1 DCS
    "\x9fapc\x9c",  # C1 APC
    "\x85next line",  # C1 NEL
    "\x1bc",  # full reset
    "\x1b[6n",  # ask the terminal to type its cursor position
    "\x1b[21t",  # ask the terminal to type its title
    "\x1b[?1049h\x1b[?25l",  # alternate screen, hidden cursor
    "\x1b[1;1H\x1b[2K",
    "\x1b7saved\x1b8",
    "\x1b[200~pasted\x1b[201~",
    "\x1b[38;2;255;0;0mtruecolor",
    "\x1b\x1b[",
    "\x07\x07bell",
    "\x08\x08\x08overwrite",
    "line\rOVERWRITE",
    "\x00nul",
    "\x7fdel",
    "\x0b\x0cform",
    "\u202eevil.exe\u202c",  # right-to-left override
    "\u202aLRE\u202b RLE\u202d LRO",
    "\u2066isolate\u2069 \u2067RLI\u2068FSI\u2069",
    "\u200fRLM \u200eLRM \u061cALM",
    "\u2028line separator\u2029paragraph",
    "\ud800 lone surrogate \udfff",
    # invisible (default-ignorable and format) characters: they hide or disguise text
    "zero\u200bwidth\u200c\u200djoiners",
    "word\u2060joiner\ufeffbom",
    "tags\U000e0001\U000e0041\U000e007f",
    "hangul\u115f\u1160\u3164\uffa0fillers",
    "cgj\u034f mvs\u180e fvs\u180b",
    "\u206a\u206b\u206c\u206d\u206e\u206fdeprecated",
    "\ufff9annotation\ufffa\ufffb",
    "soft\u00adhyphen",
    "variation\ufe0f\ufe00\U000e0100selectors",
    "\u2061\u2062\u2063\u2064invisible operators",
    "\u17b4\u17b5khmer \u0600\u06dd\u070f\u08e2",
    "\U0001bca0\U0001d173\U000110bd\U00013430",
    "\ufff0\ufff8\u2065unassigned ignorables",
]


# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), written out here so
# that the check does not lean on askcli's own list
DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


def raw_character(text: str) -> str | None:
    """The first character a terminal could act on or that hides text, if any: controls
    (but newline and tab), format characters, separators, surrogates, default-ignorables."""
    for ch in text:
        if ch in "\n\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            return ch
        if DEFAULT_IGNORABLE.match(ch) or "\ufff9" <= ch <= "\ufffb":
            return ch
    return None


def check_bytes(data: bytes, where: str) -> None:
    text = data.decode("utf-8")  # strict: a lone surrogate would not have encoded
    found = raw_character(text)
    assert found is None, f"{where}: raw {found!r} at {text.index(found)} in {text[:300]!r}"


LINE_BREAKS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1bE", "\n\n"]
