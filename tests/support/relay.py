"""A TCP relay on loopback between askcli and a server, to make a slow or broken network
without root: ``Relay(port)`` listens on ``127.0.0.1:relay.port`` and forwards each
connection to ``127.0.0.1:port``.

- ``delay``: seconds each chunk is held in each direction before it is passed on (a round
  trip takes twice as long); chunks keep their order and are not throttled otherwise.
- ``partition()``: nothing is passed on any more, either way, as if every packet were
  dropped: the connections stay open, what is sent waits (a query hangs), and a new
  connection is accepted but gets no answer (a connect times out). ``heal()`` passes on
  everything held, as TCP's retransmissions would.
- ``cut()``: the server is out of reach at once: every connection is closed and new ones
  are refused until ``heal()``.

Not a test module: the tests import it. Its threads are daemons; ``close()`` ends them.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections import deque


class Relay:
    def __init__(self, port: int, delay: float = 0.0) -> None:
        self.target = port
        self.delay = delay
        self._open = threading.Event()  # set: chunks are passed on
        self._open.set()
        self._cut = False
        self._closed = False
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, name="relay-accept", daemon=True).start()

    def url(self, url: str, port: int) -> str:
        """``url`` (naming ``127.0.0.1:port``) through the relay."""
        return url.replace(f"127.0.0.1:{port}", f"127.0.0.1:{self.port}")

    def partition(self) -> None:
        self._open.clear()

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            self._open.clear()
            found, self._sockets = self._sockets, set()
        for sock in found:
            _close(sock)

    def heal(self) -> None:
        with self._lock:
            self._cut = False
        self._open.set()

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._open.set()
        _close(self._listener)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refused = self._cut
            if refused:
                _close(client)
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._sockets.update((client, server))
            for src, dst in ((client, server), (server, client)):
                self._pipe(src, dst)

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        """Two threads: one reads ``src`` and stamps each chunk, one passes it to ``dst``
        when it is due (and the relay is open)."""
        held: deque[tuple[float, bytes]] = deque()
        ready = threading.Condition()

        def read() -> None:
            while True:
                try:
                    chunk = src.recv(65536)
                except OSError:
                    chunk = b""
                with ready:
                    held.append((time.monotonic() + self.delay, chunk))
                    ready.notify()
                if not chunk:
                    return

        def write() -> None:
            while True:
                with ready:
                    ready.wait_for(lambda: bool(held))
                    due, chunk = held.popleft()
                pause = due - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                self._open.wait()
                if not chunk or self._closed:
                    _close(dst)
                    _close(src)
                    return
                try:
                    dst.sendall(chunk)
                except OSError:
                    _close(src)
                    return

        threading.Thread(target=read, name="relay-read", daemon=True).start()
        threading.Thread(target=write, name="relay-write", daemon=True).start()


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
