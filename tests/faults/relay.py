"""A TCP relay between askcli and its PostgreSQL server that delays or cuts the conversation.

Run as a script (stdlib only) in the database's network namespace::

    python relay.py --listen 10.213.1.1:6000 [--listen ...] --to 127.0.0.1:5432 \\
        [--delay 0.1] [--cut-commit-of 'SQL PART' [--cut-commit-of 'OTHER PART']]

``--delay S`` holds every byte S seconds in each direction, order kept (0.1: a round trip
200 ms longer). ``--cut-commit-of`` reads PostgreSQL's wire protocol (the client's first
message is the untyped startup packet, so the URL must say ``sslmode=disable&gssencmode=
disable``; every later message, both ways, is one type byte and an int32 length that counts
itself): the first transaction whose statements hold every given part has its COMMIT's
CommandComplete forwarded to the client, and then the connection is cut, before the
ReadyForQuery that would follow: the server committed, the client never hears that it did.
Once only. It prints ``ready`` when it listens and ``cut N`` when it cut connection N.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import socket
import struct
import sys
import threading
import time
from typing import NamedTuple

CHUNK = 65536


class Endpoint(NamedTuple):
    host: str
    port: int


def endpoint(text: str) -> Endpoint:
    host, _, port = text.rpartition(":")
    return Endpoint(host, int(port))


class Cutter:
    """The one transaction to cut, shared by every connection: armed until it cut once."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.armed = bool(parts)
        self.lock = threading.Lock()

    def matches(self, sql: bytes) -> bool:
        return all(part in sql for part in self.parts)

    def take(self) -> bool:
        with self.lock:
            armed, self.armed = self.armed, False
            return armed


class Conversation:
    """One client's connection and the server's, and what the cutter needs of them."""

    def __init__(self, number: int, client: socket.socket, server: socket.socket) -> None:
        self.number = number
        self.client = client
        self.server = server
        self.hit = False  # the transaction under way ran a statement the cutter looks for
        self.statements: dict[bytes, bytes] = {}  # prepared statement name -> its SQL
        self.closed = threading.Event()

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _messages(buffer: bytearray, typed: bool) -> list[bytes]:
    """The whole messages at the start of ``buffer`` (taken out of it)."""
    found: list[bytes] = []
    while True:
        head = 5 if typed else 4
        if len(buffer) < head:
            return found
        (length,) = struct.unpack("!I", buffer[head - 4 : head])
        size = length + (1 if typed else 0)
        if len(buffer) < size:
            return found
        found.append(bytes(buffer[:size]))
        del buffer[:size]


def _cstring(data: bytes, start: int) -> tuple[bytes, int]:
    end = data.index(b"\0", start)
    return data[start:end], end + 1


def client_to_server(conv: Conversation, cutter: Cutter, delay: float) -> None:
    buffer = bytearray()
    started = False  # the startup packet (untyped) came
    out = _Delayed(conv.server, conv, delay)
    try:
        while True:
            data = conv.client.recv(CHUNK)
            if not data:
                break
            if cutter.armed:
                buffer += data
                if not started:
                    first = _messages(buffer, typed=False)
                    started = bool(first)
                for message in _messages(buffer, typed=True) if started else []:
                    _read_client(conv, cutter, message)
            out.send(data)
    except OSError:
        pass
    finally:
        out.close()


def _read_client(conv: Conversation, cutter: Cutter, message: bytes) -> None:
    kind = message[:1]
    try:
        if kind == b"Q":
            sql, _ = _cstring(message, 5)
        elif kind == b"P":
            name, at = _cstring(message, 5)
            sql, _ = _cstring(message, at)
            conv.statements[name] = sql
        elif kind == b"B":
            _portal, at = _cstring(message, 5)
            name, _ = _cstring(message, at)
            sql = conv.statements.get(name, b"")
        else:
            return
    except ValueError:
        return
    if cutter.matches(sql):
        conv.hit = True


def server_to_client(conv: Conversation, cutter: Cutter, delay: float) -> None:
    buffer = bytearray()
    out = _Delayed(conv.client, conv, delay)
    try:
        while True:
            data = conv.server.recv(CHUNK)
            if not data:
                break
            if not cutter.armed and not buffer:
                out.send(data)
                continue
            buffer += data
            ahead = bytearray()
            for message in _messages(buffer, typed=True):
                ahead += message
                kind = message[:1]
                commit = kind == b"C" and message[5:].rstrip(b"\0") == b"COMMIT"
                if commit and conv.hit and cutter.take():
                    out.send(bytes(ahead))  # the COMMIT's CommandComplete, then nothing
                    out.flush()
                    print(f"cut {conv.number}", flush=True)
                    conv.close()
                    return
                if kind == b"Z" and message[5:6] == b"I":  # idle: the transaction is over
                    conv.hit = False
            if ahead:
                out.send(bytes(ahead))
            if not cutter.armed and buffer:
                out.send(bytes(buffer))
                buffer.clear()
    except OSError:
        pass
    finally:
        out.close()


class _Delayed:
    """Bytes sent to ``sock`` ``delay`` seconds after they were handed over, in order."""

    def __init__(self, sock: socket.socket, conv: Conversation, delay: float) -> None:
        self.sock = sock
        self.conv = conv
        self.delay = delay
        self.pending: queue.Queue[tuple[float, bytes] | None] = queue.Queue()
        self.done = threading.Event()
        self.thread: threading.Thread | None = None
        if delay > 0:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()

    def send(self, data: bytes) -> None:
        if self.thread is None:
            self.sock.sendall(data)
        else:
            self.pending.put((time.monotonic() + self.delay, data))

    def flush(self) -> None:
        if self.thread is not None:
            self.pending.put(None)
            self.thread.join(5 + self.delay)
            self.thread = None

    def close(self) -> None:
        self.flush()
        self.conv.close()

    def _run(self) -> None:
        try:
            while True:
                item = self.pending.get()
                if item is None:
                    return
                due, data = item
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                self.sock.sendall(data)
        except OSError:
            self.conv.close()


def serve(listen: list[Endpoint], to: Endpoint, delay: float, cutter: Cutter) -> None:
    numbers = iter(range(1, 1 << 30))
    lock = threading.Lock()

    def accepting(sock: socket.socket) -> None:
        while True:
            client, _ = sock.accept()
            try:
                server = socket.create_connection(to, timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with lock:
                conv = Conversation(next(numbers), client, server)
            for pump in (client_to_server, server_to_client):
                threading.Thread(target=pump, args=(conv, cutter, delay), daemon=True).start()

    sockets = []
    for where in listen:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(512)
        sockets.append(sock)
    for sock in sockets:
        threading.Thread(target=accepting, args=(sock,), daemon=True).start()
    print("ready", flush=True)
    sys.stdin.read()  # until the harness closes our stdin (or dies)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", action="append", type=endpoint, required=True)
    parser.add_argument("--to", type=endpoint, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--cut-commit-of", action="append", default=[])
    args = parser.parse_args(argv)
    cutter = Cutter([part.encode() for part in args.cut_commit_of])
    serve(args.listen, args.to, args.delay, cutter)


if __name__ == "__main__":
    main()
