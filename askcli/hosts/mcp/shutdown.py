"""How ``askcli mcp`` ends when its client goes away or a signal stops it, whatever the
client's pipes do: never a traceback, never a server left hanging."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable, Iterable

from ...inbox.store import Store

GRACE = 1.0  # seconds a stopped server gives its connections before it ends regardless


def client_gone(exc: BaseException) -> bool:
    """True when ``exc`` (an exception group's leaves, too) only says that the client's end
    of a pipe or connection is closed: EPIPE, ECONNRESET."""
    leaves = getattr(exc, "exceptions", None)
    if isinstance(leaves, tuple) and leaves:
        return all(client_gone(leaf) for leaf in leaves)
    return isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.ECONNRESET)


def _settled(ids: Callable[[], Iterable[int]]) -> list[int]:
    """``ids()`` sorted, read again if the main thread changed them meanwhile."""
    for _ in range(10):
        try:
            return sorted(ids())
        except RuntimeError:  # the set changed size while it was read
            continue
    return []


class Deadline:
    """After a signal, the server has :data:`GRACE` seconds to end by itself; a write to a
    client that reads nothing blocks in a thread no cancellation reaches, so then the
    questions it queued are withdrawn from a connection of this thread and the process
    exits with ``status``."""

    def __init__(self) -> None:
        self._timer: threading.Timer | None = None

    def start(
        self,
        status: int,
        opened: Store,
        mine: Callable[[], Iterable[int]],
        say: Callable[[str], None],
    ) -> None:
        def abandon() -> None:
            store = opened.reopen()  # a connection of this thread
            for qid in _settled(mine):
                if store.withdraw(qid):
                    say(f"question {qid} was withdrawn: this server ends")
            say("the client reads nothing: ended without waiting for it")
            os._exit(status)

        if self._timer is None:
            self._timer = threading.Timer(GRACE, abandon)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
