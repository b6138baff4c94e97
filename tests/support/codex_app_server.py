"""The real Codex app-server (``codex app-server``, JSON-RPC on stdio) as its client drives it,
against the scripted stand-in Responses API: start a thread and a turn, take the server's
requests to the client (item/tool/requestUserInput, the approvals) and answer them."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.support.codex import CODEX


class AppServer:
    """``codex app-server`` on stdio: requests out, every message in kept in a queue."""

    def __init__(self, env: dict[str, str], cwd: Path, stderr: Path, *args: str) -> None:
        self.err = stderr.open("w")
        self.proc = subprocess.Popen(
            [str(CODEX), "app-server", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            cwd=cwd,
            env=env,
            text=True,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self.messages.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 30) -> Any:
        """Send a request; its result once it comes (other messages are kept in ``seen``)."""
        self.next_id += 1
        sent = self.next_id
        self.send({"jsonrpc": "2.0", "id": sent, "method": method, "params": params})
        while True:
            message = self.wait(timeout)
            if message.get("id") == sent and "method" not in message:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message["result"]

    def wait(self, timeout: float = 30) -> dict[str, Any]:
        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"codex app-server sent nothing; it sent: {self.seen}") from None
        self.seen.append(message)
        return message

    def server_request(self, method: str, timeout: float = 60) -> dict[str, Any]:
        """The next request of the server to its client with ``method`` (the rest passed
        over)."""
        while True:
            message = self.wait(timeout)
            if message.get("method") == method and "id" in message:
                return message

    def notification(self, method: str, timeout: float = 60) -> dict[str, Any]:
        while True:
            message = self.wait(timeout)
            if message.get("method") == method and "id" not in message:
                return message

    def initialize(self) -> None:
        """initialize, with the experimental API on (collaboration modes, availableDecisions)."""
        info = {"name": "askcli-tests", "version": "1"}
        self.request("initialize", {"clientInfo": info, "capabilities": {"experimentalApi": True}})
        self.send({"jsonrpc": "2.0", "method": "initialized"})

    def trust_hooks(self, cwd: Path) -> list[dict[str, Any]]:
        """Trust every hook configured for ``cwd``, as Codex's /hooks does (its current hash
        written as ``hooks.state."KEY".trusted_hash``): the hooks."""
        listed = self.request("hooks/list", {"cwds": [str(cwd)]})["data"]
        hooks = [hook for entry in listed for hook in entry["hooks"]]
        for hook in hooks:
            where = f"hooks.state.{json.dumps(hook['key'])}.trusted_hash"
            change = {"keyPath": where, "value": hook["currentHash"], "mergeStrategy": "replace"}
            self.request("config/value/write", change)
        return hooks

    def start_turn(self, cwd: Path, text: str, mode: str = "default") -> str:
        """A thread in ``cwd`` and a turn saying ``text`` in collaboration ``mode``, after
        :meth:`initialize` (done here when it was not): the thread's id."""
        if self.next_id == 0:
            self.initialize()
        thread = self.request("thread/start", {"cwd": str(cwd)})["thread"]["id"]
        collaboration = {"mode": mode, "settings": {"model": "gpt-5.4"}}
        turn = {
            "threadId": thread,
            "input": [{"type": "text", "text": text}],
            "collaborationMode": collaboration,
        }
        self.request("turn/start", turn)
        return str(thread)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.err.close()
