"""askcli acp with the current claude-agent-acp (0.101.0, Claude Code 2.1.318 inside) against
the stand-in API (tests/peers/mock_anthropic.py): AskUserQuestion as an ACP form in whole
sessions at a terminal (80 columns, and 40), the person's answer reaching the model byte for
byte, recorded and replayed; its session config options shown and set with --config."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp_sessions import Terminal, last_tool_results, replays_the_same, sent_answers
from tests.support.processes import askcli_path
from tests.support.real_agents import ADAPTER_CURRENT, claude_env, needs_adapter_current, stand_in

pytestmark = needs_adapter_current

QUESTIONS = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "multiSelect": False,
            "options": [
                {"label": "Postgres", "description": "server"},
                {"label": "SQLite", "description": "file"},
            ],
        },
        {
            "question": "Which features?",
            "header": "Features",
            "multiSelect": True,
            "options": [
                {"label": "Auth", "description": "sign-in"},
                {"label": "Search", "description": "full text"},
                {"label": "Audit", "description": "who did what"},
            ],
        },
    ]
}
CAREFULLY = (
    " Read the answers carefully \u2014 they may request clarification, changes, or that you "
    "not proceed \u2014 and follow what they actually say."
)


def asking(questions: dict[str, Any]) -> list[dict[str, Any]]:
    """The stand-in's turns: AskUserQuestion, then the final text."""
    ask = {"type": "tool_use", "id": "toolu_ask_1", "name": "AskUserQuestion", "input": questions}
    return [
        {"content": [ask], "stop_reason": "tool_use"},
        {"content": [{"type": "text", "text": "Noted."}], "stop_reason": "end_turn"},
    ]


@pytest.fixture
def work() -> Iterator[Path]:
    """A short folder, so that its path fits a line of 40 columns."""
    path = Path(os.path.realpath(tempfile.mkdtemp(prefix="w", dir="/tmp")))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@contextmanager
def session(
    tmp_path: Path, work: Path, columns: int, args: list[str], turns: list[dict[str, Any]]
) -> Iterator[tuple[Terminal, Path]]:
    """askcli acp with the adapter in a pty ``columns`` wide: (the terminal, the stand-in's
    request log)."""
    with stand_in(tmp_path, turns) as (port, log):
        term = Terminal([*args, "--", str(ADAPTER_CURRENT)], work, claude_env(work / ".h", port))
        term.child.setwinsize(50, columns)
        try:
            yield term, log
        finally:
            term.kill()


def answered(log: Path) -> dict[str, Any]:
    """The tool_result that answered AskUserQuestion, as the model received it."""
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    results = [b for r in requests for b in last_tool_results(r) if r["request"].get("tools")]
    assert [b["tool_use_id"] for b in results] == ["toolu_ask_1"], results
    return results[0]


def own_lines(screen: str) -> list[str]:
    """askcli's lines of the screen, the agent's stderr (as long as it came) left out."""
    return [line for line in screen.splitlines() if not line.startswith("(agent stderr)")]


def too_wide(screen: str, columns: int, *typed: str) -> list[str]:
    """The lines of askcli's screens wider than ``columns``: the session's line (its id),
    the saved path and what the person typed (the terminal folds them) aside."""
    return [
        line
        for line in own_lines(screen)
        if len(line) > columns
        and not line.startswith(("(Claude Agent ", "askcli: recorded "))
        and not any(line.endswith(t) for t in typed)
    ]


def test_form_session_at_80_columns_reaches_the_model_recorded_and_replayed(
    tmp_path: Path, work: Path
) -> None:
    record = tmp_path / "form.json"
    args = ["--record", str(record), "--config", "mode=default"]
    with session(tmp_path, work, 80, args, asking(QUESTIONS)) as (term, log):
        term.prompt()
        term.type("plan the app")
        term.expect("Choose 1-3: ")
        term.type("2")
        term.expect("several allowed (e.g. 1,3): ")
        term.type("1,3")
        term.expect("Submit? [y]: ")
        term.type("y")
        term.expect("-- turn done")
        term.prompt()
        assert term.ctrl_d() == 0, term.screen
        result = answered(log)
    screen = "\n".join(own_lines(term.screen))
    assert (
        "(config mode=auto: default, acceptEdits, plan, auto)\n"
        "(config model=default: default, opus, fable, sonnet, haiku)\n"
        "(config effort=default: default, low, medium, high, xhigh, max)\n"
        "(config fast=off: on, off)\n"
        "(config ultracode=off: on, off)\n"
        "(config mode=default: default, acceptEdits, plan, auto)\n"
        "(type a message to the agent, then Enter; Ctrl-C stops a turn, Ctrl-D ends)\n"
        "> plan the app\n"
    ) in screen, screen
    assert (
        "[DB] Which database?   (question 1 of 2)\n"
        "  1. Postgres - server\n"
        "  2. SQLite - file\n"
        "  3. Other - type your own answer\n"
        "  (keys: 1-3 choose, ? help, q decline)\n"
        "Choose 1-3: 2\n"
    ) in screen, screen
    assert "[Features] Which features?   (question 2 of 2)\n  1. Auth - sign-in\n" in screen
    assert too_wide(term.screen, 80) == [], screen
    # what the model read, byte for byte (the words Claude Code chose for answers picked
    # from the options; an answer typed at Other gets others, see below)
    assert result["content"] == (
        'Your questions have been answered: "Which database?"="SQLite", '
        '"Which features?"="Auth, Audit". You can now continue with these answers in mind.'
    )
    assert not result.get("is_error")
    assert sent_answers(record) == [
        {"action": "accept", "content": {"question_0": "SQLite", "question_1": ["Auth", "Audit"]}}
    ]
    replays_the_same(record)


def test_form_session_at_40_columns(tmp_path: Path, work: Path) -> None:
    one = {"questions": QUESTIONS["questions"][:1]}
    with session(tmp_path, work, 40, ["--config", "mode=default"], asking(one)) as (term, log):
        term.prompt()
        term.type("pick")
        term.expect("Choose 1-3: ")
        term.type("3")
        term.expect("Other, type your answer: ")
        term.type("DuckDB, in-process")
        term.expect("-- turn done")
        term.prompt()
        assert term.ctrl_d() == 0, term.screen
        result = answered(log)
    lines = own_lines(term.screen)
    assert too_wide(term.screen, 40, "DuckDB, in-process") == [], term.screen
    assert "(config model=default: default, opus, …)" in lines, term.screen
    assert "  1. Postgres - server" in lines, term.screen
    assert result["content"] == 'The user answered: "Which database?"="DuckDB, in-process".' + (
        CAREFULLY
    )


def run_config(tmp_path: Path, *config: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    turns = [{"content": [{"type": "text", "text": "Hello."}], "stop_reason": "end_turn"}]
    with stand_in(tmp_path, turns) as (port, log):
        work = tmp_path / "work"
        work.mkdir()
        proc = subprocess.run(
            [str(askcli_path()), "acp", "--prompt", "hi", *config, "--", str(ADAPTER_CURRENT)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=work,
            env=claude_env(tmp_path / "home", port),
        )
    return proc, log


def test_config_sets_the_model_the_requests_then_name(tmp_path: Path) -> None:
    proc, log = run_config(tmp_path, "--config", "model=haiku", "--config", "effort=low")
    assert proc.returncode == 0, proc.stderr
    # in auto mode (0.101.0's first), Claude Code warns of its billing through a stand-in:
    # a notice, not the turn's text
    assert "\nNotice: **Warning:** We're changing auto mode" in proc.stderr, proc.stderr
    assert "(config model=haiku: default, opus, fable, sonnet, haiku)\n" in proc.stderr
    assert "(config effort=low: " in proc.stderr
    assert proc.stdout == "Hello.\n"
    loop = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    models = {r["model"] for r in loop if r.get("tools")}
    assert len(models) == 1 and "haiku" in models.pop(), loop


def test_config_value_the_agent_does_not_offer_lists_its_values(tmp_path: Path) -> None:
    proc, log = run_config(tmp_path, "--config", "model=gpt-9")
    assert proc.returncode == 2, proc.stderr
    assert (
        "askcli: the agent's config option 'model' has no value 'gpt-9'; its values: "
        "default (Default (recommended)), opus (Opus 5.5), fable (Fable 5.1), "
        "sonnet (Sonnet 5.5), haiku (Haiku 5.5)\n"
    ) in proc.stderr, proc.stderr
    assert not [line for line in log.read_text().splitlines() if '"tools"' in line]
