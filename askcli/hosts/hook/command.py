"""``askcli hook``: Claude Code's hooks, answered through the inbox or at a terminal.

Claude Code runs a hook command with one JSON object on its stdin and reads its decision
from stdout (exit status 0). Two hooks are served:

- ``PreToolUse`` for ``AskUserQuestion``: the questions are asked (queued for ``askcli
  inbox``, or with ``--here`` at the terminal) and the answers go back as
  ``permissionDecision: "allow"`` with ``updatedInput`` carrying them; Claude Code then
  gives the model its own "Your questions have been answered" result. A declined, invalid
  or unanswered question is ``permissionDecision: "deny"`` whose reason is the text askcli
  would have sent the model (Claude Code hands the reason to the model as the tool's error).
- ``PermissionRequest`` for any tool: the fallback permission prompt, answered as
  ``decision: {"behavior": "allow" | "deny", ...}`` (``updatedPermissions`` when "don't
  ask again" chose a suggestion; ``message`` on deny). ``AskUserQuestion`` arriving here
  is asked as questions, and allowed with its answers. Claude Code 2.1.332's input for it
  names the MCP server of an ``mcp__*`` tool (``mcp_server``, shown with the tool) but
  carries no reason, title or requests to be careful (``default_to_no``,
  ``suppress_always_allow_rule``, ``requires_user_interaction``, ``matched_ask_rule``); an
  input that does carry them is honoured as ``askcli claude`` honours them.

Any other event or tool gets no output and exit status 0: Claude Code's "no decision", it
goes on as if there were no hook. A hook that cannot work (unreadable input, no terminal
for ``--here``, an inbox file that cannot be used) says why in one line on stderr and exits
1, Claude Code's non-blocking error: it goes on without the hook. Exit status 2 is never
used for that, since Claude Code takes it as "block the tool".

Claude Code ends a hook with SIGTERM after the hook's ``timeout`` (600 seconds unless the
settings say otherwise): the question is withdrawn from the inbox, nothing is printed
and the exit status is 143, so that Claude Code goes on with its own prompt. ``--timeout``
gives up earlier, with a deny that tells the model nobody answered. Claude Code going
away while the hook waits (it exits or crashes: the other end of the hook's stdout
closes) withdraws the question too, and the hook ends with status 141.

Claude Code starts hooks in a session of their own, without a controlling terminal, so
``--here`` looks for the terminal of the processes that started the hook (Claude Code's)
when ``/dev/tty`` cannot be opened.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import signal
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TextIO

from ...errors import AskcliError, InboxError, OutputFailed, QuestionDeferred
from ...escaping import visible
from ...files import read_bounded
from ...schema.names import ASK_USER_QUESTION
from ...status import ExitStatus
from ...terminal import signals
from ...terminal.rendering import folded_for, terminal_text
from ...wire.documents import MAX_DOCUMENT_BYTES, Document, loads_limited
from ...wire.envelopes import detect
from ...wire.permission_request import passed_on
from ...wire.results import ToolResult

if TYPE_CHECKING:  # not at start-up: Claude Code runs the hook for every tool call
    from ...inbox.asker_side import Deferral, InboxAsker
    from ...runners.session import Asker, Reply
    from ...terminal.conversation import Conversation

PRE_TOOL_USE = "PreToolUse"
PERMISSION_REQUEST = "PermissionRequest"
CLIENT = "claude"  # the asking agent's name in the inbox
REQUEST_ID = "askcli-hook"  # the request id of the control request queued for a hook
# what Claude Code tells its hooks: "0" in claude -p (and the SDK), where defer works
ATTENDED = "CLAUDE_CODE_SESSION_ATTENDED"
DEFER = {"hookSpecificOutput": {"hookEventName": PRE_TOOL_USE, "permissionDecision": "defer"}}
ANCESTORS = 12  # how far up the process tree --here looks for a terminal
_TERMINAL = re.compile(r"/dev/(pts/\d+|tty[A-Za-z0-9]*|console)")


class HookError(AskcliError):
    """The hook cannot decide: its input cannot be read, or there is no terminal to ask
    at; the message says why (one line)."""


class Hook(NamedTuple):
    """What Claude Code handed the hook, as far as askcli uses it."""

    event: str
    tool: str
    input: Any
    tool_use_id: str | None
    session: str | None
    cwd: str | None
    suggestions: Any = None
    care: dict[str, Any] | None = None  # the can_use_tool fields of care, when the input has any
    transcript: str | None = None  # Claude Code's session transcript (transcript_path)

    @property
    def served(self) -> bool:
        """askcli answers this hook (else: no output, Claude Code goes on)."""
        if self.event == PRE_TOOL_USE:
            return self.tool == ASK_USER_QUESTION
        return self.event == PERMISSION_REQUEST and bool(self.tool)

    def document(self) -> dict[str, Any]:
        """The call as askcli asks it anywhere: Claude Code's ``can_use_tool`` control
        request, so the inbox shows the questions, or the tool and its whole input with
        the permission suggestions."""
        from ...wire.calls import permission_request  # not for a hook askcli does not serve

        asked = self.event == PERMISSION_REQUEST
        return permission_request(
            REQUEST_ID,
            self.tool,
            self.input,
            tool_use_id=self.tool_use_id,
            session_id=self.session,
            suggestions=self.suggestions if asked else None,
            care=self.care if asked else None,
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def parse_hook(raw: bytes | None) -> Hook:
    """The hook input Claude Code wrote on stdin; HookError when it is not one."""
    if raw is None:
        raise HookError(f"the hook input is larger than {MAX_DOCUMENT_BYTES} bytes, the limit")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError("the hook input is not valid UTF-8") from None
    if not text.strip():
        raise HookError("the hook input is empty (Claude Code writes a JSON object on stdin)")
    try:
        value = loads_limited(text)
    except ValueError as exc:
        raise HookError(f"the hook input {exc}") from None
    if not isinstance(value, dict):
        raise HookError("the hook input is not a JSON object")
    event = _text(value.get("hook_event_name"))
    if event is None:
        raise HookError('the hook input has no "hook_event_name"')
    return Hook(
        event=event,
        tool=_text(value.get("tool_name")) or "",
        input=value.get("tool_input"),
        tool_use_id=_text(value.get("tool_use_id")),
        session=_text(value.get("session_id")),
        cwd=_text(value.get("cwd")),
        suggestions=value.get("permission_suggestions"),
        care=passed_on(value) or None,
        transcript=_text(value.get("transcript_path")),
    )


def decision(hook: Hook, result: ToolResult) -> dict[str, Any]:
    """The hook's output for ``result``, in Claude Code's shape."""
    if hook.event == PRE_TOOL_USE:
        specific: dict[str, Any] = {"hookEventName": PRE_TOOL_USE}
        if result.allowed:
            specific["permissionDecision"] = "allow"
            specific["updatedInput"] = dict(result.updated_input or hook.input or {})
        else:
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = result.content
        return {"hookSpecificOutput": specific}
    chosen = result.decision()  # a deny after Ctrl-C at the terminal stops the turn
    unchanged = result.updated_input is None or dict(result.updated_input) == hook.input
    if result.allowed and unchanged:  # only AskUserQuestion's answers change the input
        del chosen["updatedInput"]
    return {"hookSpecificOutput": {"hookEventName": PERMISSION_REQUEST, "decision": chosen}}


def refused(document: dict[str, Any]) -> ToolResult | None:
    """The result of a call that cannot be asked (it fails its schema), given at once
    without asking anyone; None for a call to ask."""
    from ...tools.registry import checked

    (call,) = detect(document).calls
    found = checked(call, lambda _: None)
    return found if isinstance(found, ToolResult) else None


# -- --here: the terminal ----------------------------------------------------------------


def _proc_parent(pid: int, proc: Path) -> int | None:
    try:
        text = (proc / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # pid (comm) state ppid ...: comm may hold spaces and parentheses
    fields = text[text.rfind(")") + 2 :].split()
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def _proc_terminal(pid: int, proc: Path) -> str | None:
    for fd in (0, 2, 1):
        try:
            target = os.readlink(proc / str(pid) / "fd" / str(fd))
        except OSError:
            continue
        if _TERMINAL.fullmatch(target):
            return target
    return None


def _ps(pid: int) -> tuple[int | None, str | None]:
    """The parent and terminal of ``pid`` from ``ps`` (where there is no ``/proc``)."""
    import subprocess  # not at start-up: Claude Code runs the hook for every tool call

    try:
        done = subprocess.run(
            ["ps", "-o", "ppid=,tty=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    fields = done.stdout.split()
    if len(fields) != 2 or not fields[0].isdigit():
        return None, None
    name = fields[1]
    path = f"/dev/{name}" if _TERMINAL.fullmatch(f"/dev/{name}") else None
    return int(fields[0]), path


def ancestor_terminal(start: int | None = None, proc: Path = Path("/proc")) -> str | None:
    """The terminal of the nearest process above this one that has one (its stdin,
    stderr or stdout): Claude Code's, for a hook it started."""
    pid = start if start is not None else os.getppid()
    use_proc = proc.is_dir()
    for _ in range(ANCESTORS):
        if pid <= 1:
            return None
        if use_proc:
            found, parent = _proc_terminal(pid, proc), _proc_parent(pid, proc)
        else:
            parent, found = _ps(pid)
        if found is not None:
            return found
        if parent is None:
            return None
        pid = parent
    return None


def open_terminal(proc: Path = Path("/proc")) -> tuple[int, str]:
    """A descriptor on the person's terminal, and its name: ``/dev/tty`` when this
    process has one, else the terminal of the processes that started it. HookError when
    there is none, or when a full-screen program (Claude Code's own interface) holds it."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        name = "/dev/tty"
    except OSError:
        path = ancestor_terminal(proc=proc)
        if path is None:
            raise HookError(
                "--here needs a terminal, and there is none: this process has no "
                "controlling terminal and neither has any process that started it "
                "(use the inbox: askcli hook without --here)"
            ) from None
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        except OSError as exc:
            raise HookError(f"--here cannot open the terminal {path}: {exc.strerror}") from None
        name = path
    if not (stat.S_ISCHR(os.fstat(fd).st_mode) and os.isatty(fd)):
        os.close(fd)
        raise HookError(f"--here: {name} is not a terminal")
    if _raw(fd):
        os.close(fd)
        raise HookError(
            f"--here: a full-screen program holds the terminal {name} (Claude Code's own "
            "interface reads every key there); --here works with claude -p at a terminal. "
            "Use the inbox instead: askcli hook without --here, askcli inbox elsewhere"
        )
    return fd, name


def _raw(fd: int) -> bool:
    """The terminal reads keys one by one (no line editing): a full-screen program has it."""
    import termios

    try:
        return not termios.tcgetattr(fd)[3] & termios.ICANON
    except (OSError, termios.error):
        return False


class AtTerminal:
    """``--here``: the asker is the person at the terminal the hook borrows
    (:func:`open_terminal`), opened when a call is asked: the screens are written there
    and the answers read there, in a conversation of the terminal's own (the one handed
    in is the hook's, with nobody at it)."""

    here: ClassVar[bool] = True

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout

    def ask(self, document: Document, conv: Conversation, seq: int = 1) -> Reply:
        from ...lines import FdLineReader
        from ...runners.session import Here
        from ...terminal.conversation import Conversation
        from ...terminal.options import RunOptions
        from ...terminal.rendering import Style
        from ...tools.journal import default_dir

        fd, _ = open_terminal()
        out = open(os.dup(fd), "w", encoding="utf-8", errors="backslashreplace", closefd=True)  # noqa: SIM115
        try:
            there = Conversation(
                FdLineReader(fd),
                out,
                Style.for_stream(out),
                RunOptions(timeout=self.timeout, journal_dir=default_dir()),
            )
            there.say("\naskcli: Claude Code asks (askcli hook --here)\n")
            return Here().ask(document, there, seq)
        finally:
            with contextlib.suppress(OSError):
                out.close()
            with contextlib.suppress(OSError):
                os.close(fd)


def asker_tag(session: str | None) -> str:
    """What tells this Claude Code from another in the same folder, in the inbox: the
    start of its session id (``session 1a2b3c4d``), else the hook's pid."""
    if session:
        return f"session {session[:8]}"
    from ...inbox import asker_identity

    return asker_identity.tag()


def inbox(
    hook: Hook,
    timeout: float | None,
    say: Callable[[str], None],
    to: str | None = None,
    where: str | None = None,
) -> InboxAsker:
    """The inbox ``where`` names (None: the default) as the asker of this Claude Code (its
    session, its folder), addressed ``to`` a person or team; ``say`` gets its lines. A
    signal while it waits withdraws the question (:func:`askcli.inbox.asker_side.ask_inbox`)."""
    from ...inbox.asker_side import InboxAsker
    from ...inbox.store import Agent, open_store

    agent = Agent(CLIENT, hook.session, hook.cwd, asker_tag(hook.session))
    # a permission prompt askcli mcp's permission tool queued already is not asked twice
    one_call = hook.event == PERMISSION_REQUEST
    store = open_store(where)
    return InboxAsker(store, agent, timeout=timeout, to=to, said=say, one_call=one_call)


def nobody() -> Conversation:
    """The hook's own conversation: nothing is read or shown there (the askers' lines go
    to the hook's stderr); the run's options are the defaults."""
    from ...lines import TextLineReader
    from ...terminal.conversation import Conversation

    return Conversation(TextLineReader(io.StringIO(), interactive=False), io.StringIO())


def deferral(hook: Hook, after: float | None, environ: Any = os.environ) -> Deferral | None:
    """What ``--defer-after`` makes of ``hook``: its call's key in the inbox (Claude Code's
    session and tool_use id), deferred after ``after`` seconds only where Claude Code defers
    (it ignores ``defer`` in its interactive interface, and refuses it for a call with
    siblings): when Claude Code says the session is unattended (``claude -p``) and its
    transcript shows the call alone in its message. Elsewhere the key only finds a question
    deferred earlier. None without ``--defer-after``, or for a hook that cannot be deferred."""
    from ...inbox.asker_side import Deferral
    from .transcript import calls_beside

    if after is None or hook.event != PRE_TOOL_USE or not hook.served:
        return None
    if not hook.session or not hook.tool_use_id:
        return None
    solo = (
        environ.get(ATTENDED) == "0"
        and hook.transcript is not None
        and calls_beside(hook.transcript, hook.tool_use_id) == 1
    )
    return Deferral(f"{hook.session}/{hook.tool_use_id}", after if solo else None)


# -- Claude Code going away -------------------------------------------------------------


class HookWatch:
    """Notices that Claude Code went away while the hook waits (it exited, crashed or was
    killed): the other end of the hook's stdout closes; or, with ``moved``, that Claude Code
    went on without the hook (``moved()`` is true: the person answered at its own prompt).
    The main thread is then interrupted, as by Ctrl-C, so that the question is withdrawn;
    :attr:`gone` and :attr:`moved_on` say why. Only a pipe or socket is watched for its end
    (a file or terminal never closes that way)."""

    def __init__(
        self, fd: int = 1, every: float = 0.2, moved: Callable[[], bool] | None = None
    ) -> None:
        self.fd = fd
        self.every = every
        self.moved = moved
        self.gone = False
        self.moved_on = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> HookWatch:
        try:
            mode = os.fstat(self.fd).st_mode
        except OSError:
            mode = 0
        pipe = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        if pipe or self.moved is not None:
            # a descriptor of its own on the pipe: while a line is edited at the terminal,
            # descriptor 1 is the terminal for a moment (askcli.terminal.editing)
            watched = os.dup(self.fd) if pipe else -1
            self._thread = threading.Thread(target=self._run, args=(watched,))
            self._thread.name = "askcli-hook-watch"
            self._thread.daemon = True
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self, watched: int) -> None:
        try:
            self._poll(watched)
        finally:
            if watched >= 0:
                os.close(watched)

    def _poll(self, watched: int) -> None:
        poller = select.poll()
        if watched >= 0:
            poller.register(watched, 0)  # only POLLHUP and POLLERR, whatever is asked
        while not self._stop.is_set():
            try:
                events = poller.poll(self.every * 1000)
            except OSError:
                return
            if any(mask & (select.POLLHUP | select.POLLERR) for _, mask in events):
                self._interrupt("gone")
                return
            if self.moved is not None and self.moved():
                self._interrupt("moved_on")
                return

    def _interrupt(self, why: str) -> None:
        if self._stop.is_set():
            return
        setattr(self, why, True)
        main = threading.main_thread().ident
        if main is not None:  # a signal to the main thread ends its wait at once
            signal.pthread_kill(main, signal.SIGINT)


# -- the command -------------------------------------------------------------------------


class HookOutcome(NamedTuple):
    """What the hook prints (None: nothing) and its exit status."""

    output: dict[str, Any] | None
    status: int


def answer(
    hook: Hook,
    asker: Asker,
    say: Callable[[str], None],
    gone: Callable[[], bool] = lambda: False,
    moved_on: Callable[[], bool] = lambda: False,
) -> HookOutcome:
    """Decide ``hook``: ask its call of ``asker`` (here or the inbox) unless it
    is not askcli's to answer, or fails its schema. ``gone`` says that Claude Code went
    away meanwhile, ``moved_on`` that it went on without the hook: nothing is printed
    then."""
    if not hook.served:
        return HookOutcome(None, 0)
    document = hook.document()
    result = refused(document)
    if result is not None:
        say(f"the {hook.tool} call is not valid; the model is told why")
    else:
        try:
            reply = asker.ask(Document(document), nobody())
        except QuestionDeferred as exc:
            say(
                f"nobody answered in time: question {exc.question_id} stays in the inbox, "
                "deferred; Claude Code stops here (tool_deferred), and claude -p --resume "
                f"{hook.session} (askcli resume) takes its answer"
            )
            return HookOutcome(DEFER, 0)
        if gone():
            return HookOutcome(None, ExitStatus.STDOUT_GONE)
        if moved_on():
            return HookOutcome(None, ExitStatus.OK)
        if signals.no_answer_reason() is not None:  # SIGTERM, SIGHUP: nobody waits for it
            return HookOutcome(None, signals.exit_status(ExitStatus.INTERRUPTED))
        if not reply.results:
            raise HookError("the inbox gave no decision for this call")
        result = reply.results[0]
    return HookOutcome(decision(hook, result), 0)


def main(
    *,
    here: bool,
    timeout: float | None,
    to: str | None = None,
    where: str | None = None,
    defer_after: float | None = None,
) -> int:
    """``askcli hook``: read the hook input on stdin, print the decision on stdout; a
    question for the inbox is addressed ``to`` a person or team (None: anyone), and
    deferred after ``defer_after`` seconds where Claude Code can (:func:`deferral`)."""
    signals.install()
    err = sys.stderr
    with contextlib.suppress(AttributeError, ValueError):  # whatever the locale says
        err.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]

    def say(text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            err.write(terminal_text(folded_for(err, f"askcli hook: {visible(text)}\n")))
            err.flush()

    watch = HookWatch()
    try:
        try:
            hook = parse_hook(read_bounded(0, MAX_DOCUMENT_BYTES))
        except OSError as exc:
            raise HookError(f"cannot read the hook input: {exc.strerror}") from None
        if not hook.served:  # not askcli's to answer: nothing is opened
            return ExitStatus.OK
        if hook.event == PERMISSION_REQUEST and hook.transcript is not None:
            # Claude Code asks at its own prompt meanwhile: an answer there ends the wait
            from .transcript import Transcript

            transcript = Transcript(hook.transcript, hook.tool, hook.input)
            watch.moved = transcript.decided
            if not transcript.decided() and transcript.call is not None:
                # the call's tool_use id, which the hook input lacks: it tells this call
                # from an identical one to askcli mcp's permission tool (same_call)
                hook = hook._replace(tool_use_id=transcript.call)
        queued = None if here else inbox(hook, timeout, say, to, where)
        if queued is not None:
            queued.defer = deferral(hook, defer_after)
        asker = queued or AtTerminal(timeout)
        try:
            with watch:
                outcome = answer(hook, asker, say, lambda: watch.gone, lambda: watch.moved_on)
        finally:
            if queued is not None:
                queued.close()
    except (HookError, InboxError) as exc:
        say(str(exc))
        return ExitStatus.FAILED
    except KeyboardInterrupt:  # before anything was asked (or taken back): no decision
        gone = ExitStatus.STDOUT_GONE if watch.gone else None
        outcome = HookOutcome(None, gone or signals.exit_status(ExitStatus.INTERRUPTED))
        if watch.moved_on:
            outcome = HookOutcome(None, ExitStatus.OK)
    if outcome.output is None:
        if watch.moved_on:
            say("Claude Code went on without this hook (answered at its own prompt): no decision")
        elif outcome.status == ExitStatus.STDOUT_GONE:
            say("Claude Code went away (the hook's stdout was closed): no decision")
        elif outcome.status:
            say(f"{signals.stop_notice()}: no decision; Claude Code goes on without this hook")
        return outcome.status
    return _print(outcome.output, sys.stdout, say)


def _print(output: dict[str, Any], stream: TextIO, say: Callable[[str], None]) -> int:
    line = json.dumps(output, ensure_ascii=True, allow_nan=False)
    try:
        stream.write(line + "\n")
        stream.flush()
    except BrokenPipeError:
        say("stdout is closed: nobody is left to read the decision")
        return ExitStatus.STDOUT_GONE
    except (OSError, OutputFailed) as exc:
        say(f"cannot write the decision to stdout: {exc}")
        return ExitStatus.OUTPUT_FAILED
    return ExitStatus.OK
