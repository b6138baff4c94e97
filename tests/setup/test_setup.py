"""askcli setup AGENT and askcli doctor: the config each agent reads, merged and taken out.

In-process for the merge, undo, idempotence, dry run and bad files of each agent's format;
end to end through the installed askcli with HOME in a temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from askcli.setup import configs as setup
from askcli.setup import doctor

from tests.support.processes import askcli_path, poll, run_askcli
from tests.support.teams import Team

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ASKCLI = "/opt/ask cli/bin/askcli"  # a space: the hook command is quoted for the shell
JSON_AGENTS = ("claude-code", "gemini", "opencode")


def apply(agent: str, home: Path, *, undo: bool = False) -> setup.Plan:
    planned = setup.plan(agent, ASKCLI, home, undo=undo)
    if planned.changes:
        setup.write(planned)
    return planned


def test_claude_code_keeps_every_other_key_and_hook(tmp_path: Path) -> None:
    path = setup.config_path("claude-code", tmp_path)
    path.parent.mkdir()
    theirs = {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
    before = {"model": "opus", "hooks": {"PreToolUse": [theirs], "Stop": [theirs]}, "env": {}}
    path.write_text(json.dumps(before))
    path.chmod(0o640)
    planned = apply("claude-code", tmp_path)
    assert planned.said == "added the PreToolUse hook; added the PermissionRequest hook"
    doc = json.loads(path.read_text())
    hook = {"type": "command", "command": "'/opt/ask cli/bin/askcli' hook", "timeout": 3600}
    assert doc == {
        "model": "opus",
        "hooks": {
            "PreToolUse": [theirs, {"matcher": "AskUserQuestion", "hooks": [hook]}],
            "Stop": [theirs],
            "PermissionRequest": [{"matcher": "*", "hooks": [hook]}],
        },
        "env": {},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    backup = tmp_path / ".claude" / "settings.json.askcli-backup"
    assert json.loads(backup.read_text()) == before
    assert not setup.plan("claude-code", ASKCLI, tmp_path).changes  # idempotent
    apply("claude-code", tmp_path, undo=True)
    assert json.loads(path.read_text()) == before


def test_claude_code_undo_leaves_an_edited_hook(tmp_path: Path) -> None:
    apply("claude-code", tmp_path)
    path = setup.config_path("claude-code", tmp_path)
    doc = json.loads(path.read_text())
    doc["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"] = 60  # a person's edit
    path.write_text(json.dumps(doc))
    planned = apply("claude-code", tmp_path, undo=True)
    assert "left the PermissionRequest hook alone" in planned.said
    after = json.loads(path.read_text())
    assert "PreToolUse" not in after["hooks"]
    assert after["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"] == 60


def test_setup_replaces_its_own_stale_entry(tmp_path: Path) -> None:
    path = setup.config_path("claude-code", tmp_path)
    path.parent.mkdir()
    old = {"type": "command", "command": "/old/askcli hook", "timeout": 3600}
    path.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [old]}]}})
    )
    apply("claude-code", tmp_path)
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert len(groups) == 1 and groups[0]["hooks"][0]["command"] == "'/opt/ask cli/bin/askcli' hook"


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_mcp_json_merge_undo_idempotent(agent: str, tmp_path: Path) -> None:
    path = setup.config_path(agent, tmp_path)
    path.parent.mkdir(parents=True)
    key = "mcpServers" if agent == "gemini" else "mcp"
    before = {"theme": "dark", key: {"other": {"command": "x"}}}
    path.write_text(json.dumps(before))
    apply(agent, tmp_path)
    doc = json.loads(path.read_text())
    assert doc["theme"] == "dark" and doc[key]["other"] == {"command": "x"}
    if agent == "gemini":
        assert doc[key]["askcli"] == {
            "command": ASKCLI,
            "args": ["mcp", "--wait", "590"],
            "timeout": 600000,
        }
    else:
        assert doc[key]["askcli"] == {
            "type": "local",
            "command": [ASKCLI, "mcp", "--wait", "590"],
            "enabled": True,
            "timeout": 600000,
        }
    assert not setup.plan(agent, ASKCLI, tmp_path).changes
    apply(agent, tmp_path, undo=True)
    assert json.loads(path.read_text()) == before
    doc[key]["askcli"]["timeout"] = 5  # edited, then undone: left alone
    path.write_text(json.dumps(doc))
    planned = apply(agent, tmp_path, undo=True)
    assert not planned.changes and "alone" in planned.said
    assert json.loads(path.read_text())[key]["askcli"]["timeout"] == 5


CODEX = """# my codex
model = "o4"   # a comment kept

[mcp_servers.other]
command = "other"

[profiles.x]
model = "y"
"""


def test_codex_table_appended_rest_byte_identical(tmp_path: Path) -> None:
    path = setup.config_path("codex", tmp_path)
    path.parent.mkdir()
    path.write_text(CODEX)
    apply("codex", tmp_path)
    text = path.read_text()
    assert text.startswith(CODEX)
    assert text[len(CODEX) :] == (
        "\n[mcp_servers.askcli]\n"
        'command = "/opt/ask cli/bin/askcli"\n'
        'args = ["mcp", "--wait", "590"]\n'
        "required = true\n"
        "tool_timeout_sec = 600\n"
        'default_tools_approval_mode = "approve"\n'
    )
    doc = tomllib.loads(text)
    assert doc["mcp_servers"]["other"] == {"command": "other"}
    assert not setup.plan("codex", ASKCLI, tmp_path).changes
    apply("codex", tmp_path, undo=True)
    assert path.read_text() == CODEX


def test_codex_table_replaced_in_place(tmp_path: Path) -> None:
    path = setup.config_path("codex", tmp_path)
    path.parent.mkdir()
    path.write_text('a = 1\n\n[mcp_servers.askcli]\ncommand = "askcli"\n\n[b]\nc = 2\n')
    planned = apply("codex", tmp_path)
    assert planned.said == "replaced [mcp_servers.askcli]"
    text = path.read_text()
    assert text.startswith('a = 1\n\n[mcp_servers.askcli]\ncommand = "/opt/ask cli/bin/askcli"\n')
    assert text.endswith('default_tools_approval_mode = "approve"\n\n[b]\nc = 2\n')
    assert tomllib.loads(text)["b"] == {"c": 2}


def test_codex_inline_form_refused(tmp_path: Path) -> None:
    path = setup.config_path("codex", tmp_path)
    path.parent.mkdir()
    path.write_text('mcp_servers = { askcli = { command = "x" } }\n')
    with pytest.raises(setup.SetupError, match="form setup does not edit"):
        setup.plan("codex", ASKCLI, tmp_path)


@pytest.mark.parametrize(
    ("agent", "text", "said"),
    [
        ("claude-code", '{\n  "hooks": {,\n}', "not valid JSON at line 2"),
        ("gemini", "[1, 2]", "not a JSON object at line 1"),
        ("opencode", '{"mcp": []}', "'mcp' is not a JSON object"),
        ("codex", "a = 1\nb = = 2\n", "not valid TOML: Invalid value (at line 2"),
    ],
)
def test_bad_file_refused_nothing_written(agent: str, text: str, said: str, tmp_path: Path) -> None:
    path = setup.config_path(agent, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(setup.SetupError, match="^" + str(path).replace(".", r"\.")) as caught:
        setup.plan(agent, ASKCLI, tmp_path)
    assert said in str(caught.value)
    assert path.read_text() == text


def test_symlinked_config_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"x": 1}')
    link = setup.config_path("gemini", tmp_path)
    link.parent.mkdir()
    link.symlink_to(real)
    apply("gemini", tmp_path)
    assert link.is_symlink()
    assert "askcli" in json.loads(real.read_text())["mcpServers"]


def test_doctor_says_what_is_set_up_whatever_the_files_hold(tmp_path: Path) -> None:
    apply("codex", tmp_path)
    bad = setup.config_path("gemini", tmp_path)
    bad.parent.mkdir()
    bad.write_bytes(b"\xff\x00{")
    weird = setup.config_path("claude-code", tmp_path)
    weird.parent.mkdir()
    weird.write_text('{"hooks": {"PreToolUse": 7}}')
    lines = {line.split(":")[0]: line for line in doctor.report(tmp_path)}
    assert lines["codex"].startswith("codex: set up (MCP server mcp_servers.askcli) in ")
    assert lines["gemini"] == f"gemini: unknown: {bad}: not UTF-8 text"
    assert lines["claude-code"] == f"claude-code: not set up in {weird}"
    assert lines["opencode"].startswith("opencode: not set up (")
    assert lines["codex-hook"].startswith("codex-hook: not set up (")
    assert lines["extras"].startswith("extras: mcp ")


def test_doctor_sees_the_codex_hook_setup_wrote(tmp_path: Path) -> None:
    apply("codex-hook", tmp_path)
    lines = {line.split(":")[0]: line for line in doctor.report(tmp_path)}
    path = setup.config_path("codex-hook", tmp_path)
    assert lines["codex-hook"] == f"codex-hook: set up (hook: PermissionRequest) in {path}"


# --- end to end: the installed askcli, HOME in tmp_path


def env_for(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "XDG_STATE_HOME": str(home / "state"), "ASKCLI_INBOX": ""}


@pytest.mark.process
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "opencode"])
def test_cli_dry_run_setup_again_undo(agent: str, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = setup.config_path(agent, tmp_path)
    dry = run_askcli("setup", agent, "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith(f"--- /dev/null\n+++ {path}\n@@ ")
    assert str(askcli_path()) in dry.stdout
    assert "dry run: nothing written" in dry.stderr
    assert not path.exists()
    done = run_askcli("setup", agent, env=env)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith(f"askcli setup: {agent}: added ")
    assert path.exists()
    written = path.read_bytes()
    again = run_askcli("setup", agent, env=env)
    assert again.returncode == 0
    assert again.stderr == f"askcli setup: {agent}: already set up in {path}; nothing changed\n"
    assert path.read_bytes() == written
    doc = run_askcli("doctor", env=env)
    assert doc.returncode == 0
    assert f"{agent}: set up (" in doc.stdout
    assert (
        f"inbox: {tmp_path / 'state' / 'askcli' / 'inbox.db'} (the default): usable" in doc.stdout
    )
    undone = run_askcli("setup", agent, "--undo", env=env)
    assert undone.returncode == 0, undone.stderr
    assert f"the former file is {path}.askcli-backup" in undone.stderr
    assert Path(f"{path}.askcli-backup").read_bytes() == written
    assert f"{agent}: not set up in {path}" in run_askcli("doctor", env=env).stdout


@pytest.mark.process
def test_cli_dry_run_says_what_it_would_do_for_every_change(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = setup.config_path("claude-code", tmp_path)
    both = "the PreToolUse hook; would {verb} the PermissionRequest hook"
    dry = run_askcli("setup", "claude-code", "--dry-run", env=env)
    assert dry.stderr == (
        f"askcli setup: claude-code: would add {both.format(verb='add')} in {path}"
        " (dry run: nothing written)\n"
    )
    assert run_askcli("setup", "claude-code", env=env).returncode == 0
    other = run_askcli("setup", "claude-code", "--to", "ops", "--dry-run", env=env)
    assert f"would replace {both.format(verb='replace')} in {path}" in other.stderr
    settings = json.loads(path.read_text())
    settings["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"] = 5  # edited by hand
    path.write_text(json.dumps(settings))
    undo = run_askcli("setup", "claude-code", "--undo", "--dry-run", env=env)
    assert undo.stderr == (
        "askcli setup: claude-code: would remove the PreToolUse hook; would leave the"
        f" PermissionRequest hook alone: it is not as setup wrote it in {path}"
        " (dry run: nothing written)\n"
    )
    for proc in (dry, other, undo):
        assert proc.returncode == 0
        assert not re.search(r"\b(added|replaced|removed|left)\b", proc.stderr), proc.stderr
    done = run_askcli("setup", "claude-code", "--undo", env=env)
    assert done.stderr.startswith(
        "askcli setup: claude-code: removed the PreToolUse hook; left the PermissionRequest"
        " hook alone: it is not as setup wrote it in "
    )


@pytest.mark.process
@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_cli_dry_run_of_an_mcp_server_says_would(agent: str, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    dry = run_askcli("setup", agent, "--dry-run", env=env)
    assert ": would add " in dry.stderr and "added" not in dry.stderr
    assert run_askcli("setup", agent, env=env).returncode == 0
    other = run_askcli("setup", agent, "--to", "ops", "--dry-run", env=env)
    assert ": would replace " in other.stderr and "replaced" not in other.stderr
    undo = run_askcli("setup", agent, "--undo", "--dry-run", env=env)
    assert ": would remove " in undo.stderr and "removed" not in undo.stderr


@pytest.mark.process
def test_cli_bad_file_exit_2_one_line(tmp_path: Path) -> None:
    path = setup.config_path("claude-code", tmp_path)
    path.parent.mkdir()
    path.write_text('{"a": 1,\n\n "b": }\n')
    for args in (("setup", "claude-code"), ("setup", "claude-code", "--dry-run")):
        proc = run_askcli(*args, env=env_for(tmp_path))
        assert proc.returncode == 2
        assert proc.stderr == (f"askcli setup: {path}: not valid JSON at line 3: Expecting value\n")
        assert proc.stdout == ""
    assert path.read_text() == '{"a": 1,\n\n "b": }\n'
    assert not Path(f"{path}.askcli-backup").exists()
    doc = run_askcli("doctor", env=env_for(tmp_path))
    assert doc.returncode == 0
    assert f"claude-code: unknown: {path}: not valid JSON at line 3" in doc.stdout


@pytest.mark.process
def test_cli_doctor_names_askcli_inbox(tmp_path: Path) -> None:
    env = {**env_for(tmp_path), "ASKCLI_INBOX": str(tmp_path / "elsewhere.db")}
    (tmp_path / "elsewhere.db").write_text("not a database, but long enough to look at " * 5)
    os.chmod(tmp_path / "elsewhere.db", 0o600)
    proc = run_askcli("doctor", env=env)
    assert proc.returncode == 0
    assert f"inbox: {tmp_path / 'elsewhere.db'} ($ASKCLI_INBOX): not usable: " in proc.stdout


# --- the real Claude Code 2.1.197 picks up the hooks setup wrote


@pytest.mark.real_agent
def test_real_claude_code_runs_the_hooks_setup_wrote(tmp_path: Path) -> None:
    from tests.support.claude import COLOR, Api, Headless, answer_in_inbox, needs_claude, turns, use

    if needs_claude.args[0]:
        pytest.skip(needs_claude.kwargs["reason"])
    api = Api(tmp_path, turns(use("toolu_a1", "AskUserQuestion", COLOR)))
    try:
        api.env["ASKCLI_INBOX"] = str(tmp_path / "inbox.db")
        done = run_askcli("setup", "claude-code", env=api.env)
        assert done.returncode == 0, done.stderr
        assert (Path(api.env["HOME"]) / ".claude" / "settings.json").exists()
        empty = tmp_path / "empty.json"
        empty.write_text("{}")  # nothing but the user's settings, which setup wrote
        claude = Headless(api, tmp_path / "work", empty)
        try:
            screen = answer_in_inbox(api, tmp_path / "inbox.db", "2\n")
            result = claude.until_result("fail")
        finally:
            claude.close()
    finally:
        api.stop()
    assert "[Color] Which color?" in screen
    assert result["subtype"] == "success"
    assert '"Which color?"="Blue"' in api.tool_results()["toolu_a1"]["content"]


def test_real_claude_code_asks_a_team_on_postgresql_as_setup_wrote(
    tmp_path: Path,
    team: Team,
) -> None:
    """setup --inbox-url --to: the real Claude Code's hook queues into PostgreSQL, as the
    agent's role ci_agent, for the team ops; only a member of ops (alice, as her own role)
    is offered it; the answer reaches the model; the log names the role that answered."""
    from askcli.inbox.store import open_store
    from askcli.inbox.store.audit_log import AuditLog

    from tests.support.claude import COLOR, Api, Headless, needs_claude, turns, use

    if needs_claude.args[0]:
        pytest.skip(needs_claude.kwargs["reason"])
    team.sql("REVOKE ops FROM bob")  # ops: alice alone
    api = Api(tmp_path, turns(use("toolu_a1", "AskUserQuestion", COLOR)))
    try:
        api.env.pop("ASKCLI_INBOX", None)  # the hook's own --inbox-url chooses the inbox
        api.env["PGPASSFILE"] = str(team.pgpass)
        agent_url = team.url("ci_agent")
        done = run_askcli(
            "setup", "claude-code", "--inbox-url", agent_url, "--to", "ops", env=api.env
        )
        assert done.returncode == 0, done.stderr
        empty = tmp_path / "empty.json"
        empty.write_text("{}")
        claude = Headless(api, tmp_path / "work", empty)
        try:
            store = open_store(team.owner_url)
            poll(lambda: bool(store.ids()), "the hook's question in PostgreSQL", timeout=30)
            (asked,) = store.questions()
            assert asked.to == "ops" and asked.agent.client == "claude"
            assert team.askcli("bob", ["inbox", "list"]).stdout == ""
            answered = team.askcli("alice", ["inbox", "answer", str(asked.id)], "2\n")
            assert answered.returncode == 0, answered.stderr
            result = claude.until_result("fail")
            (entry,) = AuditLog(store).entries()
            store.close()
        finally:
            claude.close()
    finally:
        api.stop()
    assert "[Color] Which color?" in answered.stderr
    assert result["subtype"] == "success"
    assert '"Which color?"="Blue"' in api.tool_results()["toolu_a1"]["content"]
    assert (entry.question.answered_by, entry.decision) == ("alice", "Color: Blue")


# --- the real Codex CLI calls askcli mcp as setup wrote it


@pytest.mark.real_agent
def test_real_codex_calls_askcli_mcp_as_setup_wrote_it(tmp_path: Path) -> None:
    from askcli.inbox.store import open_store

    from tests.support.codex import CODEX, PNPM, config, outputs, running
    from tests.support.inbox import answer_queued
    from tests.support.real_agents import free_port

    if not CODEX.exists():
        pytest.skip("Codex CLI is not installed (make test installs it with npm)")
    port = free_port()
    home, requests, work = (tmp_path / n for n in ("home", "req", "work"))
    for folder in (home, requests, work):
        folder.mkdir()
    (home / ".codex").mkdir()
    model = config(port, [])  # the stand-in as Codex's model; askcli is setup's to add
    (home / ".codex" / "config.toml").write_text(model)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "STANDIN_API_KEY": "x",
        "NO_COLOR": "1",
    }
    done = run_askcli("setup", "codex", env={**env, "ASKCLI_INBOX": ""})
    assert done.returncode == 0, done.stderr
    assert (home / ".codex" / "config.toml").read_text().startswith(model)
    inbox = home / ".local" / "state" / "askcli" / "inbox.db"  # askcli's default under HOME
    with running(tmp_path, port, env, inbox, "ask me", None) as run:
        deadline = time.monotonic() + 60
        while not inbox.exists():
            assert time.monotonic() < deadline and run.proc.poll() is None, run.log()
            time.sleep(0.05)
        question = run.question()
        assert answer_queued(open_store(inbox), "1\n", question.id)
        _, sent = run.finish()
    assert question.agent.client == "codex-mcp-client"
    (output,) = outputs(sent[-1])
    assert output["output"][1:] == [{"type": "input_text", "text": PNPM}]


@pytest.mark.process
def test_cli_dry_run_diff_shows_no_raw_control_character(tmp_path: Path) -> None:
    path = setup.config_path("gemini", tmp_path)
    path.parent.mkdir()
    path.write_text('{"title": "a\u009b2Jb\u202e"}', encoding="utf-8")
    proc = run_askcli("setup", "gemini", "--dry-run", env=env_for(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "\u009b" not in proc.stdout and "\u202e" not in proc.stdout
    assert '+    "askcli": {' in proc.stdout


# --- the real OpenCode calls askcli mcp as setup wrote it


@pytest.mark.real_agent
def test_real_opencode_calls_askcli_mcp_as_setup_wrote_it(tmp_path: Path) -> None:

    from askcli.inbox.store import open_store

    from tests.support.inbox import answer_queued
    from tests.support.real_agents import OPENCODE, stand_in

    if not OPENCODE.exists():
        pytest.skip("OpenCode is not installed (make test installs it with npm)")
    asked = {"questions": [COLOR_QUESTION]}
    use = {"type": "tool_use", "id": "toolu_o1", "name": "askcli_ask_user_questions"}
    turns = [
        {"content": [{**use, "input": asked}], "stop_reason": "tool_use"},
        {"content": [{"type": "text", "text": "Thanks."}], "stop_reason": "end_turn"},
    ]
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ASKCLI_INBOX": ""}
    done = run_askcli("setup", "opencode", env={**env, "XDG_STATE_HOME": ""})
    assert done.returncode == 0, done.stderr
    inbox = home / ".local" / "state" / "askcli" / "inbox.db"
    with stand_in(tmp_path, turns) as (port, log):
        captured: dict[str, subprocess.CompletedProcess[str]] = {}
        ran = threading.Thread(
            target=lambda: captured.setdefault("run", _run_opencode(work, home, port)), daemon=True
        )
        ran.start()
        deadline = time.monotonic() + 90
        while not inbox.exists() or not open_store(inbox).questions():
            assert time.monotonic() < deadline and ran.is_alive(), captured
            time.sleep(0.1)
        (question,) = open_store(inbox).questions()
        assert answer_queued(open_store(inbox), "2\n", question.id)
        ran.join(timeout=90)
        sent = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    assert question.call["input"] == asked
    results = [
        block
        for request in sent
        for message in request.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert [r["content"] for r in results] == [
        'User has answered your questions: "Which color?"="Blue". You can now continue with '
        "the user's answers in mind."
    ]


COLOR_QUESTION = {
    "question": "Which color?",
    "header": "Color",
    "options": [
        {"label": "Red", "description": "warm"},
        {"label": "Blue", "description": "cool"},
    ],
    "multiSelect": False,
}


def _run_opencode(work: Path, home: Path, port: int) -> subprocess.CompletedProcess[str]:
    """``opencode run`` in ``work`` (its model the stand-in at ``port``), HOME ``home``."""
    from tests.support.real_agents import OPENCODE, opencode_config, opencode_env

    (work / "opencode.json").write_text(json.dumps(opencode_config(port)))
    env = opencode_env(home)
    return subprocess.run(
        [str(OPENCODE), "run", "ask me"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
        env=env,
    )


# --- the real Gemini CLI calls askcli mcp as setup wrote it


@pytest.mark.real_agent
def test_real_gemini_calls_askcli_mcp_as_setup_wrote_it(tmp_path: Path) -> None:
    from askcli.inbox.store import QueueState, open_store

    from tests.support.inbox import answer_queued
    from tests.support.real_agents import GEMINI, gemini, gemini_reply

    if not GEMINI.exists():
        pytest.skip("Gemini CLI is not installed (make test installs it with npm)")
    asked = {"questions": [COLOR_QUESTION]}
    replies = [
        gemini_reply({"functionCall": {"name": "mcp_askcli_ask_user_questions", "args": asked}}),
        gemini_reply({"text": "Thanks."}),
    ]
    work, env, command = gemini(tmp_path, replies)
    home = Path(env["HOME"])
    before = json.loads((home / ".gemini" / "settings.json").read_text())
    done = run_askcli("setup", "gemini", env={**env, "ASKCLI_INBOX": "", "XDG_STATE_HOME": ""})
    assert done.returncode == 0, done.stderr
    after = json.loads((home / ".gemini" / "settings.json").read_text())
    assert {k: v for k, v in after.items() if k != "mcpServers"} == before
    inbox = home / ".local" / "state" / "askcli" / "inbox.db"
    argv = [*command[:1], "-p", "ask me", "--approval-mode", "yolo", "--skip-trust", *command[2:]]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=work,
    )
    try:
        deadline = time.monotonic() + 90
        while not inbox.exists() or not open_store(inbox).questions():
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                out, err = proc.communicate()
                pytest.fail(f"no question from Gemini CLI: {out[-2000:]} {err[-3000:]}")
            time.sleep(0.1)
        (question,) = open_store(inbox).questions()
        assert answer_queued(open_store(inbox), "2\n", question.id)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert question.call["input"] == asked
    assert proc.returncode == 0, err[-3000:]
    (done_question,) = open_store(inbox).questions(states=tuple(QueueState))
    assert done_question.state == QueueState.ANSWERED
    assert "Thanks." in out


# --- --inbox-url and --to in the command written

URL = "postgresql://asker@db.example:5432/askcli?sslmode=require"
OPTIONS = ("--inbox-url", URL, "--to", "team ops")


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "opencode"])
def test_setup_with_inbox_url_and_to_writes_them_and_undo_removes_exactly_that(
    agent: str, tmp_path: Path
) -> None:
    path = setup.config_path(agent, tmp_path)
    planned = setup.plan(agent, ASKCLI, tmp_path, options=OPTIONS)
    setup.write(planned)
    text = path.read_text()
    doc = tomllib.loads(text) if agent == "codex" else json.loads(text)
    if agent == "claude-code":
        command = doc["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        assert command == (
            "'/opt/ask cli/bin/askcli' hook --inbox-url"
            " 'postgresql://asker@db.example:5432/askcli?sslmode=require' --to 'team ops'"
        )
        import shlex

        assert shlex.split(command)[1:] == ["hook", *OPTIONS]
    else:
        server = {"codex": "mcp_servers", "gemini": "mcpServers", "opencode": "mcp"}[agent]
        entry = doc[server]["askcli"]
        words = entry["command"][1:] if agent == "opencode" else entry["args"]
        assert words == ["mcp", "--wait", setup.WAIT, *OPTIONS]
    # again with the same options: nothing; without them: the entry replaced
    assert not setup.plan(agent, ASKCLI, tmp_path, options=OPTIONS).changes
    # undo (given no options) removes it, as it was written
    undone = setup.plan(agent, ASKCLI, tmp_path, undo=True)
    assert undone.changes and "left" not in undone.said, undone.said
    setup.write(undone)
    left = path.read_text()
    assert "askcli" not in left and URL not in left


def test_setup_again_with_other_options_replaces_its_entry(tmp_path: Path) -> None:
    apply("gemini", tmp_path)
    planned = setup.plan("gemini", ASKCLI, tmp_path, options=("--to", "bob"))
    assert planned.said == "replaced the MCP server mcpServers.askcli"
    setup.write(planned)
    doc = json.loads(setup.config_path("gemini", tmp_path).read_text())
    assert doc["mcpServers"]["askcli"]["args"][-2:] == ["--to", "bob"]


def test_undo_leaves_an_entry_whose_options_were_edited(tmp_path: Path) -> None:
    setup.write(setup.plan("opencode", ASKCLI, tmp_path, options=("--to", "bob")))
    path = setup.config_path("opencode", tmp_path)
    doc = json.loads(path.read_text())
    doc["mcp"]["askcli"]["command"].append("--reuse-for")  # a person's edit
    path.write_text(json.dumps(doc))
    planned = setup.plan("opencode", ASKCLI, tmp_path, undo=True)
    assert planned.said == "left mcp.askcli alone: it is not as setup wrote it"


@pytest.mark.process
def test_cli_setup_with_options_and_its_refusals(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = setup.config_path("codex", tmp_path)
    done = run_askcli("setup", "codex", "--inbox-url", URL, "--to", "bob", env=env)
    assert done.returncode == 0, done.stderr
    server = tomllib.loads(path.read_text())["mcp_servers"]["askcli"]
    assert server["args"] == ["mcp", "--wait", setup.WAIT, "--inbox-url", URL, "--to", "bob"]
    refused = run_askcli("setup", "codex", "--undo", "--to", "bob", env=env)
    assert refused.returncode == 2
    assert refused.stderr == (
        "askcli setup: --undo removes what setup wrote, whatever its --inbox-url and --to:"
        " give it alone\n"
    )
    assert run_askcli("setup", "codex", "--undo", env=env).returncode == 0
    assert "askcli" not in path.read_text()
    secret = run_askcli(
        "setup", "gemini", "--inbox-url", "postgresql://a:pw@db.example/askcli", env=env
    )
    assert secret.returncode == 2 and secret.stdout == ""
    assert secret.stderr.startswith("askcli setup: --inbox-url holds a password, which every")
    assert "pw@" not in secret.stderr
    assert not setup.config_path("gemini", tmp_path).exists()
    empty = run_askcli("setup", "gemini", "--to", "", env=env)
    assert (empty.returncode, empty.stderr) == (2, "askcli: --to: a name may not be empty\n")


def test_codex_hook_keeps_every_other_hook_undo_idempotent(tmp_path: Path) -> None:
    path = setup.config_path("codex-hook", tmp_path)
    assert path == tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    theirs = {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
    before = {"hooks": {"PreToolUse": [theirs], "PermissionRequest": [theirs]}}
    path.write_text(json.dumps(before))
    planned = apply("codex-hook", tmp_path)
    assert planned.said == "added the PermissionRequest hook"  # never Codex's PreToolUse
    hook = {"type": "command", "command": "'/opt/ask cli/bin/askcli' hook", "timeout": 3600}
    assert json.loads(path.read_text()) == {
        "hooks": {
            "PreToolUse": [theirs],
            "PermissionRequest": [theirs, {"matcher": "*", "hooks": [hook]}],
        }
    }
    assert not apply("codex-hook", tmp_path).changes
    assert apply("codex-hook", tmp_path, undo=True).said == "removed the PermissionRequest hook"
    assert json.loads(path.read_text()) == before
    # setup codex (the MCP server) leaves the hooks file alone, and the other way round
    assert setup.config_path("codex", tmp_path).name == "config.toml"


@pytest.mark.process
def test_cli_setup_codex_offers_the_hook_and_codex_hook_writes_it(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    done = run_askcli("setup", "codex", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith(
        "askcli setup: Codex's approvals can be answered through askcli too: askcli setup "
        "codex-hook (its PermissionRequest hook; Codex asks you to trust it once, in /hooks)\n"
    ), done.stderr
    hook = run_askcli("setup", "codex-hook", env=env)
    assert hook.returncode == 0, hook.stderr
    path = tmp_path / ".codex" / "hooks.json"
    assert hook.stderr == f"askcli setup: codex-hook: added the PermissionRequest hook in {path}\n"
    (group,) = json.loads(path.read_text())["hooks"]["PermissionRequest"]
    assert group["hooks"][0]["command"] == f"{askcli_path()} hook"
    undone = run_askcli("setup", "codex", "--undo", env=env)
    assert "codex-hook" not in undone.stderr
