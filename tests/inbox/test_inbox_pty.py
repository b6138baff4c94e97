"""``askcli inbox`` in a real terminal (pexpect), answering ``askcli ask --inbox`` askers that
run as processes of their own: out of order, killed, withdrawn, two inboxes at once, an
inbox killed in the middle of a question, EOF, Ctrl-C and signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pexpect
import pytest

from askcli.inbox.store import QueueState

from tests.support.calls import call, question
from tests.support.inbox import Queue, exit_status, labelled, leave, result
from tests.support.processes import askcli_path, poll
from tests.support.terminals import Terminal

pytestmark = pytest.mark.pty


def resumes_the_first_s_answer(second: Terminal) -> None:
    """``second`` takes #1 (Which database? and Which port?) with the first answer kept by
    the inbox that had it, answers the second question with 2 and sends."""
    second.expect("[1 waiting] #1 Which database? (+1 more)  ask ")
    second.expect("[y]: ")  # its prompt: what is typed before is dropped
    second.type("")
    second.expect("You were answering this call before; kept from then:")  # the first's lines
    second.expect("[DB] Which database? -> SQLite")
    second.expect("Resume? [Y/n] ")
    second.type("")
    second.expect("(question 2 of 2)")
    second.type("2")
    second.expect("Submit? [y]: ")
    second.type("")
    second.expect("#1 answered")


def shown_id(term: Terminal) -> int:
    """The id of the question the inbox shows next (``[2 waiting] #N ...``)."""
    term.expect(" waiting] #")
    term.expect(" ")
    return int(term.child.before)


def test_three_askers_answered_out_of_order(queue: Queue) -> None:
    first = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_a"), "a")
    second = queue.ask(labelled("Which port?", "Port", "80", "8080", id="toolu_b"), "b")
    third = queue.ask(labelled("Which cache?", "Cache", "Redis", "None", id="toolu_c"), "c")
    term = queue.inbox()
    term.expect("[3 waiting] #1 Which database?  ask ")
    term.expect("Answer #1? Enter answers, N picks another, l lists, q declines [y]: ")
    term.type("l")
    term.expect("shown here")
    term.expect("#2")
    term.expect("waiting")
    term.expect("Which port?")
    term.expect("#3")
    term.expect("Which cache?")
    term.type("3")  # the third first
    term.expect("[3 waiting] #3 Which cache?  ask ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("")
    term.expect("[Cache] Which cache?")
    term.expect("Choose 1-3: ")
    term.type("2")
    term.expect("#3 answered: sent to ask ")
    assert result(third)[:2] == (
        0,
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_c",
                "content": 'User has answered your questions: "Which cache?"="None". You can '
                "now continue with the user's answers in mind.",
            }
        ],
    )
    term.expect("#1 Which database?  ask ")  # back to arrival order
    term.type("#2")
    term.expect("[2 waiting] #2 Which port?  ask ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("y")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("#2 answered")
    term.expect("[1 waiting] #1 Which database?  ask ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("#1 answered")
    term.expect("(nothing waits in the inbox)")
    term.expect("Waiting for questions (l lists, ? help, Ctrl-D leaves): ")
    term.child.sendeof()
    term.expect("askcli: left the inbox")
    assert exit_status(term) == 0
    assert '"Which port?"="80"' in result(second)[1][0]["content"]
    assert '"Which database?"="Postgres"' in result(first)[1][0]["content"]


def test_a_waiting_inbox_announces_an_arrival_and_calls_the_person(queue: Queue) -> None:
    term = queue.inbox("--notify", "osc9", TERM="xterm", TMUX="/tmp/tmux-1/default,1,0")
    term.expect("(nothing waits in the inbox)")
    term.expect("Waiting for questions")
    asker = queue.ask(labelled("Deploy now?", "Deploy", "Yes", "No", id="toolu_d"), "d")
    # the notification, wrapped for tmux's passthrough (every ESC doubled)
    term.expect("\x1bPtmux;\x1b\x1b]9;askcli: a question is waiting\x07\x1b\\")
    term.expect("new #1: Deploy now?  ask ")
    term.expect("[1 waiting] #1 ")
    term.expect("Deploy now?  ask ")
    term.expect("[y]: ")
    term.type("")
    term.expect("Choose 1-3: ")
    term.type("1")
    term.expect("#1 answered")
    assert '"Deploy now?"="Yes"' in result(asker)[1][0]["content"]
    assert leave(term) == 0


def test_an_asker_killed_mid_question_is_said_and_the_question_stops(queue: Queue) -> None:
    asker = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_k"), "k")
    term = queue.inbox()
    term.expect("] #1 ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("")
    term.expect("Choose 1-3: ")
    asker.kill()
    asker.communicate(timeout=5)
    term.expect("withdrew #1 while you answered; nothing was sent")
    term.expect("(nothing waits in the inbox)")
    term.type("l")
    term.expect("(no questions waiting)")
    assert leave(term) == 0
    found = queue.store().get(1)
    assert found is not None and found.state is QueueState.WITHDRAWN


def test_an_asker_that_gives_up_while_its_question_waits_is_said(queue: Queue) -> None:
    asker = queue.ask(labelled("Which port?", "Port", "80", "8080", id="toolu_w"), "w")
    other = queue.ask(labelled("Which cache?", "Cache", "Redis", "None", id="toolu_x"), "x")
    term = queue.inbox()
    term.expect("#1 Which port?  ask ")
    term.expect("[y]: ")
    other.send_signal(signal.SIGTERM)  # waits, not shown: it withdraws its own question
    term.expect("#2 withdrawn, nothing was sent: Which cache?")
    status, replies, _ = result(other)
    assert status == 143
    assert replies[0]["is_error"] is True
    asker.send_signal(signal.SIGTERM)  # the one shown at the inbox prompt
    term.expect("#1 withdrawn, nothing was sent: Which port?")
    term.expect("(nothing waits in the inbox)")
    assert leave(term) == 0


@pytest.mark.parametrize("journal", [False, True])
def test_an_inbox_killed_mid_answer_gives_the_question_to_the_next_with_its_lines(
    queue: Queue, journal: bool
) -> None:
    document = call(
        question("Which database?", "DB", ("Postgres", "SQLite")),
        question("Which port?", "Port", ("80", "8080")),
        id="toolu_two",
    )
    asker = queue.ask(document, "two")
    args = ["--journal", str(queue.tmp / "answers.journal")] if journal else []
    first = queue.inbox(*args, name="a")
    first.expect("] #1 ")
    first.expect("[y]: ")  # its prompt: what is typed before is dropped
    first.type("")
    first.expect("(question 1 of 2)")
    first.type("2")
    first.expect("(question 2 of 2)")
    first.expect("Choose 1-3: ")
    first.child.kill(signal.SIGKILL)
    assert exit_status(first) == 128 + signal.SIGKILL
    second = queue.inbox(*args, name="b")
    resumes_the_first_s_answer(second)
    status, replies, _ = result(asker)
    assert status == 0
    assert '"Which database?"="SQLite", "Which port?"="8080"' in replies[0]["content"]
    assert leave(second) == 0


def test_two_inboxes_at_once_answer_each_question_once(queue: Queue) -> None:
    askers = {
        n: queue.ask(labelled(f"Question {n}?", f"Q{n}", f"A{n}", f"B{n}", id=f"toolu_{n}"), str(n))
        for n in range(1, 5)
    }
    a = queue.inbox(name="a")
    b = queue.inbox(name="b")
    seen: dict[int, str] = {}
    for term, name in ((a, "a"), (b, "b"), (a, "a"), (b, "b")):
        n = shown_id(term)
        assert n not in seen, f"#{n} shown in two inboxes"
        seen[n] = name
        term.type("")
        term.expect("Choose 1-3: ")
        term.type("1")
        term.expect(f"#{n} answered: sent to ask ")
    assert sorted(seen) == [1, 2, 3, 4]
    for n, proc in askers.items():
        status, replies, _ = result(proc)
        assert status == 0
        assert len(replies) == 1
        assert f'"Question {n}?"="A{n}"' in replies[0]["content"]
    for term in (a, b):
        term.expect("(nothing waits in the inbox)")
        assert leave(term) == 0
    assert {q.state for q in queue.store().questions(states=tuple(QueueState))} == {
        QueueState.ANSWERED
    }


def test_q_at_the_inbox_prompt_declines_as_q_in_the_question_does(queue: Queue) -> None:
    asker = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_q"), "q")
    term = queue.inbox()
    term.expect("] #1 ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("q")
    term.expect("#1 declined: sent to ask ")
    status, replies, _ = result(asker)
    assert status == 1
    same = subprocess.run(
        [str(askcli_path()), "ask", str(queue.tmp / "q.json")],
        input="q\n",
        capture_output=True,
        text=True,
        env=queue.env,
        timeout=10,
    )
    assert replies == [json.loads(same.stdout)]
    assert leave(term) == 0


def test_eof_at_the_inbox_prompt_leaves_and_the_question_waits_again(queue: Queue) -> None:
    asker = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_e"), "e")
    term = queue.inbox()
    term.expect("] #1 ")
    term.expect("[y]: ")  # typed before its prompt, the Ctrl-D would be dropped
    term.child.sendeof()
    term.expect("askcli: left the inbox; #1 waits again for an inbox")
    assert exit_status(term) == 0
    found = queue.store().get(1)
    assert found is not None and found.state is QueueState.WAITING
    assert asker.poll() is None  # still waiting for its answer
    answered = subprocess.run(
        [str(askcli_path()), "inbox", "answer", "1"],
        input="2\n",
        capture_output=True,
        text=True,
        env=queue.env,
        timeout=10,
    )
    assert answered.returncode == 0, answered.stderr
    status, replies, _ = result(asker)
    assert status == 0
    assert replies == [json.loads(answered.stdout)]
    assert '"Which database?"="SQLite"' in replies[0]["content"]


@pytest.mark.parametrize(
    ("how", "status", "said"),
    [
        ("eof", 3, "askcli: the answers ended; #1 waits again for an inbox"),
        ("ctrl-c", 130, "askcli: interrupted; #1 waits again for an inbox"),
        ("sigterm", 143, "askcli: stopped (SIGTERM); #1 waits again for an inbox"),
        ("sighup", 129, "askcli: the terminal hung up (SIGHUP); #1 waits again for an inbox"),
    ],
)
def test_leaving_in_a_question_gives_it_back(
    queue: Queue, how: str, status: int, said: str
) -> None:
    asker = queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_s"), "s")
    term = queue.inbox()
    term.expect("] #1 ")
    term.expect("[y]: ")  # its prompt: what is typed before is dropped
    term.type("")
    term.expect("Choose 1-3: ")
    if how == "eof":
        term.child.sendeof()
    elif how == "ctrl-c":
        term.child.sendintr()
    else:
        term.child.kill(signal.SIGTERM if how == "sigterm" else signal.SIGHUP)
    if how != "sighup":  # after SIGHUP nobody reads the terminal
        term.expect(said)
    assert exit_status(term) == status
    poll(lambda: queue.store().get(1).state is QueueState.WAITING, "the question waiting again")  # type: ignore[union-attr]
    assert asker.poll() is None


def test_ctrl_c_at_the_inbox_prompt(queue: Queue) -> None:
    queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_i"), "i")
    term = queue.inbox()
    term.expect("] #1 ")
    term.expect("[y]: ")
    term.child.sendintr()
    term.expect("askcli: interrupted; #1 waits again for an inbox")
    assert exit_status(term) == 130
    found = queue.store().get(1)
    assert found is not None and found.state is QueueState.WAITING


def test_notify_command_gets_the_question_and_its_failure_is_said(queue: Queue) -> None:
    told = queue.tmp / "told.json"
    command = f"cat > {told}; exit 4"
    term = queue.inbox("--notify-command", command)
    term.expect("Waiting for questions")
    document = {
        "type": "tool_use",
        "id": "toolu_bash",
        "name": "Bash",
        "input": {"command": "rm -rf build"},
    }
    queue.ask(document, "bash")
    term.expect("new #1: permission for Bash: rm -rf build  ask ")
    term.expect("askcli: --notify-command for #1 exited with status 4")
    data = json.loads(told.read_text())
    assert data["id"] == 1
    assert data["kind"] == "permission"
    assert data["event"] == "waiting"
    assert data["questions"] == ["Bash: rm -rf build"]
    assert data["agent"].startswith("ask ")
    term.expect("[y]: ")  # Ctrl-D typed before the question's prompt would be type-ahead
    term.child.sendeof()
    assert exit_status(term) == 0


def test_a_notify_command_still_running_is_ended_with_the_inbox(queue: Queue) -> None:
    pid_file = queue.tmp / "pid"
    term = queue.inbox("--notify-command", f"echo $$ > {pid_file}; exec sleep 30")
    term.expect("Waiting for questions")
    queue.ask(labelled("Which database?", "DB", "Postgres", "SQLite", id="toolu_n"), "n")
    term.expect("new #1: ")
    term.expect("[y]: ")  # the inbox did not wait for the command
    poll(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the command's pid")
    pid = int(pid_file.read_text())
    term.child.sendeof()
    assert exit_status(term) == 0

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    poll(gone, "the notify command ended")


def test_inbox_answer_of_a_question_not_waiting(queue: Queue) -> None:
    proc = subprocess.run(
        [str(askcli_path()), "inbox", "answer", "7"],
        input="1\n",
        capture_output=True,
        text=True,
        env=queue.env,
        timeout=10,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "askcli: there is no question #7\n"
    assert pexpect  # the terminal tests above use it


# -- one person's two inboxes: taking a question over (issue 29, item 6) ---------------------

TWO = call(
    question("Which database?", "DB", ("Postgres", "SQLite")),
    question("Which port?", "Port", ("80", "8080")),
    id="toolu_over",
)


def test_a_second_inbox_takes_the_question_over_mid_answer(queue: Queue) -> None:
    asker = queue.ask(TWO, "over")
    first = queue.inbox(name="a")
    first.expect("] #1 ")
    first.expect("[y]: ")
    first.type("")
    first.expect("(question 1 of 2)")
    first.type("2")
    first.expect("(question 2 of 2)")
    first.expect("Choose 1-3: ")
    first.child.send("1")  # typed, not yet entered, when the question is taken away
    second = queue.inbox(name="b")
    second.expect("#1 Which database? (+1 more)  ask ")
    second.expect(f"  is held by your other inbox (pid {first.child.pid}, since ")
    second.expect("Take #1 over? y takes it here, Enter leaves it [n]: ")
    second.type("y")
    first.expect("brings it back)")  # the notice, folded where the pids' widths make it
    shown = " ".join(first.log.getvalue().split())
    assert (
        f"Choose 1-3: 1 askcli: your other inbox (pid {second.child.pid}) took #1 over; nothing"
        " was sent from here (the line you were typing is kept: Up at a question brings it back)"
    ) in shown  # the typed line shown, then the notice
    resumes_the_first_s_answer(second)
    second.expect(" sent to ask ")
    status, replies, _ = result(asker)
    assert status == 0
    assert len(replies) == 1  # once, the second's
    assert '"Which database?"="SQLite", "Which port?"="8080"' in replies[0]["content"]
    first.expect("(nothing waits in the inbox)")  # not offered back what was taken from it
    assert "Take #1 over?" not in first.log.getvalue()
    second.expect("(nothing waits in the inbox)")
    assert leave(second) == 0
    later = queue.ask(labelled("Which port?", "Port", "80", "8080", id="toolu_later"), "later")
    first.expect("[1 waiting] #2 Which port?  ask ")
    first.expect("[y]: ")
    first.type("")
    first.expect("Choose 1-3: ")
    first.child.send("\x1b[A\r")  # Up: the line being typed when #1 was taken, "1"
    first.expect("#2 answered: sent to ask ")
    assert '"Which port?"="80"' in result(later)[1][0]["content"]
    assert leave(first) == 0


def test_the_list_says_which_inbox_holds_a_question_and_t_takes_it_over(queue: Queue) -> None:
    asker = queue.ask(labelled("Which cache?", "Cache", "Redis", "None", id="toolu_t"), "t")
    first = queue.inbox(name="a")
    first.expect("[1 waiting] #1 Which cache?  ask ")
    first.expect("[y]: ")
    second = queue.inbox(name="b")
    second.expect("Take #1 over? y takes it here, Enter leaves it [n]: ")
    second.type("")  # left where it is: not offered again
    second.expect("(nothing waits in the inbox)")
    second.expect("Waiting for questions (l lists, ? help, Ctrl-D leaves): ")
    second.type("l")
    second.expect("being answered")
    second.expect(f"Which cache? (being answered by your other inbox, pid {first.child.pid},")
    second.expect("t 1 takes it over from your other inbox")
    listed = subprocess.run(  # the command, run by the person: every inbox is theirs
        [str(askcli_path()), "inbox", "list"],
        env={**os.environ, "ASKCLI_INBOX": queue.where, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"Which cache? (being answered by your inbox, pid {first.child.pid}, since " in listed
    second.type("1")
    second.expect(f"! question #1 is held by your other inbox (pid {first.child.pid}, since ")
    second.expect("; t 1 takes it")
    second.type("t 1")
    first.expect("(nothing waits in the inbox)")  # after the notice, folded by the pids' widths
    took = f"askcli: your other inbox (pid {second.child.pid}) took #1 over; nothing was sent"
    assert took in " ".join(first.log.getvalue().split())
    second.expect("[1 waiting] #1 Which cache?  ask ")
    second.expect("[y]: ")
    first.type("")  # the first's Enter at its prompt answers nothing now
    second.type("")
    second.expect("Choose 1-3: ")
    second.type("2")
    second.expect("#1 answered: sent to ask ")
    status, replies, _ = result(asker)
    assert status == 0 and len(replies) == 1
    assert '"Which cache?"="None"' in replies[0]["content"]
    for term in (first, second):
        assert leave(term) == 0
    assert "Take #1 over?" not in first.log.getvalue()


def test_an_offer_to_take_over_goes_once_the_other_inbox_answers(queue: Queue) -> None:
    asker = queue.ask(labelled("Which cache?", "Cache", "Redis", "None", id="toolu_g"), "g")
    first = queue.inbox(name="a")
    first.expect("[y]: ")
    second = queue.inbox(name="b")
    second.expect("Take #1 over? y takes it here, Enter leaves it [n]: ")
    first.type("")
    first.expect("Choose 1-3: ")
    first.type("1")
    first.expect("#1 answered: sent to ask ")
    second.expect("(nothing waits in the inbox)")  # the offer is out of date: gone
    second.expect("Waiting for questions")
    status, replies, _ = result(asker)
    assert status == 0 and len(replies) == 1
    for term in (first, second):
        assert leave(term) == 0


def test_inbox_answer_is_told_when_its_question_is_taken_over(queue: Queue) -> None:
    asker = queue.ask(labelled("Which cache?", "Cache", "Redis", "None", id="toolu_ia"), "ia")
    (queue.tmp / "answering").mkdir()
    answering = Terminal(
        ["inbox", "answer", "1"],
        queue.tmp / "answering",
        80,
        ASKCLI_INBOX=queue.where,
        XDG_STATE_HOME=str(queue.state),
    )
    answering.expect("Choose 1-3: ")
    inbox = queue.inbox(name="b")
    inbox.expect(f"is held by your other inbox (pid {answering.child.pid}, since ")
    inbox.expect("[n]: ")
    inbox.type("y")
    answering.expect(f"askcli: question #1 is held by your other inbox (pid {inbox.child.pid}")
    answering.expect("you answered; nothing was sent")
    assert exit_status(answering) == 2
    inbox.expect("[y]: ")
    inbox.type("")
    inbox.expect("Choose 1-3: ")
    inbox.type("2")
    inbox.expect("#1 answered: sent to ask ")
    status, replies, _ = result(asker)
    assert status == 0 and len(replies) == 1 and '"Which cache?"="None"' in replies[0]["content"]
    assert leave(inbox) == 0
