"""What ``$ASKCLI_INBOX`` (or ``--inbox-url``) names: a file (SQLite) or a PostgreSQL URL.

A URL may hold a password; askcli never shows it (:func:`shown`) and refuses it on a
command line, where every user of the machine can read it (:func:`password_refused`): the
password belongs in the environment's URL, ``~/.pgpass`` (``PGPASSFILE``) or a service file.
"""

from __future__ import annotations

import re
import urllib.parse

from ..errors import InboxRefused

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
POSTGRES = ("postgresql", "postgres")


def url_scheme(named: str) -> str | None:
    """The scheme of a URL-looking name (``postgresql``), never a path."""
    found = _URL.match(named)
    return found.group(0)[:-3].lower() if found else None


def is_postgres(named: str) -> bool:
    return url_scheme(named) in POSTGRES


def refuse_url(named: str) -> InboxRefused:
    """The one line for a URL of a database askcli does not keep an inbox in."""
    scheme = url_scheme(named) or "?"
    return InboxRefused(
        f"ASKCLI_INBOX is a {scheme}:// URL: askcli keeps an inbox in a file or in"
        " PostgreSQL (postgresql://...)"
    )


def shown(url: str) -> str:
    """``url`` as it may be shown: no password, no query (it may hold one too)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return f"{url_scheme(url) or 'postgresql'}://..."
    if ":" in host:
        host = f"[{host}]"
    user = f"{urllib.parse.unquote(parts.username)}@" if parts.username else ""
    where = f"{host}:{port}" if port else host
    return f"{parts.scheme}://{user}{where}{parts.path}"


def has_password(url: str) -> bool:
    """Whether ``url`` carries a password (in its user part or its query)."""
    try:
        parts = urllib.parse.urlsplit(url)
        query = urllib.parse.parse_qs(parts.query)
    except ValueError:
        return False
    return parts.password is not None or "password" in query


def password_refused(url: str, option: str) -> InboxRefused | None:
    """The refusal of a URL with a password given on a command line as ``option``."""
    if not has_password(url):
        return None
    return InboxRefused(
        f"{option} holds a password, which every user of this machine can read on a command"
        " line; put it in ~/.pgpass (or PGPASSFILE, or a service file) or in ASKCLI_INBOX"
    )
