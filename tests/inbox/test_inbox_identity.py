"""Who answered on one machine is the Unix user (SPEC §7), never the answerer's own claim
(``--as``, ``$USER``); and an agent never answers its own question: ``askcli inbox answer``
and ``askcli inbox`` run by the asking agent (or anything it started) refuse it in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from askcli.inbox.asker_identity import unix_user
from askcli.inbox.store import QueueState, open_store
from askcli.inbox.store.audit_log import AuditLog

from tests.support.calls import call, question
from tests.support.processes import askcli_path

pytestmark = pytest.mark.process

# an agent: queues a question in the inbox, then runs the command after it as its child
AGENT = """
import json, subprocess, sys
from askcli.inbox.store import Agent, Store, open_store
store = open_store(sys.argv[1])
asked = store.submit(json.loads(sys.argv[2]), Agent("claude", "s1", "/work/api"))
proc = subprocess.run(sys.argv[3:], input="1\\n", capture_output=True, text=True, timeout=30)
print(json.dumps({"id": asked.id, "status": proc.returncode, "out": proc.stdout,
                  "err": proc.stderr}))
"""
ASKED = call(question("May I deploy?", "Deploy", ["Yes", "No"]))


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ASKCLI_INBOX": str(tmp_path / "inbox.db"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "HOME": str(tmp_path),
        "NO_COLOR": "1",
    }


def _agent_runs(tmp_path: Path, *command: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", AGENT, str(tmp_path / "inbox.db"), json.dumps(ASKED), *command],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    found: dict[str, object] = json.loads(proc.stdout)
    return found


def test_an_agent_s_own_inbox_answer_is_refused(tmp_path: Path) -> None:
    done = _agent_runs(tmp_path, str(askcli_path()), "inbox", "answer", "1")
    assert done["status"] == 2 and done["out"] == ""
    assert done["err"] == (
        "askcli: question #1 was asked by claude /work/api, which this command runs\n"
        "  under: an agent does not answer its own question\n"
    )
    found = open_store(tmp_path / "inbox.db").get(1)
    assert found is not None and found.state is QueueState.WAITING


def test_an_agent_s_own_inbox_passes_its_question(tmp_path: Path) -> None:
    answers = tmp_path / "answers"
    answers.write_text("\n1\n")
    done = _agent_runs(tmp_path, str(askcli_path()), "inbox", "--answers", str(answers))
    assert done["status"] == 0, done
    said = " ".join(str(done["err"]).split())
    assert "! question #1 was asked by claude /work/api, which this command runs under" in said
    assert "an agent does not answer its own question" in said and "answered: sent" not in said
    found = open_store(tmp_path / "inbox.db").get(1)
    assert found is not None and found.state is QueueState.WAITING


def test_another_process_s_question_is_answered(tmp_path: Path) -> None:
    """The same agent's question answered from a shell it did not start: allowed."""
    done = _agent_runs(tmp_path, "true")
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "answer", str(done["id"]), "--as", "someone-else"],
        input="1\n",
        capture_output=True,
        text=True,
        env={**_env(tmp_path), "USER": "mallory", "LOGNAME": "mallory"},
        timeout=30,
        check=False,
    )
    # its asker has ended: it is withdrawn, never answered into the void
    assert proc.returncode == 2 and "was withdrawn by its asker" in proc.stderr


def test_who_answered_is_the_unix_user_not_a_claimed_name(tmp_path: Path) -> None:
    asker = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    assert asker.stdin is not None
    asker.stdin.write(json.dumps(ASKED))
    asker.stdin.close()
    store = open_store(tmp_path / "inbox.db")
    for _ in range(200):
        if store.ids():
            break
        subprocess.run(["sleep", "0.05"], check=True)
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "answer", "1", "--as", "bob"],
        input="1\n",
        capture_output=True,
        text=True,
        env={**_env(tmp_path), "USER": "bob", "LOGNAME": "bob"},
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    asker.wait(timeout=20)
    assert asker.stdout is not None and asker.stderr is not None
    asker.stdout.close()
    asker.stderr.close()
    (entry,) = AuditLog(store).entries()
    assert entry.question.answered_by == unix_user() != "bob"
    store.close()
