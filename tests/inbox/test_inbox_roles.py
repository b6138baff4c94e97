"""Who answered is the database's word (SPEC §7): on a team inbox on PostgreSQL each person
and agent connects as a role of their own, made by the SQL block of docs/team-inbox.md
(run here verbatim, and printed by ``askcli inbox roles``); teams are group roles, and
row-level security and a trigger decide who sees, claims and answers what. Nothing a client
sends (``--as``, a name in a column) changes who answered."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from askcli.errors import InboxError, InboxRefused
from askcli.inbox.person_side.commands import inbox_id
from askcli.inbox.person_side.holding import own_inboxes, take_over
from askcli.inbox.store import Agent, QueueState, Store, open_store
from askcli.inbox.store.audit_log import AuditLog

from tests.support.calls import call, question
from tests.support.postgres import Cluster
from tests.support.processes import askcli_path, poll
from tests.support.teams import Team, _drop_roles, docs_block

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

AGENT = Agent("claude", "s1", "/work/api")
REPLY = {"replies": [], "status": 0, "results": []}
LIBRARY = call(question("Which library?", "Library", ["date-fns", "Day.js"]))
COMMAND = [
    "inbox",
    "roles",
    "--person",
    "alice",
    "--person",
    "bob",
    "--team",
    "ops=alice,bob",
    "--agent",
    "ci_agent",
]


def ask(text: str) -> object:
    return call(question(text, "Pick", ["Yes", "No"]))


def _answer(store: Store, question_id: int) -> bool:
    inbox = inbox_id()
    store.heartbeat(inbox)
    held = store.claim(inbox, question_id)
    return held is not None and store.answer(inbox, question_id, REPLY, decision="Yes")


# -- the SQL block -------------------------------------------------------------------------


@pytest.mark.process
def test_the_docs_block_is_what_askcli_inbox_roles_prints(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(askcli_path()), *COMMAND],
        capture_output=True,
        text=True,
        env={**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == docs_block()


def test_roles_apply_makes_the_schema_and_the_roles_once(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path
) -> None:
    dbname = urlsplit(postgres_url).path.lstrip("/")
    _drop_roles(postgres_cluster, dbname)
    env = {**os.environ, "ASKCLI_INBOX": postgres_url, "HOME": str(tmp_path)}
    try:
        for _ in range(2):  # the second time, what exists is left as it is
            proc = subprocess.run(
                [str(askcli_path()), *COMMAND, "--apply"],
                capture_output=True,
                text=True,
                env=env,
                timeout=30,
                check=False,
            )
            assert proc.returncode == 0, proc.stderr
            assert "Traceback" not in proc.stderr
        assert "already there: CREATE ROLE alice LOGIN" in proc.stderr
        with postgres_cluster.connect(dbname) as db:
            members = db.execute(
                "SELECT m.rolname FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid"
                " JOIN pg_roles m ON m.oid = a.member WHERE g.rolname = 'ops' ORDER BY 1"
            ).fetchall()
        assert [m[0] for m in members] == ["alice", "bob"]
    finally:
        _drop_roles(postgres_cluster, dbname)


@pytest.mark.process
def test_roles_apply_on_a_file_inbox_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(askcli_path()), *COMMAND, "--apply"],
        capture_output=True,
        text=True,
        env={**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("askcli: roles --apply: the inbox is a file")


# -- who sees what ---------------------------------------------------------------------------


def test_each_role_sees_only_what_is_addressed_to_it(team: Team) -> None:
    agent = team.store("ci_agent")
    anyone = agent.submit(ask("Which port?"), AGENT)
    for_ops = agent.submit(ask("Restart the database?"), AGENT, to="ops")
    for_bob = agent.submit(ask("Deploy?"), AGENT, to="bob")
    assert [q.id for q in team.store("alice").questions()] == [anyone.id, for_ops.id]
    assert [q.id for q in team.store("bob").questions()] == [anyone.id, for_ops.id, for_bob.id]
    assert [q.id for q in team.store("mallory").questions()] == [anyone.id]
    assert team.store("other_agent").questions() == []  # another agent's questions: none
    assert [q.id for q in agent.questions()] == [anyone.id, for_ops.id, for_bob.id]


def test_who_answered_is_the_role_whatever_the_client_writes(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Which port?"), AGENT)
    alice = team.store("alice")
    inbox = inbox_id()
    alice.heartbeat(inbox, "bob")  # a claimed name: not who answers
    assert alice.claim(inbox, asked.id) is not None
    with psycopg.connect(team.url("alice"), autocommit=True) as db:
        db.execute(
            "UPDATE askcli.questions SET status = 'answered', answered_by = 'bob', result = %s"
            " WHERE id = %s",
            ('{"replies": [], "status": 0, "results": []}', asked.id),
        )
    found = team.store("bob").get(asked.id)
    assert found is not None and found.state is QueueState.ANSWERED
    assert found.answered_by == "alice"
    assert found.holder is None


def test_a_question_for_bob_cannot_be_claimed_or_answered_by_alice(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Deploy?"), AGENT, to="bob")
    alice = team.store("alice")
    inbox = inbox_id()
    alice.heartbeat(inbox)
    assert alice.claim(inbox) is None and alice.claim(inbox, asked.id) is None
    with psycopg.connect(team.url("alice"), autocommit=True) as db:
        changed = db.execute(
            "UPDATE askcli.questions SET status = 'answered' WHERE id = %s", (asked.id,)
        )
        assert changed.rowcount == 0  # row-level security: not hers to see
    assert _answer(team.store("bob"), asked.id)
    found = team.store("bob").get(asked.id)
    assert found is not None and found.answered_by == "bob"


def test_an_agent_never_answers_even_its_own_question(team: Team) -> None:
    agent = team.store("ci_agent")
    asked = agent.submit(ask("May I run rm -rf build?"), AGENT)
    assert agent.refusal() == (
        "the role ci_agent is an agent's (a member of askcli_agents): it asks and takes its"
        " answers, it does not answer"
    )
    inbox = inbox_id()
    assert agent.claim(inbox, asked.id) is None  # it may not take it
    with (
        psycopg.connect(team.url("ci_agent"), autocommit=True) as db,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="may not answer"),
    ):
        db.execute("UPDATE askcli.questions SET status = 'answered' WHERE id = %s", (asked.id,))
    proc = team.askcli("ci_agent", ["inbox", "answer", str(asked.id)], "1\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert " ".join(proc.stderr.split()) == (
        "askcli: the role ci_agent is an agent's (a member of askcli_agents): it asks and"
        " takes its answers, it does not answer"
    )
    found = team.store("alice").get(asked.id)
    assert found is not None and found.state is QueueState.WAITING


def test_an_agent_takes_only_its_own_answers(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Which port?"), AGENT)
    assert _answer(team.store("alice"), asked.id)
    assert team.store("other_agent").take(asked.id) is None
    assert team.store("other_agent").get(asked.id) is None
    found = team.store("ci_agent").get(asked.id)
    assert found is not None and found.answered_by == "alice"


def test_a_member_removed_from_the_team_no_longer_answers(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Restart the database?"), AGENT, to="ops")
    alice = team.store("alice")
    inbox = inbox_id()
    alice.heartbeat(inbox)
    assert alice.claim(inbox, asked.id) is not None
    team.sql("REVOKE ops FROM alice")
    assert alice.answer(inbox, asked.id, REPLY) is False
    found = team.store("bob").get(asked.id)
    assert found is not None and found.state is QueueState.ANSWERING  # until alice's lease ends


def test_as_is_refused_on_postgresql(team: Team) -> None:
    for args in (["inbox", "--as", "bob"], ["inbox", "answer", "1", "--as", "bob"]):
        proc = team.askcli("alice", args)
        assert proc.returncode == 2
        assert proc.stderr == (
            "askcli: --as: on a PostgreSQL inbox you answer as the role you connect as; to"
            " answer as another person, connect as their role\n"
        )


def test_a_question_to_no_role_is_refused(team: Team) -> None:
    with pytest.raises(InboxRefused, match="has no person or team of that name"):
        team.store("ci_agent").submit(ask("Which port?"), AGENT, to="nobody_here")


# -- teams are group roles ------------------------------------------------------------------


def test_only_a_role_with_the_right_changes_a_team(team: Team) -> None:
    proc = team.askcli("alice", ["inbox", "team", "add", "ops", "mallory"])
    assert proc.returncode == 2
    assert proc.stderr.startswith("askcli: team ops cannot be changed by the role alice: ")
    assert "CREATEROLE or ADMIN OPTION" in proc.stderr
    owner = open_store(team.owner_url)
    team.stores.append(owner)
    assert owner.teams.all() == {"ops": ["alice", "bob"]}
    owner.teams.add("ops", ["mallory"])
    assert owner.teams.all() == {"ops": ["alice", "bob", "mallory"]}
    assert owner.teams.remove("ops", ["mallory"]) == 1


def test_a_person_is_not_a_team(team: Team) -> None:
    owner = open_store(team.owner_url)
    team.stores.append(owner)
    with pytest.raises(InboxRefused, match="bob is not a team but a person's login role"):
        owner.teams.add("bob", ["mallory"])
    assert "mallory" not in owner.teams.all().get("bob", [])


def test_who_answered_is_in_the_log_with_the_lasting_rule(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Which port?"), AGENT)
    bob = team.store("bob")
    inbox = inbox_id()
    bob.heartbeat(inbox)
    assert bob.claim(inbox, asked.id) is not None
    assert bob.answer(inbox, asked.id, REPLY, decision="allowed", rules=["Bash(rm:*)"])
    proc = team.askcli("bob", ["inbox", "log"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith(
        " -- bob on " + os.uname().nodename + " (127.0.0.1): allowed (from now on: Bash(rm:*))"
    )
    with pytest.raises(InboxError):
        open_store(team.url("nobody_at_all")).ids()  # no such role: one line, never a traceback


def test_two_people_answering_at_once_one_wins(team: Team) -> None:
    """An agent's role asks; alice and bob, each as their own role, answer question #1 at
    the same moment: one answer is sent, the other person is told, the log names the one."""
    source = team.tmp / "call.json"
    source.write_text(json.dumps(LIBRARY))
    env = {**os.environ, "PGPASSFILE": str(team.pgpass), "HOME": str(team.tmp)}
    asker = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "ASKCLI_INBOX": team.url("ci_agent")},
    )
    owner = open_store(team.owner_url)
    team.stores.append(owner)
    poll(lambda: bool(owner.ids()), "the question in the inbox")
    people = {
        name: subprocess.Popen(
            [str(askcli_path()), "inbox", "answer", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**env, "ASKCLI_INBOX": team.url(name), "XDG_STATE_HOME": str(team.tmp / name)},
        )
        for name in ("alice", "bob")
    }
    done = {name: proc.communicate("1\n", timeout=30) for name, proc in people.items()}
    codes = {name: proc.returncode for name, proc in people.items()}
    assert sorted(codes.values()) == [0, 2], done
    (winner,) = [name for name, code in codes.items() if code == 0]
    (loser,) = [name for name, code in codes.items() if code == 2]
    assert done[loser][1].startswith("askcli: ") and "#1" in done[loser][1]
    out, err = asker.communicate(timeout=20)
    assert asker.returncode == 0, err
    assert len(out.splitlines()) == 1  # one answer, sent once
    assert '"Which library?"="date-fns"' in json.loads(out)["content"]
    (entry,) = AuditLog(owner).entries()
    assert entry.question.answered_by == winner
    assert entry.decision == "Library: date-fns"


def test_asking_a_name_that_is_no_role_is_one_line(team: Team) -> None:
    asked = team.askcli(
        "ci_agent", ["ask", "--inbox", "--to", "nobody_here", "-"], json.dumps(LIBRARY)
    )
    assert asked.returncode == 2, asked.stderr
    assert len(asked.stderr.splitlines()) == 1
    assert "--to nobody_here: the inbox" in asked.stderr and "has no person or team" in asked.stderr
    from tests.support.hook import hook_input

    hooked = team.askcli("ci_agent", ["hook", "--to", "nobody_here"], json.dumps(hook_input()))
    assert hooked.returncode == 1 and hooked.stdout == "", hooked.stderr
    assert "has no person or team of that name" in hooked.stderr


def test_an_agent_s_inbox_is_refused_in_one_line(team: Team) -> None:
    proc = team.askcli("ci_agent", ["inbox", "--answers", "/dev/null"])
    assert proc.returncode == 2
    assert " ".join(proc.stderr.split()) == (
        "askcli: the role ci_agent is an agent's (a member of askcli_agents): it asks and"
        " takes its answers, it does not answer"
    )


def test_an_agent_lists_its_own_questions(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Which port?"), AGENT)
    with psycopg.connect(team.url("other_agent"), autocommit=True) as db:  # its own process
        db.execute(
            "INSERT INTO askcli.questions (ticket, key, agent, arrived, call, status) VALUES"
            " ('q_other', 'k', '{}', 0, '{}', 'waiting')"
        )
    team.sql(  # an inbox that fell silent long ago: tidied by inboxes, never by an agent
        "INSERT INTO askcli.inboxes (id, pid, host, seen) VALUES ('gone:1:0', 1, 'h', 0)"
    )
    proc = team.askcli("ci_agent", ["inbox", "list", "--json"])
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [asked.id]


def test_a_team_before_askcli_s_roles_says_what_to_do(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path
) -> None:
    _drop_roles(postgres_cluster, urlsplit(postgres_url).path.lstrip("/"))
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "team", "add", "ops", "alice"],
        capture_output=True,
        text=True,
        env={**os.environ, "ASKCLI_INBOX": postgres_url, "HOME": str(tmp_path)},
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        "askcli: team ops: the inbox has no group role askcli_teams yet: make askcli's roles"
        " first (askcli inbox roles --apply, as the database's owner)\n"
    )


# -- taking a question over from one's own other inbox (issue 29, item 6) ---------------------


def test_a_person_takes_over_only_a_question_their_own_other_inbox_holds(team: Team) -> None:
    asked = team.store("ci_agent").submit(ask("Restart the database?"), AGENT, to="ops")
    alice, alice_too, bob = team.store("alice"), team.store("alice"), team.store("bob")
    first, second, bobs = inbox_id() + "-1", inbox_id() + "-2", inbox_id() + "-bob"
    alice.heartbeat(first)
    alice_too.heartbeat(second)
    bob.heartbeat(bobs)
    assert alice.claim(first, asked.id) is not None
    assert set(own_inboxes(bob)) == {bobs}  # the role's own inboxes: the database's word
    assert set(own_inboxes(alice_too)) == {first, second}
    assert take_over(bob, bobs, asked.id, first) is None  # bob is in ops, but not alice
    found = bob.get(asked.id)
    assert found is not None and (found.holder, found.holder_inbox) == ("alice", first)
    taken = take_over(alice_too, second, asked.id, first)  # row-level security lets her
    assert taken is not None and taken.holder_inbox == second
    assert not alice.answer(first, asked.id, REPLY)
    assert not bob.answer(bobs, asked.id, REPLY)
    assert alice_too.answer(second, asked.id, REPLY, decision="Yes")
    done = bob.get(asked.id)
    assert done is not None and done.answered_by == "alice"


def test_another_person_s_inbox_keeps_saying_who_answers_and_never_takes_over(
    team: Team,
) -> None:
    """ci_agent asks; alice's inbox holds the question; bob's inbox (another role) lists it
    as alice's and cannot take it over with ``t 1``; alice's second inbox (her role too) is
    offered it, takes it over and answers; her first is told; the agent gets one answer."""
    source = team.tmp / "call.json"
    source.write_text(json.dumps(LIBRARY))
    env = {**os.environ, "PGPASSFILE": str(team.pgpass), "HOME": str(team.tmp), "COLUMNS": "200"}
    asker = subprocess.Popen(
        [str(askcli_path()), "ask", "--inbox", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "ASKCLI_INBOX": team.url("ci_agent")},
    )
    owner = open_store(team.owner_url)
    team.stores.append(owner)
    poll(lambda: bool(owner.ids()), "the question in the inbox")
    said = team.tmp / "alice-first.err"
    with said.open("w") as err:
        first = subprocess.Popen(  # answers from a pipe left open: it holds #1 and waits
            [str(askcli_path()), "inbox"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            text=True,
            env={**env, "ASKCLI_INBOX": team.url("alice"), "NO_COLOR": "1"},
        )
    try:
        poll(lambda: "Answer #1?" in said.read_text(), "alice's first inbox holding #1")
        bob = team.askcli("bob", ["inbox"], "l\nt 1\n")
        assert bob.returncode == 0, bob.stderr
        assert "(being answered by alice)" in bob.stderr
        assert "! question #1 is being answered by alice in another inbox" in bob.stderr
        assert "Take #1 over?" not in bob.stderr and "your other inbox" not in bob.stderr
        found = owner.get(1)
        assert found is not None and found.holder == "alice"
        second = team.askcli("alice", ["inbox"], "y\n\n1\n")
        assert second.returncode == 0, second.stderr
        shown = second.stderr
        assert f"is held by your other inbox (pid {first.pid}, since " in shown, shown
        assert "Take #1 over? y takes it here, Enter leaves it [n]: y" in shown, shown
        assert "#1 answered: sent to ask " in shown, shown
        told = "; nothing was sent from here"  # taken over (or, if told late, answered)
        poll(lambda: told in said.read_text(), f"{told!r} in {said.read_text()!r}", 10)
    finally:
        first.communicate("", timeout=20)  # the answers end: it leaves
    out, err = asker.communicate(timeout=20)
    assert asker.returncode == 0, err
    assert len(out.splitlines()) == 1  # one answer, sent once
    assert '"Which library?"="date-fns"' in json.loads(out)["content"]
    (entry,) = AuditLog(owner).entries()
    assert entry.question.answered_by == "alice"


def test_a_session_is_resumed_by_whoever_may_change_its_question(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming a deferred question is a claim on its row: the agent's role that asked it
    (askcli resume as the agent) and a person who may answer it may claim it; another agent
    does not even see it. One claim at a time, whoever holds it."""
    import socket

    from askcli.inbox import asker_identity
    from askcli.inbox.store import deferred

    agent = team.store("ci_agent")
    asked = agent.submit(ask("Deploy?"), AGENT)
    assert deferred.defer(agent, asked.id, "s1/toolu_1")
    held = deferred.claim_resume(agent, asked.id)
    assert held is not None and held.mine
    assert deferred.claim_resume(team.store("other_agent"), asked.id) is None
    alice = team.store("alice")
    with monkeypatch.context() as mp:  # alice's askcli resume, another process (this one's parent)
        parent = os.getppid()
        process = asker_identity.Process(
            socket.gethostname(), parent, asker_identity.process_start(parent)
        )
        mp.setattr(asker_identity, "me", lambda: process)
        seen = deferred.claim_resume(alice, asked.id)
        assert seen is not None and not seen.mine and seen.by == held.by
        deferred.release_resume(alice, asked.id)  # not hers to release
        assert deferred.claim_resume(alice, asked.id) == seen
    deferred.release_resume(agent, asked.id)
    with monkeypatch.context() as mp:
        mp.setattr(asker_identity, "me", lambda: process)
        hers = deferred.claim_resume(alice, asked.id)
        assert hers is not None and hers.mine
