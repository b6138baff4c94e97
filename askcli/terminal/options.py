"""The settings of one run, in one immutable value (as httpie's ``Environment`` holds a run's
streams and config apart from what acts on them).

:class:`RunOptions` is made where the run is set up (the command line, a fixture, the Python
API) and carried by the :class:`~askcli.terminal.conversation.Conversation`. A setting that
changes during a run (the session of each inbox question, what Claude Code said it supports,
the ``always`` of ``askcli claude``) is a new value made with ``options._replace(...)`` and
handed on in a new view of the conversation (:meth:`Conversation.with_options`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..wire.wording.base import CLAUDE_CODE_2_1_88, Wording

if TYPE_CHECKING:
    from .notify import Notice


class TodoKeeper(Protocol):
    """Where the TodoWrite lists are kept between calls
    (:class:`askcli.tools.todo_store.TodoStore`): the options only carry it to the tools
    that keep them."""

    notes: list[str]  # what went wrong keeping them, to be said to the person
    interrupted: bool  # a signal came while they were read or written

    def replace(self, key: str, todos: list[dict[str, Any]]) -> list[dict[str, Any]]: ...

    def batch(
        self, report: Callable[[str], None] | None = None
    ) -> AbstractContextManager[None]: ...


class RunOptions(NamedTuple):
    """What a run knows besides its streams (a NamedTuple: immutable, and cheaper to define
    at start-up than a dataclass).

    ``timeout`` is ``--timeout``. ``calls_follow``: the answers share a stream with the
    calls, so a line beginning with ``{`` where a command is expected means this call's
    answers ran out and the next call begins. ``todos`` keeps the TodoWrite state (None:
    not kept) and ``session`` is the ``--session`` id (an inbox: the asking agent's).
    ``journal_file`` (``--journal``) keeps every answer as it is given; without it,
    ``journal_dir`` does for a person at a terminal. ``quiet``: nobody can see the screens
    (stderr is ``/dev/null``), so they need not be drawn. ``notice`` is ``--notify``,
    resolved (None: nobody is to be called). ``wording`` words AskUserQuestion's results
    (``--wording``). ``capabilities``: what the asking Claude Code said it supports
    (system/init, the initialize response). ``permission_always``: the permission prompt
    offers "always" (``askcli claude``). ``settle``: where a finished call's journal
    entries are to be dropped later, once its answer is known to have been delivered (the
    inbox: when the queue took it), instead of at once (None). ``ended``: why no answer
    came when the answer lines end (None: the input ended; the inbox's askers say why their
    question went unanswered).
    """

    timeout: float | None = None
    calls_follow: bool = False
    todos: TodoKeeper | None = None
    session: str | None = None
    journal_file: Path | None = None
    journal_dir: Path | None = None
    quiet: bool = False
    notice: Notice | None = None
    wording: Wording = CLAUDE_CODE_2_1_88
    capabilities: frozenset[str] = frozenset()
    permission_always: bool = False
    settle: list[Callable[[], None]] | None = None
    ended: str | None = None

    def told(self, capabilities: Iterable[str]) -> RunOptions:
        """These options, with the ``capabilities`` Claude Code said it supports added."""
        return self._replace(capabilities=self.capabilities | frozenset(capabilities))
