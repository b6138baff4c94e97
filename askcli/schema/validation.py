"""Validate tool input with pydantic and report problems as zod issues.

Claude Code validates tool input with zod and answers an invalid call with
``<tool_use_error>InputValidationError: [...]</tool_use_error>``, the list being zod's
issues as JSON. The pydantic models decide what is valid; this module rewrites their
errors into the issues zod would have reported, in zod's order, so that an agent sees
the same text it would get from Claude Code.
"""

from __future__ import annotations

import itertools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from annotated_types import MaxLen, MinLen
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import InvalidCall
from .issues import Issue, Path, zod_type

M = TypeVar("M", bound=BaseModel)


# pydantic error type -> the zod type name it expected
_EXPECTED = {
    "string_type": "string",
    "bool_type": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "int_type": "number",
    "float_type": "number",
}


class ZodMessage(str):
    """``Annotated`` metadata: the custom message a zod check carries (``.min(1, "...")``)."""


# issues after which zod still runs an object's refinements (the parse is "dirty", not aborted)
_DIRTY = {"too_small", "too_big", "unrecognized_keys"}


def validate(
    model: type[M],
    data: Any,
    *,
    tool: str,
    refine: Callable[[Any], str | None] | None = None,
) -> M:
    """Validate ``data`` against ``model``; raise InvalidCall with zod issues if it fails.

    ``refine`` mirrors a zod ``.refine()``: it gets the raw data and returns a message when
    the check fails. Like zod, it runs when the object parsed (possibly with length or
    unknown-key issues) and not when a value had the wrong type.
    """
    cut: list[tuple[Path, Any]] = []
    reduced = _reduce(model, data, [], cut, [MAX_CHECKED])
    if cut:  # a large input: look for the problems in bounded pieces (see _find_issues)
        issues = _find_issues(model, reduced, cut, refine)
        if issues:
            raise InvalidCall(tool, _bounded(issues, checked_all=False))
    try:
        parsed = model.model_validate(data)
    except ValidationError as exc:
        if exc.error_count() > MAX_CHECKED:  # models and fast check disagree: stay bounded
            raise InvalidCall(tool, _bounded([], checked_all=False)) from None
        issues = _issues(model, data, exc, refine)
        raise InvalidCall(tool, _bounded(issues, checked_all=True)) from None
    if refine is not None:
        message = refine(data)
        if message is not None:
            raise InvalidCall(tool, [{"code": "custom", "message": message, "path": []}])
    return parsed


def _issues(
    model: type[BaseModel],
    data: Any,
    exc: ValidationError,
    refine: Callable[[Any], str | None] | None,
) -> list[Issue]:
    issues = _zod_issues(model, data, exc.errors(include_url=False))
    if refine is not None and all(i["code"] in _DIRTY for i in issues):
        message = refine(data)
        if message is not None:
            issues.append({"code": "custom", "message": message, "path": []})
    return issues


# --- bounds ------------------------------------------------------------------------

MAX_ISSUES = 100  # issues listed in one report; the rest are counted
MAX_CHECKED = 250  # list items or object keys checked at a time
_KEEP = 5  # items every list keeps: more than any length bound of the models (4)


def _bounded(issues: list[Issue], *, checked_all: bool) -> list[Issue]:
    """At most :data:`MAX_ISSUES` issues, and one saying what was left out."""
    more = len(issues) - MAX_ISSUES
    if more <= 0 and checked_all:
        return issues
    shown = issues[:MAX_ISSUES]
    if checked_all:
        message = f"{more} more issue(s) not listed"
    elif more > 0:
        message = f"{more} more issue(s) not listed; the rest of the input was not checked"
    else:
        message = "the rest of the input was not checked"
    return [*shown, {"code": "custom", "message": message, "path": []}]


class _Shape(typing.NamedTuple):
    fields: dict[str, Any] | None  # a model's fields
    forbid: bool  # the model refuses unknown keys
    container: type[list[Any]] | type[dict[Any, Any]] | None  # when the node is one
    item: Any  # the type of a container's items


_SHAPES: dict[int, tuple[Any, _Shape]] = {}  # by id: annotations need not be hashable


def _shape(node: Any) -> _Shape:
    known = _SHAPES.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    shape = _make_shape(node)
    _SHAPES[id(node)] = (node, shape)  # the node is kept, so its id is not reused
    return shape


def _make_shape(node: Any) -> _Shape:
    fields = _fields(node)
    forbid = fields is not None and _strip(node).model_config.get("extra") == "forbid"
    origin = typing.get_origin(_strip(node))
    container = list if origin in (list, tuple) else dict if origin is dict else None
    return _Shape(fields, forbid, container, _item_type(node))


def _reduce(
    node: Any, value: Any, path: Path, cut: list[tuple[Path, Any]], budget: list[int]
) -> Any:
    """``value`` with each list and object the model checks cut to a bounded prefix (all
    of a model's own fields kept); every cut container is added to ``cut``. ``budget``
    holds how many more items may be kept in all; each list keeps at least :data:`_KEEP`,
    so that a length bound still fails or passes as for the whole."""
    shape = _shape(node)
    if shape.fields is not None:
        if not isinstance(value, dict):
            return value
        out: dict[Any, Any] = {}
        extra = 0
        for key, item in value.items():
            if key in shape.fields:
                annotation = shape.fields[key].annotation
                inner = _shape(annotation)
                if inner.fields is None and inner.container is None:
                    out[key] = item
                else:
                    out[key] = _reduce(annotation, item, [*path, key], cut, budget)
            elif shape.forbid and extra < MAX_CHECKED:
                out[key] = item  # reported as unknown
                extra += 1
            elif shape.forbid:
                cut.append((path, None))
                break
        return out
    if shape.container is None or not isinstance(value, list | dict):
        return value
    if not isinstance(value, shape.container):
        return value
    keep = min(len(value), max(_KEEP, min(budget[0], MAX_CHECKED)))
    budget[0] -= keep
    if keep < len(value):
        cut.append((path, value))
    leaf = _shape(shape.item).fields is None and _shape(shape.item).container is None
    if isinstance(value, list):
        if leaf:
            return value[:keep]
        return [_reduce(shape.item, v, [*path, i], cut, budget) for i, v in enumerate(value[:keep])]
    items = itertools.islice(value.items(), keep)
    if leaf:
        return dict(items)
    return {k: _reduce(shape.item, v, [*path, k], cut, budget) for k, v in items}


def _find_issues(
    model: type[BaseModel],
    reduced: Any,
    cut: list[tuple[Path, Any]],
    refine: Callable[[Any], str | None] | None,
) -> list[Issue]:
    """The issues of a large input, found without validating all of it at once.

    The cut-down input is checked first: any issue found there is an issue of the whole.
    When it is valid, each cut container is checked in windows of :data:`MAX_CHECKED`
    entries (its other entries left as they were) up to the first window with issues."""
    try:
        model.model_validate(reduced)
    except ValidationError as exc:
        return _issues(model, reduced, exc, refine)
    for path, container in cut:
        if container is None:
            continue
        node = _annotation_at(model, path)
        entries = list(container.items()) if isinstance(container, dict) else container
        for start in range(0, len(entries), MAX_CHECKED):
            window = entries[start : start + MAX_CHECKED]
            part: Any = dict(window) if isinstance(container, dict) else window
            part = _reduce(node, part, path, [], [MAX_CHECKED])
            trial = _replace_at(reduced, path, part)
            try:
                model.model_validate(trial)
            except ValidationError as exc:
                issues = _zod_issues(model, trial, exc.errors(include_url=False))
                if isinstance(container, list):
                    issues = [_shift(issue, len(path), start) for issue in issues]
                return issues
    return []


def _replace_at(value: Any, path: Path, part: Any) -> Any:
    """A copy of ``value`` (copied only along ``path``) with ``part`` at ``path``."""
    if not path:
        return part
    head, *rest = path
    if isinstance(value, dict):
        return {**value, head: _replace_at(value[head], rest, part)}
    copy = list(value)
    assert isinstance(head, int)
    copy[head] = _replace_at(copy[head], rest, part)
    return copy


def _shift(issue: Issue, at: int, offset: int) -> Issue:
    """``issue`` found in a window of a list: its index there moved by ``offset``."""
    path = list(issue["path"])
    if len(path) > at and isinstance(path[at], int):
        path[at] += offset
        issue = {**issue, "path": path}
    return issue


# --- translation -------------------------------------------------------------------


def _zod_issues(model: type[BaseModel], data: Any, errors: list[ErrorDetails]) -> list[Issue]:
    issues: list[Issue] = []
    extras: dict[tuple[str | int, ...], Issue] = {}
    for err in errors:
        loc = list(err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            parent = tuple(loc[:-1])
            if parent not in extras:
                extras[parent] = {"code": "unrecognized_keys", "keys": [], "path": list(parent)}
                issues.append(extras[parent])
            extras[parent]["keys"].append(loc[-1])
        elif kind in ("too_short", "too_long"):
            issues.append(_length_issue(kind, err["ctx"], loc))
        elif kind == "string_too_short":
            n = err["ctx"]["min_length"]
            message = (
                _custom_message(model, loc) or f"String must contain at least {n} character(s)"
            )
            issues.append(
                {
                    "code": "too_small",
                    "minimum": n,
                    "type": "string",
                    "inclusive": True,
                    "exact": False,
                    "message": message,
                    "path": loc,
                }
            )
        elif kind == "literal_error":
            issues.append(_enum_issue(model, err["input"], loc))
        elif kind == "missing":
            expected = _zod_name(_annotation_at(model, loc))
            issues.append(_type_issue(expected, "undefined", loc))
        else:
            expected = _EXPECTED.get(kind, "valid value")
            issues.append(_type_issue(expected, zod_type(err["input"]), loc))
    for issue in extras.values():
        keys = ", ".join(f"'{k}'" for k in issue["keys"])
        issue["message"] = f"Unrecognized key(s) in object: {keys}"
    issues.extend(_missed_length_issues(model, data, issues))
    issues.sort(key=lambda issue: _zod_order(model, data, issue))
    return issues


def _type_issue(expected: str, received: str, path: Path) -> Issue:
    message = "Required" if received == "undefined" else f"Expected {expected}, received {received}"
    return {
        "code": "invalid_type",
        "expected": expected,
        "received": received,
        "path": path,
        "message": message,
    }


def _length_issue(kind: str, ctx: Mapping[str, Any], path: Path) -> Issue:
    if kind == "too_short":
        n = ctx["min_length"]
        head: Issue = {"code": "too_small", "minimum": n}
        message = f"Array must contain at least {n} element(s)"
    else:
        n = ctx["max_length"]
        head = {"code": "too_big", "maximum": n}
        message = f"Array must contain at most {n} element(s)"
    return {
        **head,
        "type": "array",
        "inclusive": True,
        "exact": False,
        "message": message,
        "path": path,
    }


def _enum_issue(model: type[BaseModel], received: Any, path: Path) -> Issue:
    options = list(typing.get_args(_strip(_annotation_at(model, path))))
    joined = " | ".join(f"'{o}'" for o in options)
    if not isinstance(received, str):
        return _type_issue(joined, zod_type(received), path)
    return {
        "received": received,
        "code": "invalid_enum_value",
        "options": options,
        "path": path,
        "message": f"Invalid enum value. Expected {joined}, received '{received}'",
    }


def _missed_length_issues(model: type[BaseModel], data: Any, issues: list[Issue]) -> list[Issue]:
    """Length issues pydantic leaves out when items of the same list also failed.

    zod checks an array's length and then still parses its items; pydantic reports only
    the items. Walk up from each issue to find constrained lists of the wrong length.
    """
    seen = {tuple(i["path"]) for i in issues if i["code"] in ("too_small", "too_big")}
    found: list[Issue] = []
    for issue in list(issues):
        path = issue["path"]
        for cut in range(len(path)):
            prefix = tuple(path[:cut])
            if prefix in seen:
                continue
            bounds = _length_bounds(model, list(prefix))
            value = _value_at(data, list(prefix))
            if bounds is None or not isinstance(value, list):
                continue
            seen.add(prefix)
            low, high = bounds
            if low is not None and len(value) < low:
                found.append(_length_issue("too_short", {"min_length": low}, list(prefix)))
            elif high is not None and len(value) > high:
                found.append(_length_issue("too_long", {"max_length": high}, list(prefix)))
    return found


def _zod_order(model: type[BaseModel], data: Any, issue: Issue) -> tuple[Any, ...]:
    """Sort key giving zod's depth-first order: shape keys in schema order, a list's
    length before its items, an object's unknown keys after its fields."""
    ranks: list[tuple[int, int]] = []
    node: Any = model
    value = data
    for part in issue["path"]:
        if isinstance(part, int):
            ranks.append((0, part))
            node = _item_type(node)
            value = value[part] if isinstance(value, list) and part < len(value) else None
        else:
            fields = _fields(node)
            if fields is not None:
                names = list(fields)
                ranks.append((0, names.index(part) if part in names else len(names)))
                node = fields[part].annotation if part in fields else None
            else:  # a record: keys in input order
                keys = list(value) if isinstance(value, dict) else []
                ranks.append((0, keys.index(part) if part in keys else len(keys)))
                node = _item_type(node)
            value = value.get(part) if isinstance(value, dict) else None
    terminal = {"too_small": -1, "too_big": -1, "unrecognized_keys": 1}.get(issue["code"], 0)
    ranks.append((terminal, 0))
    return tuple(ranks)


# --- walking the models ------------------------------------------------------------


def _strip(annotation: Any) -> Any:
    """Drop ``Annotated`` and ``Optional`` wrappers."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = args[0] if len(args) == 1 else annotation
            if len(args) != 1:
                return annotation
        else:
            return annotation


def _fields(node: Any) -> dict[str, Any] | None:
    node = _strip(node)
    if isinstance(node, type) and issubclass(node, BaseModel):
        return dict(node.model_fields)
    return None


def _item_type(node: Any) -> Any:
    node = _strip(node)
    args = typing.get_args(node)
    if typing.get_origin(node) in (list, tuple) and args:
        return args[0]
    if typing.get_origin(node) is dict and len(args) == 2:
        return args[1]
    return None


def _annotation_at(model: type[BaseModel], path: Path) -> Any:
    node: Any = model
    for part in path:
        fields = _fields(node)
        if isinstance(part, str) and fields is not None:
            node = fields[part].annotation if part in fields else None
        else:
            node = _item_type(node)
    return node


def _length_bounds(model: type[BaseModel], path: Path) -> tuple[int | None, int | None] | None:
    if not path or not isinstance(path[-1], str):
        return None
    fields = _fields(_annotation_at(model, path[:-1]))
    if fields is None or path[-1] not in fields:
        return None
    low = high = None
    for meta in fields[path[-1]].metadata:
        if isinstance(meta, MinLen):
            low = meta.min_length
        elif isinstance(meta, MaxLen):
            high = meta.max_length
    return None if low is None and high is None else (low, high)


def _custom_message(model: type[BaseModel], path: Path) -> str | None:
    if not path or not isinstance(path[-1], str):
        return None
    fields = _fields(_annotation_at(model, path[:-1]))
    if fields is None or path[-1] not in fields:
        return None
    return next((str(m) for m in fields[path[-1]].metadata if isinstance(m, ZodMessage)), None)


def _value_at(data: Any, path: Path) -> Any:
    for part in path:
        if isinstance(part, int) and isinstance(data, list) and part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict):
            data = data.get(part)
        else:
            return None
    return data


def _zod_name(annotation: Any) -> str:
    node = _strip(annotation)
    origin = typing.get_origin(node)
    if node is str:
        return "string"
    if node is bool:
        return "boolean"
    if node in (int, float):
        return "number"
    if origin in (list, tuple):
        return "array"
    if origin is dict or _fields(node) is not None:
        return "object"
    if origin is typing.Literal:
        return " | ".join(f"'{o}'" for o in typing.get_args(node))
    return "unknown"
