#!/usr/bin/env python3
"""A stand-in for the claude executable, for the paths the real one rarely takes.

Usage: fake_claude.py MODE [claude flags...]. It answers the initialize control request,
then, by MODE: "die" exits 3 after the first prompt; "hang" sleeps until killed (writing its
pid to $FAKE_CLAUDE_PIDFILE first); "echo" answers each prompt with a result line.
With $FAKE_CLAUDE_ARGS it writes its arguments there as JSON.
"""

import json
import os
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    mode = sys.argv[1]
    if os.environ.get("FAKE_CLAUDE_ARGS"):
        with open(os.environ["FAKE_CLAUDE_ARGS"], "w") as out:
            json.dump(sys.argv[2:], out)
    if os.environ.get("FAKE_CLAUDE_PIDFILE"):
        with open(os.environ["FAKE_CLAUDE_PIDFILE"], "w") as out:
            out.write(str(os.getpid()))
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "control_request":
            if message["request"]["subtype"] == "initialize":
                response = {
                    "subtype": "success",
                    "request_id": message["request_id"],
                    "response": {},
                }
                send({"type": "control_response", "response": response})
            continue
        if mode == "die":
            sys.exit(3)
        if mode == "hang":
            while True:
                time.sleep(1)
        text = message["message"]["content"]
        send(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "num_turns": 1,
                "duration_ms": 5,
                "result": f"echo: {text}",
            }
        )


if __name__ == "__main__":
    main()
