"""What ``askcli acp --fs`` and ``--terminal`` serve an ACP agent.

``--fs``: text files read and written for the agent (``fs/read_text_file``,
``fs/write_text_file``), only under the session's folder. ``--terminal``: commands run for
the agent (``terminal/create`` and the rest), each in its own process group, its output kept
for the agent within its byte limit and shown to the person line by line.

Everything here runs on the SDK's loop thread; what the person is to see goes out through
``show`` (the main thread prints it). Failures are :class:`Refused`, which the ACP client
turns into the JSON-RPC error the agent gets.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import shlex
import signal
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ...confined import Beneath, Outside
from ...files import SAFE_OPEN, read_bounded
from ..child import die_with_parent
from . import terminal_command

MAX_FILE = 16 * 1024 * 1024  # bytes askcli reads or writes for the agent in one request
MAX_OUTPUT = 1024 * 1024  # bytes of a terminal's output kept when the agent sets no limit
MAX_TERMINALS = 64  # terminals open at once (not yet released)
MAX_SHOWN = 500  # output lines of one terminal shown to the person (the agent gets them all)
MAX_LINE = 16384  # bytes of a terminal's output held back waiting for the end of its line
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL when a terminal is killed
_READ = os.O_RDONLY | SAFE_OPEN
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


GEMINI_CLI = "gemini-cli"  # Gemini CLI's agentInfo.name


class RequestRefused(Exception):
    """A request askcli cannot serve; ``missing`` when the file does not exist: not refused,
    the agent is told it is not found (:meth:`~.client.Client.read_text_file`)."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Files:
    """Text files under ``root`` (the session's folder), for ``--fs``: every path is opened
    beneath the folder (:mod:`askcli.confined`), never checked first and opened again by name."""

    def __init__(self, root: str) -> None:
        self.beneath = Beneath(root)
        self.root = self.beneath.root
        # Gemini CLI reads a file before writing it and takes every error to that read for
        # a failure (its ACP library hands it the JSON-RPC error as a plain object, which it
        # never reads as ENOENT): it is told of a missing file as Zed tells it, empty text
        self.missing_as_empty = False

    def agent_is(self, name: str) -> None:
        """Note the agent's name (its ``initialize`` reply's ``agentInfo.name``)."""
        self.missing_as_empty = name == GEMINI_CLI

    def name(self, path: Any) -> str:
        """``path`` as the person reads it: relative to the session's folder when under it."""
        if not isinstance(path, str):
            return repr(path)
        if os.path.isabs(path) and _inside(os.path.normpath(path), self.root):
            return os.path.relpath(os.path.normpath(path), self.root)
        return path

    def _check(self, path: Any) -> RequestRefused:
        """Refused unless ``path`` is an absolute path naming the session's folder (what
        it leads to is checked as it is opened); the refusal for leading out of it."""
        if not isinstance(path, str) or not path or "\0" in path:
            raise RequestRefused("the path is not a string")
        if not os.path.isabs(path):
            raise RequestRefused(f"the path is not absolute: {path}")
        outside = RequestRefused(f"{path} is outside the session's folder ({self.root})")
        try:
            self.beneath.under(path)
        except Outside:
            raise outside from None
        return outside

    @contextlib.contextmanager
    def _parent(self, path: Any, *, make: bool = False) -> Iterator[tuple[int, str]]:
        """The folder holding ``path`` (absolute, as ACP requires) and its name there;
        Refused when it is not absolute or leads out of the session's folder."""
        outside = self._check(path)
        try:
            with self.beneath.parent(path, make=make) as found:
                yield found
        except Outside:
            raise outside from None
        except IsADirectoryError:
            raise RequestRefused(f"{path} is not a regular file") from None

    def read(self, path: Any, line: Any = None, limit: Any = None) -> str:
        """The file's text, from 1-based ``line`` for ``limit`` lines when given."""
        self._check(path)
        for name, value in (("line", line), ("limit", limit)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise RequestRefused(f"{name} must be a whole number from 1: {value!r}")
        try:
            with self._parent(path) as (folder, name):
                fd = os.open(name, _READ, dir_fd=folder)
        except FileNotFoundError:
            raise RequestRefused(f"{path} does not exist", missing=True) from None
        except OSError as exc:
            raise RequestRefused(f"cannot read {path}: {exc.strerror or exc}") from None
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise RequestRefused(f"{path} is not a regular file")
            data = read_bounded(f.fileno(), MAX_FILE)
        if data is None:
            raise RequestRefused(f"{path} is larger than {MAX_FILE} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestRefused(f"{path} is not UTF-8 text") from None
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = (line or 1) - 1
        return "".join(lines[start : start + limit if limit is not None else None])

    def write(self, path: Any, content: Any) -> None:
        """Write ``content`` whole (a crash leaves the old file or the new one), keeping the
        file's mode; missing folders under the session's folder are made. The new file is
        written beside the old one, in the same folder, and renamed over it there."""
        self._check(path)
        if not isinstance(content, str):
            raise RequestRefused("the content is not a string")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise RequestRefused("the content is not Unicode text (a lone surrogate)") from None
        if len(data) > MAX_FILE:
            raise RequestRefused(f"the content is larger than {MAX_FILE} bytes")
        try:
            with self._parent(path, make=True) as (folder, name):
                _replace(folder, name, data, str(path))
        except OSError as exc:
            raise RequestRefused(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace(folder: int, name: str, data: bytes, path: str) -> None:
    """``name`` in ``folder`` replaced by a file of ``data``, with the old file's mode (a
    new one: what the umask gives, as the kernel applies it; never read by changing the
    umask, which is the whole process's, other threads' files included)."""
    mode = None
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise RequestRefused(f"{path} is not a regular file")
        mode = stat.S_IMODE(info.st_mode)
    temp, fd = _temp(folder, 0o600 if mode is not None else 0o666)
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise


def _temp(folder: int, mode: int) -> tuple[str, int]:
    """A new file of askcli's in ``folder`` (``mode``, less the umask): its name and a
    descriptor to write it."""
    for _ in range(100):
        temp = f".askcli-{secrets.token_hex(4)}"
        try:
            return temp, os.open(temp, _CREATE, mode, dir_fd=folder)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file")


def command_line(command: str, args: Sequence[str]) -> list[str]:
    """What runs: the command with its arguments; a command given alone is a shell line
    (``/bin/sh -c``), as the agents that send a whole command line expect."""
    if args:
        return [command, *args]
    return ["/bin/sh", "-c", command]


class Terminal:
    """One command run for the agent, and its output within ``limit`` bytes."""

    def __init__(self, number: int, shown: str, limit: int) -> None:
        self.id = f"term-{number}"
        self.shown = shown
        self.limit = limit
        self.output = bytearray()
        self.truncated = False
        self.proc: asyncio.subprocess.Process | None = None
        self.done = asyncio.Event()
        self.exit: tuple[int | None, str | None] | None = None
        self.watcher: asyncio.Task[None] | None = None  # kept: the loop holds tasks weakly
        self.lines = 0  # output lines seen

    def keep(self, data: bytes) -> None:
        self.output += data
        if len(self.output) > self.limit:
            cut = len(self.output) - self.limit
            # never start inside a UTF-8 sequence
            while cut < len(self.output) and self.output[cut] & 0xC0 == 0x80:
                cut += 1
            del self.output[:cut]
            self.truncated = True

    def status(self) -> dict[str, Any] | None:
        if self.exit is None:
            return None
        code, sig = self.exit
        return {"exitCode": code, "signal": sig}


class Terminals:
    """The terminals of one session (``--terminal``); ``show`` gets each line to print;
    their commands run in ``env`` (None: askcli's environment) with the agent's changes."""

    def __init__(
        self, root: str, show: Callable[[str], None], env: Mapping[str, str] | None = None
    ) -> None:
        self.root = root
        self.env = env
        self.show = show
        self.open: dict[str, Terminal] = {}
        self.made = 0

    def get(self, terminal_id: Any) -> Terminal:
        term = self.open.get(terminal_id) if isinstance(terminal_id, str) else None
        if term is None:
            raise RequestRefused(f"no terminal {terminal_id!r} (released, or never created)")
        return term

    async def create(
        self,
        command: Any,
        args: Any = None,
        env: Any = None,
        cwd: Any = None,
        limit: Any = None,
    ) -> str:
        if not isinstance(command, str) or not command.strip():
            raise RequestRefused("the command is empty")
        args = list(args or [])
        if not all(isinstance(a, str) for a in args):
            raise RequestRefused("the arguments are not all strings")
        if cwd is None:
            cwd = self.root
        if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
            raise RequestRefused(f"the working folder is not an absolute path to a folder: {cwd!r}")
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise RequestRefused(f"outputByteLimit must be a whole number from 0: {limit!r}")
        if len(self.open) >= MAX_TERMINALS:
            raise RequestRefused(f"{MAX_TERMINALS} terminals are open: release one first")
        try:
            variables = terminal_command.overrides(env)
        except terminal_command.Unsafe as exc:
            line = shlex.join([command, *args]) if args else command
            raise RequestRefused(f"{exc}; not run: {line}") from None
        environ = dict(os.environ if self.env is None else self.env) | dict(variables)
        argv = command_line(command, args)
        self.made += 1
        shown = terminal_command.shown(command, args, argv, variables, cwd, self.root)
        term = Terminal(self.made, shown, MAX_OUTPUT if limit is None else limit)
        try:
            term.proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=environ,
                start_new_session=True,
                # ended with askcli, even by SIGKILL (the loop thread lives until then)
                preexec_fn=die_with_parent(),
            )
        except (OSError, ValueError) as exc:
            raise RequestRefused(
                f"cannot run {shown}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        self.open[term.id] = term
        first, *more = terminal_command.lines(shown)  # whole, however long
        self.show(f"  $ {first}")
        for line in more:
            self.show(f"    {line}")
        term.watcher = asyncio.get_running_loop().create_task(self._watch(term))
        return term.id

    async def _watch(self, term: Terminal) -> None:
        proc = term.proc
        assert proc is not None and proc.stdout is not None
        pending = b""
        while True:
            data = await proc.stdout.read(65536)
            if not data:
                break
            term.keep(data)
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._show_line(term, line)
            if len(pending) > MAX_LINE:
                self._show_line(term, pending)
                pending = b""
        if pending:
            self._show_line(term, pending)
        if term.lines > MAX_SHOWN:
            self.show(f"  | ({term.lines - MAX_SHOWN} more lines, not shown here)")
        code = await proc.wait()
        if code < 0:
            with contextlib.suppress(ValueError):
                term.exit = (None, signal.Signals(-code).name)
            if term.exit is None:
                term.exit = (None, str(-code))
            self.show(f"  $ {term.shown}  (ended by {term.exit[1]})")
        else:
            term.exit = (code, None)
            self.show(f"  $ {term.shown}  (exit {code})")
        term.done.set()

    def _show_line(self, term: Terminal, line: bytes) -> None:
        term.lines += 1
        if term.lines <= MAX_SHOWN:
            self.show("  | " + line.decode("utf-8", "replace").rstrip("\r"))

    def output(self, terminal_id: Any) -> dict[str, Any]:
        term = self.get(terminal_id)
        reply: dict[str, Any] = {
            "output": term.output.decode("utf-8", "replace"),
            "truncated": term.truncated,
        }
        if term.exit is not None:
            reply["exitStatus"] = term.status()
        return reply

    async def wait(self, terminal_id: Any) -> dict[str, Any]:
        term = self.get(terminal_id)
        await term.done.wait()
        return term.status() or {}

    async def kill(self, terminal_id: Any) -> None:
        await self._end(self.get(terminal_id))

    async def release(self, terminal_id: Any) -> None:
        term = self.get(terminal_id)
        await self._end(term)
        self.open.pop(term.id, None)

    async def _end(self, term: Terminal) -> None:
        proc = term.proc
        if proc is None or term.done.is_set():
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, sig)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(term.done.wait()), TERM_GRACE)
                return

    async def close(self) -> None:
        """End every terminal (the session ends)."""
        await asyncio.gather(*(self._end(term) for term in self.open.values()))
        self.open.clear()
