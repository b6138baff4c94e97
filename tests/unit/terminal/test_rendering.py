"""Escaping, display width, wrapping and colour rules."""

from __future__ import annotations

import io

import pytest

from askcli.escaping import visible
from askcli.terminal.rendering import (
    Style,
    colour_wanted,
    display_width,
    terminal_width,
    truncate,
    wrap,
)
from askcli.terminal.screens import chip


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain", "plain"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]52;c;AAAA\x07", "\\x1b]52;c;AAAA\\x07"),
        ("\x9b31m", "\\x9b31m"),
        ("a\x7fb", "a\\x7fb"),
        ("a\x00b", "a\\x00b"),
        ("car\rriage", "car\\rriage"),
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),
        ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
        ("lone \udc80", "lone \\udc80"),
        ("line\nbreak", "line\\nbreak"),
        ("tab\there", "tab here"),
        ("中文 ok", "中文 ok"),
    ],
)
def test_visible_single_line(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_visible_multiline_keeps_line_breaks_and_expands_tabs() -> None:
    assert visible("a\r\nb\n\tc\x1b", multiline=True) == "a\nb\n    c\\x1b"


def test_display_width_counts_wide_characters_twice() -> None:
    assert display_width("abc") == 3
    assert display_width("认证方式") == 8
    assert display_width("ｆｕｌｌ") == 8
    assert display_width("e\u0301") == 1


def test_truncate_by_columns() -> None:
    assert truncate("Short", 12) == "Short"
    assert truncate("Version Strategy", 12) == "Version Str…"
    assert display_width(truncate("认证方式认证方式", 12)) <= 12


def test_chip_shortens_long_headers_to_twelve_columns() -> None:
    assert chip("Library") == "[Library]"
    assert chip("Twelve chars") == "[Twelve chars]"
    assert chip("Version Strategy") == "[Version Str…]"
    assert chip("\x1b[2J") == "[\\x1b[2J]"


def test_wrap_by_display_width_with_hanging_indent() -> None:
    lines = wrap("one two three four five six", 16, first="  1. ", rest="     ")
    assert lines == ["  1. one two", "     three four", "     five six"]
    assert all(display_width(line) <= 16 for line in lines)


def test_wrap_breaks_cjk_text_without_spaces() -> None:
    lines = wrap("这是一个很长的中文句子没有任何空格需要换行显示", 20)
    assert len(lines) > 1
    assert all(display_width(line) <= 20 for line in lines)
    assert "".join(lines) == "这是一个很长的中文句子没有任何空格需要换行显示"


def test_wrap_keeps_newlines_as_paragraphs() -> None:
    assert wrap("a\nb", 20, first="> ", rest="  ") == ["> a", "  b"]


def test_wrap_breaks_a_word_longer_than_the_line() -> None:
    lines = wrap("x" * 25, 10)
    assert lines == ["x" * 10, "x" * 10, "x" * 5]


def test_terminal_width_from_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width(io.StringIO()) == 100
    monkeypatch.setenv("COLUMNS", "junk")
    assert terminal_width(io.StringIO()) == 80
    monkeypatch.delenv("COLUMNS")
    assert terminal_width(io.StringIO()) == 80


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color_or_dumb(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_wanted(FakeTTY()) is True
    assert colour_wanted(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "")
    assert colour_wanted(FakeTTY()) is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert colour_wanted(FakeTTY()) is False


def test_style_adds_colour_only_when_on() -> None:
    assert Style(colour=False).chip("[x]") == "[x]"
    assert Style(colour=True).chip("[x]") == "\x1b[1;36m[x]\x1b[0m"


@pytest.mark.parametrize(
    ("text", "columns"),
    [
        ("🇯🇵", 2),  # a flag: two regional indicators, one glyph of two columns
        ("👍🏽", 2),  # an emoji with a skin-tone modifier
        ("e\u0301", 1),  # a combining accent takes no column
        ("中文", 4),
        ("\u231a", 2),  # WATCH: wide
    ],
)
def test_display_width_counts_what_a_terminal_shows(text: str, columns: int) -> None:
    assert display_width(text) == columns


def test_wrapping_emoji_fills_lines_by_their_columns() -> None:
    lines = wrap("🇯🇵 " * 30, 20)
    assert all(display_width(line) <= 20 for line in lines)
    assert len(lines) == 5


@pytest.mark.parametrize(
    "text",
    [
        "\u0b15\u0b02" * 30,  # Oriya: a letter and a spacing mark, 30 times
        "किताब पढ़ो " * 10,  # Devanagari's vowel signs are spacing marks
        "ab\u2764\ufe0f" * 20,  # a heart in emoji presentation takes two columns
    ],
    ids=["oriya", "devanagari", "emoji-presentation"],
)
@pytest.mark.parametrize("width", [20, 40])
def test_a_wrapped_line_is_never_wider_than_the_terminal(text: str, width: int) -> None:
    """The widths of characters add up to what the whole line takes (wcwidth measures a
    spacing mark after a letter as a column, alone as none)."""
    lines = wrap(text, width)
    assert all(display_width(line) <= width for line in lines), [
        (display_width(line), line) for line in lines
    ]
