"""Paging long text for a person at a terminal: --more--, Enter for more, q to stop."""

from __future__ import annotations

import io

from askcli.conversation import MORE, Conversation
from askcli.lines import TextLineReader
from askcli.rendering import Style

TEXT = "".join(f"line {n}\n" for n in range(1, 21))


def conversation(answers: str, *, interactive: bool = True) -> tuple[Conversation, io.StringIO]:
    out = io.StringIO()
    reader = TextLineReader(io.StringIO(answers), interactive=interactive)
    return Conversation(reader, out, Style(height=8)), out


def test_pages_until_the_end() -> None:
    conv, out = conversation("\n\n\n")
    conv.show(TEXT)
    shown = out.getvalue()
    assert shown.count(MORE) == 3
    assert shown.replace(MORE, "") == TEXT
    assert shown.index("line 6\n" + MORE) > 0


def test_q_stops_and_says_how_much_was_left() -> None:
    conv, out = conversation("q\n")
    conv.show(TEXT)
    assert out.getvalue().endswith(MORE + "(… 14 more lines not shown)\n")


def test_the_end_of_input_stops_paging_without_losing_track() -> None:
    conv, out = conversation("")
    conv.show(TEXT)
    assert out.getvalue().endswith(MORE + "\n(… 14 more lines not shown)\n")


def test_no_paging_for_short_text_or_without_a_person() -> None:
    conv, out = conversation("")
    conv.show("one\ntwo\n")
    assert out.getvalue() == "one\ntwo\n"
    scripted, out = conversation("", interactive=False)
    scripted.show(TEXT)
    assert out.getvalue() == TEXT
