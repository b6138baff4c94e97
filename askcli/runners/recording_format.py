"""The fixture format as pydantic models: a fixture is checked before it is replayed.

Imported only by ``askcli record``/``replay`` (pydantic is slow to import).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from ..errors import BadFixture
from ..terminal.rendering import MAX_CELLS
from ..wire.wording.registry import OLD_NAMES

FORMAT = "askcli-fixture/1"
_SHOWN_ERRORS = 3

Columns = Annotated[int, Field(ge=20, le=MAX_CELLS)]
OutputName = Literal["result", "answers", "sdk", "text"]
# a list stops at its first bad item: a reason is enough, and a huge list stays quick
Lines = Annotated[list[str], Field(fail_fast=True)]
Calls = Annotated[list[dict[str, Any] | str], Field(fail_fast=True)]
Setting = Annotated[list[str], Field(min_length=2, max_length=2)]  # [ID, VALUE]
# --wording (askcli.wire.wording.registry); an old name is still read (OLD_NAMES), never offered
Wording = Annotated[
    Literal["claude-code-2.1.88", "claude-code"],
    BeforeValidator(lambda name: OLD_NAMES.get(name, name) if isinstance(name, str) else name),
]


class _StrictRecording(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class _Common(_StrictRecording):
    format: Literal["askcli-fixture/1"]
    description: str = ""
    columns: Columns = 80
    stdout: Lines
    stderr: str
    status: int


class _Asked(_Common):
    """A session of ``askcli ask``: its --output, --session and --wording."""

    output: OutputName = "result"
    session: str | None = None
    wording: Wording = "claude-code-2.1.88"


class CallsFixture(_Asked):
    """Calls as the source and answer lines as a separate stream."""

    calls: Calls
    answers: Lines


class StdinFixture(_Asked):
    """Calls and their answers in one stream (stdin)."""

    stdin: Lines


class ClaudeSession(_StrictRecording):
    prompt: str | None = None
    allow: Lines = []
    deny: Lines = []
    exit_status: int | None = 0
    wording: Wording = "claude-code-2.1.88"
    received: Calls
    sent: Annotated[list[dict[str, Any]], Field(fail_fast=True)]


class ClaudeFixture(_Common):
    """An ``askcli claude`` session: Claude Code's lines in place of the process."""

    claude: ClaudeSession
    answers: Lines


class AcpSession(_StrictRecording):
    prompt: str | None = None
    cwd: str = "/"
    exit_status: int | None = 0
    one_terminal: bool = False
    fs: bool = False  # --fs
    terminal: bool = False  # --terminal
    thoughts: bool = False  # --thoughts
    mode: str | None = None  # --mode
    config: Annotated[list[Setting], Field(fail_fast=True)] = []  # --config ID=VALUE
    received: Annotated[list[dict[str, Any]], Field(fail_fast=True)]
    sent: Annotated[list[dict[str, Any]], Field(fail_fast=True)]


class AcpFixture(_Common):
    """An ``askcli acp`` session: the agent's messages in place of the agent."""

    acp: AcpSession
    answers: Lines


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the fixture"


def check(value: Any) -> dict[str, Any]:
    """``value`` (parsed JSON) when it is a fixture; BadFixture saying why, on one line."""
    if not isinstance(value, dict):
        raise BadFixture("not an askcli-fixture/1 fixture: it is not a JSON object")
    if value.get("format") != FORMAT:
        raise BadFixture(f'not an {FORMAT} fixture (its "format" is not "{FORMAT}")')
    model: type[_Common]
    if "claude" in value:
        model = ClaudeFixture
    elif "acp" in value:
        model = AcpFixture
    elif "stdin" in value:
        model = StdinFixture
    else:
        model = CallsFixture
    try:
        model.model_validate(value)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        parts = [f"{_where(e['loc'])}: {e['msg']}" for e in errors[:_SHOWN_ERRORS]]
        more = len(errors) - _SHOWN_ERRORS
        if more > 0:
            parts.append(f"and {more} more")
        raise BadFixture("; ".join(parts)) from None
    return value
