#!/usr/bin/env python3
"""A stand-in for the claude executable, for the paths the real one rarely takes.

Usage: fake_claude.py MODES [claude flags...]. It answers the initialize control request,
then, after each prompt, does what the comma-separated MODES say:

  echo   answer the prompt with a result line (the default)
  die    exit 3
  kill   kill itself with SIGKILL
  hang   sleep until killed
  ask    send a can_use_tool request ($FAKE_CLAUDE_TOOL, default Bash with
         {"command": "touch pwned"}), wait for its control_response, then answer
  lines  write the bytes of the file $FAKE_CLAUDE_LINES to stdout, then answer
  long   write one line of $FAKE_CLAUDE_LONG_MB MiB (default 70) in 1 MiB pieces
  spawn  start a grandchild `sleep 300` in the background first (its pid to
         $FAKE_CLAUDE_CHILDPID)
  stderr write the lines of $FAKE_CLAUDE_STDERR (JSON list of strings) to stderr
  withdraw  send the can_use_tool request of "ask", then after $FAKE_CLAUDE_WITHDRAW
         seconds (default 1) a control_cancel_request for it, and answer

With $FAKE_CLAUDE_ARGS it writes its arguments there as JSON; with $FAKE_CLAUDE_PIDFILE its
pid; with $FAKE_CLAUDE_LOG every line it receives is appended there.
"""

import json
import os
import signal
import subprocess
import sys
import time

QUESTIONS = {
    "questions": [
        {
            "question": "Which runtime?",
            "header": "Runtime",
            "options": [
                {"label": "Node", "description": "n"},
                {"label": "Bun", "description": "b"},
            ],
        }
    ]
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(text):
    send(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "num_turns": 1,
            "duration_ms": 5,
            "result": text,
        }
    )


def log(line):
    if os.environ.get("FAKE_CLAUDE_LOG"):
        with open(os.environ["FAKE_CLAUDE_LOG"], "a") as out:
            out.write(line.rstrip("\n") + "\n")


def ask():
    tool = os.environ.get("FAKE_CLAUDE_TOOL", "Bash")
    tool_input = QUESTIONS if tool == "AskUserQuestion" else {"command": "touch pwned"}
    request = {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input}
    send(
        {
            "type": "control_request",
            "request_id": "perm-1",
            "request": {**request, "tool_use_id": "toolu_fake"},
        }
    )
    for line in sys.stdin:
        log(line)
        message = json.loads(line)
        if message.get("type") == "control_response":
            return message["response"]["response"]
    sys.exit(0)


def withdraw():
    """Ask, then take the request back, as Claude Code does when a turn is aborted."""
    tool = os.environ.get("FAKE_CLAUDE_TOOL", "AskUserQuestion")
    tool_input = QUESTIONS if tool == "AskUserQuestion" else {"command": "touch pwned"}
    request = {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input}
    request_id = "perm-withdrawn"
    send({"type": "control_request", "request_id": request_id, "request": request})
    time.sleep(float(os.environ.get("FAKE_CLAUDE_WITHDRAW", "1")))
    send({"type": "control_cancel_request", "request_id": request_id})


def main():
    modes = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else ["echo"]
    if os.environ.get("FAKE_CLAUDE_ARGS"):
        with open(os.environ["FAKE_CLAUDE_ARGS"], "w") as out:
            json.dump(sys.argv[2:], out)
    if os.environ.get("FAKE_CLAUDE_PIDFILE"):
        with open(os.environ["FAKE_CLAUDE_PIDFILE"], "w") as out:
            out.write(str(os.getpid()))
    if "spawn" in modes:
        child = subprocess.Popen(["sleep", "300"])
        with open(os.environ["FAKE_CLAUDE_CHILDPID"], "w") as out:
            out.write(str(child.pid))
    if "stderr" in modes:
        for line in json.loads(os.environ["FAKE_CLAUDE_STDERR"]):
            sys.stderr.buffer.write(line.encode("utf-8", "surrogatepass") + b"\n")
        sys.stderr.flush()
    for line in sys.stdin:
        log(line)
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
        if message.get("type") != "user":
            continue  # a control_response to a request written by "lines"
        if "die" in modes:
            sys.exit(3)
        if "kill" in modes:
            os.kill(os.getpid(), signal.SIGKILL)
        if "hang" in modes:
            while True:
                time.sleep(1)
        text = message["message"]["content"]
        if "ask" in modes:
            decision = ask()
            text = f"{decision['behavior']}: {text}"
        if "withdraw" in modes:
            withdraw()
            text = f"withdrawn: {text}"
        if "lines" in modes:
            with open(os.environ["FAKE_CLAUDE_LINES"], "rb") as lines:
                sys.stdout.buffer.write(lines.read())
            sys.stdout.flush()
        if "long" in modes:
            piece = b"x" * (1024 * 1024)
            for _ in range(int(os.environ.get("FAKE_CLAUDE_LONG_MB", "70"))):
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.write(b"\n")
            sys.stdout.flush()
        result(f"echo: {text}")


if __name__ == "__main__":
    main()
