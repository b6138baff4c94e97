"""Typed answers: what the line typed at a text or number question must be.

A :class:`ValueRule` comes from a dialect's schema (MCP elicitation's ``minLength`` /
``pattern`` / ``format``, a number question's ``min`` / ``max`` / ``step``) and checks a
typed line before it becomes an answer, so that nothing is sent that the asker would
refuse. Pure: a string in, the normalized answer or :class:`~askcli.errors.Refused` out.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, NamedTuple

from ..errors import Refused
from ..records import same_kind

if TYPE_CHECKING:
    from decimal import Decimal

FORMATS = ("email", "uri", "date", "date-time")
MAX_PATTERN = 1000  # a longer pattern from a schema is not compiled
PATTERN_SECONDS = 1.0  # the longest a pattern may take on one answer
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_FORMAT_NAMES = {
    "email": "an email address",
    "uri": "a URI",
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date and time (ISO 8601)",
}
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _plain(value: Decimal) -> str:
    """A number as a person writes it: ``3``, ``2.5``, ``-0.25``; never an exponent."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


@same_kind
class ValueRule(NamedTuple):
    """What a typed answer must be. ``number`` / ``integer`` read the line as a number
    (``minimum`` / ``maximum`` / ``step`` apply); ``text`` keeps it as typed (``min_length``
    / ``max_length`` / ``pattern`` / ``format`` apply)."""

    kind: str = "text"  # text | number | integer
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None  # email | uri | date | date-time
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    unit: str | None = None  # shown next to a number, e.g. "px"

    @property
    def numeric(self) -> bool:
        return self.kind in ("number", "integer")

    def describe(self) -> str:
        """The limits in a few words, for the screen: ``a number from 1 to 10, step 0.5``."""
        if self.numeric:
            what = "a whole number" if self.kind == "integer" else "a number"
            low, high = self.minimum, self.maximum
            if low is not None and high is not None:
                what += f" from {_show(low)} to {_show(high)}"
            elif low is not None:
                what += f" of at least {_show(low)}"
            elif high is not None:
                what += f" of at most {_show(high)}"
            if self.step is not None:
                what += f", in steps of {_show(self.step)}"
            return what + (f" ({self.unit})" if self.unit else "")
        parts = []
        if self.format:
            parts.append(_FORMAT_NAMES.get(self.format, f"format {self.format}"))
        if self.min_length is not None and self.max_length is not None:
            parts.append(f"{self.min_length}-{self.max_length} characters")
        elif self.min_length is not None:
            parts.append(f"at least {self.min_length} characters")
        elif self.max_length is not None:
            parts.append(f"at most {self.max_length} characters")
        if self.pattern is not None:
            parts.append(f"matching {self.pattern}")
        return ", ".join(parts)

    def check(self, text: str) -> str:
        """``text`` as the answer (a number normalized), or Refused saying what is wrong."""
        if self.numeric:
            return self._number(text.strip())
        if self.min_length is not None and len(text) < self.min_length:
            raise Refused(f"the answer needs at least {self.min_length} characters")
        if self.max_length is not None and len(text) > self.max_length:
            raise Refused(f"the answer may have at most {self.max_length} characters")
        if self.format is not None:
            _format(self.format, text)
        if self.pattern is not None and not _matches(self.pattern, text):
            raise Refused(f"the answer must match the pattern {self.pattern}")
        return text

    def _number(self, text: str) -> str:
        from decimal import Decimal, InvalidOperation  # only number questions need it

        if self.unit and text.endswith(self.unit):
            text = text[: -len(self.unit)].strip()
        if not _NUMBER.fullmatch(text):
            raise Refused(f"type {self.describe()}")
        try:
            value = Decimal(text)
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            raise Refused(f"type {self.describe()}") from None
        if not value.is_finite() or abs(value.adjusted()) > 300:
            raise Refused(f"type {self.describe()}")
        if self.kind == "integer" and value != value.to_integral_value():
            raise Refused("type a whole number")
        if self.minimum is not None and value < _decimal(self.minimum):
            raise Refused(f"the answer must be at least {_show(self.minimum)}")
        if self.maximum is not None and value > _decimal(self.maximum):
            raise Refused(f"the answer must be at most {_show(self.maximum)}")
        if self.step:
            base = _decimal(self.minimum) if self.minimum is not None else Decimal(0)
            if (value - base) % _decimal(self.step) != 0:
                step = _show(self.step)
                raise Refused(f"the answer must go in steps of {step} from {_plain(base)}")
        return _plain(value)


def _decimal(number: float) -> Decimal:
    from decimal import Decimal

    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def _show(number: float) -> str:
    return _plain(_decimal(number)) if math.isfinite(number) else str(number)


def as_number(text: str, kind: str) -> int | float:
    """A checked number answer as JSON takes it: an int for ``integer`` or a whole value."""
    from decimal import Decimal

    value = Decimal(text)
    if kind == "integer" or (value == value.to_integral_value() and abs(value) < 2**53):
        return int(value)
    return float(value)


def _matches(pattern: str, text: str) -> bool:
    """JSON Schema ``pattern`` (ECMA-262, unanchored) on ``text``. The pattern comes from
    the asker, so it is matched with a time limit (a pattern written to backtrack forever
    would otherwise hang askcli); a pattern that cannot be read, is too long to trust or
    runs out of time is refused rather than ignored."""
    import regex  # only patterns need it: not at start-up

    if len(pattern) > MAX_PATTERN:
        raise Refused("the question's pattern is too long to check")
    try:
        return regex.search(pattern, text, timeout=PATTERN_SECONDS) is not None
    except regex.error:
        raise Refused(f"the question's pattern {pattern} cannot be checked") from None
    except TimeoutError:
        raise Refused(
            f"the question's pattern {pattern} takes too long to check this answer"
        ) from None


def _format(name: str, text: str) -> None:
    import datetime

    if name == "email" and not _EMAIL.fullmatch(text):
        raise Refused("type an email address, e.g. name@example.com")
    if name == "uri" and not _URI.fullmatch(text):
        raise Refused("type a URI with its scheme, e.g. https://example.com/")
    if name == "date":
        try:
            datetime.date.fromisoformat(text)
            ok = len(text) == 10
        except ValueError:
            ok = False
        if not ok:
            raise Refused("type a date as YYYY-MM-DD, e.g. 2026-11-30")
    if name == "date-time":
        try:
            moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            ok = "T" in text.upper() and moment.tzinfo is not None
        except ValueError:
            ok = False
        if not ok:
            raise Refused("type a date and time with its zone, e.g. 2026-11-30T14:00:00Z")
