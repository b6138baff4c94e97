"""Recorded sessions: a fixture holds calls, answer lines and what askcli printed.

Format ``askcli-fixture/1``, one JSON object per file::

    {
      "format": "askcli-fixture/1",
      "description": "what the session shows",
      "columns": 80,
      "output": "result",
      "calls": [ {...call...} or "raw text", ... ],
      "answers": ["2", "", ...],
      "stdout": ["{...reply line...}", ...],
      "stderr": "the whole conversation, as printed",
      "status": 0
    }

``calls`` are fed as the source (an object as one JSON line, a string as it is) and
``answers`` as a separate stream. A session whose calls and answers came in one stream
(stdin) has ``"stdin": [lines]`` instead of both. ``output`` is the ``--output`` mode
(default ``result``), ``columns`` the width (default 80), ``session`` the ``--session``
(optional) and ``wording`` the ``--wording`` (default ``claude-code-2.1.88``, also written
``seed``); colour is off and TodoWrite
starts from an empty state.
"""

from __future__ import annotations

import difflib
import io
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadFixture
from ..lines import TextLineReader
from ..terminal.conversation import Conversation
from ..terminal.options import RunOptions
from ..terminal.rendering import Style
from ..tools.todo_store import TodoStore
from ..wire.envelopes import Output, json_document, json_line
from ..wire.wording.base import Wording
from ..wire.wording.registry import DEFAULT, as_wording, wording_named
from .session import run

FORMAT = "askcli-fixture/1"
HOSTED_SECTIONS = ("claude", "acp")  # a fixture of a hosted session (askcli claude, askcli acp)


@dataclass(frozen=True)
class ReplayOutcome:
    stdout: list[str]
    stderr: str
    status: int
    sent: list[Any] | None = None  # what askcli sent to Claude Code or the ACP agent
    acp: bool = False

    def render(self) -> list[str]:
        """The outcome as lines, for a diff."""
        lines = [f"status: {self.status}"]
        if self.sent is not None:
            lines.append("sent:" if self.acp else "sent to Claude Code:")
            lines += [f"  {json_line(message)}" for message in self.sent]
        lines.append("stdout:")
        lines += [f"  {line}" for line in self.stdout]
        lines.append("stderr:")
        lines += [f"  {line}" for line in self.stderr.split("\n")]
        return lines


# Plays a hosted session (a fixture's section, the answer lines, the width): the hosts register
# theirs (askcli.hosts.replaying), as this layer cannot import them.
HostedPlayer = Callable[[Mapping[str, Any], Sequence[str], int], ReplayOutcome]
HOSTED: dict[str, HostedPlayer] = {}


def register_host(section: str, player: HostedPlayer) -> None:
    """Let :func:`replay` replay the fixtures with a ``section`` (``claude``, ``acp``)."""
    HOSTED[section] = player


def source_text(calls: Sequence[Any]) -> str:
    return "".join((c if isinstance(c, str) else json_line(c)) + "\n" for c in calls)


def typed_answers(answers: Sequence[str]) -> TextLineReader:
    """The answer lines of a fixture, as a person would type them."""
    return TextLineReader(io.StringIO("".join(a + "\n" for a in answers)))


def host_fixture(
    kind: str,
    section: dict[str, Any],
    outcome: ReplayOutcome,
    answers: Sequence[str],
    description: str,
    columns: int,
) -> dict[str, Any]:
    """A fixture of a hosted session (``claude``, ``acp``): what the host received in
    ``section``, what askcli sent, the person's lines and what was printed."""
    return {
        "format": FORMAT,
        "description": description,
        "columns": columns,
        kind: {**section, "sent": outcome.sent},
        "answers": list(answers),
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "status": outcome.status,
    }


def play(
    *,
    calls: Sequence[Any] = (),
    answers: Sequence[str] = (),
    stdin: Sequence[str] | None = None,
    columns: int = 80,
    output: Output = Output.RESULT,
    session: str | None = None,
    wording: Wording | str = DEFAULT,
) -> ReplayOutcome:
    """Run a session in process, with no person, and collect what was printed.

    With ``stdin`` the calls and their answers come in that one stream; else ``calls``
    are the source and ``answers`` the lines typed. TodoWrite starts from an empty state.
    ``wording`` is a wording or its name.
    """
    wording = as_wording(wording)
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        source = TextLineReader(io.StringIO("".join(line + "\n" for line in stdin)))
        reader = source
    else:
        source = TextLineReader(io.StringIO(source_text(calls)))
        reader = typed_answers(answers)
    with tempfile.TemporaryDirectory(prefix="askcli-play-") as scratch:
        options = RunOptions(
            calls_follow=stdin is not None,
            todos=TodoStore(Path(scratch) / "todos.json"),
            session=session,
            wording=wording,
        )
        conv = Conversation(reader, err, Style(width=columns, colour=False), options)
        status = run(source, conv, out, output=output)
    return ReplayOutcome(out.getvalue().splitlines(), err.getvalue(), int(status))


def make(
    *,
    calls: Sequence[Any] = (),
    answers: Sequence[str] = (),
    stdin: Sequence[str] | None = None,
    description: str = "",
    columns: int = 80,
    output: Output = Output.RESULT,
    session: str | None = None,
    wording: Wording | str = DEFAULT,
) -> dict[str, Any]:
    """A fixture recording what askcli prints for this session now."""
    wording = as_wording(wording)
    outcome = play(
        calls=calls,
        answers=answers,
        stdin=stdin,
        columns=columns,
        output=output,
        session=session,
        wording=wording,
    )
    fixture: dict[str, Any] = {"format": FORMAT, "description": description, "columns": columns}
    if output is not Output.RESULT:
        fixture["output"] = output.value
    if session is not None:
        fixture["session"] = session
    if wording is not DEFAULT:  # the default is not written
        fixture["wording"] = wording.name
    if stdin is not None:
        fixture["stdin"] = list(stdin)
    else:
        fixture["calls"] = list(calls)
        fixture["answers"] = list(answers)
    fixture.update(stdout=outcome.stdout, stderr=outcome.stderr, status=outcome.status)
    return fixture


def typed_lines(typed: bytes | bytearray) -> list[str]:
    """What a reader's transcript kept, as the lines of a fixture."""
    lines = typed.decode("utf-8", "surrogateescape").split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def save(path: Path, fixture: dict[str, Any]) -> None:
    """Write ``fixture`` to ``path`` whole (a crash leaves the old file or the new one);
    OSError when it cannot be, or when ``path`` is not a regular file (a symlink, a FIFO,
    a device: never written through)."""
    from ..files import replace_whole

    path.parent.mkdir(parents=True, exist_ok=True)
    kind = replace_whole(path, dumps(fixture).encode("utf-8", "surrogatepass"), 0o666)
    if kind is not None:
        raise OSError(f"it is {kind}, not a regular file")


def dumps(fixture: dict[str, Any]) -> str:
    """The fixture as a file's text: readable JSON, with bytes that were not UTF-8
    (lone surrogates) and terminal controls kept as ``\\uXXXX`` escapes."""
    return json_document(fixture)


MAX_FIXTURE_BYTES = 64 * 1024 * 1024
MAX_FIXTURE_DEPTH = 200


def _read(path: Path) -> str:
    """The text of a regular file of at most :data:`MAX_FIXTURE_BYTES`; a FIFO or a
    device is refused without waiting on it."""
    from ..files import not_regular, read_bounded

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO: no waiting
    try:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise BadFixture(f"cannot read it: it is {kind}, not a regular file")
        data = read_bounded(fd, MAX_FIXTURE_BYTES)
    finally:
        os.close(fd)
    if data is None:
        raise BadFixture(f"cannot read it: it is larger than {MAX_FIXTURE_BYTES} bytes")
    return data.decode("utf-8-sig")


def load(path: Path) -> dict[str, Any]:
    """Read a fixture; BadFixture (a ValueError) saying why, on one line, when the file
    is not one that can be replayed."""
    from ..wire.documents import parse_json
    from .recording_format import check

    try:
        fixture = parse_json(_read(path), MAX_FIXTURE_DEPTH)
    except BadFixture:
        raise
    except OSError as exc:
        raise BadFixture(f"cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadFixture("cannot read it: it is not UTF-8") from None
    except ValueError as exc:
        raise BadFixture(f"it {exc}") from None
    return check(fixture)


def replay(fixture: dict[str, Any]) -> tuple[ReplayOutcome, ReplayOutcome]:
    """(expected, actual) for one fixture (as :func:`load` gives it); BadFixture when
    replaying it fails: whatever a fixture holds, the run goes on with the next one."""
    try:
        return _replay(fixture)
    except (RecursionError, MemoryError):
        raise BadFixture("it cannot be replayed: it is too large or too deep") from None
    except Exception as exc:  # a fixture is untrusted input; askcli's own bug shows here too
        raise BadFixture(f"it cannot be replayed: {type(exc).__name__}: {exc}") from None


def _replay(fixture: dict[str, Any]) -> tuple[ReplayOutcome, ReplayOutcome]:
    for section in HOSTED_SECTIONS:
        if section in fixture:
            hosted = fixture[section]
            sent, acp = hosted["sent"], section == "acp"
            expected = ReplayOutcome(
                fixture["stdout"], fixture["stderr"], fixture["status"], sent, acp
            )
            player = HOSTED.get(section)
            if player is None:
                raise BadFixture(f"no host to replay its {section} session: use askcli.fixtures")
            return expected, player(hosted, fixture["answers"], fixture.get("columns", 80))
    expected = ReplayOutcome(fixture["stdout"], fixture["stderr"], fixture["status"])
    actual = play(
        calls=fixture.get("calls", ()),
        answers=fixture.get("answers", ()),
        stdin=fixture.get("stdin"),
        columns=fixture.get("columns", 80),
        output=Output(fixture.get("output", "result")),
        session=fixture.get("session"),
        wording=wording_named(fixture.get("wording", DEFAULT.name)),
    )
    return expected, actual


def diff(expected: ReplayOutcome, actual: ReplayOutcome, name: str) -> list[str]:
    """A unified diff from the recorded outcome to the one askcli gives now."""
    return list(
        difflib.unified_diff(
            expected.render(),
            actual.render(),
            fromfile=f"{name} (recorded)",
            tofile=f"{name} (now)",
            lineterm="",
        )
    )
