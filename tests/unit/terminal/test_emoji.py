"""An emoji followed by VS16 is shown as the emoji, in process and at a terminal (issue 21, item
8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askcli.escaping import visible
from askcli.terminal.rendering import terminal_text

from tests.support.calls import call, option, question
from tests.support.terminals import Terminal

WIDTHS = [80, 40]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\u2764\ufe0f ok", "\u2764\ufe0f ok"),  # a red heart
        ("\u26a0\ufe0f careful", "\u26a0\ufe0f careful"),
        ("\U0001f44d\ufe0f", "\U0001f44d\ufe0f"),
        ("\u00a9\ufe0f 2026", "\u00a9\ufe0f 2026"),
        ("1\ufe0f\u20e3 first", "1\ufe0f\u20e3 first"),  # a keycap
        ("pay\ufe0fpal", "pay\\ufe0fpal"),  # after a letter it only hides
        ("\ufe0fstart", "\\ufe0fstart"),
        ("1\ufe0f alone", "1\\ufe0f alone"),  # a digit without the keycap
        ("\u2764\ufe0e", "\u2764\\ufe0e"),  # VS15 and the other selectors stay escaped
        ("\u2764\ufe0f\ufe0f", "\u2764\ufe0f\\ufe0f"),  # one VS16 is the emoji's, not two
        ("a\u200db", "a\\u200db"),  # other default-ignorables too
    ],
)
def test_vs16_after_an_emoji_is_the_emoji(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert terminal_text(text) == shown


@pytest.mark.pty
@pytest.mark.parametrize("columns", WIDTHS)
def test_an_emoji_label_is_shown_as_the_emoji_at_a_terminal(tmp_path: Path, columns: int) -> None:
    doc = call(
        question(
            question="Ship it?",
            header="Ship",
            options=[option("\u2705\ufe0f Yes", "ship"), option("\u26a0\ufe0f Wait", "hold")],
        )
    )
    source = tmp_path / "call.json"
    source.write_text(json.dumps(doc))
    term = Terminal(["ask", str(source)], tmp_path, columns)
    term.expect("1. \u2705\ufe0f Yes")
    term.expect("2. \u26a0\ufe0f Wait")
    term.expect("Choose 1-3: ")
    term.type("2")
    status, reply = term.finish()
    assert status == 0
    assert "\\ufe0f" not in term.log.getvalue()
    assert '="\u26a0\ufe0f Wait"' in reply["content"]
