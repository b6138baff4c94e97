"""The agent askcli hosts gets the inbox askcli uses: ``askcli claude --inbox-url X`` and
``askcli acp --inbox-url X`` start it with ``ASKCLI_INBOX=X`` (an ``askcli hook`` or ``askcli
mcp`` it starts finds the same inbox), written into its environment where it is spawned,
never into askcli's own."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support.processes import run_askcli

pytestmark = pytest.mark.process


def agent_writing_its_inbox(tmp_path: Path) -> tuple[Path, Path]:
    """An agent that writes what ``$ASKCLI_INBOX`` names in its environment, and ends."""
    seen = tmp_path / "seen"
    script = tmp_path / "agent"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"open({str(seen)!r}, 'w').write(os.environ.get('ASKCLI_INBOX', '<unset>'))\n"
    )
    script.chmod(0o755)
    return script, seen


@pytest.mark.parametrize("host", ["claude", "acp"])
@pytest.mark.parametrize("given", [True, False])
def test_the_agent_gets_the_inbox_askcli_uses(tmp_path: Path, host: str, given: bool) -> None:
    script, seen = agent_writing_its_inbox(tmp_path)
    chosen = str(tmp_path / "chosen.db")
    env = {**os.environ, "ASKCLI_INBOX": str(tmp_path / "environment.db")}
    option = ["--inbox-url", chosen] if given else []
    if host == "claude":
        args = ["claude", *option, "--claude-bin", str(script), "--prompt", "hi"]
    else:
        args = ["acp", *option, "--prompt", "hi", "--", str(script)]
    done = run_askcli(*args, env=env, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the agent ended without a word
    assert seen.read_text() == (chosen if given else env["ASKCLI_INBOX"])


def test_without_an_inbox_named_the_agent_gets_none(tmp_path: Path) -> None:
    script, seen = agent_writing_its_inbox(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "ASKCLI_INBOX"}
    done = run_askcli("claude", "--claude-bin", str(script), "--prompt", "hi", env=env)
    assert done.returncode == 1, done.stderr
    assert seen.read_text() == "<unset>"
