"""The person's side of the queue in process: the inbox's loop over scripted lines, its
lines and listing, declines, the watch thread, --notify-command, inbox answer."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.person_side import queue_screens, watch
from askcli.inbox.person_side.commands import Inbox, answer_by_id, decline_reply, list_questions
from askcli.inbox.store import Agent, QueuedQuestion, QueueState, Store, base, open_store
from askcli.lines import TextLineReader
from askcli.runners import session
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions
from askcli.terminal.rendering import Style
from askcli.tools.todo_store import TodoStore
from askcli.wire.documents import Document
from askcli.wire.envelopes import Output

from tests.support.calls import call, example, question
from tests.support.inbox import as_if_asked_by
from tests.support.processes import askcli_path, poll

ASKER = Agent("claude", "s1", "/work/api")


def conversation(lines: str, tmp_path: Path, **kwargs: Any) -> tuple[Conversation, io.StringIO]:
    out = io.StringIO()
    conv = Conversation(
        TextLineReader(io.StringIO(lines), interactive=False),
        out,
        Style(width=80),
        RunOptions(todos=TodoStore(tmp_path / "todos.json"), **kwargs),
    )
    return conv, out


def inbox_run(queue: Store, lines: str, tmp_path: Path, **kwargs: Any) -> tuple[int, str, Inbox]:
    conv, out = conversation(lines, tmp_path, **kwargs)
    box = Inbox(queue, conv)
    status = box.run()
    return status, out.getvalue(), box


@pytest.fixture
def queue(inbox_where: str) -> Iterator[Store]:
    """The queue of one test, on each store."""
    opened = open_store(inbox_where)
    yield opened
    opened.close()


def reply_of(queue: Store, question_id: int) -> Any:
    found = queue.get(question_id)
    assert found is not None
    return found.result


def test_questions_are_asked_in_arrival_order_with_the_screens_of_ask(
    queue: Store, tmp_path: Path
) -> None:
    one = queue.submit(call(question("Which database?", "DB", ("Postgres", "SQLite"))), ASKER)
    two = queue.submit(call(question("Which port?", "Port", ("80", "8080")), id="toolu_2"), ASKER)
    status, shown, _ = inbox_run(queue, "\n2\n\n1\n", tmp_path)
    assert status == 0
    assert "[2 waiting] #1 Which database?  claude /work/api\n" in shown
    assert "[Pick] Which database?" not in shown  # the header given: DB
    assert "[DB] Which database?   (question 1 of 1)" in shown
    assert "#1 answered: sent to claude /work/api" in shown
    assert "[1 waiting] #2 Which port?  claude /work/api\n" in shown
    assert "askcli: left the inbox" in shown
    first = session.Reply(**{**reply_of(queue, one.id), "results": []})
    assert '"Which database?"="SQLite"' in first.replies[0]["content"]
    assert '"Which port?"="80"' in reply_of(queue, two.id)["replies"][0]["content"]
    assert {q.state for q in queue.questions(states=tuple(QueueState))} == {QueueState.ANSWERED}


def test_a_number_picks_another_and_the_one_shown_waits_again(queue: Store, tmp_path: Path) -> None:
    queue.submit(call(question("First?"), id="toolu_1"), ASKER)
    queue.submit(call(question("Second?"), id="toolu_2"), ASKER)
    conv, out = conversation("2\n", tmp_path)  # pick #2, then the input ends
    box = Inbox(queue, conv)
    assert box.run() == 0
    assert "[2 waiting] #2 Second?" in out.getvalue().splitlines()[-3]
    assert "askcli: left the inbox; #2 waits again for an inbox" in out.getvalue()
    assert [q.state for q in queue.questions(states=tuple(QueueState))] == [QueueState.WAITING] * 2


def test_with_nothing_waiting_the_answer_words_say_so(queue: Store, tmp_path: Path) -> None:
    status, shown, _ = inbox_run(queue, "q\n\n", tmp_path)
    assert status == 0
    assert shown.count("(nothing waits in the inbox)") == 1
    assert shown.count("Nothing to answer yet; Ctrl-D leaves the inbox.") == 2


def test_a_number_that_is_not_waiting_is_refused_in_one_line(queue: Store, tmp_path: Path) -> None:
    queue.submit(call(question("First?"), id="toolu_1"), ASKER)
    gone = queue.submit(call(question("Gone?"), id="toolu_2"), ASKER)
    queue.withdraw(gone.id)
    status, shown, _ = inbox_run(queue, "2\n9\nxyz\n", tmp_path)
    assert status == 0
    assert "! question #2 was withdrawn by its asker" in shown
    assert "! there is no question #9" in shown
    assert "! xyz means nothing here; ? shows what does" in shown


@pytest.mark.parametrize(
    "name",
    [
        "library.json",
        "login.json",
        "codex.json",
        "opencode.json",
        "gemini.json",
        "bash.json",
        "control-request.json",
        "elicitation.json",
        "openai-message.json",
    ],
)
def test_q_at_the_inbox_prompt_gives_what_q_in_the_screens_gives(
    name: str, queue: Store, tmp_path: Path
) -> None:
    document = example(name)
    queued = queue.submit(document, ASKER)
    status, shown, _ = inbox_run(queue, "q\n", tmp_path)
    assert status == 0
    assert f"#{queued.id} declined: sent to claude /work/api" in shown
    conv, _ = conversation("q\n", tmp_path)
    in_screens = session.answer_document(Document(document), conv, queued.id)
    assert in_screens.status.name == "DECLINED"
    assert reply_of(queue, queued.id)["replies"] == in_screens.replies


def test_decline_of_an_unreadable_call_still_declines(queue: Store) -> None:
    queued = queue.submit({"neither": "a call"}, ASKER)
    reply = decline_reply(queued)
    assert reply.status.name == "DECLINED"
    assert reply.results[0].is_error


def test_declining_an_acp_permission_selects_its_reject_once_option_or_cancels(
    queue: Store,
) -> None:
    request = example("acp-permission.json")
    reply = decline_reply(queue.submit(request, ASKER))
    assert reply.status.name == "DECLINED"
    assert reply.replies[0]["result"] == {"outcome": {"outcome": "selected", "optionId": "cancel"}}
    always_only = copy.deepcopy(request)  # no reject_once: q never selects an "always"
    always_only["params"]["options"] = [
        {"optionId": "ok", "name": "Allow always", "kind": "allow_always"},
        {"optionId": "never", "name": "Never", "kind": "reject_always"},
    ]
    reply = decline_reply(queue.submit(always_only, ASKER))
    assert reply.status.name == "DECLINED"
    assert reply.replies[0]["result"] == {"outcome": {"outcome": "cancelled"}}


def test_a_todo_list_is_shown_and_accepted_without_the_inbox_prompt(
    queue: Store, tmp_path: Path
) -> None:
    queued = queue.submit(example("todo.json"), ASKER)
    status, shown, _ = inbox_run(queue, "", tmp_path)
    assert status == 0
    assert "Answer #1?" not in shown
    assert "[>] Adding JWT issuing" in shown
    assert "#1 answered: sent to claude /work/api" in shown
    assert "Todos have been modified" in reply_of(queue, queued.id)["replies"][0]["content"]


def test_the_input_ending_in_a_question_gives_it_back_and_the_journal_keeps_its_lines(
    queue: Store, tmp_path: Path
) -> None:
    document = call(question("First?", "One"), question("Second?", "Two"), id="toolu_j")
    queued = queue.submit(document, ASKER)
    journal = tmp_path / "journal.jsonl"
    status, shown, _ = inbox_run(queue, "\n2\n", tmp_path, journal_file=journal)
    assert status == 3
    assert "askcli: the answers ended; #1 waits again for an inbox" in shown
    found = queue.get(queued.id)
    assert found is not None and found.state is QueueState.WAITING
    status, shown, _ = inbox_run(queue, "\n\n1\n\n", tmp_path, journal_file=journal)
    assert status == 0
    assert "[One] First? -> B" in shown
    assert "Resume? [Y/n]" in shown
    assert '"First?"="B", "Second?"="A"' in reply_of(queue, queued.id)["replies"][0]["content"]
    assert not journal.exists()  # finished: nothing left to resume


@pytest.mark.process
def test_an_asker_that_died_before_the_inbox_opened_is_said(queue: Store, tmp_path: Path) -> None:
    queued = queue.submit(call(question("Orphan?")), ASKER)
    dead = subprocess.Popen(["true"])
    dead.wait()
    as_if_asked_by(queue, queued.id, dead.pid, None)
    status, shown, _ = inbox_run(queue, "", tmp_path)
    assert status == 0
    assert "#1 withdrawn, nothing was sent: Orphan?  claude /work/api" in shown


def _dead_asker(queue: Store, question_id: int, *, pid_reused: bool = False) -> None:
    """Make ``question_id`` the question of an asker that died: its process is gone, or
    (``pid_reused``) its pid now names a process that started at another time (this one)."""
    pid = 0
    if not pid_reused:
        dead = subprocess.Popen(["true"])
        dead.wait()
        pid = dead.pid
    as_if_asked_by(queue, question_id, pid or os.getpid(), "another-boot/1")


@pytest.mark.process
@pytest.mark.parametrize("pid_reused", [False, True])
def test_inbox_list_and_answer_tidy_a_dead_asker_s_question_first(
    queue: Store, tmp_path: Path, pid_reused: bool
) -> None:
    orphan = queue.submit(call(question("Orphan?")), ASKER)
    kept = queue.submit(call(question("Kept?"), id="toolu_2"), ASKER)
    _dead_asker(queue, orphan.id, pid_reused=pid_reused)
    lines: list[str] = []
    assert list_questions(queue, lines.append) == 0
    assert len(lines) == 1 and lines[0].endswith("Kept?  claude /work/api")
    assert queue.get(orphan.id).state is QueueState.WITHDRAWN  # type: ignore[union-attr]
    conv, said = conversation("1\n", tmp_path)
    assert answer_by_id(queue, orphan.id, conv, io.StringIO()) == 2
    assert said.getvalue() == "askcli: question #1 was withdrawn by its asker\n"
    assert queue.get(kept.id).state is QueueState.WAITING  # type: ignore[union-attr]


def test_inbox_answer_tidies_before_it_claims(queue: Store, tmp_path: Path) -> None:
    orphan = queue.submit(call(question("Orphan?")), ASKER)
    _dead_asker(queue, orphan.id, pid_reused=True)
    conv, said = conversation("1\n", tmp_path)
    out = io.StringIO()
    assert answer_by_id(queue, orphan.id, conv, out) == 2  # never answered into the void
    assert out.getvalue() == "" and "was withdrawn by its asker" in said.getvalue()
    assert reply_of(queue, orphan.id) is None


def test_an_asker_whose_pid_went_to_another_process_is_said_gone(
    queue: Store, tmp_path: Path
) -> None:
    queued = queue.submit(call(question("Orphan?")), ASKER)
    _dead_asker(queue, queued.id, pid_reused=True)
    status, shown, _ = inbox_run(queue, "", tmp_path)
    assert status == 0
    assert "#1 withdrawn, nothing was sent: Orphan?  claude /work/api" in shown
    assert "Answer #1?" not in shown


def test_two_askers_of_one_folder_are_told_apart_in_every_line(queue: Store) -> None:
    document = call(question("Which database?"))
    one = queue.submit(document, ASKER._replace(tag="pid 4242"))
    two = queue.submit(document, ASKER._replace(tag="pid 4343"))
    style = Style(width=200)
    assert (
        queue_screens.arrival(one, style) == "new #1: Which database?  claude /work/api (pid 4242)"
    )
    assert (
        queue_screens.arrival(two, style) == "new #2: Which database?  claude /work/api (pid 4343)"
    )
    assert queue_screens.line(two, 2, style).endswith(" claude /work/api (pid 4343)")
    lines: list[str] = []
    list_questions(queue, lines.append, as_json=True)
    assert [json.loads(line)["agent"] for line in lines] == [
        "claude /work/api (pid 4242)",
        "claude /work/api (pid 4343)",
    ]


def test_what_an_agent_wrote_is_escaped_in_every_line(queue: Store, tmp_path: Path) -> None:
    hostile = "Wipe\x1b[2J\x1b]0;pwned\x07 it?\u202e"
    agent = Agent("cl\x1baude", None, "/tmp/\x9bx")
    queued = queue.submit(call(question(hostile, "H\x1bdr")), agent)
    style = Style(width=200)
    for line in (
        queue_screens.line(queued, 1, style),
        queue_screens.arrival(queued, style),
        queue_screens.list_line(queued, style),
    ):
        assert "\x1b" not in line and "\x9b" not in line and "\u202e" not in line
        assert "Wipe\\x1b[2J" in line
    status, shown, _ = inbox_run(queue, "l\n", tmp_path)
    assert status == 0
    assert "\x1b" not in shown and "\x07" not in shown


def test_a_permission_prompt_is_told_from_a_question(queue: Store) -> None:
    found = queue_screens.summary(example("bash.json"))
    assert found.kind == queue_screens.PERMISSION
    assert found.texts == ("Bash: npm run migrate -- --env production",)
    assert queue_screens.summary(example("codex.json")).texts == (
        "Where should the job queue keep its state?",
        "How should failed jobs be retried?",
    )
    assert queue_screens.summary(example("todo.json")).kind == queue_screens.TODO
    assert queue_screens.summary(example("control-request.json")).kind == queue_screens.QUESTION
    assert queue_screens.summary({"what": 1}).first == "(an invalid AskUserQuestion call)"
    assert queue_screens.summary([1]).first == "(a document askcli cannot read)"
    queued = queue.submit(example("bash.json"), ASKER)
    line = queue_screens.line(queued, 1, Style(width=120))
    assert "#1 permission for Bash: npm run migrate -- --env production  claude /work" in line


def test_inbox_list_lines_and_json(queue: Store) -> None:
    queue.submit(call(question("Which database?")), ASKER)
    done = queue.submit(call(question("Done?"), id="toolu_d"), ASKER)
    queue.claim("someone", done.id)
    queue.answer("someone", done.id, {"replies": [], "status": 0, "results": []})
    lines: list[str] = []
    assert list_questions(queue, lines.append) == 0
    assert len(lines) == 1
    assert lines[0].startswith("  #1    waiting")
    assert lines[0].endswith("Which database?  claude /work/api")
    lines.clear()
    list_questions(queue, lines.append, as_json=True, every=True)
    first, second = (json.loads(line) for line in lines)
    assert {k: first[k] for k in ("id", "status", "agent", "question", "kind")} == {
        "id": 1,
        "status": "waiting",
        "agent": "claude /work/api",
        "question": "Which database?",
        "kind": "question",
    }
    assert isinstance(first["arrived"], float)
    assert "ticket" not in first  # the asker's alone (get_answer's), never listed
    assert second["status"] == "answered"


def test_inbox_answer_stores_and_prints_the_reply(queue: Store, tmp_path: Path) -> None:
    queued = queue.submit(example("library.json"), ASKER)
    conv, _ = conversation("3\n", tmp_path)
    out = io.StringIO()
    assert answer_by_id(queue, queued.id, conv, out, output=Output.ANSWERS) == 0
    printed = json.loads(out.getvalue())
    assert printed["answers"] == {"Which library should we use for date formatting?": "Temporal"}
    assert queue.take(queued.id)["status"] == 0
    conv, said = conversation("3\n", tmp_path)
    assert answer_by_id(queue, queued.id, conv, io.StringIO()) == 2
    assert said.getvalue() == "askcli: question #1 is answered already\n"


def test_inbox_answer_whose_answers_end_gives_the_question_back(
    queue: Store, tmp_path: Path
) -> None:
    queued = queue.submit(example("library.json"), ASKER)
    conv, said = conversation("", tmp_path)
    out = io.StringIO()
    assert answer_by_id(queue, queued.id, conv, out) == 3
    assert out.getvalue() == ""
    assert "askcli: the answers ended; #1 waits again for an inbox" in said.getvalue()
    found = queue.get(queued.id)
    assert found is not None and found.state is QueueState.WAITING


# -- the watch -----------------------------------------------------------------------


def events(
    seen: watch.Watch, kind: watch.QueueChange, timeout: float = 5.0
) -> list[watch.QueueEvent]:
    found: list[watch.QueueEvent] = []

    def look() -> bool:
        found.extend(e for e in seen.events() if e.kind is kind)
        return bool(found)

    poll(look, f"a {kind.value} event", timeout)
    return found


def test_the_watch_tells_arrivals_not_what_waited_before(queue: Store, tmp_path: Path) -> None:
    queue.submit(call(question("Before?")), ASKER)
    arrived: list[QueuedQuestion] = []
    seen = watch.Watch(queue, "inbox-1", on_arrival=arrived.append, period=0.01)
    seen.start()
    try:
        assert seen.events() == []
        later = queue.submit(call(question("After?"), id="toolu_2"), ASKER)
        (event,) = events(seen, watch.QueueChange.ARRIVED)
        assert event.question is not None and event.question.id == later.id
        assert [q.id for q in arrived] == [later.id]
    finally:
        seen.stop()


def test_the_watch_tells_a_withdrawal_of_the_question_held(queue: Store) -> None:
    held = queue.submit(call(question("Held?")), ASKER)
    queue.claim("inbox-1", held.id)
    seen = watch.Watch(queue, "inbox-1", period=0.01)
    seen.current = held.id
    seen.start()
    try:
        queue.withdraw(held.id)
        (event,) = events(seen, watch.QueueChange.WITHDRAWN)
        assert event.question is not None and event.question.id == held.id
    finally:
        seen.stop()


def test_the_watch_keeps_a_slow_persons_claim(
    queue: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "LEASE", 0.3)
    monkeypatch.setattr(watch, "HEARTBEAT", 0.05)
    kept = queue.submit(call(question("Kept?")), ASKER)
    lost = queue.submit(call(question("Lost?"), id="toolu_2"), ASKER)
    queue.heartbeat("beating")
    queue.claim("beating", kept.id)
    queue.heartbeat("silent")
    queue.claim("silent", lost.id)
    seen = watch.Watch(queue, "beating", period=0.01)
    seen.start()
    try:
        time.sleep(0.6)
        queue.reopen().tidy()
        assert queue.get(kept.id).state is QueueState.ANSWERING  # type: ignore[union-attr]
        assert queue.get(lost.id).state is QueueState.WAITING  # type: ignore[union-attr]
    finally:
        seen.stop()


@pytest.mark.process
def test_a_notify_command_that_overstays_is_ended_and_said(tmp_path: Path) -> None:
    problems: list[str] = []
    commands = watch.Commands(f"echo $$ > {tmp_path / 'pid'}; exec sleep 30", problems.append, 0.3)
    queued = open_store(tmp_path / "inbox.db").submit(call(question("Slow?")), ASKER)
    started = time.monotonic()
    commands(queued)
    assert time.monotonic() - started < 0.2  # never waited for
    poll(lambda: bool(problems), "the command's failure")
    assert problems == ["--notify-command for #1 ran longer than 0.3 s and was ended"]
    commands.close()


@pytest.mark.process
def test_a_notify_command_gets_the_question_as_json(tmp_path: Path) -> None:
    problems: list[str] = []
    told = tmp_path / "told.json"
    commands = watch.Commands(f"cat > {told}", problems.append)
    queued = open_store(tmp_path / "inbox.db").submit(example("codex.json"), ASKER)
    commands(queued)
    poll(lambda: told.exists() and told.read_text().endswith("\n"), "the description")
    data = json.loads(told.read_text())
    assert data["event"] == "waiting"
    assert data["kind"] == "question"
    assert data["agent"] == "claude /work/api"
    assert data["questions"][0] == "Where should the job queue keep its state?"
    assert data["tools"] == ["request_user_input"]
    assert "ticket" not in data and queued.ticket not in told.read_text()
    commands.close()
    assert problems == []


@pytest.mark.process
def test_a_notify_command_runs_where_the_inbox_is_named(tmp_path: Path) -> None:
    """``askcli inbox --inbox-url X --notify-command CMD``: CMD gets ``ASKCLI_INBOX=X`` (an
    ``askcli inbox list`` it runs reads the same inbox), askcli's own environment untouched."""
    from askcli.inbox.location import environment

    problems: list[str] = []
    told = tmp_path / "told"
    chosen = str(tmp_path / "chosen.db")
    assert environment(None) is None
    commands = watch.Commands(
        f'printf %s "$ASKCLI_INBOX" > {told}', problems.append, env=environment(chosen)
    )
    commands(open_store(tmp_path / "inbox.db").submit(call(question("Where?")), ASKER))
    poll(lambda: told.exists() and told.read_text() != "", "the command's environment")
    assert told.read_text() == chosen
    assert os.environ.get("ASKCLI_INBOX") != chosen
    commands.close()
    assert problems == []


@pytest.mark.process
def test_inbox_list_command_escapes_and_prints_json(tmp_path: Path) -> None:
    path = tmp_path / "inbox.db"
    open_store(path).submit(call(question("Red\x1b[31m?")), ASKER)
    env = {"ASKCLI_INBOX": str(path)}
    from tests.support.processes import run_askcli

    shown = run_askcli("inbox", "list", env=env)
    assert shown.returncode == 0
    assert "Red\\x1b[31m?" in shown.stdout and "\x1b" not in shown.stdout
    as_json = run_askcli("inbox", "list", "--json", env=env)
    assert json.loads(as_json.stdout)["question"] == "Red\x1b[31m?"
    assert "\x1b" not in as_json.stdout
    bad = run_askcli("inbox", "list", env={"ASKCLI_INBOX": str(tmp_path)})
    assert bad.returncode == 2
    assert bad.stderr.startswith("askcli: ") and bad.stderr.count("\n") == 1
    assert askcli_path().exists()


def test_each_question_is_asked_in_its_agent_s_session_and_the_inbox_s_own_stay(
    queue: Store, tmp_path: Path
) -> None:
    todo = {
        "type": "tool_use",
        "id": "toolu_t",
        "name": "TodoWrite",
        "input": {"todos": [{"content": "Ship", "status": "pending", "activeForm": "Shipping"}]},
    }
    queue.submit(todo, ASKER)
    queue.submit({**todo, "id": "toolu_u"}, Agent("claude", "s2", "/work/api"))
    status, shown, box = inbox_run(queue, "\n\n", tmp_path)
    assert status == 0
    assert "Todo list (s1)" in shown and "Todo list (s2)" in shown
    assert box.conv.options.session is None


def test_what_a_claude_code_line_says_it_supports_counts_for_the_questions_after_it(
    queue: Store, tmp_path: Path
) -> None:
    from askcli.wire.wording.current import CLAUDE_CODE
    from askcli.wire.wording.texts import UNANSWERED_CAPABILITY

    init = {"type": "system", "subtype": "init", "capabilities": [UNANSWERED_CAPABILITY]}
    ask = {"questions": [question("First?"), question("Second?")]}
    control = {
        "type": "control_request",
        "request_id": "req_1",
        "request": {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "input": ask},
    }
    queue.submit(init, ASKER)
    asked = queue.submit(control, ASKER)
    status, _, box = inbox_run(queue, "\n\n1\ns\n\n", tmp_path, wording=CLAUDE_CODE)
    assert status == 0
    response = reply_of(queue, asked.id)["replies"][0]["response"]["response"]
    assert response["updatedInput"]["annotations"] == {"Second?": {"unanswered": "skipped"}}
    assert box.conv.options.capabilities == {UNANSWERED_CAPABILITY}
