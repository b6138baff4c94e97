"""Reading that is taller than the terminal, a page at a time: the ``?`` help.

Only what is read, never what is answered: question and review screens are written whole
(a paging key could be taken for an answer, or an answer for a paging key), and the
permission prompt has a pager of its own that can only go on or deny
(:func:`askcli.tools.permission.show_whole`).
"""

from __future__ import annotations

from .conversation import Conversation
from .rendering import wrap_prompt

MORE = "--more-- ({shown} of {total} lines; Enter for more, q stops) "


def page(conv: Conversation, text: str, below: int = 1) -> None:
    """Write ``text``; at a terminal where it and the ``below`` rows shown after it (the
    prompt it was asked at) do not fit the screen, a page at a time.

    Enter shows the next page; any other line (``q``) stops, and is no answer to anything:
    the prompt the help was asked at comes again. The input ending stops too (the prompt
    then sees it end). AnswerTimeout and KeyboardInterrupt pass through."""
    lines = text.removesuffix("\n").split("\n")
    height = conv.style.height
    if not conv.reader.interactive or len(lines) + below <= height:
        conv.say(text)
        return
    start = 0
    while start < len(lines):
        more = wrap_prompt(MORE.format(shown=0, total=len(lines)), conv.style.width)
        size = max(height - 1 - more.count("\n"), 3)  # and the --more-- prompt
        if len(lines) - start + below <= height:
            size = len(lines) - start  # the last page, with what comes after it
        chunk = lines[start : start + size]
        start += len(chunk)
        conv.say("\n".join(chunk) + "\n")
        if start >= len(lines):
            return
        more = wrap_prompt(MORE.format(shown=start, total=len(lines)), conv.style.width)
        answer = conv.read_answer(more, command=False)
        if answer is None or answer.strip():
            return
