#!/usr/bin/env python3
"""A loopback stand-in for the OpenAI Responses API (streaming SSE), for end-to-end tests
against the real Codex (codex-acp): openai_responses_standin.py (the Codex CLI's, after
../shared/peers/) made to follow a script, as tests/peers/mock_anthropic.py does.

Usage: responses_scripted.py --port 18765 --scenario turns.json --log requests.jsonl

The scenario is a JSON list of turns, one per POST .../responses, in order; a turn is a list of
output items: ``{"call": NAME, "arguments": {...}}`` (a function call; NAME may be
``NAMESPACE.NAME``) or ``{"text": TEXT}`` (an assistant message). When the turns run out the
reply is the text "done.". A request offering no tools (codex-acp 2.x asks for the session's
title so) takes no turn: its reply is "Stand-in title". Every request body is appended to the
log as one JSON line, so a test can read what Codex sent back to the model (the
function_call_output items). Binds 127.0.0.1.
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from openai_responses_standin import ResponsesApi  # beside this file

USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}


def output_items(turn: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i, step in enumerate(turn):
        if "call" in step:
            namespace, _, name = str(step["call"]).rpartition(".")
            item = {
                "type": "function_call",
                "id": f"fc_{n}_{i}",
                "call_id": f"call_{n}_{i}",
                "name": name,
                "arguments": json.dumps(step.get("arguments", {})),
                "status": "completed",
            }
            if namespace:
                item["namespace"] = namespace
        else:
            item = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{n}_{i}",
                "content": [{"type": "output_text", "text": step["text"], "annotations": []}],
            }
        items.append(item)
    return items


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    with open(args.scenario, encoding="utf-8") as f:
        turns: list[list[dict[str, Any]]] = json.load(f)
    counter = itertools.count(1)
    lock = threading.Lock()

    class Handler(ResponsesApi):
        def log_message(self, format: str, *args: Any) -> None:
            return

        reply_json = ResponsesApi._json

        def do_POST(self) -> None:
            body = json.loads(self.raw_body())
            with lock:
                n = next(counter)
                with open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"path": self.path, "request": body}) + "\n")
                if not body.get("tools"):  # a side request (codex-acp 2.x: the title)
                    turn = [{"text": "Stand-in title"}]
                else:
                    turn = turns.pop(0) if turns else [{"text": "done."}]
            if not self.path.rstrip("/").endswith("/responses"):
                self.reply_json(404, {"error": {"message": "not here"}})
                return
            rid = f"resp_{n}"
            events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": rid}}]
            for index, item in enumerate(output_items(turn, n)):
                if item["type"] == "message":
                    text = item["content"][0]["text"]
                    events.append(
                        {
                            "type": "response.output_item.added",
                            "output_index": index,
                            "item": {**item, "content": []},
                        }
                    )
                    events.append(
                        {
                            "type": "response.output_text.delta",
                            "item_id": item["id"],
                            "output_index": index,
                            "content_index": 0,
                            "delta": text,
                        }
                    )
                events.append(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )
            events.append(
                {
                    "type": "response.completed",
                    "response": {"id": rid, "usage": USAGE, "output": []},
                }
            )
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for event in events:
                self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
