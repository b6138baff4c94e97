"""A URL elicitation names the host a browser would open (WHATWG parsing): look-alikes
written with backslashes, user names, tabs, numeric and percent-encoded hosts, homographs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from askcli.errors import InvalidCall
from askcli.runners.recordings import play
from askcli.wire.dialects.elicitation import parse

from tests.support.attacks import check_bytes
from tests.support.processes import run_askcli

HTTP = "! not https: what you send on that page can be read on the way"
BACKSLASH = "! a browser reads the backslash as /: the host is "
REMOVED = "! the URL has tabs or line breaks in it, which a browser removes"

# the URL as an MCP server sends it -> the domain line shown, and the warnings below it
LOOK_ALIKES: dict[str, tuple[str, str, list[str]]] = {
    "backslash before @": (
        "https://evil.example\\@github.com/",
        "domain: evil.example",
        [BACKSLASH + "evil.example"],
    ),
    "backslashes for slashes": (
        "https:\\\\evil.example\\login",
        "domain: evil.example",
        [BACKSLASH + "evil.example"],
    ),
    "user name": (
        "https://github.com@evil.example/",
        "domain: evil.example",
        ["! the URL carries a user name before an @: the host is evil.example"],
    ),
    "user name and password": (
        "https://github.com:login@evil.example/",
        "domain: evil.example",
        ["! the URL carries a user name and password before an @: the host is evil.example"],
    ),
    "two @": (
        "https://github.com@x@evil.example/",
        "domain: evil.example",
        ["! the URL carries a user name before an @: the host is evil.example"],
    ),
    "@ in the path": ("https://evil.example/@github.com", "domain: evil.example", []),
    "tab in the host": (
        "https://git\thub.com.evil.example/",
        "domain: github.com.evil.example",
        [REMOVED],
    ),
    "line break in the host": ("https://evil\n.example/", "domain: evil.example", [REMOVED]),
    "hex and short IPv4": (
        "http://0x7f.1/",
        "domain: 127.0.0.1",
        [HTTP, "! the host is written 0x7f.1: a browser reads it as 127.0.0.1"],
    ),
    "octal IPv4": (
        "https://0300.0250.0.1/",
        "domain: 192.168.0.1",
        ["! the host is written 0300.0250.0.1: a browser reads it as 192.168.0.1"],
    ),
    "IPv4 as one number": (
        "https://3232235521/",
        "domain: 192.168.0.1",
        ["! the host is written 3232235521: a browser reads it as 192.168.0.1"],
    ),
    "IPv4 as written": ("https://192.168.0.1/", "domain: 192.168.0.1", []),
    "IPv6": (
        "https://[0:0::1]:8443/",
        "domain: [::1]:8443",
        ["! the host is written [0:0::1]: a browser reads it as [::1]"],
    ),
    "Cyrillic homograph": (
        "https://ехample.com/",
        "domain: xn--ample-ywe6i.com (Unicode: ехample.com)",
        ["! non-ASCII domain ехample.com: it may imitate another"],
    ),
    "homograph in punycode": (
        "https://xn--80ak6aa92e.com/",
        "domain: xn--80ak6aa92e.com (Unicode: аррӏе.com)",
        ["! non-ASCII domain аррӏе.com: it may imitate another"],
    ),
    "fullwidth letters": (
        "https://ｇｉｔｈｕｂ.com/",
        "domain: github.com",
        ["! the host is written ｇｉｔｈｕｂ.com: a browser reads it as github.com"],
    ),
    "percent-encoded host": (
        "https://%65vil.example/",
        "domain: evil.example",
        ["! the host is written %65vil.example: a browser reads it as evil.example"],
    ),
    "trailing dot": ("https://github.com./", "domain: github.com.", []),
    "capitals": ("HTTPS://GitHub.COM/", "domain: github.com", []),
    "port": ("https://github.com:8443/", "domain: github.com:8443", []),
    "default port": ("https://github.com:443/", "domain: github.com", []),
    "punycode with a port": (
        "https://xn--pple-43d.com:8443/",
        "domain: xn--pple-43d.com:8443 (Unicode: аpple.com)",
        ["! non-ASCII domain аpple.com: it may imitate another"],
    ),
}


def screen(url: str) -> tuple[str, list[str]]:
    """The domain line and the warning lines of the consent question for ``url``."""
    params = {"mode": "url", "elicitationId": "e", "url": url, "message": "m"}
    lines = parse(params).questions[0].question.split("\n")
    (domain,) = [line for line in lines if line.startswith("domain: ")]
    return domain, [line for line in lines if line.startswith("! ")]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_the_domain_line_names_the_host_a_browser_opens(name: str) -> None:
    url, domain, warnings = LOOK_ALIKES[name]
    assert screen(url) == (domain, warnings)


def test_no_advice_points_at_what_precedes_a_backslash() -> None:
    domain, warnings = screen("https://evil.example\\@github.com/")
    assert "github.com" not in domain + "".join(warnings)
    assert not any("@" in warning for warning in warnings)


def test_a_line_break_at_the_end_is_no_look_alike() -> None:
    assert screen("https://github.com/\n") == ("domain: github.com", [])


def test_punycode_that_does_not_decode_is_refused_or_flagged() -> None:
    try:
        domain, warnings = screen("https://xn--a.example/")
    except InvalidCall:
        return
    assert domain == "domain: xn--a.example"
    assert warnings == ["! the host has punycode that does not decode: it may imitate another"]


def refusal(url: str) -> str:
    with pytest.raises(InvalidCall) as caught:
        parse({"mode": "url", "elicitationId": "e", "url": url, "message": "m"})
    (issue,) = caught.value.issues
    assert issue["path"] == ["url"]
    return str(issue["message"])


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "javascript://example.com/%0aalert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "ftp://example.com/",
        "ws://example.com/",
    ],
)
def test_what_is_not_a_web_address_is_refused(url: str) -> None:
    scheme = url.partition(":")[0]
    assert refusal(url) == f"askcli asks only about http and https URLs, not {scheme}:"


@pytest.mark.parametrize(
    "url",
    [
        "/relative/path",
        "example.com",
        "https://",
        "https://exa mple.com/",
        "https://example.com:99999/",
        "http://1.2.3.4.5/",
        "https://a.com\x00.evil.example/",
        "https://a.com\ud800/",
        "https://[::1/",
    ],
)
def test_a_url_no_browser_can_open_is_refused(url: str) -> None:
    assert refusal(url) == "the url is not an absolute URL with a host"


def test_a_refused_url_gets_the_invalid_params_reply() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "elicitation/create",
        "params": {"mode": "url", "elicitationId": "e", "url": "data:,x", "message": "m"},
    }
    outcome = play(calls=[call], answers=["y"])
    assert [json.loads(line) for line in outcome.stdout] == [
        {
            "jsonrpc": "2.0",
            "id": 8,
            "error": {
                "code": -32602,
                "message": "Invalid params: url: askcli asks only about http and https URLs, "
                "not data:",
            },
        }
    ]
    assert outcome.status == 2 and "[URL]" not in outcome.stderr


@pytest.mark.process
def test_the_installed_askcli_shows_the_backslash_look_alike_escaped() -> None:
    url = "https://evil.example\\@github.com/\t\x1b[2J"
    call: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "elicitation/create",
        "params": {"mode": "url", "elicitationId": "e", "url": url, "message": "Sign in"},
    }
    proc = run_askcli("ask", input=json.dumps(call) + "\nn\n")
    check_bytes(proc.stderr.encode(), "stderr")
    assert "\n  https://evil.example\\@github.com/ \\x1b[2J\n  domain: evil.example\n" in (
        proc.stderr
    )
    assert json.loads(proc.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}


PROBE = """
import sys
from askcli.runners.recordings import play
play(calls=[{doc}], answers=["n"])
print("ada_url" in sys.modules)
"""


@pytest.mark.process
@pytest.mark.parametrize(("mode", "loaded"), [("form", "False"), ("url", "True")])
def test_the_url_parser_is_loaded_only_for_a_url(mode: str, loaded: str) -> None:
    params: dict[str, Any] = {"message": "m", "requestedSchema": {"properties": {}}}
    if mode == "url":
        params = {"mode": "url", "elicitationId": "e", "url": "https://a.example/", "message": "m"}
    doc = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(doc=repr(doc))],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == loaded
