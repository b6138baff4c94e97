"""``askcli doctor``: where askcli is set up, which inbox is used, which extras are installed.

Every line is words: nothing a config file holds ends it with a traceback.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from ..escaping import visible
from ..inbox import location
from ..inbox.store import default_path, opening
from . import configs


def agent_line(agent: str, home: Path) -> str:
    """One line: is askcli set up for ``agent``, and in which file."""
    path = configs.config_path(agent, home)
    try:
        text = configs.read_text(path)
        if text is None:
            return f"{agent}: not set up ({path} does not exist)"
        doc = configs.parse(path, text)
        found = _found(agent, doc)
    except configs.SetupError as exc:
        return f"{agent}: unknown: {exc}"
    except Exception as exc:  # whatever the file holds, a line
        return f"{agent}: unknown: {path}: {type(exc).__name__}"
    return f"{agent}: {found} in {path}"


def _found(agent: str, doc: Any) -> str:
    if agent in configs.HOOKED:
        hooks = doc.get("hooks") if isinstance(doc, dict) else None
        named = []
        for event, matcher in configs.HOOKED[agent]:
            groups = hooks.get(event) if isinstance(hooks, dict) else None
            if isinstance(groups, list) and any(configs.is_askcli_hook(g, matcher) for g in groups):
                named.append(event)
        if named:
            return "set up (hook: " + ", ".join(named) + ")"
        if agent == configs.CODEX_HOOK:
            return "not set up"
        servers = doc.get("mcpServers") if isinstance(doc, dict) else None
        if isinstance(servers, dict) and "askcli" in servers:
            return "set up (MCP server mcpServers.askcli)"
        return "not set up"
    key = {"codex": "mcp_servers", "gemini": "mcpServers", "opencode": "mcp"}[agent]
    servers = doc.get(key) if isinstance(doc, dict) else None
    if isinstance(servers, dict) and "askcli" in servers:
        return f"set up (MCP server {key}.askcli)"
    return "not set up"


def inbox_line() -> str:
    """Which inbox file is used, and whether it is usable."""
    named = os.environ.get("ASKCLI_INBOX") or ""
    if location.is_postgres(named):
        return visible(f"inbox: {location.shown(named)} ($ASKCLI_INBOX): {_postgres_state()}")
    if location.url_scheme(named):
        return f"inbox: {visible(location.refuse_url(named).args[0])}"
    path = default_path()
    whence = "$ASKCLI_INBOX" if named else "the default"
    try:
        folder = path.parent
        if folder.exists():
            opening.check_folder(folder)
        found = opening.check_file(path)
        if found is not None:
            opening.check_askcli(path, found)
            state = "usable"
        elif folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
            state = "not usable: its folder cannot be written"
        else:
            state = "usable (made at first use)"
    except Exception as exc:  # any refusal, in words
        state = f"not usable: {exc}"
    return visible(f"inbox: {path} ({whence}): {state}")


def _postgres_state() -> str:
    """Whether the PostgreSQL inbox answers, looked at only: a schema that is not there yet
    is not made (it is at first use), an older one not migrated; the database is left as
    it was."""
    from ..inbox.store import postgres
    from ..inbox.store.postgres_schema import VERSION

    try:
        found = postgres.look(os.environ.get("ASKCLI_INBOX", ""))
    except Exception as exc:  # any refusal, in words
        return f"not usable: {exc}"
    if found.version == VERSION:
        return "usable (PostgreSQL)"
    if not found.version and not found.may_make:
        return (
            "not usable: no askcli schema yet, and this role may not make one (it needs"
            " CREATE on the database, as its owner has, the first time)"
        )
    if not found.version:
        return "usable (PostgreSQL; no askcli schema yet: made at first use)"
    return f"usable (PostgreSQL; schema {found.version}: brought to {VERSION} at first use)"


def extras_line() -> str:
    said = []
    for extra, module in (("mcp", "mcp"), ("acp", "acp"), ("postgres", "psycopg")):
        try:
            there = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            there = False
        said.append(f"{extra} {'installed' if there else 'not installed'}")
    return "extras: " + ", ".join(said)


def report(home: Path) -> list[str]:
    return [
        *(visible(agent_line(agent, home)) for agent in configs.TARGETS),
        inbox_line(),
        extras_line(),
    ]
