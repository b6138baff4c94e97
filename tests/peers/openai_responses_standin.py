"""A stand-in for the OpenAI Responses API (streaming SSE) on 127.0.0.1, for the real Codex CLI.

``openai_responses_standin.py PORT OUTDIR [HOLD]``: every request is saved as OUTDIR/req-N.json
(its path, headers and body). Turn 1 (no tool output in the input): the "model" calls the
offered tool whose name ends with ``ask_user_questions``. When the last tool output says that
Codex timed out ("timed out awaiting tools/call"), the identical call is made again, once the
file HOLD exists when one is named; when it names a ticket, ``get_answer`` is called with it.
Otherwise: a message quoting the last tool output, and the turn ends.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

QUESTIONS = {
    "questions": [
        {
            "question": "Which package manager should the project use?",
            "header": "Pkg mgr",
            "options": [
                {"label": "pnpm", "description": "fast, strict"},
                {"label": "npm", "description": "bundled with node"},
            ],
            "multiSelect": False,
        }
    ]
}
OUTPUTS = ("function_call_output", "mcp_tool_call_output", "custom_tool_call_output")
TIMED_OUT = "timed out awaiting tools/call"
TICKET = re.compile(r"not answered yet.*?ticket (q_[A-Za-z0-9_-]+)")
counter = itertools.count(1)


def log(message: str) -> None:
    print(f"standin: {message}", file=sys.stderr, flush=True)


def find_tool(tree: Any, namespace: str | None = None) -> tuple[str, str | None] | None:
    """The first tool whose name ends with ask_user_questions, and its namespace if any."""
    if isinstance(tree, dict):
        name = tree.get("name")
        if isinstance(name, str) and name.endswith("ask_user_questions"):
            return name, namespace
        if tree.get("type") == "namespace" and isinstance(name, str):
            namespace = name
        for value in tree.values():
            found = find_tool(value, namespace)
            if found:
                return found
    elif isinstance(tree, list):
        for value in tree:
            found = find_tool(value, namespace)
            if found:
                return found
    return None


def message(n: int, text: str) -> list[tuple[str, dict[str, Any]]]:
    item = {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{n}",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return [
        ("response.output_item.added", {"output_index": 0, "item": {**item, "content": []}}),
        (
            "response.output_text.delta",
            {"item_id": f"msg_{n}", "output_index": 0, "content_index": 0, "delta": text},
        ),
        ("response.output_item.done", {"output_index": 0, "item": item}),
    ]


def call(n: int, name: str, arguments: Any, namespace: str | None) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_standin_{n}",
        "name": name,
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        "status": "completed",
    }
    if namespace:
        item["namespace"] = namespace
    return item


def reply(n: int, body: dict[str, Any], hold: Path | None) -> list[tuple[str, dict[str, Any]]]:
    """The events answering request ``n``."""
    inputs = [i for i in body.get("input") or [] if isinstance(i, dict)]
    outputs = [i for i in inputs if i.get("type") in OUTPUTS]
    calls = [i for i in inputs if i.get("type") == "function_call"]
    if not outputs:
        found = find_tool(body.get("tools") or [])
        if not found:
            log(f"#{n} turn 1: no ask_user_questions tool offered")
            return message(n, "STAND-IN: no ask_user_questions tool offered")
        log(f"#{n} turn 1: calling {found[0]} (namespace {found[1]})")
        item = call(n, found[0], QUESTIONS, found[1])
        return [("response.output_item.done", {"output_index": 0, "item": item})]
    last = outputs[-1].get("output")
    text = last if isinstance(last, str) else json.dumps(last)
    ticket = TICKET.search(text)
    if TIMED_OUT in text and calls and len(calls) < 4:
        if hold is not None:
            log(f"#{n} the client timed out: waiting for {hold}")
            while not hold.exists():
                time.sleep(0.05)
        log(f"#{n} the client timed out: asking the identical question again")
        prev = calls[-1]
        item = call(n, prev["name"], prev["arguments"], prev.get("namespace"))
        return [("response.output_item.done", {"output_index": 0, "item": item})]
    if ticket and calls:
        log(f"#{n} the output has a ticket: calling get_answer {ticket.group(1)}")
        item = call(n, "get_answer", {"ticket": ticket.group(1)}, calls[-1].get("namespace"))
        return [("response.output_item.done", {"output_index": 0, "item": item})]
    log(f"#{n} the tool output reached the model: {text[:300]!r}")
    return message(n, "STAND-IN saw the tool output: " + text)


class ResponsesApi(BaseHTTPRequestHandler):
    """What every stand-in of the Responses API answers alike: JSON replies, the models
    list, and request bodies as Codex sends them (gzip or zstd)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log(format % args)

    def _json(self, code: int, obj: Any) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [], "models": []})
        else:
            self._json(404, {"error": {"message": "not here", "type": "not_found"}})

    def raw_body(self) -> bytes:
        """The request's body, uncompressed."""
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        encoding = self.headers.get("content-encoding")
        if encoding == "zstd":
            import zstandard

            return bytes(zstandard.ZstdDecompressor().decompress(raw, max_output_size=64 << 20))
        if encoding == "gzip":
            return gzip.decompress(raw)
        return raw


class Handler(ResponsesApi):
    out = Path(".")
    hold: Path | None = None

    def do_POST(self) -> None:
        n = next(counter)
        encoding = self.headers.get("content-encoding")
        raw = self.raw_body()
        try:
            body = json.loads(raw)
        except ValueError as exc:
            log(f"#{n} POST {self.path}: undecodable body ({encoding}): {exc}")
            self._json(400, {"error": {"message": "bad body"}})
            return
        saved = {"path": self.path, "headers": dict(self.headers), "body": body}
        (self.out / f"req-{n}.json").write_text(json.dumps(saved, indent=1))
        if not self.path.rstrip("/").endswith("/responses"):
            self._json(404, {"error": {"message": "not here"}})
            return
        rid = f"resp_standin_{n}"
        events = [("response.created", {"response": {"id": rid}}), *reply(n, body, self.hold)]
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        done = {"id": rid, "usage": usage, "output": []}
        events.append(("response.completed", {"response": done}))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for event, data in events:
            data = {"type": event, **data}
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True


if __name__ == "__main__":
    Handler.out = Path(sys.argv[2])
    Handler.hold = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
