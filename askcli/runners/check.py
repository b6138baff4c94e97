"""Validating calls without asking anybody (``askcli check``)."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InvalidCall, UnreadableDocument
from ..escaping import visible
from ..lines import LineReader
from ..schema.issues import describe_issues
from ..status import ExitStatus
from ..tools.registry import check_call
from ..wire.documents import read_documents
from ..wire.envelopes import detect


def check(source: LineReader, report: Callable[[str], None], *, strict: bool = False) -> ExitStatus:
    """Report on every call of ``source``: ``ok``, ``invalid`` with the reasons, and with
    ``strict`` a ``warning`` per soft rule broken. INVALID when any call is invalid or
    there is no call at all."""
    valid = invalid = warnings = 0

    def say(kind: str, where: str, text: str = "") -> None:
        # one line per report: a newline in an id, a name or a reason shows as \n
        report(visible(f"{kind:<8}{where}{': ' + text if text else ''}"))

    for seq, document in enumerate(read_documents(source, lambda _: None), start=1):
        try:
            if document.value is None:
                raise UnreadableDocument(document.error or "not a JSON object")
            envelope = detect(document.value, seq)
        except UnreadableDocument as exc:
            invalid += 1
            say("invalid", f"document {seq}", str(exc))
            continue
        for call in envelope.calls:
            where = f"{call.id or f'document {seq}'} {call.name}".rstrip()
            try:
                tool, parsed = check_call(call)
            except InvalidCall as error:
                invalid += 1
                say("invalid", where, describe_issues(error.issues))
                continue
            except LookupError as error:
                invalid += 1
                say("invalid", where, str(error))
                continue
            valid += 1
            say("ok", where)
            if strict:
                for warning in tool.warnings(parsed):
                    warnings += 1
                    say("warning", where, warning)
    summary = f"{valid} valid, {invalid} invalid"
    if strict:
        summary += f", {warnings} warning(s)"
    if not valid and not invalid:
        summary = "no calls found"
    report(summary)
    return ExitStatus.INVALID if invalid or not valid else ExitStatus.ANSWERED
