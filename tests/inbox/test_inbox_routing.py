"""Routing, people and the audit trail on one machine (an SQLite inbox): a question
addressed to a person or a team is shown only to the inbox that shows their questions
(``--as``), the first answer wins, and every answer is kept with who decided what, where
and when (``askcli inbox log``), never a secret. Who answered is the Unix user (SPEC §7:
never the answerer's own claim), whatever ``--as`` says; on PostgreSQL it is the role
(tests/inbox/test_inbox_roles.py). In process, on the store ``open_store(path)`` opens; the commands
through the installed askcli."""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.asker_identity import process_start, unix_user
from askcli.inbox.person_side import audit, queue_screens
from askcli.inbox.person_side.commands import Inbox, answer_by_id, inbox_id, list_questions
from askcli.inbox.store import Agent, QueueState, Store, open_store
from askcli.inbox.store.audit_log import AuditLog
from askcli.lines import TextLineReader
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.tools.todo_store import TodoStore

from tests.support.calls import call, example, question
from tests.support.inbox import PIN, as_if_asked_by, codex_secret, leave, pin_secret
from tests.support.processes import askcli_path

ASKER = Agent("claude", "s1", "/work/api")
SECRET = "hunter2-Zq8xV-secret"
ME = unix_user()  # who answers here, whatever --as says


@pytest.fixture
def queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The queue of one test (the commands :func:`run` runs use it too)."""
    where = str(tmp_path / "inbox.db")
    monkeypatch.setenv("ASKCLI_INBOX", where)
    opened = open_store(where)
    yield opened
    opened.close()


def inbox_as(
    queue: Store, person: str | None, lines: str, tmp_path: Path
) -> tuple[int, str, Inbox]:
    out = io.StringIO()
    conv = Conversation(
        TextLineReader(io.StringIO(lines), interactive=False),
        out,
        Style(width=100),
        RunOptions(todos=TodoStore(tmp_path / "todos.json")),
    )
    box = Inbox(queue, conv, person=person)
    return box.run(), out.getvalue(), box


def answer_as(queue: Store, person: str, qid: int, lines: str) -> tuple[int, str, str]:
    screen, out = io.StringIO(), io.StringIO()
    conv = Conversation(TextLineReader(io.StringIO(lines)), screen, Style(width=100))
    status = answer_by_id(queue, qid, conv, out, person=person)
    return status, screen.getvalue(), out.getvalue()


def ask(text: str, header: str = "Pick", labels: tuple[str, ...] = ("Yes", "No")) -> Any:
    return call(question(text, header, labels))


# -- a question for bob is never alice's -------------------------------------------------


def test_a_question_for_bob_is_never_offered_to_an_inbox_answering_as_alice(
    queue: Store, tmp_path: Path
) -> None:
    for_bob = queue.submit(ask("Deploy to production?"), ASKER, to="bob")
    anyone = queue.submit(ask("Which port?"), ASKER)
    # alice is offered #2 only; #1 is neither listed nor taken when she names it
    status, shown, _ = inbox_as(queue, "alice", f"l\n{for_bob.id}\n", tmp_path)
    assert status == 0
    assert f"[1 waiting] #{anyone.id} Which port?  claude /work/api" in shown
    assert "Deploy to production?" not in shown
    assert f"! question #{for_bob.id} is for bob, not for alice" in shown
    found = queue.get(for_bob.id)
    assert found is not None and found.state is QueueState.WAITING
    # bob is offered it first, saying who it is for
    status, shown, _ = inbox_as(queue, "bob", "", tmp_path)
    assert f"[2 waiting] #{for_bob.id} Deploy to production? (for bob)  claude /work/api" in shown


def test_inbox_answer_refuses_another_persons_question(queue: Store) -> None:
    asked = queue.submit(ask("Deploy to production?"), ASKER, to="bob")
    status, screen, out = answer_as(queue, "alice", asked.id, "1\n")
    assert status == 2 and out == ""
    assert screen == f"askcli: question #{asked.id} is for bob, not for alice\n"
    found = queue.get(asked.id)
    assert found is not None and found.state is QueueState.WAITING
    status, _, out = answer_as(queue, "bob", asked.id, "1\n")
    assert status == 0 and '"Deploy to production?"="Yes"' in json.loads(out)["content"]
    found = queue.get(asked.id)
    assert found is not None and found.answered_by == ME  # not "bob": --as is no identity


def test_a_team_question_goes_to_its_members_only(queue: Store, tmp_path: Path) -> None:
    queue.teams.add("ops", ["carol", "dave"])
    asked = queue.submit(ask("Restart the database?"), ASKER, to="ops")
    status, shown, _ = inbox_as(queue, "alice", "", tmp_path)
    assert "Restart the database?" not in shown and "(nothing waits in the inbox)" in shown
    assert answer_as(queue, "alice", asked.id, "1\n")[1] == (
        f"askcli: question #{asked.id} is for team ops, not for alice\n"
    )
    lines: list[str] = []
    list_questions(queue, lines.append, person="alice")
    assert lines == []
    list_questions(queue, lines.append, person="dave")
    assert len(lines) == 1 and "Restart the database? (for team ops)" in lines[0]
    status, shown, _ = inbox_as(queue, "carol", "\n1\n", tmp_path)
    assert status == 0
    assert f"#{asked.id} Restart the database? (for team ops)" in shown
    assert f"#{asked.id} answered: sent to claude /work/api" in shown
    found = queue.get(asked.id)
    assert found is not None and found.answered_by == ME


def test_the_first_of_two_views_holds_it_and_the_second_is_told(
    queue: Store, tmp_path: Path
) -> None:
    asked = queue.submit(ask("Which port?"), ASKER)
    alice = inbox_id()
    queue.heartbeat(alice, "alice")
    assert queue.claim(alice, person="alice") is not None
    # bob joins late: on one machine --as is a view of the same Unix user, whose other inbox
    # holds it (he is offered to take it over, and leaves it there)
    held = f"your other inbox (pid {os.getpid()}, since "
    status, shown, _ = inbox_as(queue, "bob", f"l\n{asked.id}\n\n", tmp_path)
    listed = f"Which port? (being answered by your other inbox, pid {os.getpid()}, since "
    assert "being answered" in shown and listed in shown
    assert f"! question #{asked.id} is held by {held}" in shown
    assert f"Take #{asked.id} over? y takes it here, Enter leaves it [n]: " in shown
    status, screen, _ = answer_as(queue, "bob", asked.id, "1\n")
    assert status == 2
    assert f"question #{asked.id} is held by {held}" in screen
    lines: list[str] = []
    list_questions(queue, lines.append, as_json=True)
    assert json.loads(lines[0])["being_answered_by"] == ME


def test_a_question_for_nobody_in_particular_reads_as_before(queue: Store, tmp_path: Path) -> None:
    asked = queue.submit(ask("Which port?"), ASKER)
    style = Style(width=100)
    assert (
        queue_screens.line(asked, 1, style)
        == f"[1 waiting] #{asked.id} Which port?  claude /work/api"
    )
    assert queue_screens.arrival(asked, style) == f"new #{asked.id}: Which port?  claude /work/api"


def test_a_person_s_name_is_escaped_where_it_is_shown(queue: Store) -> None:
    asked = queue.submit(ask("Which port?"), ASKER, to="bob\x1b[31m")
    line = queue_screens.list_line(asked, Style(width=100), now=asked.arrived)
    assert "\x1b" not in line and "(for bob\\x1b[31m)" in line


# -- the audit trail ---------------------------------------------------------------------


def test_each_answer_keeps_who_decided_what(queue: Store, tmp_path: Path) -> None:
    library = queue.submit(example("library.json"), ASKER)
    declined = queue.submit(ask("Deploy now?"), ASKER)
    allowed = queue.submit(example("bash.json"), ASKER)
    denied = queue.submit(example("bash.json"), Agent("codex", None, "/work/web"))
    status, shown, _ = inbox_as(queue, "alice", "\n1\nq\n\n1\n\n3\n", tmp_path)
    assert status == 0, shown
    log = AuditLog(queue).entries()
    decisions = {entry.question.id: entry.decision for entry in log}
    assert decisions == {
        library.id: "Library: date-fns (Recommended)",
        declined.id: "declined",
        allowed.id: "allowed",
        denied.id: "denied",
    }
    for entry in log:
        assert entry.question.answered_by == ME
        assert entry.question.answered_host == os.uname().nodename
        assert entry.question.finished is not None


def test_an_acp_permission_keeps_the_kind_of_the_option_chosen(
    queue: Store, tmp_path: Path
) -> None:
    """An "always" option makes a lasting rule: the trail says which kind was chosen."""
    request = example("acp-permission.json")
    always = queue.submit(request, Agent("acp", None, "/work/api"))
    once = queue.submit(request, Agent("acp", None, "/work/api"))
    rejected = queue.submit(request, Agent("acp", None, "/work/api"))
    status, shown, _ = inbox_as(queue, "alice", "\n1\n\ny\n\nn\n", tmp_path)
    assert status == 0, shown
    assert "Choose 1-3, y = 2, n = 3: " in shown
    decisions = {entry.question.id: entry.decision for entry in AuditLog(queue).entries()}
    assert decisions == {
        always.id: "allowed (allow_always)",
        once.id: "allowed (allow_once)",
        rejected.id: "denied (reject_once)",
    }


@pytest.mark.process
@pytest.mark.parametrize(
    ("document", "lines", "secret"),
    [(codex_secret, f"2\n{SECRET}\n", SECRET), (pin_secret, f"{PIN}\ny\n", PIN)],
    ids=["codex", "integer"],
)
def test_a_secret_is_never_in_the_audit_trail(
    queue: Store, tmp_path: Path, document: Any, lines: str, secret: str
) -> None:
    asked = queue.submit(document(), ASKER)
    status, _, _ = answer_as(queue, "alice", asked.id, lines)
    assert status == 0
    (entry,) = AuditLog(queue).entries()
    assert entry.decision == audit.SECRET
    assert secret not in audit.log_line(entry)
    assert secret not in json.dumps(audit.log_json(entry))
    printed = run(["inbox", "log"], tmp_path) + run(["inbox", "log", "--json"], tmp_path)
    assert "a secret answer (not kept)" in printed and secret not in printed


@pytest.mark.process
def test_the_log_prints_each_settled_question_oldest_first(queue: Store, tmp_path: Path) -> None:
    first = queue.submit(example("library.json"), ASKER)
    gone = queue.submit(ask("Deploy now?"), Agent("codex", None, "/work/web", "pid 7"))
    queue.withdraw(gone.id)
    answer_as(queue, "alice", first.id, "1\n")
    shown = run(["inbox", "log"], tmp_path).splitlines()
    host = os.uname().nodename
    assert len(shown) == 2
    assert shown[0].endswith(
        f" #{gone.id} codex /work/web (pid 7) on {host}: Deploy now? -- withdrawn"
    )
    assert shown[1].endswith(
        f" #{first.id} claude /work/api on {host}: Which library should we use for date"
        " formatting?"
        f" -- {ME} on {host}: Library: date-fns (Recommended)"
    )
    assert shown[0][:19].replace("-", "").replace(":", "").replace("T", "").isdigit()
    assert run(["inbox", "log", "--limit", "1"], tmp_path).splitlines() == shown[1:]
    (last,) = [
        json.loads(line)
        for line in run(["inbox", "log", "--json", "--limit", "1"], tmp_path).splitlines()
    ]
    assert last["id"] == first.id and last["answered_by"] == ME
    assert last["decision"] == "Library: date-fns (Recommended)"
    assert last["finished"].endswith("+00:00") and last["asker_host"] == host


@pytest.mark.process
def test_list_json_says_who_it_is_for_and_who_answered(queue: Store, tmp_path: Path) -> None:
    asked = queue.submit(ask("Which port?"), ASKER, to="bob")
    waiting = queue.submit(ask("Which cache?"), ASKER)
    answer_as(queue, "bob", asked.id, "2\n")
    found = [
        json.loads(line)
        for line in run(["inbox", "list", "--all", "--json"], tmp_path).splitlines()
    ]
    assert [(q["id"], q["to"], q["answered_by"]) for q in found] == [
        (asked.id, "bob", ME),
        (waiting.id, None, None),
    ]
    assert found[0]["answered_host"] == os.uname().nodename
    assert found[0]["finished"].endswith("+00:00") and found[1]["finished"] is None
    # --as: only what that person may answer
    found = [
        json.loads(line)
        for line in run(["inbox", "list", "--json", "--as", "carol"], tmp_path).splitlines()
    ]
    assert [q["id"] for q in found] == [waiting.id]


# -- the commands ------------------------------------------------------------------------


def run(args: list[str], tmp_path: Path, stdin: str = "", status: int = 0, **env: str) -> str:
    """The installed askcli on the inbox of ``tmp_path`` (or ``ASKCLI_INBOX=``): its stdout
    (stderr when it fails)."""
    proc = subprocess.run(
        [str(askcli_path()), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "ASKCLI_INBOX": os.environ.get("ASKCLI_INBOX") or str(tmp_path / "inbox.db"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "NO_COLOR": "1",
            **env,
        },
        cwd=tmp_path,
        timeout=30,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    return proc.stdout if status == 0 else proc.stderr


@pytest.mark.process
def test_team_commands(tmp_path: Path) -> None:
    assert run(["inbox", "team", "list"], tmp_path) == ""
    run(["inbox", "team", "add", "ops", "carol", "dave"], tmp_path)
    run(["inbox", "team", "add", "ops", "carol"], tmp_path)  # once is enough
    run(["inbox", "team", "add", "web", "erin"], tmp_path)
    assert run(["inbox", "team", "list"], tmp_path) == "ops: carol, dave\nweb: erin\n"
    found = run(["inbox", "team", "list", "--json"], tmp_path)
    assert [json.loads(line) for line in found.splitlines()] == [
        {"team": "ops", "members": ["carol", "dave"]},
        {"team": "web", "members": ["erin"]},
    ]
    run(["inbox", "team", "remove", "ops", "carol"], tmp_path)
    said = run(["inbox", "team", "remove", "ops", "zed"], tmp_path, status=1)
    assert said == "askcli: nobody was removed from team ops (no such member)\n"
    run(["inbox", "team", "remove", "web"], tmp_path)
    assert run(["inbox", "team", "list"], tmp_path) == "ops: dave\n"
    said = run(["inbox", "team", "add", "ops", "a\x1bb"], tmp_path, status=2)
    assert said == "askcli: NAME: a\\x1bb holds a character that is not printable\n"


@pytest.mark.process
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("", "--to: a name may not be empty"),
        ("x" * 65, "--to: a name has at most 64 characters, not 65"),
        ("bob\nrm", "--to: bob\\nrm holds a character that is not printable"),
    ],
)
def test_a_name_that_cannot_be_one_is_refused_in_one_line(
    tmp_path: Path, name: str, said: str
) -> None:
    stdin = json.dumps(example("library.json"))
    assert run(["ask", "--inbox", "--to", name, "-"], tmp_path, stdin, status=2) == (
        f"askcli: {said}\n"
    )
    assert run(["inbox", "--as", name], tmp_path, status=2).startswith("askcli: --as: ")


@pytest.mark.process
def test_ask_addresses_its_question_to_askcli_to(tmp_path: Path) -> None:
    document = tmp_path / "q.json"
    document.write_text(json.dumps(ask("Which port?")))
    env = {
        **os.environ,
        "ASKCLI_INBOX": str(tmp_path / "inbox.db"),
        "ASKCLI_TO": "ops",
    }
    for args in (["--to", "bob"], []):
        proc = subprocess.Popen(
            [str(askcli_path()), "ask", "--inbox", *args, str(document)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            store = open_store(tmp_path / "inbox.db")
            deadline = 100
            while not store.questions() and deadline:
                deadline -= 1
                subprocess.run(["sleep", "0.05"], check=True)
            (found,) = store.questions()
            assert found.to == (args[1] if args else "ops")
            assert answer_as(store, found.to or "", found.id, "1\n")[0] == 0
            out, err = proc.communicate(timeout=10)
            assert proc.returncode == 0 and "Which port?" in out, err
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


INBOX_COMMANDS = [
    ["ask", "--inbox", "-"],
    ["hook"],
    ["mcp"],
    ["acp", "--inbox", "--prompt", "go", "--", "/bin/false"],
    ["inbox"],
    ["inbox", "list"],
    ["inbox", "answer", "1"],
    ["inbox", "log"],
    ["inbox", "team", "list"],
]


@pytest.mark.process
@pytest.mark.parametrize("args", INBOX_COMMANDS, ids=" ".join)
def test_inbox_url_with_a_password_is_refused(tmp_path: Path, args: list[str]) -> None:
    url = "postgresql://alice:s3cret-pw@db.example/askcli"
    cut = args.index("--") if "--" in args else len(args)
    said = run([*args[:cut], "--inbox-url", url, *args[cut:]], tmp_path, status=2)
    assert said == (
        "askcli: --inbox-url holds a password, which every user of this machine can read on a"
        " command line; put it in ~/.pgpass (or PGPASSFILE, or a service file) or in"
        " ASKCLI_INBOX\n"
    )
    query = "postgresql://db.example/askcli?password=s3cret-pw"
    said = run([*args[:cut], "--inbox-url", query, *args[cut:]], tmp_path, status=2)
    assert "s3cret" not in said and "holds a password" in said


@pytest.mark.process
def test_inbox_url_selects_the_inbox(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    open_store(other).submit(ask("Which port?"), ASKER, to="bob")
    shown = run(["inbox", "list", "--inbox-url", str(other)], tmp_path)
    assert "Which port? (for bob)" in shown
    assert run(["inbox", "list"], tmp_path) == ""
    # given to the group, it holds for the subcommand; the subcommand's own wins
    assert "Which port? (for bob)" in run(["inbox", "--inbox-url", str(other), "list"], tmp_path)
    elsewhere = ["inbox", "--inbox-url", str(other), "list", "--inbox-url", str(tmp_path / "x.db")]
    assert run(elsewhere, tmp_path) == ""


# -- two people at two real inboxes ------------------------------------------------------


@pytest.mark.pty
def test_two_inboxes_a_question_for_bob_reaches_bob_only(tmp_path: Path) -> None:
    from tests.support.inbox import Queue, exit_status, result

    queue = Queue(tmp_path)
    try:
        alice = queue.inbox("--as", "alice", name="alice")
        alice.expect("(nothing waits in the inbox)")
        bob = queue.inbox("--as", "bob", name="bob")
        bob.expect("(nothing waits in the inbox)")
        asker = queue.ask(ask("Deploy to production?"), "deploy", args=("--to", "bob"))
        bob.expect("new #1: Deploy to production? (for bob)  ask ")
        bob.expect("[1 waiting] #1 Deploy to production? (for bob)  ask ")
        bob.expect("[y]: ")
        alice.type("1")  # alice names it: refused, never shown
        alice.expect("! question #1 is for bob, not for alice")
        bob.type("")
        bob.expect("Choose 1-3: ")
        bob.type("1")
        bob.expect("#1 answered: sent to ask ")
        status, replies, _ = result(asker)
        assert status == 0 and '"Deploy to production?"="Yes"' in replies[0]["content"]
        alice.child.sendeof()
        alice.expect("askcli: left the inbox")
        assert exit_status(alice) == 0
        shown = alice.log.getvalue()
        assert "new #1" not in shown and "waiting] #1" not in shown
        found = queue.store().get(1)
        assert found is not None and found.answered_by == ME
    finally:
        queue.close()


@pytest.mark.pty
def test_a_waiting_question_for_bob_is_refused_to_alice_by_name(tmp_path: Path) -> None:
    from tests.support.inbox import Queue

    queue = Queue(tmp_path)
    try:
        queue.ask(ask("Deploy to production?"), "deploy", args=("--to", "bob"))
        alice = queue.inbox("--as", "alice", name="alice")
        alice.expect("(nothing waits in the inbox)")
        alice.type("1")
        alice.expect("! question #1 is for bob, not for alice")
        assert leave(alice) == 0
        found = queue.store().get(1)
        assert found is not None and found.state is QueueState.WAITING
    finally:
        queue.close()


@pytest.mark.process
def test_askcli_hook_to_addresses_its_question(tmp_path: Path) -> None:
    from tests.support.hook import hook_input

    stdin = json.dumps(hook_input())
    out = run(["hook", "--to", "bob", "--timeout", "0.2"], tmp_path, stdin)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    (asked,) = open_store(tmp_path / "inbox.db").questions(states=tuple(QueueState))
    assert asked.to == "bob" and asked.state is QueueState.WITHDRAWN


@pytest.mark.process
def test_askcli_acp_to_addresses_its_questions(tmp_path: Path) -> None:
    from tests.support.acp import SHORT, chunk, inbox_env, setup

    agent, _ = setup(tmp_path, [[SHORT, chunk("after")]])
    args = ["acp", "--inbox", "--to", "ops", "--timeout", "0.5", "--prompt", "go", "--"]
    proc = subprocess.run(
        [str(askcli_path()), *args, *agent],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env=inbox_env(tmp_path),
    )
    assert proc.returncode == 3, proc.stderr
    found = open_store(tmp_path / "inbox.db").get(1)
    assert found is not None and found.to == "ops"


@pytest.mark.process
def test_an_empty_inbox_url_is_refused(tmp_path: Path) -> None:
    said = run(["inbox", "list", "--inbox-url", ""], tmp_path, status=2)
    assert said == "askcli: --inbox-url: give a postgresql:// URL or a file, not nothing\n"


@pytest.mark.process
def test_the_inbox_group_s_as_is_its_subcommands(queue: Store, tmp_path: Path) -> None:
    asked = queue.submit(ask("Which port?"), ASKER, to="bob")
    asker = subprocess.Popen(["sleep", "60"])  # asked by another process than the tests'
    as_if_asked_by(queue, asked.id, asker.pid, process_start(asker.pid))
    assert run(["inbox", "--as", "alice", "list"], tmp_path) == ""
    assert f"#{asked.id}" in run(["inbox", "--as", "bob", "list"], tmp_path)
    said = run(["inbox", "--as", "alice", "answer", str(asked.id)], tmp_path, "1\n", status=2)
    assert said == f"askcli: question #{asked.id} is for bob, not for alice\n"
    asker.kill()
    asker.wait()


def test_a_multi_select_decision_names_its_labels(queue: Store, tmp_path: Path) -> None:
    extras = question("Which extras?", "Extras", ("Docs, guides", "Lint"), multi=True)
    asked = queue.submit(call(extras), ASKER)
    status, _, _ = answer_as(queue, "alice", asked.id, "2,1\n\n")
    assert status == 0
    (entry,) = AuditLog(queue).entries()
    assert entry.decision == "Extras: Lint, Docs, guides"
