"""Validating calls without asking anybody (``askcli check``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import InvalidCall, UnreadableDocument
from ..escaping import visible
from ..lines import LineReader
from ..schema.issues import describe_issues
from ..status import ExitStatus
from ..tools.registry import check_call
from ..wire.documents import read_documents
from ..wire.envelopes import detect


class Tally:
    """What the calls checked so far came to."""

    def __init__(self) -> None:
        self.valid = self.invalid = self.warnings = 0


def check(
    source: LineReader,
    report: Callable[[str], None],
    *,
    strict: bool = False,
    name: str | None = None,
    tally: Tally | None = None,
) -> ExitStatus:
    """Report on every call of ``source``: ``ok``, ``invalid`` with the reasons, and with
    ``strict`` a ``warning`` per soft rule broken; ``name`` (of a file among several) begins
    where each line says the call is. INVALID when any call is invalid or there is no call
    at all. Without ``tally`` the summary line follows; with it, the counts go there."""
    counts = Tally() if tally is None else tally
    before = (counts.valid, counts.invalid)
    prefix = f"{name}: " if name is not None else ""

    def say(kind: str, where: str, text: str = "") -> None:
        # one line per report: a newline in an id, a name or a reason shows as \n
        report(visible(f"{kind:<8}{prefix}{where}{': ' + text if text else ''}"))

    for seq, document in enumerate(read_documents(source, lambda _: None), start=1):
        try:
            if document.value is None:
                raise UnreadableDocument(document.error or "not a JSON object")
            envelope = detect(document.value, seq)
        except UnreadableDocument as exc:
            counts.invalid += 1
            say("invalid", f"document {seq}", str(exc))
            continue
        for call in envelope.calls:
            where = f"{call.id or f'document {seq}'} {call.name}".rstrip()
            try:
                tool, parsed = check_call(call)
            except InvalidCall as error:
                counts.invalid += 1
                say("invalid", where, describe_issues(error.issues))
                continue
            except LookupError as error:
                counts.invalid += 1
                say("invalid", where, str(error))
                continue
            counts.valid += 1
            say("ok", where)
            if strict:
                for warning in tool.warnings(parsed):
                    counts.warnings += 1
                    say("warning", where, warning)
    if tally is None:
        report(summary(counts, strict=strict))
    valid, invalid = counts.valid - before[0], counts.invalid - before[1]
    if not valid and not invalid and name is not None:
        say("invalid", "no calls found")
    return ExitStatus.INVALID if invalid or not valid else ExitStatus.ANSWERED


def summary(counts: Tally, *, strict: bool, files: int = 1) -> str:
    """The last line: how many calls were valid and invalid (in how many files)."""
    if not counts.valid and not counts.invalid:
        return "no calls found"
    line = f"{counts.valid} valid, {counts.invalid} invalid"
    if strict:
        line += f", {counts.warnings} warning(s)"
    return line + (f" in {files} files" if files > 1 else "")


def check_all(
    sources: Sequence[tuple[str, LineReader]],
    report: Callable[[str], None],
    *,
    strict: bool = False,
) -> ExitStatus:
    """:func:`check` for each of several named sources, then one summary; INVALID when any
    call of any of them is invalid, or one of them has no call."""
    if len(sources) == 1:
        return check(sources[0][1], report, strict=strict)
    counts = Tally()
    status = ExitStatus.ANSWERED
    for name, source in sources:
        if check(source, report, strict=strict, name=name, tally=counts) is not ExitStatus.ANSWERED:
            status = ExitStatus.INVALID
    report(summary(counts, strict=strict, files=len(sources)))
    return status
