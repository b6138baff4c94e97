"""The host a browser would open for a URL, read as browsers read it (the WHATWG URL
standard, with the ``ada-url`` parser): backslashes count as slashes, tabs and line breaks
are removed, hosts go through IDNA, numeric hosts are IPv4 addresses in any of their forms.

Only http and https URLs are web addresses here. Nothing is fetched or resolved, and
``ada_url`` is imported only when a URL is read.
"""

from __future__ import annotations

import re
from typing import NamedTuple

WEB_SCHEMES = ("http", "https")
NOT_A_URL = "the url is not an absolute URL with a host"
_EDGE = "".join(chr(code) for code in range(0x21))  # C0 controls and space, stripped
_REMOVED = re.compile("[\t\n\r]")  # removed wherever they are
_AUTHORITY_END = re.compile(r"[/\\?#]")


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
