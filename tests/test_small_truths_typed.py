"""Issue 21, item 8 (small truths): emoji with VS16 shown as emoji, a call declined with
Ctrl-C not offered for resuming, pasted calls and answers never glue the result to a prompt."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from askcli.escaping import visible
from askcli.terminal.rendering import terminal_text

from tests.support.calls import call, option, question
from tests.support.paths import EXAMPLES, LOGIN
from tests.support.terminals import Pty, Terminal

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


# --- a call declined with Ctrl-C is not offered for resuming -----------------------------


def _journals(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "state" / "askcli" / "journal").glob("*.jsonl"))


def _answer_one_then(tmp_path: Path, columns: int, stop: signal.Signals) -> Terminal:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("(e.g. 1,3): ")
    term.child.kill(stop)
    term.expect_end()
    term.child.close()
    return term


@pytest.mark.parametrize("columns", WIDTHS)
def test_a_call_declined_with_ctrl_c_is_not_offered_again(tmp_path: Path, columns: int) -> None:
    first = _answer_one_then(tmp_path, columns, signal.SIGINT)
    assert first.child.exitstatus == 130, first.log.getvalue()
    assert _journals(tmp_path) == []  # the person declined: nothing kept to resume
    again = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    again.expect("Choose 1-4 [1]: ")  # question 1, asked afresh
    assert "Resume?" not in again.log.getvalue()
    again.child.sendintr()
    again.expect_end()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_call_stopped_by_a_signal_is_still_offered_again(
    tmp_path: Path, stop: signal.Signals
) -> None:
    first = _answer_one_then(tmp_path, 80, stop)
    assert first.child.exitstatus == 128 + stop, first.log.getvalue()
    assert len(_journals(tmp_path)) == 1  # nobody declined: the answer waits to be resumed
    again = Terminal(["ask", str(LOGIN)], tmp_path, 80)
    again.expect("Resume? [Y/n] ")
    again.child.sendintr()
    again.expect_end()


# --- pasted lines never glue the result to a prompt ---------------------------------------


@pytest.mark.parametrize("columns", WIDTHS)
def test_a_pasted_call_with_its_answer_keeps_the_result_on_its_own_line(
    tmp_path: Path, columns: int
) -> None:
    library = json.dumps(json.loads((EXAMPLES / "library.json").read_text()))
    term = Pty(["ask"], tmp_path, columns)
    term.expect("Ctrl-D ends.")
    term.send(library + "\n2\n")  # the call and an answer typed before its question
    term.expect("(ignored what was typed before this question)")
    term.expect("Choose 1-4 [1]: ")
    time.sleep(0.2)
    term.send("2\n3\n")  # its answer, and a line pasted with it
    term.expect('"tool_use_id"')
    term.send("\x04")
    shown = term.finish()
    results = [line for line in shown.split("\n") if '"tool_use_id"' in line]
    assert [line[0] for line in results] == ["{"], shown  # one result, alone on its line
    assert json.loads(results[0])["content"].count("dayjs") == 1


# --- code in previews keeps its indent when wrapped ----------------------------------------

CODE = (
    "def handler(request):\n"
    '    if request.method == "POST":\n'
    '        return JSONResponse({"status": "ok", "items": [i.to_dict() for i in items]})\n'
    "    return redirect(next_url)"
)


def test_a_wrapped_code_line_hangs_under_its_own_indent() -> None:
    from askcli.terminal.rendering import wrap

    assert wrap(CODE, 40, hang="  ") == [
        "def handler(request):",
        '    if request.method == "POST":',
        '        return JSONResponse({"status":',
        '          "ok", "items": [i.to_dict()',
        "          for i in items]})",
        "    return redirect(next_url)",
    ]
    deep = wrap(" " * 36 + "x = compute(a, b, c, d, e, f)", 40)
    assert all(len(line) <= 40 for line in deep), deep  # at most half the width of indent


@pytest.mark.parametrize("columns", WIDTHS)
def test_a_preview_wraps_its_code_under_its_indent(tmp_path: Path, columns: int) -> None:
    doc = call(
        question(
            question="Which handler?",
            header="Handler",
            options=[option("JSON", "returns JSON", preview=CODE), option("HTML", "renders")],
        )
    )
    source = tmp_path / "call.json"
    source.write_text(json.dumps(doc))
    term = Terminal(["ask", str(source)], tmp_path, columns)
    term.expect("Choose 1-3: ")
    term.type("p 1")
    term.expect("--- end of preview ---")
    shown = term.log.getvalue().replace("\r\n", "\n")
    body = shown.split("--- preview of 1. JSON ---\n")[1].split("--- end of preview")[0]
    rows = body.rstrip("\n").split("\n")
    assert all(len(row) <= columns for row in rows), rows
    assert rows[0] == "def handler(request):"
    assert rows[1] == '    if request.method == "POST":'
    assert rows[2].startswith("        return JSONResponse(")
    if columns == 40:  # the rest of that line under its indent, after the wrap mark
        assert rows[3].startswith("        ↪ ") and rows[3][10] != " "
    assert rows[-1] == "    return redirect(next_url)"
    term.child.sendintr()
    term.expect_end()
