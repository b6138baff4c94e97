"""Fixtures from Python (README, "Recorded sessions"): make one, replay it, show the difference.

:mod:`askcli.runners.recordings` with the hosted sessions of :mod:`askcli.hosts.replaying`
(``askcli claude``, ``askcli acp``) registered, so that :func:`replay` replays every fixture.
"""

from __future__ import annotations

from .hosts.replaying import make_acp, make_claude, play_acp, play_claude
from .runners.recordings import (
    FORMAT,
    ReplayOutcome,
    diff,
    dumps,
    load,
    make,
    play,
    replay,
    save,
    source_text,
    typed_lines,
)

__all__ = [
    "FORMAT",
    "ReplayOutcome",
    "diff",
    "dumps",
    "load",
    "make",
    "make_acp",
    "make_claude",
    "play",
    "play_acp",
    "play_claude",
    "replay",
    "save",
    "source_text",
    "typed_lines",
]
