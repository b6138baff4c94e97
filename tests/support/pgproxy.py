"""A TCP proxy in front of a PostgreSQL server that loses an acknowledgement on purpose.

It forwards both ways, reading the server's messages (after start-up each is one type byte
and a 4-byte length); when armed with :meth:`CutProxy.cut_after_commits`, it forwards the
server's ``CommandComplete`` of the Nth ``COMMIT`` from then on to nobody: it closes both
connections instead, so the server has committed and the client never hears it. A client
must connect with ``sslmode=disable`` and ``gssencmode=disable`` (no encryption to read
through). Only 127.0.0.1 is listened on and connected to.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from urllib.parse import urlsplit, urlunsplit


class CutProxy:
    """Listens on 127.0.0.1 at :attr:`port` and forwards to ``127.0.0.1:server_port``."""

    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._commits_left: int | None = None  # COMMITs to let through before the cut
        self.cuts = 0  # connections cut so far
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="pgproxy-accept").start()

    def url(self, url: str) -> str:
        """``url`` (a postgresql:// URL of the server) through this proxy, unencrypted."""
        parts = urlsplit(url)
        user = f"{parts.username}@" if parts.username else ""
        query = "sslmode=disable&gssencmode=disable"
        return urlunsplit((parts.scheme, f"{user}127.0.0.1:{self.port}", parts.path, query, ""))

    def cut_after_commits(self, commits: int = 1) -> None:
        """Cut the connection that carries the ``commits``-th COMMIT acknowledgement from now
        (1: the next one), instead of forwarding that acknowledgement."""
        with self._lock:
            self._commits_left = commits

    def disarm(self) -> None:
        with self._lock:
            self._commits_left = None

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._listener.close()
        for pair in list(self._pairs):
            _close(*pair)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.server_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            self._pairs.append((client, server))
            threading.Thread(target=self._up, args=(client, server), daemon=True).start()
            threading.Thread(target=self._down, args=(client, server), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket) -> None:
        """Client to server, as it comes."""
        try:
            while data := client.recv(65536):
                server.sendall(data)
        except OSError:
            pass
        _close(client, server)

    def _down(self, client: socket.socket, server: socket.socket) -> None:
        """Server to client, message by message, watching for COMMIT's CommandComplete."""
        buffer = b""
        try:
            while data := server.recv(65536):
                buffer += data
                out = b""
                while len(buffer) >= 5:
                    (length,) = struct.unpack("!I", buffer[1:5])
                    if len(buffer) < 1 + length:
                        break
                    message, buffer = buffer[: 1 + length], buffer[1 + length :]
                    commit = message[:1] == b"C" and message[5:].rstrip(b"\0") == b"COMMIT"
                    if commit and self._commit_cut():
                        client.sendall(out)
                        self.cuts += 1
                        _close(client, server)
                        return
                    out += message
                if out:
                    client.sendall(out)
        except OSError:
            pass
        _close(client, server)

    def _commit_cut(self) -> bool:
        with self._lock:
            if self._commits_left is None:
                return False
            self._commits_left -= 1
            if self._commits_left > 0:
                return False
            self._commits_left = None
            return True


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()
