"""One hosted Claude Code session: started, its turns read to their results, and ended
with an exit status."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from ...runners.session import Asker, Here
from ...status import ExitStatus
from ...terminal import editing, signals
from ...terminal.conversation import Conversation
from ...wire.envelopes import capabilities
from ..child import AgentStderr, Ended, describe_exit, hint_messages, same_terminal
from .answering import Answering
from .stream_json import Skipped, StreamLink


class ClaudeHost(Answering):
    """One hosted Claude Code session: the person's side, in plain lines."""

    def __init__(
        self,
        link: StreamLink,
        conv: Conversation,
        out: TextIO,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        one_terminal: bool = False,
        asker: Asker | None = None,
    ) -> None:
        self.link = link
        self.asker = asker or Here()
        self.conv = conv
        self.out = out
        self.allow = set(allow)
        self.deny = set(deny)
        self.same: set[str] = set()  # "always" without a rule: this tool with this input
        self.serial = 0
        self.failed = False
        self.interrupted = False  # a Ctrl-C interrupted the last turn
        self.ended: Ended | None = None
        self.creating: dict[str, dict[str, Any]] = {}  # TaskCreate inputs by tool_use id
        self.tasks: dict[str, dict[str, Any]] = {}  # Claude Code's task list, by task id
        self.names: dict[str, str] = {}  # tool names by tool_use id, for their results
        self.listed: str | None = None  # the tool_use id of the line just shown, if any
        self.session_shown: tuple[str, str] | None = None  # the (session, model) last shown
        self.one_terminal = one_terminal  # stdout and stderr are the same terminal
        self.said: str | None = None  # the text last shown as ``Claude: ...``

    def _id(self, what: str) -> str:
        self.serial += 1
        return f"askcli-{what}-{self.serial}"

    def _request(self, subtype: str) -> None:
        request = {"subtype": subtype}
        self.link.send(
            {"type": "control_request", "request_id": self._id(subtype), "request": request}
        )

    def next_line(self) -> dict[str, Any] | str | None:
        """The next line worth handling: a JSON object or text; bad lines are reported."""
        while True:
            line = self.link.receive()
            if line is None or isinstance(line, dict | str):
                return line
            if isinstance(line, Skipped):
                self.skipped(line.reason)
            else:
                self.skipped("it is JSON but not an object")

    def handle(self, line: dict[str, Any] | str) -> str | None:
        """Show or answer one line; its ``type`` when it was handled, None when it was a
        line of text or could not be used (then it was reported)."""
        listed, self.listed = self.listed, None
        if isinstance(line, str):
            if line.strip():
                self.say_item(line)
            return None
        try:
            kind = line.get("type")
            request = line.get("request")
            if kind == "control_request" and isinstance(request, dict):
                if request.get("subtype") == "can_use_tool":
                    self.decide(line.get("request_id"), request, listed)
                elif request.get("subtype") == "elicitation":
                    self.elicit(line)
                else:
                    self.refuse(line.get("request_id"), request.get("subtype"))
            else:
                self.show(line)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as e:
            self.skipped(f"askcli cannot read it ({type(e).__name__}: {e})")
            return None
        return kind if isinstance(kind, str) else None

    def turn(self) -> bool:
        """Read Claude Code's lines until the turn's result; False when it ended early.

        Ctrl-C sends the interrupt control request and waits for the turn to end; a second
        Ctrl-C (or a SIGTERM/SIGHUP) ends the session.
        """
        self.interrupted = interrupting = False
        while self.ended is None:
            try:
                line = self.next_line()
            except KeyboardInterrupt:
                if interrupting or signals.received_other_than_sigint():
                    raise
                self.conv.say("\n(interrupting Claude Code; Ctrl-C again ends the session)\n")
                self._request("interrupt")
                self.interrupted = interrupting = True
                continue
            if line is None:
                return False
            if self.handle(line) == "result":
                return True
        return True

    def start(self) -> bool:
        """Send ``initialize`` and wait for its answer; False if Claude Code ended."""
        self._request("initialize")
        while self.ended is None:
            line = self.next_line()
            if line is None:
                return False
            if isinstance(line, dict) and line.get("type") == "control_response":
                self.told(capabilities(line))
                return True
            self.handle(line)
        return True

    def prompt(self, text: str) -> None:
        self.link.send(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "parent_tool_use_id": None,
                "session_id": "",
            }
        )


def host(
    link: StreamLink,
    conv: Conversation,
    out: TextIO,
    *,
    prompt: str | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    one_terminal: bool | None = None,
    stderr: AgentStderr | None = None,
    asker: Asker | None = None,
) -> int:
    """Hold a Claude Code session over ``link``; the exit status.

    ``asker`` asks Claude Code's questions, permission requests and forms (default: here,
    at the conversation ``conv``; the inbox for ``--inbox``).

    ``one_terminal`` says that ``out`` and the person's screen are one terminal (found out
    from the streams when None): then a result that repeats the text just shown is not
    printed again.

    With ``prompt``, one turn; else prompts are read at ``> `` until the input ends.
    Ctrl-C at ``> `` (or a second one in a turn), SIGTERM and SIGHUP end the session with
    :attr:`ExitStatus.INTERRUPTED`; the input ending at a question or permission prompt ends it
    with NO_ANSWER; a closed stdout with 141, one that cannot be written with 74. When Claude
    Code ends early, its exit status is said with its last ``stderr`` lines.
    """
    if one_terminal is None:
        one_terminal = same_terminal(out, conv.out)
    always = conv.with_options(conv.options._replace(permission_always=True))
    session = ClaudeHost(
        link, always, out, allow=allow, deny=deny, one_terminal=one_terminal, asker=asker
    )
    died = interrupted = False
    try:
        died = not session.start()
        hinted = False
        while not died and session.ended is None:
            if prompt is None and not hinted:
                hint_messages(conv, "Claude Code")
                hinted = True
            text = (
                prompt
                if prompt is not None
                else conv.read_answer("> ", command=False, fresh=False, history=editing.MESSAGE)
            )
            if text is None:
                break
            if text.strip():
                session.prompt(text)
                died = not session.turn()
                if prompt is not None:
                    break
    except KeyboardInterrupt:
        conv.say("\n")
        conv.error("session ended")
        interrupted = True
    finally:
        signals.settle()
        if died and stderr is not None:
            stderr.hold()  # what it still writes is shown with its end
        # on every way out: no Claude Code outlives askcli
        code = link.close(at_once=interrupted or session.ended is not None)
    if interrupted:
        return int(ExitStatus.INTERRUPTED)
    if session.ended is not None:
        if session.ended.message:
            conv.error(session.ended.message)
        return session.ended.status
    if died:
        if code is None:
            how = ""
        elif code >= 0:
            how = f" (exit status {code})"
        else:
            how = f" (it {describe_exit(code)})"
        (stderr.ended if stderr is not None else conv.error)(f"Claude Code ended unexpectedly{how}")
        return ExitStatus.FAILED
    if session.interrupted and prompt is not None:
        return int(ExitStatus.INTERRUPTED)
    if session.failed:
        return ExitStatus.FAILED
    if code not in (None, 0):
        conv.error(f"Claude Code {describe_exit(code)}")
        return ExitStatus.FAILED
    return int(ExitStatus.ANSWERED)
