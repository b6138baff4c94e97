"""askcli acp and the agent's session config options (ACP ``configOptions``): shown one line
each when the session starts, set with --config ID=VALUE (session/set_config_option) before the
first prompt, the agent's config_option_update shown; --mode through the option of category
``mode`` when there is one. Against the scripted agent (tests/peers/acp_agent.py)."""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp import chunk, read_log, run, setup
from tests.support.processes import askcli_path

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

pytestmark = pytest.mark.process

OPTIONS: list[dict[str, Any]] = [
    {
        "id": "mode",
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": "default",
        "options": [
            {"value": "default", "name": "Manual", "description": "Always ask"},
            {"value": "plan", "name": "Plan", "description": "Read only"},
        ],
    },
    {
        "id": "model",
        "name": "Model",
        "category": "model",
        "type": "select",
        "currentValue": "small",
        "options": [  # in groups
            {"group": "fast", "name": "Fast", "options": [{"value": "small", "name": "Small"}]},
            {"group": "big", "name": "Big", "options": [{"value": "large", "name": "Large 2"}]},
        ],
    },
    {"id": "web", "name": "Web search", "type": "boolean", "currentValue": False},
]
SHOWN = (
    "(scripted 1.0 session sess-1)\n"
    "(config mode=default: default, plan)\n"
    "(config model=small: small, large)\n"
    "(config web=false: true, false)\n"
)


def go(tmp_path: Path, turns: list[list[dict[str, Any]]], *args: str, **script: Any) -> Any:
    script.setdefault("configOptions", copy.deepcopy(OPTIONS))
    tmp_path.mkdir(exist_ok=True)
    return run(tmp_path, turns, "", *args, "--prompt", "go", script=script)


def test_the_options_are_shown_when_the_session_starts(tmp_path: Path) -> None:
    r = go(tmp_path, [[chunk("hi")]])
    assert r.rc == 0, r.err
    assert r.err.startswith(SHOWN + "Agent: hi\n"), r.err
    assert "set_config_option" not in r.kinds()


def test_config_sets_each_option_before_the_first_prompt(tmp_path: Path) -> None:
    r = go(tmp_path, [[chunk("hi")]], "--config", "model=large", "--config", "web=true")
    assert r.rc == 0, r.err
    assert r.kinds() == [
        "initialize",
        "new_session",
        "set_config_option",
        "set_config_option",
        "prompt",
    ]
    assert r.log[2:4] == [
        {"set_config_option": ["model", "large"]},
        {"set_config_option": ["web", True]},  # a boolean option's value is sent as one
    ]
    # each option set shown once more, with its value now
    assert r.err.startswith(
        SHOWN + "(config model=large: small, large)\n(config web=true: true, false)\nAgent: hi\n"
    ), r.err


def test_a_value_already_current_is_not_set_again(tmp_path: Path) -> None:
    r = go(tmp_path, [[chunk("hi")]], "--config", "model=small")
    assert r.rc == 0, r.err
    assert "set_config_option" not in r.kinds()
    assert r.err.startswith(SHOWN + "Agent: hi\n"), r.err


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("modle=large", "the agent has no config option 'modle'; its options: mode, model, web"),
        (
            "model=huge\x1b[2J",
            "the agent's config option 'model' has no value 'huge\\x1b[2J'; "
            "its values: small, large (Large 2)",
        ),
        ("web=yes", "the agent's config option 'web' has no value 'yes'; its values: true, false"),
    ],
)
def test_an_option_or_value_the_agent_does_not_offer_is_refused(
    tmp_path: Path, setting: str, said: str
) -> None:
    # checked before anything is set: the good --config before it is not sent either
    r = go(tmp_path, [[chunk("hi")]], "--config", "mode=plan", "--config", setting)
    assert r.rc == 2, r.err
    assert f"askcli: {said}\n" in r.err, r.err
    assert "set_config_option" not in r.kinds()
    assert "prompt" not in r.kinds()
    assert "\x1b" not in r.err


def test_config_with_an_agent_that_offers_none(tmp_path: Path) -> None:
    r = go(tmp_path, [[chunk("hi")]], "--config", "model=large", configOptions=[])
    assert r.rc == 2, r.err
    assert "askcli: the agent has no config option 'model'; it offers no config options\n" in (
        r.err
    )
    assert "prompt" not in r.kinds()


@pytest.mark.parametrize("setting", ["model", "=large", ""])
def test_config_that_is_not_id_equals_value_is_a_usage_error(tmp_path: Path, setting: str) -> None:
    r = go(tmp_path, [[chunk("hi")]], "--config", setting)
    assert r.rc == 2, r.err
    assert f"'{setting}' is not ID=VALUE" in r.err, r.err
    assert r.log == []  # the agent was never started


def test_the_agents_updates_are_shown_the_changed_options_only(tmp_path: Path) -> None:
    later = copy.deepcopy(OPTIONS)
    later[0]["currentValue"] = "plan"
    later[2]["currentValue"] = True
    update = {"update": {"sessionUpdate": "config_option_update", "configOptions": later}}
    mode = {"update": {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}}
    r = go(tmp_path, [[chunk("planning"), mode, update, chunk("done")]])
    assert r.rc == 0, r.err
    # the mode update is the config option's: shown once, by the option's line
    assert (
        "Agent: planning\n(config mode=plan: default, plan)\n(config web=true: true, false)\n"
        "Agent: done\n"
    ) in r.err, r.err
    assert "(mode:" not in r.err


def test_mode_sets_the_option_of_category_mode_when_there_is_one(tmp_path: Path) -> None:
    modes = {
        "currentModeId": "default",
        "availableModes": [{"id": "default", "name": "Manual"}, {"id": "plan", "name": "Plan"}],
    }
    r = go(tmp_path, [[chunk("hi")]], "--mode", "plan", modes=modes)
    assert r.rc == 0, r.err
    assert "set_mode" not in r.kinds()
    assert r.log[2] == {"set_config_option": ["mode", "plan"]}
    assert "(config mode=plan: default, plan)\nAgent: hi\n" in r.err
    unknown = go(tmp_path / "b", [[chunk("hi")]], "--mode", "fast", modes=modes)
    assert unknown.rc == 2, unknown.err
    assert "askcli: the agent has no mode 'fast'; its modes: default, plan\n" in unknown.err
    # with config options only, the modes are the option's values
    alone = go(tmp_path / "c", [[chunk("hi")]], "--mode", "fast")
    assert alone.rc == 2, alone.err
    assert (
        "askcli: the agent has no mode 'fast'; its modes: default (Always ask), plan (Read only)\n"
    ) in alone.err


def test_options_are_escaped_and_cut_to_the_width(tmp_path: Path) -> None:
    options = [
        {
            "id": "look\x1b]0;x\x07",
            "name": "Look",
            "type": "select",
            "currentValue": "a\nb",
            "options": [{"value": "a\nb", "name": "A"}, {"value": "c", "name": "C"}],
        },
        {
            "id": "model",
            "name": "Model",
            "type": "select",
            "currentValue": "default",
            "options": [{"value": v, "name": v} for v in ["default", "opus", "fable", "haiku"]],
        },
        {"id": "broken", "type": "select"},  # not an option: left out
    ]
    agent, log = setup(tmp_path, [[chunk("hi")]], configOptions=options)
    proc = subprocess.run(
        [str(askcli_path()), "acp", "--prompt", "go", "--", *agent],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env=os.environ | {"COLUMNS": "40"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[1:3] == [
        "(config look\\x1b]0;x\\x07=a\\nb: a\\nb, c)",
        "(config model=default: default, opus, …)",
    ], proc.stderr
    assert all(len(line) <= 40 for line in lines[1:3])
    assert "broken" not in proc.stderr
    assert read_log(log)[1] == {"new_session": {"cwd": str(tmp_path)}}


def test_config_is_recorded_and_replayed(tmp_path: Path) -> None:
    from askcli import fixtures

    record = tmp_path / "config.json"
    r = go(tmp_path, [[chunk("hi")]], "--record", str(record), "--config", "model=large")
    assert r.rc == 0, r.err
    fixture = fixtures.load(record)
    assert fixture["acp"]["config"] == [["model", "large"]]
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    assert any(
        e.get("request") == "session/set_config_option"
        and e["params"] == {"sessionId": "sess-1", "configId": "model", "value": "large"}
        for e in fixture["acp"]["sent"]
    ), fixture["acp"]["sent"]
    proc = subprocess.run(
        [str(askcli_path()), "replay", str(record)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
