"""Code in a preview keeps its indent when it wraps, in process and at a terminal (issue 21, item
8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.calls import call, option, question
from tests.support.terminals import Terminal

WIDTHS = [80, 40]


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


@pytest.mark.pty
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
