"""``askcli mcp``: a message the server cannot read gets a JSON-RPC error, never silence.

A request nested deeper than the SDK's JSON parser takes (about 200 levels), or a line
that is not JSON, was dropped by the SDK's stdio transport: its client waited forever.
Both transports are driven with raw messages (the SDK's own client will not write them);
every read has a deadline, so a server that does not answer fails the test.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from askcli.hosts.unreadable import (
    INVALID_REQUEST,
    NESTED,
    PARSE_ERROR,
    rejection,
    request_id,
    top_level,
    with_id,
)

from tests.support.processes import askcli_path
from tests.support.real_agents import free_port

DEPTHS = [300, 1000, 100_000]
TOKEN = "a-token-for-the-unreadable-tests"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def nested(depth: int, rid: Any = 7, id_last: bool = False) -> str:
    """A tools/call whose arguments hold ``depth`` nested arrays."""
    deep = "[" * depth + "]" * depth
    call = '"method":"tools/call","params":{"name":"ask_user_questions","arguments":{"x":'
    call += deep + "}}"
    rid_text = json.dumps(rid)
    if id_last:
        return '{"jsonrpc":"2.0",' + call + ',"id":' + rid_text + "}"
    return '{"jsonrpc":"2.0","id":' + rid_text + "," + call + "}"


# -- in process: the id of a message that cannot be parsed ---------------------------------


def test_the_top_level_is_read_without_recursion() -> None:
    members = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": NESTED}
    assert top_level(nested(100_000)) == members
    assert top_level(nested(100_000, "q-1", id_last=True))["id"] == "q-1"
    text = ' { "id" : 3 , "s": "]}\\"[{", "a": [["]]"], {"}": 1}] , "method" : "m" } '
    assert top_level(text) == {"id": 3, "s": ']}"[{', "a": NESTED, "method": "m"}
    assert top_level('{"id": 5, "method": "m", "params": [[[') == {"id": 5, "method": "m"}
    assert top_level('{"params": [[["x"]], "id": 5') == {}  # never closes: nothing after
    assert top_level("[1]") == {} and top_level("") == {} and top_level('{"a"') == {}


def test_a_string_left_open_is_read_in_linear_time() -> None:
    start = time.monotonic()
    assert top_level('{"a":[' + '"\\' * 500_000) == {}
    assert top_level('{"a":' + "[" * 1_000_000) == {}
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(
    ("members", "rid"),
    [
        ({"id": 7, "method": "m"}, 7),
        ({"id": "x", "method": "m"}, "x"),
        ({"id": 7}, None),  # a response: not the client's request
        ({"id": True, "method": "m"}, None),
        ({"id": 1.5, "method": "m"}, None),
        ({"id": 7, "method": NESTED}, 7),  # a request, if not a valid one
        ({"method": "m"}, None),
        ([7], None),
    ],
)
def test_the_id_is_a_requests_own(members: Any, rid: Any) -> None:
    assert request_id(members) == rid


def sdk_error(line: str) -> Exception:
    """What the SDK's stdio transport hands the server for ``line``."""
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:
        return exc
    raise AssertionError(f"{line!r} was read")


def test_the_error_that_answers_a_line() -> None:
    code, rid, message = rejection(sdk_error(nested(300))) or (0, 0, "")
    assert (code, rid) == (PARSE_ERROR, 7)
    assert message.startswith("Parse error: recursion limit exceeded")
    assert rejection(sdk_error("{oops")) == (
        PARSE_ERROR,
        None,
        "Parse error: key must be a string at line 1 column 2",
    )
    invalid = rejection(sdk_error('{"jsonrpc":"2.0","id":4,"method":5}'))
    assert invalid is not None and invalid[:2] == (INVALID_REQUEST, 4)
    assert rejection(sdk_error("[1, 2]"))[:2] == (INVALID_REQUEST, None)  # type: ignore[index]
    assert rejection(sdk_error(" \r")) is None  # a blank line is no message
    assert rejection(MemoryError()) == (PARSE_ERROR, None, "Parse error")


def test_an_http_answer_gets_the_id_its_request_shows() -> None:
    null = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}'
    fixed = b'{"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"Parse error: x"}}'
    assert with_id(null, nested(1000).encode()) == fixed
    assert with_id(null, b"{oops") == null
    assert with_id(null, b'{"jsonrpc":"2.0","method":"notifications/x"}') == null
    other = b'{"jsonrpc":"2.0","id":3,"error":{"code":-32700,"message":"x"}}'
    assert with_id(other, nested(1000).encode()) == other  # an id given stays
    assert with_id(b"not json", nested(1000).encode()) == b"not json"


# -- stdio ------------------------------------------------------------------------------


class Stdio:
    """``askcli mcp`` over stdio, written and read line by line, each read with a deadline."""

    def __init__(self, tmp_path: Path) -> None:
        self.proc = subprocess.Popen(
            [str(askcli_path()), "mcp", "--wait", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "ASKCLI_INBOX": str(tmp_path / "inbox.db")},
            cwd=tmp_path,
        )
        self.pending = b""

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 10) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"no answer within {timeout} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("askcli mcp closed its stdout")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return dict(json.loads(line))

    def close(self) -> str:
        _, err = self.proc.communicate(timeout=10)  # stdin closed: the client went away
        return err.decode()


@pytest.fixture
def stdio(tmp_path: Path) -> Iterator[Stdio]:
    server = Stdio(tmp_path)
    try:
        server.send(json.dumps(INIT))
        assert server.read()["id"] == 0
        server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield server
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.communicate()


def still_serves(server: Stdio, rid: int = 99) -> None:
    server.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list"}))
    answer = server.read()
    assert answer["id"] == rid and "tools" in answer["result"]


@pytest.mark.process
@pytest.mark.parametrize("depth", DEPTHS)
def test_stdio_answers_a_request_nested_too_deep(stdio: Stdio, depth: int) -> None:
    stdio.send(nested(depth))
    answer = stdio.read()
    assert answer["id"] == 7 and answer["error"]["code"] == PARSE_ERROR, answer
    assert answer["error"]["message"].startswith("Parse error: recursion limit exceeded")
    stdio.send(nested(depth, "late-id", id_last=True))
    assert stdio.read()["id"] == "late-id"
    still_serves(stdio)
    err = stdio.close()
    assert stdio.proc.returncode == 0 and "Traceback" not in err
    assert "a message that cannot be read gets the error -32700" in err


@pytest.mark.process
def test_stdio_answers_a_line_that_is_not_json(stdio: Stdio) -> None:
    stdio.send("")  # a blank line is no message: not answered
    stdio.send('{"jsonrpc":"2.0","id":5,"method":"tools/list",oops')
    assert stdio.read() == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {
            "code": PARSE_ERROR,
            "message": "Parse error: key must be a string at line 1 column 47",
        },
    }
    stdio.send("not json")
    answer = stdio.read()
    assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR
    stdio.send('{"jsonrpc":"2.0","id":6,"method":6}')
    answer = stdio.read()
    assert answer["id"] == 6 and answer["error"]["code"] == INVALID_REQUEST
    still_serves(stdio)


# -- Streamable HTTP (the SDK answers an unreadable POST itself, with the id null) ----------


def post(port: int, body: str, session: str | None = None) -> tuple[int, dict[str, str], str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {TOKEN}",
        "mcp-protocol-version": "2025-06-18",
    }
    if session is not None:
        headers["mcp-session-id"] = session
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=body.encode(), headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status), dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


@pytest.fixture
def http(tmp_path: Path) -> Iterator[tuple[int, str]]:
    port = free_port()
    proc = subprocess.Popen(
        [str(askcli_path()), "mcp", "--wait", "1", "--http", str(port)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "ASKCLI_INBOX": str(tmp_path / "inbox.db"),
            "ASKCLI_MCP_TOKEN": TOKEN,
        },
        cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        assert "serving MCP (Streamable HTTP)" in proc.stderr.readline()
        status, headers, _ = post(port, json.dumps(INIT))
        session = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
        assert status == 200
        initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        assert post(port, initialized, session)[0] == 202
        yield port, session
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
        assert "Traceback" not in err


@pytest.mark.process
@pytest.mark.parametrize("depth", DEPTHS)
def test_http_answers_a_request_nested_too_deep(http: tuple[int, str], depth: int) -> None:
    port, session = http
    status, headers, body = post(port, nested(depth), session)
    answer = json.loads(body)
    assert status == 400 and answer["error"]["code"] == PARSE_ERROR, body
    assert answer["id"] == 7
    length = {k.lower(): v for k, v in headers.items()}["content-length"]
    assert length == str(len(body.encode()))
    assert answer["error"]["message"].startswith("Parse error: recursion limit exceeded")
    status, _, body = post(port, nested(depth, "late-id", id_last=True), session)
    assert (status, json.loads(body)["id"]) == (400, "late-id")
    status, _, body = post(port, "{oops", session)
    assert (status, json.loads(body)["id"]) == (400, None)  # no id to give
    listed = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    assert post(port, listed, session)[0] == 200  # and it still serves
