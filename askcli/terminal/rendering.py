"""Plain-text screens for the person: the gate to the terminal, display width, wrapping, colour.

Everything a model wrote passes through :func:`~askcli.escaping.visible` before it reaches
the terminal: control characters, escape sequences, bidi overrides and lone surrogates come
out as visible ``\\x1b``-style escapes. Colour, when on, is askcli's own and added afterwards.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import NamedTuple, TextIO

from ..escaping import LONE_VS16, UNSAFE_BEYOND_C0, escape_character, escape_controls

# askcli's own colours (Style): the only escape sequences that may reach a terminal
SGR_CODES = ("0", "1", "2", "31", "32", "33", "36", "1;36")
_SGR = "\x1b\\[(?:" + "|".join(re.escape(code) for code in SGR_CODES) + ")m"
_TERMINAL = re.compile(f"({_SGR})|[\x00-\x08\x0b-\x1f{UNSAFE_BEYOND_C0}]|{LONE_VS16}")


def _terminal_escape(match: re.Match[str]) -> str:
    return match.group() if match.group(1) else escape_character(match)


def terminal_text(text: str, *, colour: bool = False) -> str:
    """The one gate to a terminal: ``text`` with every control, escape sequence and
    invisible character shown escaped but newlines and tabs (and, with ``colour``, the
    colours of :class:`Style`).

    Whatever reaches a terminal (stderr, and stdout when it is one) passes here last, so a
    string that missed :func:`visible` still cannot act on the terminal: without colour no
    escape sequence at all gets through, with it only askcli's few colour changes.
    """
    if text.isascii() and text.isprintable():
        return text
    if not colour:
        return escape_controls(text)
    return _TERMINAL.sub(_terminal_escape, text)


def char_width(ch: str) -> int:
    """Columns one character takes on a terminal (``wcwidth``): 2 for wide East Asian
    characters and emoji, 0 for combining marks; a control counts 0 (it is shown escaped).
    A spacing mark (a vowel sign of Devanagari, say) counts 1, as glibc and the terminals
    count it, and an emoji's presentation selector 1, for the column it adds to the
    character before it: the widths of a line's characters add up to no less than what
    :func:`display_width` measures of the whole."""
    if ch.isascii():
        return 1 if ch.isprintable() else 0
    from wcwidth import wcwidth  # its tables cost ~20 ms: only for text that needs them

    width = wcwidth(ch)
    if width == 0 and (ch == "\ufe0f" or unicodedata.category(ch) == "Mc"):
        return 1
    return max(width, 0)


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    if text.isascii():
        return len(text)
    from wcwidth import wcswidth

    width = wcswidth(text)
    return width if width >= 0 else sum(char_width(ch) for ch in text)


def truncate(text: str, columns: int, *, words: bool = False) -> str:
    """``text`` cut to ``columns`` display columns, the last one an ellipsis when cut;
    ``words``: cut after a whole word (inside one only when the first does not fit)."""
    if display_width(text) <= columns:
        return text
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > columns - 1:
            break
        out.append(ch)
        used += w
    kept = "".join(out)
    if words and text[len(kept)] != " " and not kept.endswith(" "):
        space = kept.rfind(" ")
        if space > 0:
            kept = kept[:space]
    return kept.rstrip(" ") + "…" if words else kept + "…"


def last_columns(text: str, columns: int) -> str:
    """The end of ``text`` that takes at most ``columns`` display columns."""
    used = 0
    for i in range(len(text) - 1, -1, -1):
        used += char_width(text[i])
        if used > columns:
            return text[i + 1 :]
    return text


def _cut(word: str, columns: int) -> tuple[str, str]:
    """Split ``word`` after at most ``columns`` display columns (at least one character)."""
    used = 0
    for i, ch in enumerate(word):
        used += char_width(ch)
        if used > columns:
            return word[:i], word[i:]
    return word, ""


def wrap(
    text: str, width: int, *, first: str = "", rest: str | None = None, hang: str = ""
) -> list[str]:
    """Greedy word wrap by display width; ``first``/``rest`` prefix the first/later lines.

    Newlines in ``text`` start new lines (each with the ``rest`` prefix), and a line's
    leading spaces are kept as its indent (at most half the width), so code keeps its
    shape; ``hang`` is added to the indent of the lines a long line wraps onto, so that
    they read as its continuation. A word wider than a whole line, or one with wide (CJK)
    characters, is broken to fill the current line first: CJK text has no spaces and
    breaks between any two characters. A URL that fits on a line is moved whole, a longer
    one breaks after its host (never inside its scheme, user name, host and port when
    they fit on a line, never inside its host).
    """
    rest = first if rest is None else rest
    if "\n" not in text and display_width(first) + display_width(text) <= width:
        return [(first + text).rstrip()]  # the common case: it fits
    lines: list[str] = []
    for n, paragraph in enumerate(text.split("\n")):
        body = paragraph.lstrip(" ")
        indent = " " * min(len(paragraph) - len(body), width // 2)
        start = (first if n == 0 else rest) + indent
        lines += _wrap_line(body, width, start, rest + indent + hang)
    return lines


def _wrap_line(text: str, width: int, first: str, rest: str) -> list[str]:
    lines: list[str] = []
    prefix, line, used = first, "", 0
    whole = max(width - display_width(rest), 10)  # the room of a line of its own

    def room() -> int:
        return max(width - display_width(prefix), 10)

    for word in text.split(" "):
        w = display_width(word)
        gap = 1 if line else 0
        if used + gap + w <= room():
            line, used = line + " " * gap + word, used + gap + w
            continue
        kept = _kept(word, whole)
        plain = w == len(word) or bool(kept)  # no wide characters, or a URL
        if line and plain and w <= whole:
            lines.append(prefix + line)  # the word moves to the next line whole
            prefix, line, used = rest, word, w
            continue
        at = 0
        while True:  # too wide for any line, or CJK: break it, filling this line first
            space = room() - used - gap
            head = _cut(word[at:], space)[0] if space > 0 else ""
            head = head[: _outside(kept, at, at + len(head)) - at]
            if not head and not line:  # never loop without progress
                head = _cut(word[at:], room())[0] or word[at : at + 1]
            if head:
                line, used = line + " " * gap + head, used + gap + display_width(head)
                at += len(head)
            if at >= len(word):
                break
            lines.append(prefix + line)
            prefix, line, used, gap = rest, "", 0, 0
    lines.append((prefix + line).rstrip())
    return lines


def _kept(word: str, whole: int) -> list[tuple[int, int]]:
    """What a break of ``word`` stays out of: each URL's scheme to its port, or its host
    and port, when that fits in ``whole`` columns (:func:`askcli.wire.urls.heads`)."""
    if "http" not in word.lower():
        return []
    from ..wire.urls import heads

    kept = []
    for begin, host, end in heads(word):
        if display_width(word[begin:end]) <= whole:
            kept.append((begin, end))
        elif display_width(word[host:end]) <= whole:
            kept.append((host, end))
    return kept


def _outside(kept: list[tuple[int, int]], start: int, cut: int) -> int:
    """Where to break a word at ``cut`` or before it (but after ``start``), so that no
    span of ``kept`` is split."""
    for begin, end in kept:
        if begin < cut < end:
            return max(begin, start)
    return cut


def wrap_prompt(text: str, width: int) -> str:
    """A prompt wrapped at word boundaries to ``width`` (its last line is where the answer
    is typed, the trailing spaces kept): the terminal never breaks it mid-word."""
    body = text.rstrip(" ")
    if display_width(text) <= width:
        return text
    return "\n".join(wrap(body, width)) + text[len(body) :]


CONTINUED = "\u21aa "  # starts a line that a long line wrapped onto (a value, a preview)

MAX_CELLS = 1000  # a larger COLUMNS or LINES is taken as this many; --columns at most this
ROOM_TO_TYPE = 12  # columns a prompt leaves free for the answer on its line


def _terminal_size(stream: TextIO | None, variable: str, index: int, least: int, usual: int) -> int:
    """The environment's ``variable`` if set, else ``stream``'s terminal size, else ``usual``."""
    value = os.environ.get(variable, "")
    if value.isascii() and value.isdigit() and int(value) > 0:
        return min(max(int(value), least), MAX_CELLS)
    if stream is not None:
        try:
            if stream.isatty():
                return min(max(os.get_terminal_size(stream.fileno())[index], least), MAX_CELLS)
        except (OSError, ValueError, AttributeError):
            pass
    return usual


def terminal_width(stream: TextIO | None = None) -> int:
    """``COLUMNS`` if set, else the width of ``stream``'s terminal, else 80."""
    return _terminal_size(stream, "COLUMNS", 0, 20, 80)


def terminal_height(stream: TextIO | None = None) -> int:
    """``LINES`` if set, else the height of ``stream``'s terminal, else 24."""
    return _terminal_size(stream, "LINES", 1, 5, 24)


def on_terminal(stream: object) -> bool:
    """``stream`` is a terminal (a closed or odd stream is not)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def folded_for(stream: object, text: str) -> str:
    """askcli's own message ``text`` (``askcli: ...``) as ``stream`` should get it: at a
    terminal each line wider than it folded at spaces, going on under two spaces, so that
    no word is split; elsewhere as it is, one line per message for logs and ``grep``."""
    if not on_terminal(stream):
        return text
    width = terminal_width(stream)  # type: ignore[arg-type]
    if all(display_width(line) <= width for line in text.split("\n")):
        return text
    rows = []
    for line in text.split("\n"):
        rows += wrap(line, width, rest="  ") if display_width(line) > width else [line]
    return "\n".join(rows)


def colour_wanted(stream: TextIO) -> bool:
    """Colour only on a terminal, with ``NO_COLOR`` unset and ``TERM`` not ``dumb``."""
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Style(NamedTuple):
    """How screens are drawn: width and height in character cells, and whether to colour."""

    width: int = 80
    colour: bool = False
    height: int = 24

    @classmethod
    def for_stream(cls, stream: TextIO) -> Style:
        return cls(
            width=terminal_width(stream),
            colour=colour_wanted(stream),
            height=terminal_height(stream),
        )

    def _sgr(self, codes: str, text: str) -> str:
        return f"\x1b[{codes}m{text}\x1b[0m" if self.colour and text else text

    def chip(self, text: str) -> str:
        return self._sgr("1;36", text)

    def strong(self, text: str) -> str:
        return self._sgr("1", text)

    def dim(self, text: str) -> str:
        return self._sgr("2", text)

    def warn(self, text: str) -> str:
        return self._sgr("33", text)

    def good(self, text: str) -> str:
        """Green: done, added."""
        return self._sgr("32", text)

    def in_progress(self, text: str) -> str:
        """Bold yellow: the item being worked on."""
        return self.strong(self.warn(text))
