#!/usr/bin/env python3
"""A loopback stand-in for the Anthropic Messages API, for end-to-end tests against the real Claude Code.

Usage: mock_anthropic.py --port 18765 --scenario turns.json --log requests.jsonl

(askcli's copy of ../shared/peers/mock_anthropic.py; a turn may also say "delay": seconds to
wait before answering, so that a test can interrupt Claude Code while it waits. With
--tickets TOOL, a tool result saying the user has not answered yet, with a ticket, is
answered as a model does when told so: a call of TOOL with {"ticket": ...} (after a word to
the user when Claude Code reminds the model that the user has not heard from it), no
scripted turn taken; bench/mcp_wait.py's Claude Code waits so.)

The scenario is a JSON list of assistant turns, each {"content": [blocks...], "stop_reason": "tool_use"|"end_turn"}
where blocks are {"type":"text","text":...} or {"type":"tool_use","id":...,"name":...,"input":{...}}.
Each request that carries a `tools` list (the agent loop) gets the next turn; when the turns run out, or for
side requests without tools, the reply is a short text turn ending the conversation. Streaming (SSE) and
plain JSON replies are both served. Every request body is appended to the log as one JSON line, so a test
can read exactly what Claude Code sent back to the model (the tool_result texts). Binds 127.0.0.1 only.
Point Claude Code at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=anything.
"""

import argparse
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def events(msg_id, turn):
    out = [
        {
            "type": "message_start",
            "message": {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-mock",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }
    ]
    for i, block in enumerate(turn["content"]):
        if block["type"] == "text":
            out.append(
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            out.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "text_delta", "text": block["text"]},
                }
            )
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out.append({"type": "content_block_start", "index": i, "content_block": start})
            out.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                }
            )
        out.append({"type": "content_block_stop", "index": i})
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": turn["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 1},
        }
    )
    out.append({"type": "message_stop"})
    return out


STILL_WAITING = "Still waiting for your answer in your askcli inbox."
STILL = re.compile(r"^The user has not answered yet\b.*?\(ticket (q_[A-Za-z0-9_-]+)\)", re.S)


def ticket_in(req):
    """The ticket of a still-waiting tool result since the model's last turn, if any, and
    whether a text came after it (Claude Code's "The user hasn't heard from you in a while"
    system message, which a model answers with a word to the user)."""
    ticket, nudged = None, False
    for message in reversed(req.get("messages") or []):
        if message.get("role") == "assistant":
            break
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in reversed(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and ticket is None:
                nudged = True
            if block.get("type") != "tool_result" or ticket:
                continue
            parts = block.get("content")
            if isinstance(parts, list):
                parts = "".join(p.get("text", "") for p in parts if isinstance(p, dict))
            found = STILL.search(parts) if isinstance(parts, str) else None
            ticket = found.group(1) if found else None
    return ticket, nudged


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--tickets", metavar="TOOL", help="call TOOL with a still-waiting ticket")
    a = ap.parse_args()
    turns = json.load(open(a.scenario))
    log = open(a.log, "a")
    lock = threading.Lock()
    state = {"next": 0, "n": 0}
    closing = {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code, ctype, body):
            self.send_response(code)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.reply(200, "application/json", b'{"data": []}')

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                req = json.loads(raw)
            except ValueError:
                req = {}
            with lock:
                log.write(json.dumps({"path": self.path, "request": req}) + "\n")
                log.flush()
                if "count_tokens" in self.path:
                    return self.reply(200, "application/json", b'{"input_tokens": 1}')
                turn = closing
                ticket, nudged = ticket_in(req) if a.tickets and req.get("tools") else (None, False)
                if ticket:
                    call = {"type": "tool_use", "id": "toolu_ticket%d" % state["n"]}
                    call.update(name=a.tickets, input={"ticket": ticket})
                    said = [{"type": "text", "text": STILL_WAITING}] if nudged else []
                    turn = {"content": [*said, call], "stop_reason": "tool_use"}
                elif req.get("tools") and state["next"] < len(turns):
                    turn = turns[state["next"]]
                    state["next"] += 1
                state["n"] += 1
                msg_id = "msg_mock%d" % state["n"]
            if turn.get("delay"):
                time.sleep(float(turn["delay"]))
            evs = events(msg_id, turn)
            if req.get("stream"):
                body = "".join(
                    "event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in evs
                ).encode()
                return self.reply(200, "text/event-stream", body)
            msg = dict(evs[0]["message"], content=turn["content"], stop_reason=turn["stop_reason"])
            self.reply(200, "application/json", json.dumps(msg).encode())

    try:
        ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()
    except KeyboardInterrupt:  # Ctrl-C at a terminal it shares: ended, quietly
        pass


if __name__ == "__main__":
    main()
