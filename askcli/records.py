"""Small immutable values: ``NamedTuple`` classes equal only to values of their own kind.

askcli's values were dataclasses, but making a dataclass costs half a millisecond at import
and a person waits for the first prompt; a NamedTuple costs a tenth of that. A plain tuple
compares equal to any other with the same items (``Back() == Skip()``), so the classes
where that matters are decorated with :func:`same_kind`.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def _hash(self: tuple[Any, ...]) -> int:
    return hash((type(self), tuple(self)))


def same_kind(cls: T) -> T:
    """Make a NamedTuple class equal only to values of its own class."""
    cls.__eq__ = _eq  # type: ignore[method-assign,assignment]
    cls.__ne__ = _ne  # type: ignore[method-assign,assignment]
    cls.__hash__ = _hash  # type: ignore[method-assign,assignment]
    return cls
