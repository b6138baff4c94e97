"""askcli acp against the real OpenCode (`opencode acp`, npm opencode-ai), offline: its
Anthropic provider pointed at the stand-in API of tests/peers/ by the project's opencode.json,
HOME and the XDG folders in the test's temporary folder. `make test` installs it into .cache/
(pinned); without it these tests skip, saying why.

What OpenCode 1.18.33 does over ACP: every permission (bash, edit, write; "ask" in the config)
is a session/request_permission with the options once (allow_once), always (allow_always) and
reject (reject_once); a rejected tool call fails and ends the turn, the model hearing of it
with the next prompt. It never reads files or runs commands through the client (no fs/read,
no terminal/); after an edit is allowed it sends the new text as fs/write_text_file as well,
even when the client did not offer it. Its `question` tool is not offered over ACP."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import askcli_path
from tests.support.real_agents import (
    OPENCODE,
    needs_opencode,
    opencode_config,
    opencode_env,
    stand_in,
)

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")

pytestmark = needs_opencode

REJECTED = "The user rejected permission to use this specific tool call."


def _tool(name: str, tool_id: str, **tool_input: Any) -> dict[str, Any]:
    use = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    return {"content": [use], "stop_reason": "tool_use"}


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}


BASH = _tool(
    "bash",
    "toolu_bash_1",
    command="echo bash-ran | tee bash_out.txt",
    description="Write a marker file",
)


def opencode(
    tmp_path: Path, turns: list[dict[str, Any]], answers: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], Path, list[dict[str, Any]]]:
    """askcli acp (with ``options``, the prompt among them or read at ``> ``) hosting
    ``opencode acp``, whose model is the stand-in answering ``turns`` in order; the
    completed askcli, the session's folder and the model requests the stand-in logged."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    with stand_in(tmp_path, turns) as (port, log):
        proc = _run(work, home, port, answers, options)
    requests = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    return proc, work, [r for r in requests if r.get("tools")]  # the agent loop's


def _run(
    work: Path, home: Path, port: int, answers: str, options: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    config = opencode_config(port, permission={"bash": "ask", "edit": "ask"})
    (work / "opencode.json").write_text(json.dumps(config))
    env = {**opencode_env(home), "COLUMNS": "240"}
    return subprocess.run(
        [str(askcli_path()), "acp", *options, "--", str(OPENCODE), "acp"],
        input=answers,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=work,
        env=env,
    )


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in request["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


BASH_SCREEN = """\
  -> bash  (pending)
  -> echo bash-ran | tee bash_out.txt  (running)

The agent asks to run: echo bash-ran | tee bash_out.txt
  kind: execute
  input:
      {
        "command": "echo bash-ran | tee bash_out.txt"
      }
  1. Allow once  (allow_once)
  2. Always allow  (allow_always)
  3. Reject  (reject_once)
Choose 1-3, y = 1, n = 3: """


def test_opencode_bash_allowed_runs_and_its_output_reaches_the_model(tmp_path: Path) -> None:
    proc, work, requests = opencode(tmp_path, [BASH, _text("All done.")], "y\n", "make it")
    assert proc.returncode == 0, proc.stderr
    assert BASH_SCREEN + "y\n  -> echo bash-ran | tee bash_out.txt  (done)\n" in proc.stderr
    assert "Agent: All done.\n" in proc.stderr
    assert proc.stdout == "All done.\n"
    assert (work / "bash_out.txt").read_text() == "bash-ran\n"
    assert len(requests) == 2
    [result] = tool_results(requests[1])
    assert result["tool_use_id"] == "toolu_bash_1"
    assert result["content"] == "bash-ran\n"
    assert not result.get("is_error")
    # OpenCode keeps its question tool from ACP clients (OPENCODE_CLIENT=acp)
    assert "question" not in [tool["name"] for tool in requests[0]["tools"]]
    assert "bash" in [tool["name"] for tool in requests[0]["tools"]]


def test_opencode_bash_rejected_does_not_run(tmp_path: Path) -> None:
    # at the > prompt: the rejection ends the turn; the model hears of it with the next prompt
    answers = "make it\nn\nwhy not?\n"
    proc, work, requests = opencode(tmp_path, [BASH, _text("Understood.")], answers)
    assert proc.returncode == 0, proc.stderr
    failed = f"  -> echo bash-ran | tee bash_out.txt  (failed): {REJECTED}\n-- turn done"
    assert BASH_SCREEN + "n\n" + failed in proc.stderr
    assert "> why not?\nAgent: Understood.\n" in proc.stderr
    assert proc.stdout == "Understood.\n"
    assert not (work / "bash_out.txt").exists()
    assert len(requests) == 2
    [result] = tool_results(requests[1])
    assert result["tool_use_id"] == "toolu_bash_1"
    assert result["content"] == REJECTED
    assert result["is_error"] is True


def test_opencode_answers_running_out_is_never_allowed(tmp_path: Path) -> None:
    proc, work, requests = opencode(tmp_path, [BASH, _text("All done.")], "", "make it")
    assert proc.returncode == 3, proc.stderr
    assert "askcli: no answer (the input ended): the request is answered cancelled" in proc.stderr
    assert not (work / "bash_out.txt").exists()
    assert len(requests) == 1


@pytest.mark.parametrize("answer", ["y", "n"])
def test_opencode_edit_shown_whole_and_written_only_when_allowed(
    tmp_path: Path, answer: str
) -> None:
    (tmp_path / "work").mkdir()
    path = tmp_path / "work" / "notes.txt"
    path.write_text("old line\nkept line\n")
    new = "new line \u00e9"
    edit = _tool("edit", "toolu_edit_1", filePath="notes.txt", oldString="old line", newString=new)
    proc, _, requests = opencode(
        tmp_path, [edit, _text("Edited.")], answer + "\n", "--fs", "--terminal", "edit the notes"
    )
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    screen = (
        f"The agent asks to run: {path}\n"
        "  kind: edit\n"
        f"  content (edit of {path}):\n"
        f"      --- {path}\n"
        f"      +++ {path}\n"
        "      @@ -1,2 +1,2 @@\n"
        "      -old line\n"
        "      +new line \u00e9\n"
        "       kept line\n"
        f"  locations: {path}\n"
    )
    assert screen in err, err
    assert "  1. Allow once  (allow_once)\n  2. Always allow  (allow_always)\n" in err
    assert "  3. Reject  (reject_once)\nChoose 1-3, y = 1, n = 3: " in err
    # it never reads files or runs commands through askcli, though both are offered
    assert "-> read" not in err
    assert "$ " not in err
    if answer == "y":
        # OpenCode writes the file itself and sends askcli the same text (fs/write_text_file)
        assert "  -> wrote notes.txt (2 lines)\n" in err
        assert path.read_text() == "new line \u00e9\nkept line\n"
        assert proc.stdout == "Edited.\n"
        [result] = tool_results(requests[1])
        assert result["content"] == "Edit applied successfully."
    else:
        assert "-> wrote" not in err
        assert f"(failed): {REJECTED}" in err
        assert path.read_text() == "old line\nkept line\n"
        assert len(requests) == 1
