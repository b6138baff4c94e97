#!/usr/bin/env python3
"""Try `askcli claude` or `askcli acp` offline, with the real agent and a scripted model.

    python examples/offline.py claude   # the real Claude Code on a local stand-in API
    python examples/offline.py acp      # the real Gemini CLI over ACP, on canned replies

(`make try-claude` and `make try-acp` install the agents first.) Claude Code's scripted model
asks you one question (AskUserQuestion) and then for a permission to write a file; Gemini
CLI's canned replies ask for the permission alone (Gemini CLI has no question tool over ACP).
All of it happens in a temporary folder that is removed afterwards; nothing leaves this
machine. What you answer goes back to the agent, its last message is printed on stdout, and
one line says askcli's exit status.

Ctrl-C is askcli's to handle while it runs (it declines, or ends the session: status 130);
before it starts, it ends the try at once, quietly, with 130 as well.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASKCLI = Path(sys.executable).with_name("askcli")
CLAUDE = ROOT / ".cache/claude-code/node_modules/.bin/claude"
GEMINI = ROOT / ".cache/gemini-cli/node_modules/.bin/gemini"
STAND_IN = ROOT / "tests/peers/mock_anthropic.py"
INTERRUPTED = 130  # Ctrl-C, as askcli and a shell report it

QUESTION = {
    "questions": [
        {
            "question": "Which library should we use for date formatting?",
            "header": "Library",
            "options": [
                {"label": "date-fns (Recommended)", "description": "Small, functional API"},
                {"label": "dayjs", "description": "Moment.js compatible, tiny"},
                {"label": "Temporal", "description": "The coming native API"},
            ],
            "multiSelect": False,
        }
    ]
}
NOTE = "Dates are formatted with the library chosen in the terminal.\n"


def claude_turns() -> list[dict[str, object]]:
    def use(tool_id: str, name: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}

    return [
        {"content": [use("toolu_q", "AskUserQuestion", QUESTION)], "stop_reason": "tool_use"},
        {
            "content": [use("toolu_w", "Write", {"file_path": "NOTES.md", "content": NOTE})],
            "stop_reason": "tool_use",
        },
        {"content": [{"type": "text", "text": "Done: see NOTES.md."}], "stop_reason": "end_turn"},
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def try_claude(scratch: Path) -> int:
    if not CLAUDE.exists():
        sys.exit("Claude Code is not installed: run `make try-claude` (it needs npm)")
    scenario = scratch / "turns.json"
    scenario.write_text(json.dumps(claude_turns()))
    port = free_port()
    log = scratch / "requests.jsonl"
    serve = ["--port", str(port), "--scenario", str(scenario), "--log", str(log)]
    # a session of its own: the terminal's Ctrl-C is askcli's, never the stand-in's; a Ctrl-C
    # pressed while it is started waits until it can be ended, so that none leaves it running
    # without its folder
    api: subprocess.Popen[bytes] | None = None
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        api = subprocess.Popen([sys.executable, str(STAND_IN), *serve], start_new_session=True)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C waiting is raised here
        for _ in range(200):  # until it listens
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        env = {
            **os.environ,
            "HOME": str(scratch / "home"),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "offline",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        (scratch / "home").mkdir()
        prompt = "Set up date formatting for this project."
        command = [str(ASKCLI), "claude", "--claude-bin", str(CLAUDE), prompt]
        return run_askcli(command, env, scratch / "work")
    finally:
        if api is not None:
            api.kill()
            api.wait()
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def try_acp(scratch: Path) -> int:
    if not GEMINI.exists():
        sys.exit("Gemini CLI is not installed: run `make try-acp` (it needs npm)")
    home = scratch / "home" / ".gemini"
    home.mkdir(parents=True)
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (home / "settings.json").write_text(json.dumps(settings))
    path = str((scratch / "work" / "NOTES.md").resolve())
    write = {"functionCall": {"name": "write_file", "args": {"file_path": path, "content": NOTE}}}
    replies = [write, {"text": "Done: see NOTES.md."}]
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    fake = scratch / "fake.responses"
    fake.write_text(
        "".join(
            json.dumps(
                {
                    "method": "generateContentStream",
                    "response": [
                        {
                            "candidates": [
                                {
                                    "content": {"role": "model", "parts": [part]},
                                    "index": 0,
                                    "finishReason": "STOP",
                                }
                            ],
                            "usageMetadata": usage,
                        }
                    ],
                }
            )
            + "\n"
            for part in replies
        )
    )
    env = {
        **os.environ,
        "HOME": str(scratch / "home"),
        "GEMINI_API_KEY": "offline",
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    agent = [str(GEMINI), "--acp", "--model", "gemini-2.5-flash"]
    agent += ["--fake-responses-non-strict", str(fake)]
    command = [str(ASKCLI), "acp", "--prompt", "Write a note about date formatting.", "--"]
    return run_askcli(command + agent, env, scratch / "work")


def run_askcli(command: list[str], env: dict[str, str], cwd: Path) -> int:
    """askcli in the foreground; its exit status. From here on Ctrl-C is askcli's alone: this
    process ignores it (askcli starts ignoring it too, so that one pressed while Python
    starts is no traceback, and puts in its own handling at once)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return subprocess.run(command, env=env, cwd=cwd, check=False).returncode


def main() -> int:
    tries = {"claude": try_claude, "acp": try_acp}
    which = tries.get(sys.argv[1]) if len(sys.argv) == 2 else None
    if which is None:
        sys.exit(__doc__)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # make starts it ignoring Ctrl-C
    try:
        # the agents' children may still write in the folder for a moment after they end
        with tempfile.TemporaryDirectory(
            prefix="askcli-try-", ignore_cleanup_errors=True
        ) as folder:
            scratch = Path(folder)
            (scratch / "work").mkdir()
            status = which(scratch)
            notes = scratch / "work" / "NOTES.md"
            if notes.exists():
                print(f"(NOTES.md was written: {notes.read_text().strip()!r})", file=sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C before askcli started: the stand-in is ended already
        print("(interrupted before askcli started)", file=sys.stderr)
        return INTERRUPTED
    print(f"(askcli exited with status {status})", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
