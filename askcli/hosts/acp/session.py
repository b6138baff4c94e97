"""One ACP session, the person's side in plain lines (:class:`AcpHost`, :func:`host`): the
agent's messages waited for on the main thread, which alone reads the answers and receives
the signals, and the session's start, mode and turns."""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ...escaping import visible
from ...runners.session import Asker, Here
from ...status import ExitStatus
from ...terminal import editing, signals
from ...terminal.conversation import Conversation
from ...terminal.rendering import terminal_text, wrap
from .. import child
from ..child import Ended, as_dict, as_text, describe_exit, same_terminal
from . import config as configs
from .asking import Asking, typed_interrupt
from .events import Event, EventKind, Link, PendingReply
from .failures import SIGN_IN, failure, sign_in_lines
from .showing import AcpShowing

# what claude-agent-acp says when the Claude Code it runs exits; that one's stderr it drops
HIDDEN_STDERR = "Claude Code process exited with code"
SHOWN_STDERR = ". stderr: "  # how claude-agent-acp 0.101.0 adds that stderr to its error
STEP = 0.1  # seconds between looks at the queue, so that signals are seen at once
START_TIMEOUT = 60.0  # seconds the agent has to answer initialize and session/new


class AcpHost(AcpShowing, Asking):
    """One ACP session: the person's side, in plain lines."""

    def __init__(self, link: Link, conv: Conversation, out: TextIO, *, one_terminal: bool) -> None:
        self.link = link
        self.conv = conv
        self.out = out
        self.one_terminal = one_terminal
        self.session_id: str | None = None
        self.ended: Ended | None = None
        self.failed = False
        self.interrupted = False
        self.cancelling = False
        self.message = ""  # agent text not shown yet
        self.thoughts: bool = False  # show the agent's thoughts (--thoughts)
        self.thought = ""  # thoughts not shown yet
        self.final: list[str] = []  # this turn's text since its last tool call
        self.tools: dict[str, dict[str, Any]] = {}  # title and status by toolCallId
        self.asker: Asker = Here()  # here, or the inbox (``--inbox``)
        self.asked = 0  # documents handed to the asker
        self.auth_methods: Any = None  # the ways to sign in the agent offers (initialize)
        self.modes: dict[str, str] = {}  # the session's modes: name by id (session/new)
        self.mode: str | None = None  # the current mode's id
        self.config: dict[str, configs.ConfigOption] = {}  # the session's config options by id
        # the answers to requests Ctrl-C interrupted: given after session/cancel is sent
        self.held: list[Callable[[], None]] = []

    def wait(self, future: PendingReply, timeout: float | None = None) -> Any:
        """Handle what the agent sends until ``future`` is done; its result. Raises
        KeyboardInterrupt (signals) and the future's exception."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                try:
                    event: Event | None = self.link.events.get(timeout=STEP)
                except queue.Empty:
                    event = None
                if event is None:
                    if future.done():
                        return future.result()
                    if self.link.gone():
                        raise ConnectionError("the agent ended")
                    if deadline is not None and time.monotonic() > deadline:
                        raise TimeoutError
                    continue
            except KeyboardInterrupt:
                # Ctrl-C between the agent's messages: --record keeps where it came
                mark = getattr(self.link, "interrupt", None)
                if mark is not None and not signals.received_other_than_sigint():
                    mark()
                raise
            self.handle(event)
            if self.ended is not None:
                raise _Stop

    def drain(self) -> None:
        """Handle what is queued (the updates sent just before a reply)."""
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                return
            self.handle(event)

    def handle(self, event: Event) -> None:
        if event.kind is EventKind.UPDATE:
            try:
                self.update(as_dict(event.params.get("update")))
            except (TypeError, ValueError, AttributeError, KeyError) as exc:
                self.conv.error(f"skipped an update from the agent ({type(exc).__name__})")
            return
        self.flush()
        if event.kind is EventKind.SHOWN:
            self.say_item(as_text(event.params.get("text")))
            return
        if event.kind is EventKind.REFUSED:
            self.conv.error(
                f"refused the agent's {visible(event.params.get('method', '?'))} request "
                "(askcli does not offer it)"
            )
            return
        assert event.answer is not None
        if self.cancelling or self.ended is not None:
            event.answer({"action": "cancel"} if event.kind is EventKind.ELICITATION else {})
            return
        if event.kind is EventKind.PERMISSION:
            self.permission(event.params, event.answer)
        elif event.kind is EventKind.ELICITATION:
            self.elicitation(event.params, event.answer)

    def start(
        self,
        capabilities: dict[str, Any],
        cwd: str | None = None,
        mode: str | None = None,
        config: Sequence[tuple[str, str]] = (),
    ) -> None:
        init = self.wait(
            self.link.call(
                "initialize",
                {
                    "clientCapabilities": capabilities,
                    "clientInfo": {"name": "askcli", "version": "0.1"},
                },
            ),
            START_TIMEOUT,
        )
        info = as_dict(as_dict(init).get("agentInfo"))
        self.auth_methods = as_dict(init).get("authMethods")
        params = {"cwd": cwd if cwd is not None else os.getcwd(), "mcpServers": []}
        session = as_dict(self.wait(self.link.call("session/new", params), START_TIMEOUT))
        self.session_id = as_text(session.get("sessionId"), "?")
        name = as_text(info.get("title")) or as_text(info.get("name"), "agent")
        version = as_text(info.get("version"))
        self.say_item(f"({name}{' ' + version if version else ''} session {self.session_id})")
        modes = as_dict(session.get("modes"))
        for entry in modes.get("availableModes") or []:
            mode_id = as_text(as_dict(entry).get("id"))
            if mode_id:
                self.modes[mode_id] = as_text(as_dict(entry).get("name")) or mode_id
        self.mode = as_text(modes.get("currentModeId")) or None
        self.config = configs.parse(session.get("configOptions"))
        for option in self.config.values():
            self.conv.say(configs.line(option, self.conv.style.width) + "\n")
        wanted = list(config)
        as_option = configs.mode_option(self.config)
        if mode is not None and as_option is not None:
            # the agent's modes are a config option too: --mode sets that option
            if mode not in self.modes and mode not in (v for v, _, _ in as_option.values):
                self.no_mode(mode, modes.get("availableModes"))
            wanted.insert(0, (as_option.id, mode))
        elif mode is not None and mode != self.mode:
            self.set_mode(mode, modes.get("availableModes"))
        self.set_config(wanted)

    def set_config(self, wanted: Sequence[tuple[str, str]]) -> None:
        """``--config ID=VALUE``: set the new session's config options, each checked first
        (exit 2 for one the agent does not offer, nothing set); the options that changed
        shown."""
        try:
            resolved = configs.resolve(wanted, self.config)
        except configs.ConfigError as exc:
            self.conv.error(str(exc))
            self.ended = Ended(ExitStatus.USAGE)
            raise _Stop from None
        for key, value in resolved:
            if self.config[key].current == configs.text(value):
                continue
            params = {"sessionId": self.session_id, "configId": key, "value": value}
            call = self.link.call("session/set_config_option", params)
            reply = as_dict(self.wait(call, START_TIMEOUT))
            if isinstance(reply.get("configOptions"), list):  # every option, as it is now
                self.show_config(configs.parse(reply["configOptions"]))

    def no_mode(self, mode: str, available: Any) -> None:
        """``--mode`` with a mode the agent does not offer: what it offers; the session ends
        (exit 2)."""
        offered = []
        for entry in available or []:
            about = as_text(as_dict(entry).get("description"))
            name = as_text(as_dict(entry).get("id"), "?")
            offered.append(f"{name} ({about})" if about else name)
        if not offered and (as_option := configs.mode_option(self.config)) is not None:
            offered = [f"{v} ({d})" if d else v for v, _, d in as_option.values]
        self.conv.error(
            f"the agent has no mode {mode!r}; "
            + (f"its modes: {', '.join(offered)}" if offered else "it offers no modes")
        )
        self.ended = Ended(ExitStatus.USAGE)
        raise _Stop

    def set_mode(self, mode: str, available: Any) -> None:
        """``--mode``: switch the new session to the agent's mode ``mode``."""
        if mode not in self.modes:
            self.no_mode(mode, available)
        params = {"sessionId": self.session_id, "modeId": mode}
        self.wait(self.link.call("session/set_mode", params), START_TIMEOUT)
        self.show_mode(mode)

    def turn(self, text: str) -> None:
        self.final, self.cancelling, self.interrupted = [], False, False
        began = time.monotonic()
        future = self.link.call(
            "session/prompt",
            {"sessionId": self.session_id, "prompt": [{"type": "text", "text": text}]},
        )
        while True:
            try:
                response = self.wait(future)
                break
            except KeyboardInterrupt:
                if self.cancelling or signals.received_other_than_sigint():
                    raise
                self.flush()
                self.conv.say("\n(cancelling the turn; Ctrl-C again ends the session)\n")
                self.cancelling = self.interrupted = True
                self.link.call("session/cancel", {"sessionId": self.session_id})
                self.release()  # then the requests Ctrl-C interrupted are answered cancelled
                self.drain()  # and every request still queued
        self.drain()
        self.flush()
        stop = as_text(as_dict(response).get("stopReason"), "?")
        seconds = self.link.elapsed(began)
        ok = stop in ("end_turn", "cancelled")
        word = "done" if stop == "end_turn" else f"ended: {stop}"
        self.say_item(f"-- turn {word}, {seconds:.1f} s")
        self.failed = not ok
        result = "".join(self.final).strip()
        if result and not self.one_terminal and stop != "cancelled":
            try:
                self.out.write(terminal_text(result) + "\n")
                self.out.flush()
            except BrokenPipeError:
                self.ended = Ended(ExitStatus.STDOUT_GONE, "stdout was closed: the result is lost")
            except (OSError, ValueError):
                self.ended = Ended(ExitStatus.OUTPUT_FAILED, "cannot write the result to stdout")


def _read_prompt(conv: Conversation) -> str | None:
    """The person's next prompt at ``> ``: --timeout is for the agent's questions only."""
    untimed = conv.with_options(conv.options._replace(timeout=None))
    try:
        return untimed.read_answer("> ", command=False, fresh=False, history=editing.MESSAGE)
    except KeyboardInterrupt:
        typed_interrupt(conv)
        raise


class _Stop(Exception):
    """The session ends (``AcpHost.ended`` says how)."""


def host(
    link: Link,
    conv: Conversation,
    out: TextIO,
    *,
    prompt: str | None = None,
    capabilities: dict[str, Any] | None = None,
    one_terminal: bool | None = None,
    cwd: str | None = None,
    asker: Asker | None = None,
    thoughts: bool = False,
    mode: str | None = None,
    config: Sequence[tuple[str, str]] = (),
    stderr: child.AgentStderr | None = None,
) -> int:
    """Hold an ACP session over ``link``; the exit status (as ``askcli claude``'s).
    ``asker`` asks permission requests and forms (default: here; the inbox for
    ``--inbox``); with ``thoughts``, the agent's thoughts are shown;
    ``mode`` and ``config`` (``--mode``, ``--config``) are set before the first prompt.
    When the agent fails, its exit status is said with its last ``stderr`` lines."""
    if one_terminal is None:
        one_terminal = same_terminal(out, conv.out)
    session = AcpHost(link, conv, out, one_terminal=one_terminal)
    if asker is not None:
        session.asker = asker
    session.thoughts = thoughts
    interrupted = died = False
    why = ""
    try:
        session.start(capabilities or {}, cwd, mode, config)
        hinted = False
        while session.ended is None:
            if prompt is None and not hinted:
                child.hint_messages(conv, "the agent")
                hinted = True
            text = prompt if prompt is not None else _read_prompt(conv)
            if text is None:
                break
            if text.strip():
                session.turn(text)
                if prompt is not None:
                    break
    except KeyboardInterrupt:
        conv.say("\n")
        conv.error("session ended")
        interrupted = True
    except _Stop:
        pass
    except TimeoutError:
        died, why = True, "it did not answer in time"
    except ConnectionError:
        died = True
    except Exception as exc:  # the SDK's RequestError and the like: the agent failed
        died, why = True, failure(exc)
    finally:
        signals.settle()
        # answer whatever is still waiting, then end the agent on every way out
        session.cancelling = True
        if died and stderr is not None:
            stderr.hold()  # what it still writes is shown with its end
        with contextlib.suppress(Exception):
            session.release()
            session.drain()
        code = link.close(at_once=interrupted or session.ended is not None or died)
    if interrupted:
        return int(ExitStatus.INTERRUPTED)
    if session.ended is not None:
        if session.ended.message:
            conv.error(session.ended.message)
        return session.ended.status
    if died:
        how = f": {visible(why)}" if why else ""
        if code is not None and code != 0:
            how += f" ({describe_exit(code)})"
        then: list[str] = []
        if HIDDEN_STDERR in why and SHOWN_STDERR not in why:  # 0.101.0 says it in the error
            hint = "claude-agent-acp keeps Claude Code's stderr from askcli: "
            hint += "`askcli claude` run in the same environment shows it"
            then += wrap(hint, conv.style.width, first="  ", rest="  ")
        if why.startswith(SIGN_IN):
            for line in sign_in_lines(session.auth_methods):
                then += wrap(visible(line), conv.style.width, rest="    ")
        if stderr is not None:
            stderr.ended(f"the agent failed{how}", then)
        else:
            conv.error(f"the agent failed{how}")
            if then:
                conv.say("".join(line + "\n" for line in then))
        return ExitStatus.FAILED
    if session.interrupted and prompt is not None:
        return int(ExitStatus.INTERRUPTED)
    if session.failed:
        return ExitStatus.FAILED
    return int(ExitStatus.ANSWERED)


def show_stderr(conv: Conversation) -> child.AgentStderr:
    """The agent's stderr lines, escaped, one line each: ``(agent stderr) ...``; the last
    ones kept for its end."""
    return child.show_stderr(conv, "agent")


def capabilities(*, fs: bool = False, terminal: bool = False) -> dict[str, Any]:
    """The client capabilities askcli offers: elicitation forms and URL consent, and with
    ``fs`` / ``terminal`` (``--fs``, ``--terminal``) text files and terminals."""
    offered: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
    if fs:
        offered["fs"] = {"readTextFile": True, "writeTextFile": True}
    if terminal:
        offered["terminal"] = True
    return offered
