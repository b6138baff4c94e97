"""Real AskUserQuestion calls from Claude Code sessions (tests/corpus/).

Every call must validate and be answerable; where Claude Code recorded the person's
answers, typing the same choices into askcli must give the same result text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from askcli.runners.recordings import play
from askcli.schema.inputs import parse_ask as parse_input
from askcli.wire.results import REJECT_MESSAGE

from tests.support.paths import ROOT

CORPUS = sorted((ROOT / "tests" / "corpus").glob("aq-*.json"))
ANSWERED_PREFIX = "User has answered your questions: "
ANSWERED_SUFFIX = ". You can now continue with the user's answers in mind."


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def recorded_answers(questions: list[dict[str, Any]], content: str) -> dict[str, str]:
    """Question text -> answer, in the order Claude Code's result text lists them."""
    body = content[len(ANSWERED_PREFIX) : -len(ANSWERED_SUFFIX)]
    starts = sorted((body.index(f'"{q["question"]}"="'), q["question"]) for q in questions)
    answers = {}
    for n, (at, text) in enumerate(starts):
        end = starts[n + 1][0] - 2 if n + 1 < len(starts) else len(body)
        answers[text] = body[at + len(text) + 4 : end - 1]
    return answers


def lines_for(question: dict[str, Any], answer: str) -> list[str]:
    """The answer lines a person types to give ``answer``."""
    labels = [o["label"] for o in question["options"]]
    other = len(labels) + 1
    if answer in labels:
        return [str(labels.index(answer) + 1)]
    if not question.get("multiSelect"):
        return [str(other), answer]
    numbers, rest = [], answer
    while rest:
        fits = [lab for lab in labels if rest == lab or rest.startswith(lab + ", ")]
        if not fits:
            break
        label = max(fits, key=len)
        numbers.append(str(labels.index(label) + 1))
        rest = rest[len(label) + 2 :]
    if rest:
        return [",".join([*numbers, str(other)]), rest]
    return [",".join(numbers)]


def test_the_corpus_is_here() -> None:
    assert len(CORPUS) == 43  # the AskUserQuestion calls


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_real_call_validates(path: Path) -> None:
    parse_input(load(path)["tool_use"]["input"])


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_typing_the_recorded_choices_gives_claude_codes_result(path: Path) -> None:
    record = load(path)
    tool_use, recorded = record["tool_use"], record["tool_result"]
    questions = tool_use["input"]["questions"]
    if recorded["content"] == REJECT_MESSAGE:
        lines = ["q"]
    else:
        answers = recorded_answers(questions, recorded["content"])
        by_text = {q["question"]: q for q in questions}
        if list(answers) == [q["question"] for q in questions]:
            lines = [
                line
                for text, answer in answers.items()
                for line in lines_for(by_text[text], answer)
            ]
        else:  # answered out of order: skip them all, then answer each from the review
            lines = ["s"] * len(questions)
            for text, answer in answers.items():
                lines.append(str(questions.index(by_text[text]) + 1))
                lines += lines_for(by_text[text], answer)
        if len(questions) > 1 or any(q.get("multiSelect") for q in questions):
            lines.append("")  # submit at the review
    outcome = play(calls=[tool_use], answers=lines)
    (line,) = outcome.stdout
    result = json.loads(line)
    assert result["content"] == recorded["content"]
    assert result["tool_use_id"] == recorded["tool_use_id"]
    assert result.get("is_error", False) == recorded.get("is_error", False)
    assert "Traceback" not in outcome.stderr
