"""Who a question is for and who answers: the names of people and teams.

A question may be addressed to a person or a team (``--to``); an inbox answers as a person
(``--as``), who may answer the questions for anyone, for them and for their teams. A name
is a short printable word chosen by people, yet it reaches other people's screens: it is
checked here (:func:`checked_name`) and escaped wherever it is shown.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping, Sequence

from ..errors import UsageError
from ..escaping import visible
from .store.base import QueuedQuestion, QueueState

MAX_NAME = 64  # characters of a person's or team's name


def checked_name(name: str, what: str = "--to") -> str:
    """``name`` when it may name a person or a team: not empty, printable, at most
    :data:`MAX_NAME` characters; UsageError (one line, saying ``what``) otherwise."""
    if not name.strip():
        raise UsageError(f"{what}: a name may not be empty")
    if not name.isprintable():
        raise UsageError(f"{what}: {visible(name)!s} holds a character that is not printable")
    if len(name) > MAX_NAME:
        raise UsageError(f"{what}: a name has at most {MAX_NAME} characters, not {len(name)}")
    return name


def login_name() -> str:
    """The person at this terminal, as ``askcli inbox`` answers by default: the login name
    (``uid 1000`` where the system has none)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return f"uid {os.getuid()}"


def may_answer(question: QueuedQuestion, person: str, teams: Mapping[str, Sequence[str]]) -> bool:
    """Whether ``person`` may answer ``question``: it is for anyone, for them, or for a
    team of theirs."""
    to = question.to
    return to is None or to == person or person in teams.get(to, ())


def addressed(question: QueuedQuestion, teams: Mapping[str, Sequence[str]]) -> str | None:
    """``for bob``, ``for team ops`` (escaped); None for a question for anyone."""
    if question.to is None:
        return None
    team = "team " if question.to in teams else ""
    return f"for {team}{visible(question.to)}"


def note(question: QueuedQuestion, teams: Mapping[str, Sequence[str]]) -> str:
    """What a question's line adds about its people, escaped: `` (for bob, being answered
    by alice)``, and ``deferred`` for a call its agent deferred (Claude Code's ``defer``: it
    stopped, and takes the answer when resumed); empty for a question for anyone that nobody
    (named) answers."""
    parts = [addressed(question, teams)]
    if question.state is QueueState.ANSWERING and question.holder:
        parts.append(f"being answered by {visible(question.holder)}")
    if question.deferred is not None:
        parts.append("deferred: its agent stopped, and takes the answer when resumed")
    found = [part for part in parts if part]
    return f" ({', '.join(found)})" if found else ""


def not_for(question: QueuedQuestion, person: str, teams: Mapping[str, Sequence[str]]) -> str:
    """Why ``person`` may not answer ``question``: ``question #3 is for bob, not for alice``."""
    return f"question #{question.id} is {addressed(question, teams)}, not for {visible(person)}"
