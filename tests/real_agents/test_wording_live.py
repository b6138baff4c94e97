"""``--wording claude-code`` confirmed against the real Claude Code 2.1.332.

Each case runs ``askcli claude --wording claude-code`` with the real 2.1.332 (``make
claude-code-current`` installs it; ``ASKCLI_CLAUDE_CURRENT_BIN`` names another copy) against the
stand-in Anthropic API: the stand-in model calls AskUserQuestion once, the answer lines come on
stdin, and the tool_result Claude Code sends back in its next request (the stand-in's log) must be
byte for byte what ``askcli ask --wording claude-code`` prints for the same call and the same
lines. The tool definition Claude Code sends must be ``askcli schema --format claude-code``.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from askcli.runners.recordings import play
from askcli.wire.wording import texts

from tests.support.claude import (
    FOREIGN,
    VERSION,
    Api,
    current_claude_code,  # noqa: F401 (autouse: Claude Code 2.1.332 or a skip)
)
from tests.support.processes import run_askcli
from tests.support.real_agents import CURRENT

EXTENDED = {"CLAUDE_CODE_QUESTION_EXTENDED": "1"}
CLEAN = "You can now continue with these answers in mind."


@dataclass
class Live:
    """One session of askcli claude with the real Claude Code, as the stand-in API saw it."""

    proc: subprocess.CompletedProcess[str]
    results: dict[str, dict[str, Any]]  # the tool_result blocks sent to the model, by id
    requests: list[dict[str, Any]]  # every request body Claude Code sent
    record: dict[str, Any] | None  # the session as askcli claude --record saved it

    def tool(self, name: str) -> dict[str, Any]:
        """The ``tools`` entry for ``name`` in Claude Code's first request."""
        (first, *_) = (r for r in self.requests if r.get("tools"))
        (entry,) = (t for t in first["tools"] if t.get("name") == name)
        return dict(entry)


def live(
    tmp_path: Path,
    content: list[dict[str, Any]],
    answers: list[str],
    env: dict[str, str] | None = None,
    record: bool = False,
) -> Live:
    """A turn where the stand-in model sends ``content`` (then ends the turn), hosted by
    askcli claude with the answer lines on stdin."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    api = Api(tmp_path, [{"content": content, "stop_reason": stop}], claude_bin=CURRENT)
    for name in [*FOREIGN, *(n for n in api.env if n.startswith("CLAUDE_CODE_QUESTION_"))]:
        api.env.pop(name, None)
    api.env.update(env or {})
    saved = tmp_path / "session.json"
    args = ["--wording", "claude-code", *(["--record", str(saved)] if record else [])]
    try:
        proc = api.run(
            tmp_path / "work",
            *args,
            "answer my questions",
            input="".join(a + "\n" for a in answers),
        )
        results = api.tool_results()
        requests = [json.loads(line)["request"] for line in api.log.read_text().splitlines()]
    finally:
        api.stop()
    return Live(proc, results, requests, json.loads(saved.read_text()) if record else None)


def asked(tool_id: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "AskUserQuestion", "input": tool_input}


def askcli_ask(call: dict[str, Any], answers: list[str]) -> dict[str, Any]:
    """The tool_result askcli ask --wording claude-code prints for ``call`` and ``answers``."""
    outcome = play(calls=[call], answers=answers, wording="claude-code")
    assert len(outcome.stdout) == 1, outcome.stderr
    result: dict[str, Any] = json.loads(outcome.stdout[0])
    return result


def confirm(tmp_path: Path, call: dict[str, Any], answers: list[str], **kw: Any) -> Live:
    """Claude Code's tool_result for the call, answered by askcli claude, is askcli ask's."""
    session = live(tmp_path, [call], answers, **kw)
    proc = session.proc
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Done.\n", proc.stderr  # the turn went on to the stand-in's end
    got = session.results[call["id"]]
    want = askcli_ask(call, answers)
    assert got["content"] == want["content"], (
        f"Claude Code {VERSION} sent the model:\n{got['content']}\n"
        f"askcli ask --wording claude-code prints:\n{want['content']}"
    )
    assert got.get("is_error", False) == want.get("is_error", False)
    return session


def option(label: str, description: str = "", **extra: Any) -> dict[str, Any]:
    return {"label": label, "description": description or label.lower(), **extra}


COLOR = {
    "question": "Which color?",
    "header": "Color",
    "options": [option("Red", "warm"), option("Blue", "cool")],
    "multiSelect": False,
}
SIZES = {
    "question": "Which sizes?",
    "header": "Sizes",
    "options": [option("S", "small"), option("M", "medium"), option("L", "large")],
    "multiSelect": True,
}
TWO = {"questions": [COLOR, SIZES]}
COMMA = {
    "questions": [
        {
            "question": "Which toppings?",
            "header": "Toppings",
            "options": [option("Salt, pepper"), option("Oil"), option("Vinegar, malt")],
            "multiSelect": True,
        }
    ]
}
QUOTE = {
    "questions": [
        {
            "question": "Which boxes?",
            "header": "Boxes",
            "options": [option('The "big" one'), option("Small"), option("Flat")],
            "multiSelect": True,
        }
    ]
}
PREVIEW = {
    "questions": [
        {
            "question": "Which layout?",
            "header": "Layout",
            "options": [
                option("Grid", "cards", preview="+--+--+\n|a |b |\n+--+--+"),
                option("List", "rows", preview="- a\n- b"),
            ],
            "multiSelect": False,
        }
    ]
}

# name: (the call's input, the answer lines typed)
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "all labels": (TWO, ["1", "1,2", ""]),
    "other text": (TWO, ["3", "Green please", "2", ""]),
    "notes": (TWO, ["n a darker red", "1", "2", ""]),
    "notes, no option": (TWO, ["n not sure yet", "s", "2", ""]),
    "one left unanswered": (TWO, ["1", "s", ""]),
    "nothing answered": (TWO, ["s", "s", ""]),
    "response": (TWO, ["r Let's discuss this first."]),
    "response after answers": (TWO, ["1", "r Also use blue accents."]),
    "more, with answers": (TWO, ["1", "2", "m"]),
    "more, with answers and words": (TWO, ["1", "s", "m Ask me about fonts too"]),
    "more, nothing answered": (TWO, ["m"]),
    "more, nothing answered, words": (TWO, ["m Ask me about fonts too"]),
    "labels holding ', '": (COMMA, ["1,2,3", ""]),
    "a label holding a quote": (QUOTE, ["2,1", ""]),
    "a preview chosen": (PREVIEW, ["1"]),
}


@pytest.mark.parametrize("name", CASES)
def test_claude_code_sends_the_model_askcli_s_text(name: str, tmp_path: Path) -> None:
    tool_input, answers = CASES[name]
    confirm(tmp_path, asked("toolu_live", tool_input), answers)


@pytest.mark.parametrize(
    ("env", "form"),
    [({}, "claude-code"), (EXTENDED, "claude-code-extended")],
    ids=["standard", "extended"],
)
def test_the_tool_claude_code_defines_is_askcli_s_schema(
    env: dict[str, str], form: str, tmp_path: Path
) -> None:
    session = live(tmp_path, [{"type": "text", "text": "Done."}], [], env=env)
    assert session.proc.returncode == 0, session.proc.stderr
    ours = json.loads(run_askcli("schema", "--format", form).stdout)
    assert session.tool("AskUserQuestion") == ours


@pytest.mark.parametrize(
    ("answers", "left"),
    [(["1", "s", ""], "skipped"), (["1", "r never mind"], "replied_in_chat")],
    ids=["skipped", "replied in chat"],
)
def test_claude_code_takes_the_unanswered_annotation(
    answers: list[str], left: str, tmp_path: Path
) -> None:
    """2.1.332 lists the capability; askcli sends ``unanswered``; Claude Code keeps it in
    the tool's data and gives the model the normal text, not a refusal."""
    session = confirm(tmp_path, asked("toolu_left", TWO), answers, record=True)
    assert session.record is not None
    received = session.record["claude"]["received"]
    (init,) = (m for m in received if m.get("type") == "system" and m.get("subtype") == "init")
    assert texts.UNANSWERED_CAPABILITY in init["capabilities"]
    (data,) = (m["tool_use_result"] for m in received if m.get("type") == "user")
    assert data["annotations"] == {"Which sizes?": {"unanswered": left}}
    assert data["answers"] == {"Which color?": "Red"}


DECK = {
    "title": "Before I build your deck",
    "questions": [
        {"question": "Which color?", "header": "Color", "options": [option("Red"), option("Blue")]},
        {
            "question": "What should the deck be called?",
            "header": "Title",
            "kind": "text",
            "placeholder": "e.g. Q3 review",
        },
        {
            "question": "How many slides?",
            "header": "Slides",
            "kind": "number",
            "min": 1,
            "max": 20,
            "step": 1,
            "defaultValue": 8,
            "unit": "slides",
        },
    ],
}


@pytest.mark.parametrize(
    "answers",
    [["1", "Roadmap", "12", ""], ["2", "s", "3", ""]],
    ids=["text answered (careful)", "number alone (clean)"],
)
def test_an_extended_call_under_claude_code_question_extended(
    answers: list[str], tmp_path: Path
) -> None:
    confirm(tmp_path, asked("toolu_deck", DECK), answers, env=EXTENDED)


@pytest.mark.parametrize(
    ("answers", "left", "text"),
    [
        (["1", "c what sizes?"], "replied_in_chat", "The user responded: what sizes?"),
        (["1"], "dismissed", f'Your questions have been answered: "Which color?"="Red". {CLEAN}'),
    ],
    ids=["chat about this", "dismissed"],
)
def test_claude_code_takes_chat_about_this_and_a_dismissal_as_unanswered(
    answers: list[str], left: str, text: str, tmp_path: Path
) -> None:
    """``c`` and answers that end (the card closed) go to 2.1.332 as an allow whose
    annotations say why; the stand-in model gets Claude Code's text for the answers."""
    session = live(tmp_path, [asked("toolu_chat", TWO)], answers, record=True)
    assert session.results["toolu_chat"]["content"] == text, session.proc.stderr
    assert not session.results["toolu_chat"].get("is_error")  # a refused answer is an error
    assert session.record is not None
    (sent,) = (m for m in session.record["claude"]["sent"] if m["type"] == "control_response")
    updated = sent["response"]["response"]["updatedInput"]
    assert updated["annotations"] == {"Which sizes?": {"unanswered": left}}
    if left == "replied_in_chat":  # askcli claude still reads Claude Code's echo of the tool
        received = session.record["claude"]["received"]  # (after a dismissal it has stopped)
        (data,) = (m["tool_use_result"] for m in received if m.get("type") == "user")
        assert data["annotations"] == {"Which sizes?": {"unanswered": left}}
        assert data["answers"] == {"Which color?": "Red"}
