"""The host a browser would open for a URL, read as browsers read it (the WHATWG URL
standard, with the ``ada-url`` parser): backslashes count as slashes, tabs and line breaks
are removed, hosts go through IDNA, numeric hosts are IPv4 addresses in any of their forms.

Only http and https URLs are web addresses here. Nothing is fetched or resolved, and
``ada_url`` is imported only when a URL is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ..escaping import visible

WEB_SCHEMES = ("http", "https")
NOT_A_URL = "the url is not an absolute URL with a host"
_EDGE = "".join(chr(code) for code in range(0x21))  # C0 controls and space, stripped
_REMOVED = re.compile("[\t\n\r]")  # removed wherever they are
_AUTHORITY_END = re.compile(r"[/\\?#]")
# an http(s) URL in running text (a command, a prompt): its head, the scheme to the end of
# the authority, and the rest; it ends at a space, a quote or a shell's punctuation
_STOPS = "\\s\"'<>`|;(){}"
_IN_TEXT = re.compile(
    rf"(?i)(?<![a-z0-9+.-])(https?:[/\\]+[^/\\?#{_STOPS}]*)([/\\?#][^{_STOPS}]*)?"
)
_TRAILING = ".,:;!?"  # ends a sentence rather than a URL


class BadURL(ValueError):
    """A URL that is not an http(s) URL with a host; the message says why."""


class Target(NamedTuple):
    """What the person is shown of a URL before consenting: ``host`` the host a browser
    opens in ASCII (punycode), with its port unless it is the scheme's default;
    ``unicode`` the host's Unicode form when it reads differently, else ""; ``scheme``
    http or https; the ``warnings``."""

    host: str
    unicode: str
    scheme: str
    warnings: tuple[str, ...]

    @property
    def domain_line(self) -> str:
        """The host, and its Unicode form beside it when that differs (unescaped)."""
        if not self.unicode:
            return self.host
        return f"{self.host} (Unicode: {self.unicode})"


def _written(cleaned: str) -> tuple[str, str, str]:
    """The URL as written, cut the way the standard cuts a special URL: the text up to the
    end of the authority, the userinfo part (with its ``@``) and the host as written."""
    after_scheme = cleaned.partition(":")[2]
    authority_on = after_scheme.lstrip("/\\")
    end = _AUTHORITY_END.search(authority_on)
    authority = authority_on[: end.start()] if end else authority_on
    ends_at = len(cleaned) - len(authority_on) + len(authority) + (1 if end else 0)
    userinfo, at, host_port = authority.rpartition("@")
    if host_port.startswith("["):
        host = host_port.partition("]")[0] + "]"
    else:
        host = host_port.partition(":")[0]
    return cleaned[:ends_at], userinfo + at, host


def web_target(url: str) -> Target:
    """The host an http(s) ``url`` leads to and what is suspicious in how it is written;
    :class:`BadURL` when it is not an http(s) URL with a host."""
    import ada_url

    try:
        parsed = ada_url.URL(url)
    except ValueError:  # unparseable, and UnicodeEncodeError for lone surrogates
        raise BadURL(NOT_A_URL) from None
    scheme = parsed.protocol.rstrip(":")
    if scheme not in WEB_SCHEMES:
        raise BadURL(f"askcli asks only about http and https URLs, not {scheme}:")
    hostname = parsed.hostname
    if not hostname:
        raise BadURL(NOT_A_URL)
    host = f"{hostname}:{parsed.port}" if parsed.port else hostname
    unicode = ada_url.idna_to_unicode(hostname)
    stripped = url.strip(_EDGE)
    cleaned = _REMOVED.sub("", stripped)
    prefix, userinfo, written = _written(cleaned)
    warnings = []
    if scheme == "http":
        warnings.append("not https: what you send on that page can be read on the way")
    if "\\" in prefix:
        warnings.append(f"a browser reads the backslash as /: the host is {host}")
    if cleaned != stripped:
        warnings.append("the URL has tabs or line breaks in it, which a browser removes")
    if userinfo:
        carried = "a user name and password" if parsed.password else "a user name"
        warnings.append(f"the URL carries {carried} before an @: the host is {host}")
    if written.lower() not in (hostname, unicode.lower()):
        warnings.append(f"the host is written {written}: a browser reads it as {hostname}")
    if any(label.startswith("xn--") for label in hostname.split(".")):
        if unicode == hostname:
            warnings.append("the host has punycode that does not decode: it may imitate another")
        else:
            warnings.append(f"non-ASCII domain {unicode}: it may imitate another")
    return Target(host, "" if unicode == hostname else unicode, scheme, tuple(warnings))


def heads(text: str) -> Iterator[tuple[int, int, int]]:
    """Where each http(s) URL in ``text`` starts, where its host starts (after a user name
    and ``@``) and where its authority (host and port) ends: what a wrap keeps on a line."""
    for match in _IN_TEXT.finditer(text):
        head = match.group(1)
        if match.group(2) is None:
            head = head.rstrip(_TRAILING)
        begin = match.start()
        after_scheme = head.index(":") + 1
        authority = after_scheme + len(head[after_scheme:]) - len(head[after_scheme:].lstrip("/\\"))
        host = max(authority, head.rfind("@") + 1)
        yield begin, begin + host, begin + len(head)


class Written(NamedTuple):
    """A URL found in a text: ``head`` as written, from the scheme to the end of the
    authority; ``more`` whether a path, query or fragment follows; ``url`` the whole."""

    head: str
    more: bool
    url: str


def found_in(texts: Iterable[str]) -> Iterator[Written]:
    """Every http(s) URL in ``texts``, in order (a sentence's full stop left out)."""
    for text in texts:
        if "http" not in text.lower() or ":" not in text:
            continue  # the usual string: no URL, no regular expression run
        for match in _IN_TEXT.finditer(text):
            url = match.group().rstrip(_TRAILING)
            head = url[: len(match.group(1))]
            yield Written(head, len(url) > len(head), url)


def target_lines(target: Target, escape: Callable[[str], str] = visible) -> list[str]:
    """What a person reads about where a URL leads: ``domain: HOST`` (its Unicode form
    beside it when that differs) and a ``! `` line for each warning, each passed through
    ``escape``. The URL elicitation and the permission prompts both show these."""
    return [f"domain: {escape(target.domain_line)}", *(f"! {escape(w)}" for w in target.warnings)]


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a JSON value, its keys too."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                stack += [inner, str(key)]
        elif isinstance(item, list):
            stack += reversed(item)


SHOWN_URLS = 8  # URLs named under one request; the rest are counted
READ_URLS = 2000  # URLs checked for warnings (about 50 ms); past this many they are counted
# what a head with a warning has: http, a user name, a backslash, an escape, a numeric or
# non-ASCII host, punycode, capitals
_ODD_HEAD = re.compile(r"^[hH][tT][tT][pP]:|[@\\%]|[^\x00-\x7f]|xn--|[/\\.][0-9]|[A-Z]")


class _Read(NamedTuple):
    written: Written
    lines: list[str]  # its domain and warnings, or why a browser would not open it
    warned: bool


def _read(written: Written, escape: Callable[[str], str]) -> _Read:
    try:
        target = web_target(written.url)
    except BadURL as bad:
        return _Read(written, [f"! no browser opens it: {escape(str(bad))}"], True)
    return _Read(written, target_lines(target, escape), bool(target.warnings))


def report(texts: Iterable[str], escape: Callable[[str], str] = visible) -> list[str]:
    """Where the URLs in ``texts`` lead, for a person about to allow what holds them: for
    each URL as written (up to its host and port), a ``URL ...`` line and, indented under
    it, :func:`target_lines`. Those with warnings come first when there are more than
    :data:`SHOWN_URLS`; the rest are counted. Empty when there is no URL."""
    distinct: dict[str, Written] = {}
    for written in found_in(texts):
        distinct.setdefault(written.head, written)
    if not distinct:
        return []
    found = list(distinct.values())
    # those that may well have a warning are read first, when there are too many to read
    order = sorted(range(len(found)), key=lambda n: not _ODD_HEAD.search(found[n].head))
    read = {n: _read(found[n], escape) for n in order[:READ_URLS]}
    chosen = sorted(read, key=lambda n: (not read[n].warned, n))[:SHOWN_URLS]
    lines = []
    for n in sorted(chosen):
        written = read[n].written
        more = written.url[len(written.head)] + "…" if written.more else ""
        lines += [f"URL {escape(written.head + more)}", *(f"  {row}" for row in read[n].lines)]
    left = len(found) - len(chosen)
    if left:
        warned = sum(r.warned for n, r in read.items() if n not in chosen)
        unread = len(found) - len(read)
        said = [f"{warned} with warnings"] if warned else []
        said += [f"{unread} not checked"] if unread else []
        lines.append(f"(and {left} more URLs{': ' if said else ''}{', '.join(said)})")
    return lines
