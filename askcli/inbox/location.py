"""What ``$ASKCLI_INBOX`` (or ``--inbox-url``) names: a file (SQLite) or a PostgreSQL URL.

A URL may hold a password; askcli never shows it (:func:`shown`, :func:`scrub`) and refuses
it on a command line, where every user of the machine can read it (:func:`password_refused`):
the password belongs in the environment's URL, ``~/.pgpass`` (``PGPASSFILE``) or a service
file. Where the password is, libpq says: its own parser (``PQconninfoParse``, through
psycopg's ``conninfo_to_dict``) when psycopg is installed, and always :func:`_read`, which
reads a URL (or a ``key=value`` connection string) where libpq's parser puts its bounds:
the user part ends at the first ``@`` before any ``/`` and its password at that ``@``, the
query begins at the first ``?`` after it (a ``#`` is nothing special to libpq). A text
libpq cannot read counts as holding a password wherever it might.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import NamedTuple

from ..errors import InboxRefused

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
POSTGRES = ("postgresql", "postgres")
HIDDEN = "…"  # what a message shows instead of a password
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_KEYWORD = re.compile(r"\s*([^\s=]+)\s*=\s*")


def environment(where: str | None) -> dict[str, str] | None:
    """The environment of a program askcli starts (the agent of ``askcli claude`` and
    ``askcli acp``, its terminals, ``--notify-command``): askcli's, with ``ASKCLI_INBOX``
    naming the inbox ``where`` the command uses (``--inbox-url``), so that an ``askcli
    hook``, ``askcli mcp`` or ``askcli inbox`` it starts finds the same one; None (askcli's
    own) when no inbox is named."""
    if where is None:
        return None
    return dict(os.environ) | {"ASKCLI_INBOX": where}


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


class _Parts(NamedTuple):
    """A connection text as libpq's parser bounds it: what may be shown of a URL
    (``shown``: no password, no query) and every piece of the text that holds, or may
    hold, a password (``secrets``: as written and decoded; from a query's ``password``
    on, the rest of the text, which a password holding ``&`` or ``=`` runs into)."""

    shown: str
    secrets: tuple[str, ...]


def _unquote(text: str) -> str:
    return urllib.parse.unquote(text, errors="replace")


def _read_url(url: str) -> _Parts:
    scheme, _, rest = url.partition("://")
    secrets: list[str] = []
    user = ""
    ends = [i for i in (rest.find("@"), rest.find("/")) if i >= 0]
    if ends and rest[min(ends)] == "@":  # libpq: the first '@' before any '/' ends the user part
        userinfo, rest = rest[: min(ends)], rest[min(ends) + 1 :]
        name, colon, password = userinfo.partition(":")
        user = name.split("?", 1)[0]
        if colon:
            secrets += [password, _unquote(password)]
    where, question, query = rest.partition("?")
    if question:
        for param in query.split("&"):
            key = _unquote(param.split("=", 1)[0]).strip().casefold()
            if key == "password" or "=" not in param:  # a lone piece may be a password's end
                value = param.split("=", 1)[-1]
                start = query.find(param)
                secrets += [value, _unquote(value), query[start:]]
    shown = f"{scheme}://{user + '@' if user else ''}{where}"
    return _Parts(shown, tuple(s for s in secrets if s))


def _read_conninfo(text: str) -> _Parts:
    """A ``key=value`` connection string: the values of ``password``, unquoted as libpq
    does (``'...'`` with backslash escapes), and the text from there on."""
    secrets: list[str] = []
    at = 0
    while True:
        found = _KEYWORD.match(text, at)
        if found is None:
            break
        at = found.end()
        value, quoted = [], text[at : at + 1] == "'"
        at += quoted
        while at < len(text) and (text[at] != "'" if quoted else not text[at].isspace()):
            if text[at] == "\\" and at + 1 < len(text):
                at += 1
            value.append(text[at])
            at += 1
        at += quoted
        if found.group(1).casefold() == "password":
            secrets += ["".join(value), text[found.end() :]]
    for match in re.finditer(r"password\s*=\s*", text, re.IGNORECASE):  # however it is read
        secrets.append(text[match.end() :])
    return _Parts("(a connection string)", tuple(s for s in secrets if s))


def _read(text: str) -> _Parts:
    if is_postgres(text):
        return _read_url(text)
    return _read_conninfo(text)


def _libpq(text: str) -> dict[str, str] | None:
    """libpq's own reading of ``text``; None without psycopg, or when libpq cannot read it
    (a file's name is not given to it: psycopg is imported only for PostgreSQL)."""
    if not is_postgres(text) and "=" not in text:
        return None
    try:
        from psycopg import Error
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return None
    try:
        return {k: str(v) for k, v in conninfo_to_dict(text).items() if v is not None}
    except (Error, ValueError, TypeError):
        return None


def secrets(url: str) -> tuple[str, ...]:
    """Every piece of ``url`` that holds, or may hold, a password."""
    found = list(_read(url).secrets)
    read = _libpq(url)
    if read is not None and read.get("password"):
        found.append(read["password"])
    return tuple(dict.fromkeys(found))


def shown(url: str) -> str:
    """``url`` as it may be shown: no password, no query (it may hold one too). Where
    libpq reads ``url``, it must read the shown URL as the same user, hosts, ports and
    database, without a password; else only the scheme is shown."""
    parts = _read(url)
    if not is_postgres(url):
        return parts.shown
    read = _libpq(url)
    if read is not None:
        again = _libpq(parts.shown)
        if (
            again is None
            or "password" in again
            or any(read.get(key) != value for key, value in again.items())
        ):
            return f"{url_scheme(url)}://..."
    return parts.shown


def scrub(text: str, url: str) -> str:
    """``text`` (a driver's message about ``url``) without the password: the URL shown as
    :func:`shown` shows it, a quoted piece of a password's part of the URL (libpq's
    ``invalid percent-encoded token: "..."``) as ``"…"``, a password elsewhere too."""
    if not url:
        return text
    text = text.replace(url, shown(url))
    hidden = secrets(url)

    def quoted(found: re.Match[str]) -> str:
        inside = found.group(1) if found.group(1) is not None else found.group(2)
        if inside and any(
            inside == secret or (len(inside) >= 4 and inside in secret) for secret in hidden
        ):
            mark = found.group(0)[0]
            return f"{mark}{HIDDEN}{mark}"
        return found.group(0)

    text = _QUOTED.sub(quoted, text)
    for secret in sorted(hidden, key=len, reverse=True):
        if len(secret) >= 4:  # a shorter one is hidden where it is quoted
            text = text.replace(secret, HIDDEN)
    return text


def has_password(url: str) -> bool:
    """Whether ``url`` carries a password: wherever libpq finds one (in the user part, the
    query, a ``key=value`` string, any host list), and wherever it might find one when it
    cannot read the text."""
    read = _libpq(url)
    if read is not None and read.get("password"):
        return True
    return bool(_read(url).secrets)


def password_refused(url: str, option: str) -> InboxRefused | None:
    """The refusal of a URL with a password given on a command line as ``option``."""
    if not has_password(url):
        return None
    return InboxRefused(
        f"{option} holds a password, which every user of this machine can read on a command"
        " line; put it in ~/.pgpass (or PGPASSFILE, or a service file) or in ASKCLI_INBOX"
    )
