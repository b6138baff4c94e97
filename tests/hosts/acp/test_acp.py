"""askcli acp against a scripted ACP agent built on the SDK (tests/peers/acp_agent.py)."""

from __future__ import annotations

import copy
import io
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import askcli_path

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install 'askcli[acp]')")
import pexpect

from tests.support.acp import (
    OPTIONS,
    SHORT,
    chunk,
    ended,
    expect,
    inbox_env,
    read_log,
    run,
    setup,
    spawn,
    wait_log,
)

PLAN = {
    "sessionUpdate": "plan",
    "entries": [
        {"content": "Look", "priority": "high", "status": "in_progress"},
        {"content": "Write", "priority": "low", "status": "pending"},
    ],
}
LONG = "x" * 3000  # a permission request is shown whole, never shortened
PERMISSION = {
    "request": "session/request_permission",
    "params": {
        "toolCall": {
            "toolCallId": "t1",
            "title": "echo hi",
            "kind": "execute",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "line one\n" + LONG}},
                {"type": "diff", "path": "a.txt", "oldText": "old\n", "newText": "new\n"},
            ],
            "rawInput": {"command": "echo hi"},
        },
        "options": OPTIONS,
    },
}


def tool(status: str, new: bool = False) -> dict[str, Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call" if new else "tool_call_update",
        "toolCallId": "t1",
        "status": status,
    }
    if new:
        update |= {"title": "echo hi", "kind": "execute"}
    return {"update": update}


AUQ = {
    "request": "elicitation/create",
    "params": {
        "message": "Which database?",
        "mode": "form",
        "toolCallId": "toolu_ask_1",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "question_0": {
                    "type": "string",
                    "title": "DB",
                    "oneOf": [
                        {
                            "const": "Postgres",
                            "title": "Postgres — server",
                            "_meta": {"_claude/askUserQuestionOption": {"description": "server"}},
                        },
                        {
                            "const": "SQLite",
                            "title": "SQLite — file",
                            "_meta": {"_claude/askUserQuestionOption": {"description": "file"}},
                        },
                    ],
                },
                "question_0_custom": {"type": "string", "title": "Other"},
            },
        },
    },
}
FORM = {
    "request": "elicitation/create",
    "params": {
        "message": "Your name?",
        "mode": "form",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}},
            "required": ["name"],
        },
    },
}
URL = {
    "request": "elicitation/create",
    "params": {
        "message": "Log in",
        "mode": "url",
        "elicitationId": "e1",
        "url": "https://example.com/login",
    },
}


@pytest.mark.process
def test_a_whole_turn(tmp_path: Path) -> None:
    turn = [
        {"update": PLAN},
        chunk("I will run "),
        chunk("a command.\x1b[31m"),
        tool("pending", new=True),
        {"stderr": "some \x1b[2J noise"},
        PERMISSION,
        tool("in_progress"),
        tool("completed"),
        chunk("All done, "),
        chunk("final answer."),
    ]
    r = run(tmp_path, [turn], "y\n", "--prompt", "do it")
    assert r.rc == 0, r.err
    assert r.out == "All done, final answer.\n"
    assert r.replies() == [{"outcome": {"optionId": "proceed_once", "outcome": "selected"}}]
    assert r.log[2] == {"prompt": [{"type": "text", "text": "do it"}]}
    caps = r.log[0]["initialize"]["clientCapabilities"]
    assert caps["elicitation"] == {"form": {}, "url": {}}
    assert caps["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert caps["terminal"] is False
    err = r.err
    for line in [
        "(scripted 1.0 session sess-1)",
        "Plan\n  [>] Look\n  [ ] Write\n  0/2 done",
        "(agent stderr) some \\x1b[2J noise",
        "Agent: I will run a command.\\x1b[31m",
        "  -> echo hi  (pending)",
        "The agent asks to run: echo hi\n  kind: execute\n",
        "line one",
        "  1. Allow for this session  (allow_always)\n  2. Allow  (allow_once)\n"
        "  3. Reject  (reject_once)\nChoose 1-3, y = 2, n = 3: y",
        "-old",
        "+new",
        "  -> echo hi  (running)\n  -> echo hi  (done)\nAgent: All done, final answer.\n",
        "-- turn done, ",
    ]:
        assert line in err, line
    assert "\x1b" not in err
    assert err.replace("\n", "").count("x") >= len(LONG)  # whole, never shortened


@pytest.mark.process
@pytest.mark.parametrize(
    ("answer", "chosen"),
    [
        ("1\n", "proceed_always"),
        ("2\n", "proceed_once"),
        ("n\n", "cancel"),
        ("3\n", "cancel"),
        ("2.\n", "proceed_once"),  # N. as at a question
        ("3.\n", "cancel"),
    ],
)
def test_permission_options_in_the_order_sent(tmp_path: Path, answer: str, chosen: str) -> None:
    r = run(tmp_path, [[PERMISSION]], answer, "--prompt", "go")
    assert r.rc == 0, r.err
    assert r.replies() == [{"outcome": {"optionId": chosen, "outcome": "selected"}}]


@pytest.mark.process
@pytest.mark.parametrize("typed", ["maybe", "ok", "sure", "Yes.", "allow", "4", "no, later"])
def test_permission_answers_running_out_is_cancelled_never_allowed(
    tmp_path: Path, typed: str
) -> None:
    r = run(tmp_path, [[PERMISSION, chunk("after")]], f"{typed}\n", "--prompt", "go")
    assert r.rc == 3, r.err
    assert r.replies() == [{"outcome": {"outcome": "cancelled"}}]
    assert "! type 1-3, y = 2, n = 3" in r.err
    assert "no answer (the input ended)" in r.err


ALWAYS_ONLY = [
    {"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": "reject_forever", "name": "Never", "kind": "reject_always"},
]


def asking(options: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "request": "session/request_permission",
        "params": {"toolCall": {"toolCallId": "t1", "title": "echo hi"}, "options": options},
    }


@pytest.mark.process
@pytest.mark.parametrize(
    ("answers", "chosen"),
    [
        *(("y\n", None), ("yes\n", None), ("n\n", None), ("q\n", None), ("\n", None)),
        *(("y\n1\n", "proceed_always"), ("n\n2\n", "reject_forever"), ("Y\n1\n", "proceed_always")),
    ],
)
def test_y_and_n_never_select_an_always_option(
    tmp_path: Path, answers: str, chosen: str | None
) -> None:
    r = run(tmp_path, [[asking(ALWAYS_ONLY)]], answers, "--prompt", "go")
    assert r.rc == (0 if chosen else 3), r.err
    outcome = {"optionId": chosen, "outcome": "selected"} if chosen else {"outcome": "cancelled"}
    assert r.replies() == [{"outcome": outcome}]
    assert (
        "  1. Allow for this session  (allow_always)\n  2. Never  (reject_always)\nChoose 1-2: "
    ) in r.err
    word = answers.split("\n")[0].lower()
    if word:
        assert (
            f"! the agent offers no {'allow' if word.startswith('y') else 'reject'}_once option "
            f'and {word} never selects an "always" one: type the number of the option you '
            "choose (1-2)"
        ) in r.err


@pytest.mark.process
def test_y_selects_allow_once_wherever_it_is(tmp_path: Path) -> None:
    options = [
        {"optionId": "reject_forever", "name": "Never", "kind": "reject_always"},
        {"optionId": "proceed_always", "name": "Always", "kind": "allow_always"},
        {"optionId": "proceed_once", "name": "Once", "kind": "allow_once"},
    ]
    r = run(tmp_path, [[asking(options)]], "n\ny\n", "--prompt", "go")
    assert r.rc == 0, r.err
    assert "Choose 1-3, y = 3: " in r.err
    assert r.replies() == [{"outcome": {"optionId": "proceed_once", "outcome": "selected"}}]


@pytest.mark.process
def test_content_that_is_not_text_is_named_not_dropped(tmp_path: Path) -> None:
    blocks = [
        {"type": "text", "text": "Here: "},
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "text", "text": " and "},
        {"type": "resource_link", "name": "spec", "uri": "file:///w/spec.md\x1b[2J"},
        {"type": "text", "text": " and "},
        {"type": "resource", "resource": {"uri": "file:///w/a.bin", "blob": "AAAA"}},
    ]
    turn = [{"update": {"sessionUpdate": "agent_message_chunk", "content": b}} for b in blocks]
    r = run(tmp_path, [turn], "", "--prompt", "go")
    assert r.rc == 0, r.err
    said = "Here: [image image/png] and [link spec: file:///w/spec.md\\x1b[2J] and\n"
    said += "  [resource file:///w/a.bin]"
    assert f"Agent: {said}\n" in r.err
    assert r.out == (
        "Here: [image image/png] and [link spec: file:///w/spec.md\\x1b[2J] and "
        "[resource file:///w/a.bin]\n"
    )


@pytest.mark.process
def test_a_failed_tool_call_says_why_on_lines_of_its_own(tmp_path: Path) -> None:
    why = "\n".join(f"line {n}" for n in range(1, 26))
    failed = tool("failed")
    failed["update"]["content"] = [
        {"type": "content", "content": {"type": "text", "text": why + "\x1b[2J"}}
    ]
    one_line = tool("failed")
    one_line["update"]["toolCallId"] = "t2"
    one_line["update"]["content"] = [
        {"type": "content", "content": {"type": "text", "text": "denied"}}
    ]
    r = run(tmp_path, [[tool("pending", new=True), failed, one_line]], "", "--prompt", "go")
    assert r.rc == 0, r.err
    shown = "".join(f"       line {n}\n" for n in range(1, 21))
    assert f"  -> echo hi  (failed):\n{shown}       (5 more lines)\n" in r.err
    assert "  -> t2  (failed): denied\n" in r.err
    assert "\x1b" not in r.err


@pytest.mark.process
def test_askuserquestion_form_is_asked_as_askuserquestion(tmp_path: Path) -> None:
    r = run(tmp_path, [[AUQ]], "2\n", "--prompt", "go")
    assert r.rc == 0, r.err
    assert "[DB] Which database?" in r.err
    assert "  1. Postgres - server\n  2. SQLite - file\n  3. Other" in r.err
    assert r.replies() == [{"action": "accept", "content": {"question_0": "SQLite"}}]


@pytest.mark.process
def test_askuserquestion_other_is_sent_exactly_as_typed(tmp_path: Path) -> None:
    r = run(tmp_path, [[AUQ]], "3\n  my own, answer \n", "--prompt", "go")
    assert r.rc == 0, r.err
    content = {"question_0_custom": "  my own, answer "}
    assert r.replies() == [{"action": "accept", "content": content}]


@pytest.mark.process
def test_general_form_and_url(tmp_path: Path) -> None:
    r = run(tmp_path, [[FORM, URL]], "Mona\n\nn\n", "--prompt", "go")
    assert r.rc == 0, r.err
    assert "The agent asks: Your name?" in r.err
    assert "https://example.com/login" in r.err
    assert r.replies() == [
        {"action": "accept", "content": {"name": "Mona"}},
        {"action": "decline"},
    ]


@pytest.mark.process
def test_url_consent_names_the_host_a_browser_opens(tmp_path: Path) -> None:
    # the SDK hands the URL over already normalised (evil.example/@github.com/)
    evil, idn = copy.deepcopy(URL), copy.deepcopy(URL)
    evil["params"]["url"] = "https://evil.example\\@github.com/"
    idn["params"]["url"] = "https://ехample.com/"
    r = run(tmp_path, [[evil, idn]], "n\nn\n", "--prompt", "go")
    assert "\n  domain: evil.example\n" in r.err and "domain: github.com" not in r.err
    assert "\n  domain: xn--ample-ywe6i.com (Unicode: ехample.com)\n" in r.err
    assert r.replies() == [{"action": "decline"}, {"action": "decline"}]


@pytest.mark.process
def test_form_input_ending_is_cancel_and_status_3(tmp_path: Path) -> None:
    r = run(tmp_path, [[FORM, chunk("x")]], "", "--prompt", "go")
    assert r.rc == 3, r.err
    assert r.replies()[0] == {"action": "cancel"}


@pytest.mark.process
def test_prompt_loop_and_eof(tmp_path: Path) -> None:
    r = run(tmp_path, [[chunk("one")], [chunk("two")]], "first\n\nsecond\n")
    assert r.rc == 0, r.err
    assert r.out == "one\ntwo\n"
    prompts = [e["prompt"][0]["text"] for e in r.log if "prompt" in e]
    assert prompts == ["first", "second"]


@pytest.mark.process
def test_a_turn_that_stops_early_is_status_1(tmp_path: Path) -> None:
    r = run(tmp_path, [[chunk("cut"), {"stop": "max_tokens"}]], "", "--prompt", "go")
    assert r.rc == 1
    assert "-- turn ended: max_tokens" in r.err


@pytest.mark.process
def test_the_agent_dying_is_status_1(tmp_path: Path) -> None:
    r = run(tmp_path, [[chunk("bye"), {"exit": 7}]], "", "--prompt", "go")
    assert r.rc == 1
    assert "askcli: the agent failed" in r.err
    assert "Traceback" not in r.err


@pytest.mark.process
def test_usage(tmp_path: Path) -> None:
    r = run(tmp_path, [], "", "--prompt", "go")
    assert "Traceback" not in r.err
    proc = subprocess.run(
        [str(askcli_path()), "acp", "--", str(tmp_path / "no-such-agent")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "cannot start the agent" in proc.stderr
    proc = subprocess.run(
        [str(askcli_path()), "acp", "hi", "--acp"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2
    assert "goes after --" in proc.stderr


# --- at a terminal: Ctrl-C, signals ----------------------------------------------------


@pytest.mark.pty
def test_ctrl_c_cancels_the_turn_then_ctrl_d_ends(tmp_path: Path) -> None:
    child, shown, log = spawn(tmp_path, [[chunk("working"), {"wait_cancel": True}], [chunk("2")]])
    expect(child, shown, "> ")
    child.sendline("go")
    wait_log(log, "prompt")
    time.sleep(0.2)
    child.sendintr()
    expect(child, shown, "(cancelling the turn; Ctrl-C again ends the session)")
    expect(child, shown, "-- turn ended: cancelled")
    assert "cancel" in [next(iter(e)) for e in read_log(log)]
    expect(child, shown, "> ")
    child.sendline("again")
    expect(child, shown, "Agent: 2")
    expect(child, shown, "> ")
    child.sendeof()
    assert ended(child, shown) == 0


@pytest.mark.pty
def test_ctrl_c_at_a_permission_prompt_answers_cancelled(tmp_path: Path) -> None:
    child, shown, log = spawn(tmp_path, [[SHORT, {"wait_cancel": True}]], "--prompt", "go")
    expect(child, shown, "Choose 1-3, y = 2, n = 3: ")
    child.sendintr()
    expect(child, shown, "-- turn ended: cancelled")
    assert ended(child, shown) == 130
    entries = read_log(log)
    cancelled = {
        "reply": {
            "method": "session/request_permission",
            "result": {"outcome": {"outcome": "cancelled"}},
        }
    }
    # session/cancel first: an agent that hears "cancelled" alone goes on with the turn
    assert [e for e in entries if "cancel" in e or "reply" in e] == [
        {"cancel": "sess-1"},
        cancelled,
    ]


@pytest.mark.pty
def test_ctrl_c_is_recorded_and_replayed(tmp_path: Path) -> None:
    from askcli import fixtures

    path = tmp_path / "session.json"
    turns = [
        [chunk("asking"), SHORT, {"wait_cancel": True}],
        [chunk("working"), {"wait_cancel": True}],
        [chunk("third")],
    ]
    child, shown, log = spawn(tmp_path, turns, "--record", str(path))
    expect(child, shown, "> ")
    child.sendline("one")
    expect(child, shown, "Choose 1-3, y = 2, n = 3: ")
    child.sendintr()  # at a question
    expect(child, shown, "-- turn ended: cancelled")
    expect(child, shown, "> ")
    child.sendline("two")
    for _ in range(100):  # the second prompt reached the agent
        if sum("prompt" in e for e in read_log(log)) == 2:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    child.sendintr()  # while the agent works
    expect(child, shown, "-- turn ended: cancelled")
    expect(child, shown, "> ")
    child.sendline("three")
    expect(child, shown, "Agent: third")
    expect(child, shown, "> ")
    child.sendeof()
    assert ended(child, shown) == 0
    assert "does not give what it did" not in shown.getvalue()
    fixture = fixtures.load(path)
    assert fixture["answers"] == ["one", "\x03", "two", "three"]
    assert {"interrupt": True} in fixture["acp"]["received"]
    assert fixture["status"] == 0
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    requests = [e.get("request") for e in fixture["acp"]["sent"]]
    assert requests.count("session/cancel") == 2


@pytest.mark.pty
def test_ctrl_c_at_the_prompt_is_recorded_and_replayed(tmp_path: Path) -> None:
    from askcli import fixtures

    path = tmp_path / "session.json"
    child, shown, _ = spawn(tmp_path, [[chunk("hello")]], "--record", str(path))
    expect(child, shown, "> ")
    child.sendline("hi")
    expect(child, shown, "Agent: hello")
    expect(child, shown, "> ")
    child.sendintr()
    expect(child, shown, "askcli: session ended")
    assert ended(child, shown) == 130
    fixture = fixtures.load(path)
    assert fixture["answers"] == ["hi", "\x03"]
    assert fixture["status"] == 130
    expected, actual = fixtures.replay(fixture)
    assert actual == expected


@pytest.mark.pty
def test_second_ctrl_c_ends_and_the_agent_is_ended(tmp_path: Path) -> None:
    child, shown, log = spawn(tmp_path, [[{"wait_cancel": True}, {"sleep": 30}]], "--prompt", "go")
    wait_log(log, "prompt")
    child.sendintr()
    expect(child, shown, "Ctrl-C again ends the session")
    wait_log(log, "cancel")
    child.sendintr()
    expect(child, shown, "askcli: session ended")
    assert ended(child, shown) == 130


@pytest.mark.pty
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signals_end_the_session_and_the_agent(tmp_path: Path, sig: int, status: int) -> None:
    pidfile = tmp_path / "agent.pid"
    turns = [[{"stderr": "started"}, {"sleep": 30}]]
    child, shown, _ = spawn(tmp_path, turns, "--prompt", "go")
    expect(child, shown, "(agent stderr) started")
    pids = subprocess.run(
        ["pgrep", "-f", str(tmp_path / "script.json")], capture_output=True, text=True
    ).stdout.split()
    assert pids
    pidfile.write_text(pids[0])
    child.kill(sig)
    assert ended(child, shown) == status
    for _ in range(50):
        if not os.path.exists(f"/proc/{pids[0]}"):
            break
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pids[0]}"), "the agent outlived askcli"


# --- askcli acp --record, askcli replay --------------------------------------------------

SESSION = [
    [
        {"update": PLAN},
        chunk("I will run "),
        chunk("a command."),
        tool("pending", new=True),
        SHORT,
        tool("in_progress"),
        tool("completed"),
        chunk("Done: "),
        chunk("hi."),
    ],
    [AUQ, FORM, URL, chunk("You chose well.")],
]
SESSION_ANSWERS = "run echo\ny\npick\n3\n  my own, answer \nMona\n\nn\n"


def record(tmp_path: Path, turns: list[list[dict[str, Any]]], answers: str, *args: str) -> Any:
    from askcli import fixtures

    r = run(tmp_path, turns, answers, "--record", str(tmp_path / "f.json"), *args)
    assert "Traceback" not in r.err
    assert "does not give what it did" not in r.err
    return r, fixtures.load(tmp_path / "f.json")


@pytest.mark.process
def test_record_keeps_the_session_and_replay_gives_it_again(tmp_path: Path) -> None:
    from askcli import fixtures

    r, fixture = record(tmp_path, SESSION, SESSION_ANSWERS)
    assert r.rc == 0, r.err
    acp = fixture["acp"]
    assert fixture["answers"] == SESSION_ANSWERS.splitlines()
    assert fixture["stdout"] == r.out.splitlines() == ["Done: hi.", "You chose well."]
    assert fixture["stderr"] == r.err.replace(f"askcli: recorded {tmp_path / 'f.json'}\n", "")
    assert fixture["status"] == 0
    # what askcli sent back is what the agent received, by request id, in order
    answers = [e["result"] for e in acp["sent"] if "id" in e]
    assert answers == r.replies()
    assert [e["id"] for e in acp["sent"] if "id" in e] == [1, 2, 3, 4]
    requests = [e["request"] for e in acp["sent"] if "request" in e]
    assert requests == ["initialize", "session/new", "session/prompt", "session/prompt"]
    got = [e.get("request") for e in acp["received"] if "request" in e]
    assert got == ["session/request_permission"] + ["elicitation/create"] * 3
    turns = [e for e in acp["received"] if e.get("reply") == "session/prompt"]
    assert all(isinstance(t["seconds"], float) for t in turns)
    expected, actual = fixtures.replay(fixture)
    assert actual == expected
    proc = subprocess.run(
        [str(askcli_path()), "replay", str(tmp_path / "f.json")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.process
def test_replay_finds_a_changed_answer(tmp_path: Path) -> None:
    from askcli import fixtures

    _, fixture = record(tmp_path, [[SHORT, chunk("ok")]], "y\n", "--prompt", "go")
    fixture["answers"] = ["n"]
    expected, actual = fixtures.replay(fixture)
    assert actual.sent != expected.sent
    lines = fixtures.diff(expected, actual, "f")
    assert any(line.startswith("-") and "proceed_once" in line for line in lines)
    assert any(line.startswith("+") and '"optionId":"cancel"' in line for line in lines)


@pytest.mark.process
@pytest.mark.parametrize(
    ("turns", "answers", "status"),
    [
        ([[SHORT, chunk("after")]], "", 3),  # the input ended at a question: cancelled
        ([[chunk("bye"), {"exit": 7}]], "", 1),  # the agent died
        ([[chunk("cut"), {"stop": "max_tokens"}]], "", 1),
        ([[{"request": "fs/read_text_file", "params": {"path": "/etc/passwd"}}]], "", 0),
    ],
)
def test_record_and_replay_the_other_endings(
    tmp_path: Path, turns: list[list[dict[str, Any]]], answers: str, status: int
) -> None:
    from askcli import fixtures

    r, fixture = record(tmp_path, turns, answers, "--prompt", "go")
    assert r.rc == status == fixture["status"], r.err
    expected, actual = fixtures.replay(fixture)
    assert actual == expected


@pytest.mark.process
def test_replay_refuses_a_broken_acp_fixture(tmp_path: Path) -> None:
    from askcli import fixtures
    from askcli.errors import BadFixture

    _, fixture = record(tmp_path, [[chunk("x")]], "", "--prompt", "go")
    fixture["acp"]["received"] = "nope"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(fixture))
    with pytest.raises(BadFixture, match=r"acp\.received"):
        fixtures.load(path)


# --- askcli acp --inbox ----------------------------------------------------------------


def acp_in_inbox(tmp_path: Path, agent: list[str]) -> subprocess.Popen[str]:
    """``askcli acp --inbox`` running ``agent`` for one prompt; its questions wait in the inbox."""
    return subprocess.Popen(
        [str(askcli_path()), "acp", "--inbox", "--prompt", "go", "--", *agent],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=inbox_env(tmp_path),
    )


def answer_in_inbox(tmp_path: Path, number: int, typed: str) -> subprocess.CompletedProcess[str]:
    from askcli.inbox.store import open_store

    for _ in range(200):  # the question is queued
        if open_store(tmp_path / "inbox.db").get(number) is not None:
            break
        time.sleep(0.05)
    return subprocess.run(
        [str(askcli_path()), "inbox", "answer", str(number)],
        input=typed,
        capture_output=True,
        text=True,
        env=inbox_env(tmp_path),
        timeout=30,
    )


@pytest.mark.process
@pytest.mark.parametrize(
    ("steps", "typed", "replies"),
    [
        ([SHORT], ["y\n"], [{"outcome": {"optionId": "proceed_once", "outcome": "selected"}}]),
        ([SHORT], ["n\n"], [{"outcome": {"optionId": "cancel", "outcome": "selected"}}]),
        (
            [AUQ, FORM],
            ["3\n  my own, answer \n", "Mona\n\n"],
            [
                {"action": "accept", "content": {"question_0_custom": "  my own, answer "}},
                {"action": "accept", "content": {"name": "Mona"}},
            ],
        ),
    ],
)
def test_inbox_answers_come_back_into_the_session(
    tmp_path: Path, steps: list[dict[str, Any]], typed: list[str], replies: list[Any]
) -> None:
    agent, log = setup(tmp_path, [[*steps, chunk("finished")]])
    proc = acp_in_inbox(tmp_path, agent)
    try:
        shown = []
        for number, lines in enumerate(typed, 1):
            answered = answer_in_inbox(tmp_path, number, lines)
            assert answered.returncode in (0, 1), answered.stderr  # 1: a denial
            assert "Traceback" not in answered.stderr
            shown.append(answered.stderr)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out == "finished\n"
    assert "question 1 is waiting in the inbox" in err
    assert [e["reply"]["result"] for e in read_log(log) if "reply" in e] == replies
    if steps[0] is SHORT:  # the request itself, asked as at a terminal
        assert "The agent asks to run: echo hi" in shown[0]
        assert "  1. Allow for this session  (allow_always)\n" in shown[0]
        assert "Choose 1-3, y = 2, n = 3: " in shown[0]
    else:
        assert "[DB] Which database?" in shown[0]
        assert "  1. Postgres - server\n  2. SQLite - file" in shown[0]
        assert "Your name?" in shown[1]


@pytest.mark.process
@pytest.mark.parametrize(
    ("typed", "outcome"),
    [
        ("y\n2\n", {"optionId": "reject_forever", "outcome": "selected"}),
        ("1\n", {"optionId": "proceed_always", "outcome": "selected"}),
        ("q\n2\n", {"optionId": "reject_forever", "outcome": "selected"}),
    ],
)
def test_inbox_without_once_options_asks_for_an_option_by_number(
    tmp_path: Path, typed: str, outcome: dict[str, Any]
) -> None:
    agent, log = setup(tmp_path, [[asking(ALWAYS_ONLY), chunk("finished")]])
    proc = acp_in_inbox(tmp_path, agent)
    try:
        answered = answer_in_inbox(tmp_path, 1, typed)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out == "finished\n"
    assert "Traceback" not in answered.stderr, answered.stderr
    assert proc.returncode == 0, err
    assert [e["reply"]["result"] for e in read_log(log) if "reply" in e] == [{"outcome": outcome}]
    shown = answered.stderr
    assert "The agent asks to run: echo hi" in shown
    assert "  1. Allow for this session  (allow_always)\n  2. Never  (reject_always)\n" in shown
    assert "Choose 1-2: " in shown
    if typed[0] in "yq":  # y and n never select an "always" option, in the inbox too
        assert 'never selects an "always" one: type the number of the option' in shown
    assert "Yes" not in shown


@pytest.mark.pty
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_withdraws_the_question_in_the_inbox(tmp_path: Path, how: str) -> None:
    from askcli.inbox.store import QueueState, open_store

    agent, log = setup(tmp_path, [[SHORT, {"wait_cancel": True}]])
    child = pexpect.spawn(
        str(askcli_path()),
        ["acp", "--inbox", "--prompt", "go", "--", *agent],
        cwd=str(tmp_path),
        timeout=5,
        encoding="utf-8",
        env=inbox_env(tmp_path),
        dimensions=(40, 120),
    )
    shown = io.StringIO()
    child.logfile_read = shown
    expect(child, shown, "question 1 is waiting in the inbox")
    if how == "ctrl-c":
        child.sendintr()
        expect(child, shown, "-- turn ended: cancelled")
        assert ended(child, shown) == 130
    else:
        child.kill(signal.SIGTERM)
        assert ended(child, shown) == 143
    found = open_store(tmp_path / "inbox.db").get(1)
    assert found is not None and found.state is QueueState.WITHDRAWN
    cancelled = {
        "method": "session/request_permission",
        "result": {"outcome": {"outcome": "cancelled"}},
    }
    for _ in range(50):  # the agent logs the reply as it gets it
        if {"reply": cancelled} in read_log(log):
            break
        time.sleep(0.05)
    assert {"reply": cancelled} in read_log(log)


@pytest.mark.process
def test_inbox_and_record_together_are_refused(tmp_path: Path) -> None:
    r = run(tmp_path, [], "", "--inbox", "--record", str(tmp_path / "f.json"), "--prompt", "go")
    assert r.rc == 2
    assert "cannot be used with --inbox" in r.err


@pytest.mark.process
def test_inbox_timeout_withdraws_and_answers_cancelled(tmp_path: Path) -> None:
    from askcli.inbox.store import QueueState, open_store

    agent, log = setup(tmp_path, [[SHORT, chunk("after")]])
    proc = subprocess.run(
        [str(askcli_path()), "acp", "--inbox", "--timeout", "0.5", "--prompt", "go", "--", *agent],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env=inbox_env(tmp_path),
    )
    assert proc.returncode == 3, proc.stderr
    assert "no answer (no reply within 0.5 seconds); question 1 was withdrawn" in proc.stderr
    assert [e["reply"]["result"] for e in read_log(log) if "reply" in e] == [
        {"outcome": {"outcome": "cancelled"}}
    ]
    store = open_store(tmp_path / "inbox.db")
    assert store.state(1) is QueueState.WITHDRAWN


def test_a_multi_select_form_s_labels_holding_a_comma_are_sent_as_chosen() -> None:
    from askcli.hosts.acp.forms import auq_content

    questions = [
        {
            "question": "Which extras?",
            "options": [{"label": "Docs, guides"}, {"label": "Lint"}, {"label": "Tests"}],
        }
    ]
    chosen = {"answers": {"Which extras?": ["Lint", "Docs, guides"]}}
    assert auq_content(chosen, [("question_0", True)], questions) == {
        "question_0": ["Lint", "Docs, guides"]
    }
    typed = {"answers": {"Which extras?": ["Lint", "my, own"]}}  # Other's text: as before
    assert auq_content(typed, [("question_0", True)], questions) == {
        "question_0_custom": "Lint, my, own"
    }
