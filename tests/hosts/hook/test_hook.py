"""askcli hook: Claude Code's hook input in, its decision out.

In process: every branch of the decision (answered, declined, chat, invalid, no answer,
Ctrl-C, SIGTERM, the permission prompt's choices, events askcli lets pass) and the search
for a terminal. As a command: the exit statuses, the queue round trip, --timeout, SIGTERM
and SIGHUP withdrawing the question, and --here in a real terminal (pexpect).
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from askcli.hosts.hook import command as hooks
from askcli.hosts.hook.command import Hook, HookError, HookOutcome, answer, decision, parse_hook
from askcli.inbox.store import QueueState, open_store
from askcli.questions.outcome import Outcome
from askcli.runners.session import Reply
from askcli.status import ExitStatus
from askcli.terminal import signals
from askcli.wire import results
from askcli.wire.documents import MAX_DOCUMENT_BYTES, Document
from askcli.wire.results import ToolResult

from tests.support.hook import QUESTIONS, SUGGESTIONS, Asked, _where, hook_input, inbox_env, typed
from tests.support.inbox import answer_queued
from tests.support.processes import askcli_path, run_askcli


def parsed(**kwargs: Any) -> Hook:
    return parse_hook(json.dumps(hook_input(**kwargs)).encode())


def decide(hook: Hook, lines: str) -> dict[str, Any]:
    ask, _ = typed(lines)
    outcome = answer(hook, ask, lambda _: None)
    assert outcome.status == 0 and outcome.output is not None
    return outcome.output


def never(document: dict[str, Any]) -> Reply:
    raise AssertionError("nothing should be asked")


@pytest.fixture
def no_signals() -> Iterator[None]:
    yield
    signals._received.clear()


# -- the hook input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"", "the hook input is empty"),
        (b"  \n", "the hook input is empty"),
        (b"not json", "the hook input is not valid JSON"),
        (b"[1, 2]", "the hook input is not a JSON object"),
        (b'{"tool_name": "Bash"}', 'the hook input has no "hook_event_name"'),
        (b'{"hook_event_name": "PreToolUse", "x": "\xff"}', "the hook input is not valid UTF-8"),
        (b"[" * 100 + b"]" * 100, "nests deeper than"),
        (None, f"larger than {MAX_DOCUMENT_BYTES} bytes"),
    ],
)
def test_an_unreadable_hook_input_is_said(raw: bytes | None, why: str) -> None:
    with pytest.raises(HookError, match=why.replace("(", r"\(")):
        parse_hook(raw)


def test_the_hook_input_is_read_as_claude_code_writes_it() -> None:
    hook = parsed()
    assert hook == Hook(
        "PreToolUse",
        "AskUserQuestion",
        QUESTIONS,
        "toolu_a1",
        "8a7391e2-0000",
        "/home/u/api",
        transcript="/home/u/.claude/projects/x/8a7391e2-0000.jsonl",
    )
    assert hook.document() == {
        "type": "control_request",
        "request_id": "askcli-hook",
        "session_id": "8a7391e2-0000",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "AskUserQuestion",
            "input": QUESTIONS,
            "tool_use_id": "toolu_a1",
        },
    }
    permission = parsed(event="PermissionRequest", tool="Bash")
    assert permission.tool_use_id is None
    assert permission.document()["request"]["permission_suggestions"] == SUGGESTIONS


@pytest.mark.parametrize(
    ("event", "tool"),
    [
        ("PreToolUse", "Bash"),  # a PreToolUse for any other tool: Claude Code decides
        ("PostToolUse", "AskUserQuestion"),
        ("Stop", ""),
        ("UserPromptSubmit", ""),
        ("PermissionRequest", ""),
    ],
)
def test_other_events_and_tools_get_no_decision(event: str, tool: str) -> None:
    hook = parsed(event=event, tool=tool)
    assert not hook.served
    assert answer(hook, Asked(never), lambda _: None) == HookOutcome(None, 0)


# -- PreToolUse for AskUserQuestion ----------------------------------------------------------


def test_answers_are_allowed_with_the_input_and_its_answers() -> None:
    output = decide(parsed(), "2\n")
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {**QUESTIONS, "answers": {"Which color?": "Blue"}},
        }
    }


def test_notes_and_other_text_go_in_the_updated_input() -> None:
    output = decide(parsed(), 'n keep it small\n3\nGreen — "mint"\n')
    updated = output["hookSpecificOutput"]["updatedInput"]
    assert updated["answers"] == {"Which color?": 'Green — "mint"'}
    assert updated["annotations"] == {"Which color?": {"notes": "keep it small"}}


def test_a_declined_question_is_denied_with_claude_codes_rejection() -> None:
    output = decide(parsed(), "q\n")
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": results.REJECT_MESSAGE,
        }
    }


def test_chat_about_this_is_denied_with_the_persons_words() -> None:
    reason = decide(parsed(), "c\nwhat is it for?\n")["hookSpecificOutput"]
    assert reason["permissionDecision"] == "deny"
    assert (
        "The user wants to clarify these questions.\nwhat is it for?"
        in (reason["permissionDecisionReason"])
    )


def test_nobody_answering_is_said_in_the_deny_reason() -> None:
    specific = decide(parsed(), "")["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"] == "No answer from the user (the input ended)."


def test_an_invalid_call_is_denied_at_once_without_asking() -> None:
    bad = {"questions": [{"question": "Q?", "header": "h", "options": [{"label": "A"}]}]}
    said: list[str] = []
    outcome = answer(parsed(tool_input=bad), Asked(never), said.append)
    assert outcome.output is not None
    specific = outcome.output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("<tool_use_error>InputValidationError: ")
    assert said == ["the AskUserQuestion call is not valid; the model is told why"]


def test_a_tool_input_that_is_no_object_is_denied_as_invalid() -> None:
    outcome = answer(parsed(tool_input="questions"), Asked(never), lambda _: None)
    assert outcome.output is not None
    reason = outcome.output["hookSpecificOutput"]["permissionDecisionReason"]
    assert "InputValidationError" in reason


def test_sigterm_while_asking_gives_no_decision(no_signals: None) -> None:
    def stopped(document: dict[str, Any]) -> Reply:
        signals._received.append(signal.SIGTERM)
        text = results.no_answer_text("askcli was stopped", {})
        result = ToolResult("toolu_a1", text, Outcome.INTERRUPTED, is_error=True)
        return Reply([result.block()], ExitStatus.INTERRUPTED, [result])

    assert answer(parsed(), Asked(stopped), lambda _: None) == HookOutcome(None, 143)
    signals._received[:] = [signal.SIGHUP]
    assert answer(parsed(), Asked(stopped), lambda _: None) == HookOutcome(None, 129)


def test_a_reply_without_a_result_is_no_decision() -> None:
    with pytest.raises(HookError, match="no decision"):
        answer(parsed(), Asked(lambda _: Reply([], ExitStatus.ANSWERED)), lambda _: None)


# -- PermissionRequest -------------------------------------------------------------------


def test_a_permission_allowed_once() -> None:
    output = decide(parsed(event="PermissionRequest", tool="Bash"), "1\n")
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }


def test_always_sends_the_suggestion_chosen() -> None:
    output = decide(parsed(event="PermissionRequest", tool="Bash"), "2\n")
    assert output["hookSpecificOutput"]["decision"] == {
        "behavior": "allow",
        "updatedPermissions": SUGGESTIONS,
    }


def test_always_is_not_offered_without_a_suggestion() -> None:
    hook = parsed(event="PermissionRequest", tool="Bash", permission_suggestions=None)
    ask, screen = typed("2\ny\n")
    outcome = answer(hook, ask, lambda _: None)
    assert outcome.output == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    assert "! 2 is not offered" in screen.getvalue()


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("n\n", results.REJECT_MESSAGE),
        ("n: use uv instead\n", results.REJECT_WITH_WORDS_PREFIX + "use uv instead"),
        ("3\nuse uv instead\n", results.REJECT_WITH_WORDS_PREFIX + "use uv instead"),
        ("use uv instead\n", "No answer from the user (the input ended)."),
        ("", "No answer from the user (the input ended)."),
    ],
)
def test_a_permission_denied(lines: str, message: str) -> None:
    output = decide(parsed(event="PermissionRequest", tool="Bash"), lines)
    assert output["hookSpecificOutput"] == {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": message},
    }


def test_the_whole_input_is_shown_before_the_choice() -> None:
    ask, screen = typed("1\n")
    answer(parsed(event="PermissionRequest", tool="Bash"), ask, lambda _: None)
    shown = screen.getvalue()
    assert "Tool use: Bash" in shown
    assert 'command: python3 -c "print(6*7)"' in shown
    assert "Allow? 1-3 (y/n): " in shown


def test_ctrl_c_at_a_permission_denies_and_interrupts_the_turn() -> None:
    hook = parsed(event="PermissionRequest", tool="Bash")
    stopped = ToolResult(None, results.REJECT_MESSAGE, Outcome.INTERRUPTED, is_error=True)
    assert decision(hook, stopped)["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": results.REJECT_MESSAGE,
        "interrupt": True,
    }


def test_ask_user_question_as_a_permission_request_is_asked_as_questions() -> None:
    output = decide(parsed(event="PermissionRequest", tool="AskUserQuestion"), "1\n")
    assert output["hookSpecificOutput"]["decision"] == {
        "behavior": "allow",
        "updatedInput": {**QUESTIONS, "answers": {"Which color?": "Red"}},
    }


def test_model_text_in_a_permission_is_shown_escaped() -> None:
    hook = parsed(
        event="PermissionRequest",
        tool="Bash\x1b]0;pwned\x07",
        tool_input={"command": "ls\x1b[2J\u202e"},
    )
    ask, screen = typed("n\n")
    answer(hook, ask, lambda _: None)
    shown = screen.getvalue()
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\\x1b]0;pwned" in shown


# -- --here: finding the terminal ------------------------------------------------------------


def fake_proc(root: Path, tree: dict[int, tuple[int, str | None]]) -> Path:
    """A /proc with ``pid: (ppid, terminal of fd 0 or None)``."""
    for pid, (parent, terminal) in tree.items():
        (root / str(pid) / "fd").mkdir(parents=True)
        (root / str(pid) / "stat").write_text(f"{pid} (odd) name) S {parent} 1 1 0\n")
        os.symlink(terminal or "socket:[123]", root / str(pid) / "fd" / "0")
        os.symlink("pipe:[9]", root / str(pid) / "fd" / "2")
    return root


def test_the_terminal_is_found_above_the_hook(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {30: (20, None), 20: (10, "/dev/pts/7"), 10: (1, "/dev/pts/1")})
    assert hooks.ancestor_terminal(30, proc) == "/dev/pts/7"
    proc2 = fake_proc(tmp_path / "b", {30: (20, None), 20: (1, "/tmp/not-a-tty")})
    assert hooks.ancestor_terminal(30, proc2) is None


def test_a_loop_in_the_process_tree_ends(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {30: (20, None), 20: (30, None)})
    assert hooks.ancestor_terminal(30, proc) is None


@pytest.mark.process
@pytest.mark.skipif(shutil.which("ps") is None, reason="no ps here")
def test_without_proc_ps_is_asked() -> None:
    parent, _ = hooks._ps(os.getpid())
    assert parent == os.getppid()


def test_no_terminal_anywhere_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def no_tty(path: Any, *args: Any, **kwargs: Any) -> int:
        if path == "/dev/tty":
            raise OSError(6, "No such device or address")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(hooks.os, "open", no_tty)
    monkeypatch.setattr(hooks.os, "getppid", lambda: 30)
    proc = fake_proc(tmp_path, {30: (1, None)})
    with pytest.raises(HookError, match="--here needs a terminal, and there is none"):
        hooks.open_terminal(proc)


# -- the command ---------------------------------------------------------------------------


@pytest.fixture
def on_each_store(tmp_path: Path, inbox_where: str) -> str:
    """The hook's inbox for this test: each store in turn."""
    (tmp_path / "inbox.where").write_text(inbox_where)
    return inbox_where


def every_question(tmp_path: Path) -> list[Any]:
    store = open_store(_where(tmp_path))
    try:
        return store.questions(states=tuple(QueueState))
    finally:
        store.close()


def run_hook(tmp_path: Path, data: dict | str, *args: str) -> subprocess.CompletedProcess[str]:
    text = data if isinstance(data, str) else json.dumps(data)
    return run_askcli("hook", *args, input=text, env=inbox_env(tmp_path))


@pytest.mark.process
def test_command_lets_other_events_pass_silently(tmp_path: Path) -> None:
    proc = run_hook(tmp_path, {"hook_event_name": "Stop", "session_id": "s"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not (tmp_path / "inbox.db").exists()


@pytest.mark.process
def test_command_with_unreadable_input_is_a_non_blocking_error(tmp_path: Path) -> None:
    proc = run_hook(tmp_path, "{oops")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("askcli hook: the hook input is not valid JSON")
    assert proc.stderr.count("\n") == 1


@pytest.mark.process
def test_command_with_an_inbox_that_is_no_file(tmp_path: Path) -> None:
    (tmp_path / "inbox.db").mkdir()
    proc = run_hook(tmp_path, hook_input())
    assert proc.returncode == 1 and proc.stdout == ""
    assert "is a directory, not an inbox file" in proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.process
def test_command_answers_an_invalid_call_without_queueing(tmp_path: Path) -> None:
    bad = hook_input(tool_input={"questions": []})
    proc = run_hook(tmp_path, bad)
    assert proc.returncode == 0
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "InputValidationError" in output["permissionDecisionReason"]
    assert not (tmp_path / "inbox.db").exists()


@pytest.mark.process
@pytest.mark.usefixtures("on_each_store")
def test_command_timeout_denies_and_withdraws(tmp_path: Path) -> None:
    proc = run_hook(tmp_path, hook_input(), "--timeout", "0.3")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "No answer from the user (no reply within 0.3 seconds).",
        }
    }
    (question,) = every_question(tmp_path)
    assert question.state is QueueState.WITHDRAWN


def start_hook(tmp_path: Path, data: dict, *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [str(askcli_path()), "hook", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **inbox_env(tmp_path), "NO_COLOR": "1"},
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(data))
    proc.stdin.close()
    proc.stdin = None  # written and closed: communicate() has nothing to send
    return proc


def queued(tmp_path: Path, proc: subprocess.Popen[str]) -> Any:
    """The question the hook queued, once it is there."""
    for _ in range(500):
        if (tmp_path / "inbox.db").exists() or (tmp_path / "inbox.where").exists():
            waiting = [q for q in every_question(tmp_path) if q.state is QueueState.WAITING]
            if waiting:
                return waiting[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    proc.kill()
    pytest.fail(f"nothing was queued: {proc.communicate()}")


def answer_in_inbox(tmp_path: Path, question_id: int, lines: str) -> str:
    """What a person typing ``lines`` in an inbox answers; the screen they saw."""
    store = open_store(_where(tmp_path))
    screen = io.StringIO()
    assert answer_queued(store, lines, question_id, screen)
    store.close()
    return screen.getvalue()


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"askcli hook did not end: {out} {err}")
    assert "Traceback" not in err, err
    return proc.returncode, out, err


@pytest.mark.process
@pytest.mark.usefixtures("on_each_store")
def test_command_round_trip_through_the_queue(tmp_path: Path) -> None:
    proc = start_hook(tmp_path, hook_input())
    question = queued(tmp_path, proc)
    assert question.agent.client == "claude"
    assert question.agent.session == "8a7391e2-0000" and question.agent.cwd == "/home/u/api"
    screen = answer_in_inbox(tmp_path, question.id, "3\nTeal, not green\n")
    assert "[Color] Which color?" in screen
    status, out, err = finish(proc)
    assert status == 0
    assert json.loads(out)["hookSpecificOutput"]["updatedInput"]["answers"] == {
        "Which color?": "Teal, not green"
    }
    assert f"question {question.id} is waiting in the inbox" in err
    (done,) = every_question(tmp_path)
    assert done.state is QueueState.ANSWERED


@pytest.mark.process
@pytest.mark.usefixtures("on_each_store")
def test_command_permission_round_trip(tmp_path: Path) -> None:
    proc = start_hook(tmp_path, hook_input(event="PermissionRequest", tool="Bash"))
    question = queued(tmp_path, proc)
    screen = answer_in_inbox(tmp_path, question.id, "2\n")
    assert '2. Yes, and don\'t ask again for Bash(python3 -c "print(6*7)")' in screen
    status, out, _ = finish(proc)
    assert status == 0
    assert json.loads(out)["hookSpecificOutput"]["decision"] == {
        "behavior": "allow",
        "updatedPermissions": SUGGESTIONS,
    }


@pytest.mark.process
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.usefixtures("on_each_store")
def test_command_stopped_withdraws_its_question(tmp_path: Path, sig: int, status: int) -> None:
    proc = start_hook(tmp_path, hook_input())
    question = queued(tmp_path, proc)
    proc.send_signal(sig)
    code, out, err = finish(proc)
    assert (code, out) == (status, "")
    assert "no decision; Claude Code goes on without this hook" in err
    (gone,) = every_question(tmp_path)
    assert gone.id == question.id and gone.state is QueueState.WITHDRAWN


@pytest.mark.process
def test_command_whose_reader_went_away_withdraws_its_question(tmp_path: Path) -> None:
    proc = start_hook(tmp_path, hook_input())
    question = queued(tmp_path, proc)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # Claude Code exited: nobody reads the decision any more
    try:
        status = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("askcli hook went on waiting for nobody")
    err = proc.stderr.read()
    proc.stderr.close()
    assert status == 141
    assert "askcli hook: Claude Code went away (the hook's stdout was closed): no decision" in err
    (gone,) = every_question(tmp_path)
    assert gone.id == question.id and gone.state is QueueState.WITHDRAWN


@pytest.mark.process
@pytest.mark.usefixtures("on_each_store")
def test_command_killed_outright_leaves_its_question_to_tidy(tmp_path: Path) -> None:
    proc = start_hook(tmp_path, hook_input())
    question = queued(tmp_path, proc)
    proc.kill()
    finish(proc)
    store = open_store(_where(tmp_path))
    assert [q.id for q in store.tidy()] == [question.id]
    store.close()


@pytest.mark.process
@pytest.mark.parametrize("event", ["PermissionRequest", "PreToolUse"])
def test_command_two_identical_events_without_a_tool_use_id_are_two_questions(
    tmp_path: Path, event: str
) -> None:
    """Two hooks with the same call and no tool_use_id (two Claude Codes, folders apart):
    a question and a decision each; killing one leaves the other's."""
    data = hook_input(
        event=event, tool="Bash" if event == "PermissionRequest" else "AskUserQuestion"
    )
    data.pop("tool_use_id", None)
    first = start_hook(tmp_path, {**data, "cwd": "/home/u/api"})
    one = queued(tmp_path, first)
    second = start_hook(tmp_path, {**data, "cwd": "/home/u/web"})
    third = start_hook(tmp_path, {**data, "cwd": "/home/u/docs"})
    try:
        for _ in range(500):
            waiting = [q for q in every_question(tmp_path) if q.state is QueueState.WAITING]
            if len(waiting) == 3:
                break
            time.sleep(0.01)
        assert len(waiting) == 3, "three hooks, three questions"
        by_folder = {q.agent.cwd: q for q in waiting}
        assert sorted(by_folder) == ["/home/u/api", "/home/u/docs", "/home/u/web"]
        assert by_folder["/home/u/api"].id == one.id
        two, three = by_folder["/home/u/web"], by_folder["/home/u/docs"]
        assert three.agent.label == "claude /home/u/docs (session 8a7391e2)"
        third.kill()
        finish(third)
        store = open_store(tmp_path / "inbox.db")
        assert [q.id for q in store.tidy()] == [three.id]
        store.close()
        yes, no = ("1\n", "n\n") if event == "PermissionRequest" else ("1\n", "q\n")
        answer_in_inbox(tmp_path, two.id, no)
        answer_in_inbox(tmp_path, one.id, yes)
        status_one, out_one, _ = finish(first)
        status_two, out_two, _ = finish(second)
    finally:
        for proc in (first, second, third):
            proc.kill()
    assert status_one == status_two == 0
    said_one = json.loads(out_one)["hookSpecificOutput"]
    said_two = json.loads(out_two)["hookSpecificOutput"]
    if event == "PermissionRequest":
        assert said_one["decision"] == {"behavior": "allow"}
        assert said_two["decision"]["behavior"] == "deny"
    else:
        assert said_one["permissionDecision"] == "allow"
        assert said_one["updatedInput"]["answers"] == {"Which color?": "Red"}
        assert said_two["permissionDecision"] == "deny"


def reads_its_input(proc: subprocess.Popen[str]) -> None:
    """Wait until askcli hook waits on its stdin (a pipe), its own signal handling in: a
    signal sent while askcli still starts (its early handlers are in before the hook's
    command runs) ends it with the status alone, before the hook can say anything."""
    wchan = Path(f"/proc/{proc.pid}/wchan")
    for _ in range(1000):
        try:
            waiting = wchan.read_text()
        except OSError:
            break
        if waiting == "0":  # the kernel does not say what a process waits on
            break
        if "pipe_read" in waiting or "pipe_wait" in waiting:
            return
        time.sleep(0.01)
    else:
        pytest.fail("askcli hook never waited on its input")
    time.sleep(1)  # no /proc to look at: a second is long enough to be reading it


@pytest.mark.process
def test_command_ctrl_c_before_the_input_ends(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [str(askcli_path()), "hook"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **inbox_env(tmp_path)},
    )
    reads_its_input(proc)  # its stdin does not end
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert (code, out) == (130, "")
    assert err == "askcli hook: interrupted: no decision; Claude Code goes on without this hook\n"


# -- --here at a terminal (pexpect) ----------------------------------------------------------


class HereTerminal:
    """``askcli hook --here`` with its input from a file, in a pty that is its terminal."""

    def __init__(self, tmp_path: Path, data: dict, *args: str) -> None:
        given = tmp_path / "hook.json"
        given.write_text(json.dumps(data))
        self.out = tmp_path / "out.json"
        command = " ".join(shlex.quote(a) for a in [str(askcli_path()), "hook", "--here", *args])
        command += f" < {shlex.quote(str(given))} > {shlex.quote(str(self.out))}"
        env = {**os.environ, **inbox_env(tmp_path), "TERM": "dumb", "COLUMNS": "80"}
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            "/bin/sh", ["-c", f"exec {command}"], env=env, timeout=5, encoding="utf-8"
        )
        self.child.logfile_read = self.log

    def expect(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {text!r}; the terminal showed:\n{self.log.getvalue()}")

    def finish(self) -> tuple[int, Any]:
        try:
            self.child.expect(pexpect.EOF)
        except pexpect.TIMEOUT:
            pytest.fail(f"askcli hook did not exit; the terminal showed:\n{self.log.getvalue()}")
        self.child.close()
        text = self.out.read_text()
        assert self.child.exitstatus is not None, self.log.getvalue()
        return self.child.exitstatus, json.loads(text) if text.strip() else None


@pytest.mark.pty
def test_here_asks_at_the_terminal(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input())
    term.expect("askcli: Claude Code asks (askcli hook --here)")
    term.expect("[Color] Which color?")
    term.expect("Choose 1-3: ")
    term.child.sendline("2")
    status, output = term.finish()
    assert status == 0
    assert output["hookSpecificOutput"]["updatedInput"]["answers"] == {"Which color?": "Blue"}
    assert not (tmp_path / "inbox.db").exists()  # nothing queued


@pytest.mark.pty
def test_here_permission_with_feedback(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input(event="PermissionRequest", tool="Bash"))
    term.expect("Tool use: Bash")
    term.expect("Allow? 1-3 (y/n): ")
    term.child.sendline("run the tests first")  # words alone are no answer: asked again
    term.expect("! type 1-3 (y/n), or n: TEXT")
    term.expect("Allow? 1-3 (y/n): ")
    term.child.sendline("3")
    term.expect("Tell the agent what to do instead (Enter: just deny): ")
    term.child.sendline("run the tests first")
    status, output = term.finish()
    assert status == 0
    assert output["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": results.REJECT_WITH_WORDS_PREFIX + "run the tests first",
    }


@pytest.mark.pty
def test_here_ctrl_d_is_no_answer(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input())
    term.expect("Choose 1-3: ")
    term.child.sendeof()
    status, output = term.finish()
    assert status == 0
    assert output["hookSpecificOutput"]["permissionDecisionReason"] == (
        "No answer from the user (the input ended)."
    )


@pytest.mark.pty
def test_here_timeout_is_no_answer(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input(), "--timeout", "0.5")
    term.expect("Choose 1-3: ")
    status, output = term.finish()
    assert status == 0
    assert output["hookSpecificOutput"]["permissionDecisionReason"] == (
        "No answer from the user (no reply within 0.5 seconds)."
    )


@pytest.mark.pty
def test_here_ctrl_c_declines(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input(event="PermissionRequest", tool="Bash"))
    term.expect("Allow? 1-3 (y/n): ")
    term.child.sendintr()
    status, output = term.finish()
    assert status == 0
    assert output["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": results.REJECT_MESSAGE,
        "interrupt": True,
    }


@pytest.mark.pty
def test_here_sigterm_gives_no_decision(tmp_path: Path) -> None:
    term = HereTerminal(tmp_path, hook_input())
    term.expect("Choose 1-3: ")
    term.child.kill(signal.SIGTERM)
    status, output = term.finish()
    assert (status, output) == (143, None)


@pytest.mark.pty
def test_here_refuses_a_terminal_in_raw_mode(tmp_path: Path) -> None:
    given = tmp_path / "hook.json"
    given.write_text(json.dumps(hook_input()))
    command = f"stty raw -echo; exec {shlex.quote(str(askcli_path()))} hook --here < {given}"
    log = io.StringIO()
    child = pexpect.spawn("/bin/sh", ["-c", command], timeout=5, encoding="utf-8")
    child.logfile_read = log
    try:
        child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        pytest.fail(f"askcli hook did not exit; the terminal showed:\n{log.getvalue()}")
    child.close()
    assert child.exitstatus == 1, log.getvalue()
    assert "--here: a full-screen program holds the terminal /dev/tty" in log.getvalue()
    assert "Choose" not in log.getvalue()


def test_a_signal_just_after_queueing_takes_the_question_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASKCLI_INBOX", str(tmp_path / "inbox.db"))
    hook = parsed()

    def stopped(text: str) -> None:  # "question N is waiting": the signal comes then
        raise KeyboardInterrupt

    asker = hooks.inbox(hook, None, stopped)
    reply = asker.ask(Document(hook.document()), hooks.nobody())
    asker.close()
    assert reply.status is ExitStatus.INTERRUPTED  # no decision comes of it (see answer())
    (question,) = every_question(tmp_path)
    assert question.state is QueueState.WITHDRAWN


@pytest.mark.pty
def test_here_stops_asking_when_nobody_reads_the_decision(tmp_path: Path) -> None:
    given = tmp_path / "hook.json"
    given.write_text(json.dumps(hook_input()))
    command = f"{shlex.quote(str(askcli_path()))} hook --here < {given} | sleep 1; echo ended"
    log = io.StringIO()
    child = pexpect.spawn("/bin/sh", ["-c", command], timeout=5, encoding="utf-8")
    child.logfile_read = log
    try:
        child.expect_exact("Choose 1-3: ")
        child.expect_exact("askcli hook: Claude Code went away (the hook's stdout was closed)")
        child.expect_exact("ended")
        child.expect(pexpect.EOF)
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"the terminal showed:\n{log.getvalue()}")
    child.close()
