"""Layout at any width: options, titles and previews wrap with hanging indents; a label and
its description are never confused; nothing breaks mid-word where a space is at hand."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
import pytest

from askcli.schema.inputs import parse_ask
from askcli.terminal.rendering import Style, display_width
from askcli.terminal.screens import option_lines, preview_block, question_block, refusal

from tests.support.calls import call, option, question
from tests.support.paths import CORPUS
from tests.support.terminals import Terminal


def test_a_label_and_description_that_fit_share_a_line() -> None:
    assert option_lines(1, "Node", "The team knows it", Style(width=80)) == [
        "  1. Node - The team knows it"
    ]


def test_a_description_that_does_not_fit_goes_on_its_own_line_under_the_label() -> None:
    rows = option_lines(2, "JWT (Recommended)", "Signed tokens, nothing to store", Style(40))
    assert rows == ["  2. JWT (Recommended)", "     Signed tokens, nothing to store"]


def test_a_label_holding_a_dash_always_gets_its_description_below() -> None:
    rows = option_lines(1, "Minimal - version only", "Focus on versions", Style(width=80))
    assert rows == ["  1. Minimal - version only", "     Focus on versions"]


def test_long_labels_and_descriptions_wrap_under_themselves() -> None:
    label = "Read-only access for every service account in the organisation"
    rows = option_lines(3, label, "word " * 30, Style(width=40))
    assert all(display_width(row) <= 40 for row in rows)
    assert rows[0].startswith("  3. Read-only")
    assert all(row.startswith("     ") for row in rows[1:])
    assert " ".join(row.strip() for row in rows).startswith("3. " + label)


def test_the_label_is_bold_with_colour() -> None:
    rows = option_lines(1, "Node", "fast", Style(width=80, colour=True))
    assert rows == ["  \x1b[1m1.\x1b[0m \x1b[1mNode\x1b[0m - fast"]


@pytest.mark.parametrize("width", [80, 40, 20])
def test_every_line_of_a_question_fits_the_width(width: int) -> None:
    q = question(
        text="Which authentication method should the login use for the public API? " * 2,
        header="Authentication",
        labels=("JWT (Recommended)", "Session cookie with a very long explanation"),
    )
    data = parse_ask(call(q)["input"])
    text = question_block(data.questions[0], 0, 1, Style(width=width))
    for row in text.split("\n"):
        assert display_width(row) <= width, row
    title_rows = text.split("\n")[1:3]
    assert title_rows[1].startswith("  ")  # the title goes on under a hanging indent


def test_a_preview_wraps_and_keeps_the_indent_of_code() -> None:
    code = "def f():\n    return compute(" + ", ".join(f"arg{n}" for n in range(12)) + ")"
    q = {"question": "Q?", "header": "h", "options": [option("a", "", preview=code), option("b")]}
    data = parse_ask(call(q)["input"])
    text = preview_block(data.questions[0], 1, Style(width=40))
    rows = text.split("\n")
    assert all(display_width(row) <= 40 for row in rows)
    assert [row for row in rows if row.startswith("    ")][1:]  # continuation kept indented
    missing = preview_block(data.questions[0], 2, Style(width=20))
    assert all(display_width(row) <= 20 for row in missing.split("\n"))


def test_a_wrapped_preview_line_goes_on_under_the_mark_permission_prompts_use() -> None:
    code = "def f():\n    return compute(" + ", ".join(f"arg{n}" for n in range(12)) + ")\nok ↪ x"
    q = {"question": "Q?", "header": "h", "options": [option("a", "", preview=code), option("b")]}
    data = parse_ask(call(q)["input"])
    rows = preview_block(data.questions[0], 1, Style(width=40)).split("\n")
    body = rows[1:-2]
    assert body[0] == "def f():"
    assert body[1].startswith("    return compute(")
    assert len(body) > 3 and all(row.startswith("    ↪ ") for row in body[2:-1]), body
    assert body[-1] == "ok \\u21aa x"  # a preview cannot forge the mark
    wide = preview_block(data.questions[0], 1, Style(width=200)).split("\n")
    assert not any("↪" in row for row in wide)


@pytest.mark.pty
@pytest.mark.parametrize("columns", ["80", "40"])
def test_at_a_terminal_the_layout_follows_the_width(tmp_path: Path, columns: str) -> None:
    q = question(
        text="Which authentication method should the login use?",
        header="Auth",
        labels=("JWT (Recommended)", "Session cookie"),
    )
    q["options"][0]["description"] = "Signed tokens, nothing to store"
    path = tmp_path / "call.json"
    path.write_text(json.dumps(call(q)))
    term = Terminal(["ask", str(path)], tmp_path, COLUMNS=columns)
    if columns == "80":
        term.expect("  1. JWT (Recommended) - Signed tokens, nothing to store\r\n")
        term.expect("  2. Session cookie - about Session cookie\r\n")
    else:
        term.expect("  1. JWT (Recommended)\r\n     Signed tokens, nothing to store\r\n")
        term.expect("  2. Session cookie\r\n     about Session cookie\r\n")
    term.type("2")
    status, reply = term.finish()
    assert status == 0
    assert '"Session cookie"' in reply["content"]


def test_one_option_that_needs_its_own_lines_puts_every_description_below() -> None:
    q = question(labels=("Minimal - cookie", "JWT"))
    data = parse_ask(call(q)["input"])
    text = question_block(data.questions[0], 0, 1, Style(width=80))
    assert "  1. Minimal - cookie\n     about Minimal - cookie\n" in text
    assert "  2. JWT\n     about JWT\n" in text
    assert "  3. Other\n     type your own answer\n" in text


def test_a_refusal_wraps_under_a_hanging_indent() -> None:
    reason = "there is no option 7; choose from 1-4, or type ? for help with the answers"
    rows = refusal(reason, Style(width=40)).rstrip("\n").split("\n")
    assert rows[0].startswith("! there is no option 7;")
    assert all(display_width(row) <= 40 for row in rows)
    assert all(row.startswith("  ") and not row.startswith("   ") for row in rows[1:])
    assert " ".join(row.strip(" !") for row in rows) == reason


@pytest.mark.pty
@pytest.mark.parametrize("columns", ["80", "40"])
def test_the_prompt_leaves_room_to_type_on_its_line(tmp_path: Path, columns: str) -> None:
    q = question(
        text="Which extras?", header="Extras", labels=("Lint", "Types", "Docs"), multi=True
    )
    path = tmp_path / "call.json"
    path.write_text(json.dumps(call(q)))
    term = Terminal(["ask", str(path)], tmp_path, COLUMNS=columns)
    if columns == "80":
        term.expect("Choose 1-4, several allowed (e.g. 1,3): ")
    else:
        term.expect("Several of 1-4 (e.g. 1,3): ")
    term.type("7")
    term.expect("! there is no option 7")
    term.type("3,1")
    term.expect("Submit? [y]: ")
    term.type("")
    status, reply = term.finish()
    assert status == 0
    assert '"Docs, Lint"' in reply["content"]


@pytest.mark.pty
@pytest.mark.parametrize("columns", ["80", "40"])
def test_the_permission_prompt_leaves_room_to_type(tmp_path: Path, columns: str) -> None:
    path = tmp_path / "bash.json"
    bash = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "make"}}
    path.write_text(json.dumps(bash))
    term = Terminal(["ask", str(path)], tmp_path, COLUMNS=columns)
    if columns == "80":
        term.expect("Allow? 1 or 3 (y/n): ")
    else:
        term.expect("  3. No, and tell the agent what to do\r\n     instead\r\n")
        term.expect("Allow? 1 or 3 (y/n): ")
    term.type("1")
    status, reply = term.finish()
    assert status == 0
    assert reply["behavior"] == "allow"


# the real calls whose first question is taller than a 24-line terminal at 40 columns
TALL_AT_40 = ["aq-16", "aq-17", "aq-22", "aq-23", "aq-26", "aq-39", "aq-42", "aq-46", "aq-53"]


@pytest.mark.pty
@pytest.mark.parametrize("columns", ["80", "40"])
@pytest.mark.parametrize("name", TALL_AT_40)
def test_a_real_tall_question_takes_2_as_its_answer(
    tmp_path: Path, columns: str, name: str
) -> None:
    tool_use = json.loads((CORPUS / f"{name}.json").read_text())["tool_use"]
    path = tmp_path / "call.json"
    path.write_text(json.dumps(tool_use))
    term = Terminal(["ask", str(path)], tmp_path, COLUMNS=columns, LINES="24")
    term.child.expect_exact(["Choose 1-", "Several of 1-"])
    term.type("2")
    try:
        if term.child.expect_exact(["(question 2 of", "Submit? [y]: "]) == 0:
            # Ctrl-C at question 2's prompt, once it is drawn whole
            term.child.expect_exact(["Choose 1-", "Several of 1-"])
            term.child.expect_exact(": ")
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"2 was not taken as the answer; the terminal showed:\n{term.log.getvalue()}")
    shown = term.log.getvalue()
    assert "--more--" not in shown
    assert "\n! " not in shown.replace("\r", "")
    term.child.sendintr()
    status, reply = term.finish()
    assert status == 130
    first = tool_use["input"]["questions"][0]
    assert f'"{first["question"]}"="{first["options"][1]["label"]}"' in reply["content"]


@pytest.mark.pty
@pytest.mark.parametrize("columns", ["80", "40"])
def test_wide_characters_wrap_by_their_columns_at_a_terminal(tmp_path: Path, columns: str) -> None:
    q = question(text="哪个？" * 20, header="选择", labels=("🇯🇵 日本", "🇫🇷 法国"))
    path = tmp_path / "call.json"
    path.write_text(json.dumps(call(q)))
    term = Terminal(["ask", str(path)], tmp_path, COLUMNS=columns)
    term.expect("Choose 1-3: ")
    for row in term.log.getvalue().replace("\r", "").split("\n"):
        assert display_width(row) <= int(columns), row
    term.type("1")
    status, reply = term.finish()
    assert status == 0 and "🇯🇵 日本" in reply["content"]
