"""The inbox in the tests: its person side as ``askcli inbox`` answers, and a store's database
as another askcli or time would have left it."""

from __future__ import annotations

import io
import subprocess
import time
from typing import TYPE_CHECKING, Any

from askcli.lines import TextLineReader

if TYPE_CHECKING:
    from askcli.inbox.store import QueuedQuestion, Store, open_store
    from askcli.terminal.conversation import Conversation
import json
import os
import signal
from pathlib import Path

from askcli.inbox.store import QueuedQuestion, QueueState, Store, open_store
from askcli.terminal.conversation import Conversation
from askcli.terminal.rendering import Style
from askcli.wire.documents import Document

from tests.support.calls import call, example, question
from tests.support.hook import hook_input
from tests.support.processes import askcli_path, poll
from tests.support.terminals import Terminal


def answer_one(store: Store, inbox: str, question: QueuedQuestion, conv: Conversation) -> bool:
    """Ask a question ``inbox`` claimed and store its reply, as ``askcli inbox`` does; False
    when it was no longer this inbox's to answer (its asker withdrew it meanwhile)."""
    from askcli.inbox.asker_side import reply_to_json
    from askcli.runners.session import answer_document

    reply = answer_document(Document(question.call), conv, question.id)
    return store.answer(inbox, question.id, reply_to_json(reply))


def answer_queued(
    store: Store, lines: str, question_id: int | None = None, screen: io.StringIO | None = None
) -> bool:
    """A person at an inbox of ``store`` answers question ``question_id`` (None: the oldest
    waiting) with the answer ``lines``: True when the answer was stored. ``screen`` gets
    what they saw."""
    from askcli.inbox.person_side.commands import inbox_id
    from askcli.terminal.conversation import Conversation

    me = inbox_id()
    store.heartbeat(me)
    question = store.claim(me, question_id)
    assert question is not None, f"question {question_id} is not waiting"
    out = screen if screen is not None else io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), out, Style())
    try:
        return answer_one(store, me, question, conv)
    finally:
        store.leave(me)


def tamper(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Run ``sql`` (``?`` parameters) on the store's database, as another askcli or time
    would have left it; the rows it returns."""

    def work(db: Any) -> list[Any]:
        cursor = store._x(db, sql, params)
        return list(cursor.fetchall()) if cursor.description else []

    return store._run(work)


def opened_at(store: Store) -> str:
    """What ``open_store(...)`` takes to open ``store`` again: its file or its URL."""
    url: str | None = getattr(store, "url", None)
    return url if url is not None else str(getattr(store, "path"))  # noqa: B009


def as_if_asked_by(store: Store, question_id: int, pid: int, start: str | None) -> None:
    """Make the question another process's of this machine (on PostgreSQL, with its lease)."""
    import socket

    from askcli.inbox.asker_identity import Process, place
    from askcli.inbox.store import asker_id

    asker = asker_id(Process(socket.gethostname(), pid, start))
    tamper(
        store,
        "UPDATE questions SET asker_pid = ?, asker_start = ?, asker = ? WHERE id = ?",
        (pid, start, asker, question_id),
    )
    if store.pushes:
        tamper(
            store,
            "INSERT INTO askers (id, host, seen, place, pid, start) VALUES (?, ?, ?, ?, ?, ?)",
            (asker, socket.gethostname(), time.time(), place(), pid, start),
        )


def another_asker(store: Store, question_id: int) -> subprocess.Popen[bytes]:
    """Make the question one of a process of its own (``sleep``), not of the tests: an
    ``askcli inbox answer`` the tests start runs under them, and an agent does not answer
    its own question. The caller ends the process (``kill()``, ``wait()``)."""
    from askcli.inbox.asker_identity import process_start

    child = subprocess.Popen(["sleep", "600"])
    as_if_asked_by(store, question_id, child.pid, process_start(child.pid))
    return child


class Queue:
    """The inbox file of one test, its askers and its inboxes."""

    def __init__(self, tmp_path: Path, where: str | None = None) -> None:
        self.tmp = tmp_path
        self.path = tmp_path / "inbox.db"
        self.where = where or str(self.path)  # the file, or a PostgreSQL database's URL
        self.state = tmp_path / "state"
        self.env = {
            **os.environ,
            "ASKCLI_INBOX": self.where,
            "XDG_STATE_HOME": str(self.state),
            "NO_COLOR": "1",
        }
        self.askers: list[subprocess.Popen[str]] = []
        self.terminals: list[Terminal] = []

    def store(self) -> Store:
        return open_store(self.where)

    def ask(
        self,
        document: dict[str, Any],
        name: str,
        cwd: Path | None = None,
        args: tuple[str, ...] = (),
    ) -> subprocess.Popen[str]:
        """Start an asker (in folder ``cwd``, with ``args``, such as ``--to bob``) and wait
        until its question is queued."""
        before = len(self.store().questions(states=tuple(QueueState)))
        source = self.tmp / f"{name}.json"
        source.write_text(json.dumps(document))
        proc = subprocess.Popen(
            [str(askcli_path()), "ask", "--inbox", *args, str(source)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=cwd,
        )
        self.askers.append(proc)
        poll(
            lambda: len(self.store().questions(states=tuple(QueueState))) > before,
            f"the question of {name} in the queue",
        )
        return proc

    def inbox(self, *args: str, name: str = "a", columns: int = 80, **env: str) -> Terminal:
        where = self.tmp / name
        where.mkdir(exist_ok=True)
        term = Terminal(
            ["inbox", *args],
            where,
            columns,
            ASKCLI_INBOX=self.where,
            XDG_STATE_HOME=str(self.state),
            **env,
        )
        self.terminals.append(term)
        return term

    def close(self) -> None:
        for proc in self.askers:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=5)
        for term in self.terminals:
            if term.child.isalive():
                term.child.kill(signal.SIGKILL)
            term.child.close()


def result(proc: subprocess.Popen[str]) -> tuple[int, list[Any], str]:
    out, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err
    return proc.returncode, [json.loads(line) for line in out.splitlines()], err


def labelled(text: str, header: str, *labels: str, id: str) -> dict[str, Any]:
    return call(question(text, header, labels), id=id)


WAITING_PROMPT = "Ctrl-D leaves): "


def leave(term: Terminal) -> int:
    """Ctrl-D at the inbox's waiting prompt, once it is on screen (a Ctrl-D typed before
    readline has the terminal reaches it as a NUL, as it would a person's), and the exit
    status."""
    term.expect(WAITING_PROMPT)
    term.child.sendeof()
    return exit_status(term)


def exit_status(term: Terminal) -> int:
    term.expect_end()
    term.child.close()
    status = term.child.exitstatus
    if status is None:  # killed by a signal
        return 128 + int(term.child.signalstatus or 0)
    return int(status)


def run_command(args: list[str], stdin: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **env},
        cwd=cwd,
        timeout=30,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == "", proc.stdout
    return proc.returncode, proc.stderr.replace("askcli hook: ", "askcli: ")  # the hook's


def codex_secret() -> dict[str, Any]:
    asked = {
        "questions": [
            {
                "id": "token",
                "header": "Token",
                "question": "Your deploy token?",
                "isSecret": True,
                "options": [{"label": "None", "description": "no token"}],
            }
        ]
    }
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "request_user_input",
        "arguments": json.dumps(asked),
    }


PIN = "80417263"  # an integer PIN: as secret as a string one


def pin_secret() -> dict[str, Any]:
    return form_secret("integer")


LIBRARY = example("library.json")


COMMANDS: list[tuple[list[str], str, int]] = [
    (["ask", "--inbox", "-"], json.dumps(LIBRARY) + "\n", 2),
    (["inbox"], "", 2),
    (["inbox", "list"], "", 2),
    (["inbox", "list", "--json"], "", 2),
    (["inbox", "answer", "1"], "2\n", 2),
    (["mcp"], "", 2),
    (["hook"], json.dumps(hook_input()), 1),  # the hook's "cannot work" (docs/hook.md: 1)
    (["acp", "--inbox", "--prompt", "go", "--", "/bin/false"], "", 2),  # before the agent
]


def form_secret(kind: str = "string") -> dict[str, Any]:
    fields = {"pin": {"type": kind, "title": "Code", "writeOnly": True}}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "The code from your phone",
            "requestedSchema": {"type": "object", "properties": fields, "required": ["pin"]},
        },
    }


def queued(path: Path) -> list[QueuedQuestion]:
    """Every question of the inbox file at ``path``, in any state (the store closed after)."""
    store = open_store(path)
    try:
        return store.questions(states=tuple(QueueState))
    finally:
        store.close()
