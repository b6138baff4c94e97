"""``askcli setup AGENT``: askcli written into an agent's own config file, and taken out.

Claude Code gets the PreToolUse (AskUserQuestion) and PermissionRequest hooks running
``askcli hook`` (docs/hook.md); Codex, Gemini CLI and OpenCode get ``askcli mcp`` as an MCP
server (docs/mcp.md); ``codex-hook`` is Codex's PermissionRequest hook running ``askcli hook``,
in ``~/.codex/hooks.json`` (the same shape as Claude Code's hooks). Everything else in the file
is kept: a JSON file is read and written whole (its keys in their order), Codex's TOML has the
one table replaced or appended as text, the rest byte-identical. :func:`plan` computes the new
text; :func:`write` writes it.

``--inbox-url URL`` and ``--to NAME`` are added to the command setup writes (the ``options``);
``--undo`` removes an entry exactly as setup wrote it, with whatever options it was written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ..files import lstat_or_none, replace_whole

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the backport, a dependency on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

AGENTS = ("claude-code", "codex", "gemini", "opencode")
WAIT = "590"  # under every timeout below (docs/mcp.md)
HOOK_TIMEOUT = 3600
HOOK_EVENTS = (("PreToolUse", "AskUserQuestion"), ("PermissionRequest", "*"))
CODEX_HOOK = "codex-hook"  # Codex's PermissionRequest hook (setup codex writes the MCP server)
CODEX_HOOK_EVENTS = (("PermissionRequest", "*"),)
HOOKED = {"claude-code": HOOK_EVENTS, CODEX_HOOK: CODEX_HOOK_EVENTS}  # agents given hooks
TARGETS = (*AGENTS, CODEX_HOOK)  # what setup writes and doctor looks at
OPTIONS = ("--inbox-url", "--to")  # what setup may add to the command it writes
Options = tuple[str, ...]  # ("--inbox-url", URL, "--to", NAME), each at most once


class SetupError(Exception):
    """A config file setup cannot edit: one line naming the file (exit 2)."""


class Change(NamedTuple):
    """One thing setup does to a file, in words: ``verb`` (add, replace, remove, leave) and
    what, said as done (:attr:`done`) or, for a dry run, as it would be (:attr:`would`)."""

    verb: str
    what: str  # "the PreToolUse hook", "[mcp_servers.askcli] alone: it is not as ..."

    @property
    def done(self) -> str:
        return f"{_PAST[self.verb]} {self.what}"

    @property
    def would(self) -> str:
        return f"would {self.verb} {self.what}"


_PAST = {"add": "added", "replace": "replaced", "remove": "removed", "leave": "left"}
NOT_OURS = "alone: it is not as setup wrote it"


@dataclass(frozen=True)
class Plan:
    """What setup (or undo) does to one file: its text before (None: no file) and after."""

    path: Path
    before: str | None
    after: str | None
    done: tuple[Change, ...]  # what changes, or why nothing does

    @property
    def changes(self) -> bool:
        return self.after is not None and self.after != self.before

    @property
    def said(self) -> str:
        """What it did, in words: ``added the PreToolUse hook; ...``."""
        return "; ".join(change.done for change in self.done)

    @property
    def would(self) -> str:
        """What it would do, in words (a dry run): ``would add the PreToolUse hook; ...``."""
        return "; ".join(change.would for change in self.done)


def config_path(agent: str, home: Path) -> Path:
    """The file ``agent`` reads its user settings from."""
    return {
        "claude-code": home / ".claude" / "settings.json",
        "codex": home / ".codex" / "config.toml",
        CODEX_HOOK: home / ".codex" / "hooks.json",
        "gemini": home / ".gemini" / "settings.json",
        "opencode": home / ".config" / "opencode" / "opencode.json",
    }[agent]


def hook_command(askcli: str, options: Options = ()) -> str:
    return " ".join(shlex.quote(word) for word in (askcli, "hook", *options))


def options_of(words: Any) -> Options | None:
    """``words`` (what follows ``hook`` or ``mcp --wait N``) when they are options setup
    writes: each of :data:`OPTIONS` at most once, with its value; None otherwise."""
    if not isinstance(words, (list, tuple)) or len(words) % 2:
        return None
    if not all(isinstance(word, str) for word in words):
        return None
    names = list(words[::2])
    if any(name not in OPTIONS for name in names) or len(set(names)) != len(names):
        return None
    return tuple(words)


def _written_options(agent: str, found: Any) -> Options | None:
    """The options of an entry of ``agent`` as setup writes it (None: not one)."""
    if agent in HOOKED:
        hooks = found.get("hooks") if isinstance(found, dict) else None
        if not isinstance(hooks, list) or len(hooks) != 1 or not isinstance(hooks[0], dict):
            return None
        command = hooks[0].get("command")
        try:
            words = shlex.split(command) if isinstance(command, str) else []
        except ValueError:
            return None
        return options_of(words[2:]) if len(words) >= 2 and words[1] == "hook" else None
    if not isinstance(found, dict):
        return None
    args = found.get("command") if agent == "opencode" else found.get("args")
    skip = 4 if agent == "opencode" else 3
    return options_of(args[skip:]) if isinstance(args, list) and len(args) >= skip else None


def written(agent: str, askcli: str, found: Any) -> bool:
    """Whether ``found`` (the MCP server, or a hook group of the event) is exactly what
    setup writes for ``agent``, with whatever options it was written with."""
    options = _written_options(agent, found)
    if options is None:
        return False
    want = entry(agent, askcli, options)
    if agent in HOOKED:
        return any(found == group for group in want.values())
    return bool(found == want)


def entry(agent: str, askcli: str, options: Options = ()) -> Any:
    """What setup writes for ``agent`` (the MCP server, or one hook group per event), its
    command given ``options``."""
    if agent in HOOKED:
        command = hook_command(askcli, options)
        hooks = [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]
        return {event: {"matcher": matcher, "hooks": hooks} for event, matcher in HOOKED[agent]}
    if agent == "codex":
        return {
            "command": askcli,
            "args": ["mcp", "--wait", WAIT, *options],
            "required": True,
            "tool_timeout_sec": 600,
            "default_tools_approval_mode": "approve",
        }
    if agent == "gemini":
        return {"command": askcli, "args": ["mcp", "--wait", WAIT, *options], "timeout": 600000}
    return {
        "type": "local",
        "command": [askcli, "mcp", "--wait", WAIT, *options],
        "enabled": True,
        "timeout": 600000,
    }


def read_text(path: Path) -> str | None:
    """The file's text; None when there is none. Unreadable or not UTF-8: SetupError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"{path}: cannot be read: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SetupError(f"{path}: not UTF-8 text") from None


def parse(path: Path, text: str) -> Any:
    """The document in ``text`` (JSON, or TOML for a .toml file); SetupError naming the line."""
    if path.suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SetupError(f"{path}: not valid TOML: {exc}") from None
    if not text.strip():
        return {}
    try:
        found = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{path}: not valid JSON at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:
        raise SetupError(f"{path}: not valid JSON: nested too deeply") from None
    if not isinstance(found, dict):
        raise SetupError(f"{path}: not a JSON object at line 1")
    return found


def _dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def is_askcli_hook(group: Any, matcher: str) -> bool:
    """A hook group that runs ``askcli hook`` for ``matcher`` (as setup writes it, or edited)."""
    if not isinstance(group, dict) or group.get("matcher") != matcher:
        return False
    hooks = group.get("hooks")
    if not isinstance(hooks, list) or len(hooks) != 1 or not isinstance(hooks[0], dict):
        return False
    command = hooks[0].get("command")
    if not isinstance(command, str) or "askcli" not in command:
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return len(words) >= 2 and words[1] == "hook"


def _object(doc: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    found = doc.setdefault(key, {})
    if not isinstance(found, dict):
        raise SetupError(f"{path}: {key!r} is not a JSON object")
    return found


def _claude(
    doc: dict[str, Any],
    askcli: str,
    undo: bool,
    path: Path,
    options: Options = (),
    agent: str = "claude-code",
) -> list[Change]:
    """Add (or remove) ``agent``'s hook groups in ``doc``; what was done."""
    want = entry(agent, askcli, options)
    if undo and not isinstance(doc.get("hooks"), dict):
        return []
    hooks = _object(doc, "hooks", path)
    said: list[Change] = []
    for event, matcher in HOOKED[agent]:
        groups = hooks.get(event)
        if groups is None:
            groups = []
        if not isinstance(groups, list):
            raise SetupError(f"{path}: hooks.{event} is not a JSON array")
        ours = [i for i, group in enumerate(groups) if is_askcli_hook(group, matcher)]
        if undo:
            exact = [i for i in ours if written(agent, askcli, groups[i])]
            for i in reversed(exact):
                del groups[i]
            if exact:
                said.append(Change("remove", f"the {event} hook"))
            if len(ours) > len(exact):
                said.append(Change("leave", f"the {event} hook {NOT_OURS}"))
            if event in hooks and not groups:
                del hooks[event]
        elif ours and groups[ours[0]] == want[event]:
            continue
        elif ours:
            groups[ours[0]] = want[event]
            hooks[event] = groups
            said.append(Change("replace", f"the {event} hook"))
        else:
            hooks[event] = [*groups, want[event]]
            said.append(Change("add", f"the {event} hook"))
    if not hooks:
        del doc["hooks"]
    return said


def _mcp_json(
    doc: dict[str, Any], agent: str, askcli: str, undo: bool, path: Path, options: Options = ()
) -> list[Change]:
    """Add (or remove) the MCP server ``askcli`` in a JSON config; what was done."""
    key = "mcpServers" if agent == "gemini" else "mcp"
    want = entry(agent, askcli, options)
    if undo and not isinstance(doc.get(key), dict):
        return []
    servers = _object(doc, key, path)
    found = servers.get("askcli")
    said: list[Change] = []
    if undo:
        if written(agent, askcli, found):
            del servers["askcli"]
            said.append(Change("remove", f"the MCP server {key}.askcli"))
        elif found is not None:
            said.append(Change("leave", f"{key}.askcli {NOT_OURS}"))
    elif found != want:
        verb = "add" if found is None else "replace"
        servers["askcli"] = want
        said.append(Change(verb, f"the MCP server {key}.askcli"))
    if not servers:
        del doc[key]
    return said


_HEADER = re.compile(r"^[ \t]*\[")
_OUR_HEADER = re.compile(
    r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("askcli"|askcli)[ \t]*\][ \t]*(#.*)?$'
)


def _toml_block(lines: list[str]) -> tuple[int, int] | None:
    """The lines of ``[mcp_servers.askcli]`` (its header to the next header, less the blank
    lines at its end), or None."""
    for start, line in enumerate(lines):
        if _OUR_HEADER.match(line.rstrip("\r\n")):
            end = start + 1
            while end < len(lines) and not _HEADER.match(lines[end]):
                end += 1
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            return start, end
    return None


def toml_entry(askcli: str, options: Options = ()) -> str:
    """The ``[mcp_servers.askcli]`` table as setup writes it (docs/mcp.md)."""
    args = ", ".join(json.dumps(a, ensure_ascii=False) for a in ("mcp", "--wait", WAIT, *options))
    return (
        "[mcp_servers.askcli]\n"
        f"command = {json.dumps(askcli, ensure_ascii=False)}\n"
        f"args = [{args}]\n"
        "required = true\n"
        "tool_timeout_sec = 600\n"
        'default_tools_approval_mode = "approve"\n'
    )


def _codex(
    path: Path, text: str, askcli: str, undo: bool, options: Options = ()
) -> tuple[str, list[Change]]:
    doc = parse(path, text)
    servers = doc.get("mcp_servers")
    found = servers.get("askcli") if isinstance(servers, dict) else None
    if undo and written("codex", askcli, found):
        options = _written_options("codex", found) or ()
    want = entry("codex", askcli, options)
    if found == want and not undo:
        return text, []
    if found is None and undo:
        return text, []
    if undo and found != want:
        return text, [Change("leave", f"[mcp_servers.askcli] {NOT_OURS}")]
    lines = text.splitlines(keepends=True)
    block = _toml_block(lines)
    if found is not None and block is None:
        raise SetupError(f"{path}: mcp_servers.askcli is written in a form setup does not edit")
    if undo:
        assert block is not None
        start, end = block
        if start > 0 and not lines[start - 1].strip():
            start -= 1
        new = "".join(lines[:start] + lines[end:])
        said = [Change("remove", "[mcp_servers.askcli]")]
    elif block is not None:
        start, end = block
        new = "".join(lines[:start]) + toml_entry(askcli, options) + "".join(lines[end:])
        said = [Change("replace", "[mcp_servers.askcli]")]
    else:
        head = text if not text or text.endswith("\n") else text + "\n"
        new = head + ("\n" if head else "") + toml_entry(askcli, options)
        said = [Change("add", "[mcp_servers.askcli]")]
    try:
        now = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        now = None
    got = now.get("mcp_servers", {}).get("askcli") if isinstance(now, dict) else "unreadable"
    if got != (None if undo else want):
        raise SetupError(f"{path}: mcp_servers is written in a form setup does not edit")
    return new, said


def plan(agent: str, askcli: str, home: Path, *, undo: bool = False, options: Options = ()) -> Plan:
    """What setup (or ``undo``) changes in ``agent``'s config file under ``home``; the
    command written gets ``options`` (``--inbox-url URL``, ``--to NAME``)."""
    path = config_path(agent, home)
    before = read_text(path)
    after: str | None
    if agent == "codex":
        after, said = _codex(path, before or "", askcli, undo, options)
    else:
        doc = parse(path, before or "")
        if agent in HOOKED:
            said = _claude(doc, askcli, undo, path, options, agent)
        else:
            said = _mcp_json(doc, agent, askcli, undo, path, options)
        after = _dumps(doc) if any(change.verb != "leave" for change in said) else before
    if before is None and not after:
        after = None
    return Plan(path, before, after, tuple(said))


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".askcli-backup")


def write(planned: Plan) -> Path | None:
    """Write the plan's text (atomically, the file's mode kept; through a symbolic link to
    its target); the backup of the former text first. The backup's path, if one was made."""
    assert planned.after is not None
    target = planned.path.resolve()
    found = lstat_or_none(target)
    mode = found.st_mode & 0o7777 if found is not None else 0o600
    backup = None
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if planned.before is not None:
            backup = backup_path(target)
            _replace(backup, planned.before.encode("utf-8"), mode)
        _replace(target, planned.after.encode("utf-8"), mode)
    except OSError as exc:
        raise SetupError(f"{target}: cannot be written: {exc.strerror}") from None
    return backup


def _replace(path: Path, data: bytes, mode: int) -> None:
    kind = replace_whole(path, data, mode)
    if kind is not None:
        raise SetupError(f"{path}: is {kind}, not a file")
    os.chmod(path, mode)


def unified_diff(planned: Plan) -> str:
    import difflib

    before = (planned.before or "").splitlines(keepends=True)
    after = (planned.after or "").splitlines(keepends=True)
    name = str(planned.path)
    old = name if planned.before is not None else "/dev/null"
    lines = difflib.unified_diff(before, after, old, name)
    end = "\n\\ No newline at end of file\n"
    return "".join(line if line.endswith("\n") else line + end for line in lines)
