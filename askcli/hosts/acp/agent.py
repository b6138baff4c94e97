"""The agent as a child process, and the SDK's connection to it on an asyncio loop in a
thread of its own (:class:`AgentLink`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from ...errors import UsageError
from ...lines import each_line
from ..child import MAX_LINE, SHOWN, as_dict, as_text, die_with_parent
from .client import Client, dump
from .events import Event, EventKind
from .workspace import Files, Terminals

INSTALL_HINT = (
    "askcli acp needs the Agent Client Protocol SDK: pip install 'askcli[acp]' "
    "(agent-client-protocol)"
)
CANCEL_SENT = 1.0  # seconds session/cancel has to be written before the answers after it
END_GRACE = 2.0  # seconds the agent has to end once its input is closed
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
STDERR_GRACE = 1.0  # seconds its stderr has to end once it has ended (a child may hold it)


def _sdk() -> Any:
    try:
        import acp
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return acp


class AgentLink:
    """The agent as a child process, and the SDK's connection to it on a loop thread.

    ``call(method, params)`` sends an ACP request (``initialize``, ``session/new``,
    ``session/prompt``, ``session/cancel``, its params as JSON) through the SDK's
    ``ClientSideConnection`` and returns a concurrent future of the result; what the agent
    sends arrives on ``events``. ``close()`` ends the
    agent (its input closed, then SIGTERM and SIGKILL to its process group) on every path.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        on_stderr: Callable[[str, int], None] | None = None,
        cwd: str | None = None,
        fs: bool = False,
        terminal: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.acp = _sdk()
        self.command = list(command)
        self.env = env  # None: askcli's
        self.cwd = cwd
        root = cwd if cwd is not None else os.getcwd()
        self.files = Files(root) if fs else None
        self.terminals = Terminals(root, self.show, env) if terminal else None
        self.on_stderr = on_stderr
        self.events: queue.Queue[Event] = queue.Queue()
        self.loop = asyncio.new_event_loop()
        self.conn: Any = None
        self.proc: Any = None
        self.pgid: int | None = None
        self.started = threading.Event()
        self.start_error: BaseException | None = None
        self.stop: asyncio.Event | None = None
        self.exit_code: int | None = None
        self.pump: threading.Thread | None = None  # reads the agent's stderr
        self.requests = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.started.wait()
        if self.start_error is not None:
            raise UsageError(f"cannot start the agent: {self.start_error}")

    # --- the loop thread ---------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(self._main())
        self.started.set()

    async def _main(self) -> None:
        self.stop = asyncio.Event()
        read_fd, write_fd = os.pipe()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=write_fd,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
                limit=MAX_LINE,
                preexec_fn=die_with_parent(),
            )
        except (OSError, ValueError) as exc:
            os.close(read_fd)
            self.start_error = exc
            return
        finally:
            os.close(write_fd)
        self.pgid = self.proc.pid
        self.pump = threading.Thread(target=self._pump_stderr, args=(read_fd,), daemon=True)
        self.pump.start()
        self.conn = self.acp.ClientSideConnection(
            Client(self), self.proc.stdin, self.proc.stdout, use_unstable_protocol=True
        )
        self.started.set()
        await self.stop.wait()
        await self._shutdown()

    async def _shutdown(self) -> None:
        if self.terminals is not None:
            with contextlib.suppress(Exception):
                await self.terminals.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        proc = self.proc
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), self.grace)
        if proc.returncode is None:
            self._signal_group(signal.SIGTERM)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), TERM_GRACE)
        if proc.returncode is None:
            self._signal_group(signal.SIGKILL)
            await proc.wait()
            self.exit_code = None
        else:
            self.exit_code = proc.returncode
        self._signal_group(signal.SIGKILL)  # what it started in its group, if anything

    grace = END_GRACE

    def _signal_group(self, sig: int) -> None:
        if self.pgid is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.pgid, sig)

    def _pump_stderr(self, fd: int) -> None:
        """Read the agent's stderr in bounded lines, handing each to ``on_stderr``."""
        with open(fd, "rb") as stream:
            each_line(stream, self.on_stderr or (lambda _text, _more: None), SHOWN * 4)

    def show(self, text: str) -> None:
        """A line for the person about what askcli did for the agent (printed, escaped, by
        the main thread)."""
        self.events.put(Event(EventKind.SHOWN, {"text": text}))

    # --- the main thread ----------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any]) -> concurrent.futures.Future[Any]:
        """Send ``method`` with ``params`` (JSON); a future of the result (JSON)."""
        s = self.acp.schema
        if method == "initialize":
            coro: Coroutine[Any, Any, Any] = self.conn.initialize(
                protocol_version=self.acp.PROTOCOL_VERSION,
                client_capabilities=s.ClientCapabilities.model_validate(
                    params.get("clientCapabilities") or {}
                ),
                client_info=s.Implementation.model_validate(params["clientInfo"]),
            )
        elif method == "session/new":
            coro = self.conn.new_session(cwd=params["cwd"], mcp_servers=[])
        elif method == "session/prompt":
            blocks = [self.acp.text_block(as_text(b.get("text"))) for b in params["prompt"]]
            coro = self.conn.prompt(session_id=params["sessionId"], prompt=blocks)
        elif method == "session/cancel":
            coro = self.conn.cancel(session_id=params["sessionId"])
        elif method == "session/set_mode":
            coro = self.conn.set_session_mode(
                session_id=params["sessionId"], mode_id=params["modeId"]
            )
        elif method == "session/set_config_option":
            coro = self.conn.set_config_option(
                config_id=params["configId"], session_id=params["sessionId"], value=params["value"]
            )
        else:
            raise ValueError(f"askcli does not send {method}")
        future = asyncio.run_coroutine_threadsafe(_dumped(coro), self.loop)
        if method == "initialize" and self.files is not None:
            future.add_done_callback(self._note_agent)
        if method == "session/cancel":
            # on the wire before the requests it cancels are answered: an agent that hears
            # "cancelled" first takes it for a denial and goes on with the turn
            with contextlib.suppress(Exception):
                future.result(CANCEL_SENT)
        return future

    def _note_agent(self, future: concurrent.futures.Future[Any]) -> None:
        """Tell the files served (``--fs``) which agent answered ``initialize``."""
        if self.files is not None and not future.cancelled() and future.exception() is None:
            info = as_dict(as_dict(future.result()).get("agentInfo"))
            self.files.agent_is(as_text(info.get("name")))

    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def gone(self) -> bool:
        """The agent has ended and the connection with it."""
        return not self.alive() and not self.thread.is_alive()

    def elapsed(self, began: float) -> float:
        """Seconds since ``began`` (time.monotonic), for a turn's line."""
        return time.monotonic() - began

    def answer_soon(self, future: asyncio.Future[Any], value: dict[str, Any]) -> None:
        def settle() -> None:
            if not future.done():
                future.set_result(value)

        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(settle)

    def close(self, *, at_once: bool = False) -> int | None:
        """End the agent; its exit status (negative: the signal), None when askcli had to
        kill it."""
        if self.stop is not None and self.thread.is_alive():
            self.grace = 0.2 if at_once else END_GRACE
            stop = self.stop
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(stop.set)
            self.thread.join(END_GRACE + 2 * TERM_GRACE + 2)
        if self.thread.is_alive():  # the loop is stuck: end the group from here
            self._signal_group(signal.SIGKILL)
        if self.pump is not None:  # its last stderr lines, written as it ended, all read
            self.pump.join(STDERR_GRACE)
        return self.exit_code


async def _dumped(coro: Coroutine[Any, Any, Any]) -> Any:
    return dump(await coro)
