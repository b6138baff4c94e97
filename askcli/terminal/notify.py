"""Attention: a bell or a terminal notification when a question starts waiting.

The bytes are askcli's own and fixed: the notification text is :data:`TEXT`, never anything
a model wrote, so nothing from a call can reach the terminal raw through here. Under tmux
(``$TMUX``) or GNU screen (``$STY``) a notification is wrapped in the multiplexer's DCS
passthrough (every ESC doubled for tmux); the bell is not, as tmux and screen handle a bell
themselves (and drop a passthrough they are not set to allow).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import NamedTuple

TITLE = "askcli"
BODY = "a question is waiting"
TEXT = f"{TITLE}: {BODY}"
BEL = "\x07"
ESC = "\x1b"


class NotifyMode(enum.Enum):
    """``--notify``: how to ask for the person's attention."""

    AUTO = "auto"  # chosen by the terminal (:func:`pick`)
    BELL = "bell"  # BEL
    OSC9 = "osc9"  # ESC ] 9 ; text BEL (iTerm2, WezTerm, ghostty, kitty)
    OSC777 = "osc777"  # ESC ] 777 ; notify ; title ; body BEL (foot, urxvt, WezTerm, ghostty)
    NONE = "none"


class Wrap(enum.Enum):
    """The terminal multiplexer a notification has to pass through."""

    NONE = "none"
    TMUX = "tmux"
    SCREEN = "screen"


_SEQUENCES = {
    NotifyMode.BELL: BEL,
    NotifyMode.OSC9: f"{ESC}]9;{TEXT}{BEL}",
    NotifyMode.OSC777: f"{ESC}]777;notify;{TITLE};{BODY}{BEL}",
}
# what each terminal is known to show: by $TERM_PROGRAM, by $TERM, by a variable it sets
# (these last survive inside tmux, where $TERM_PROGRAM and $TERM are tmux's own)
_BY_PROGRAM = {"iterm.app": NotifyMode.OSC9, "wezterm": NotifyMode.OSC9, "ghostty": NotifyMode.OSC9}
_BY_TERM = {"xterm-kitty": NotifyMode.OSC9, "xterm-ghostty": NotifyMode.OSC9}
_BY_TERM_PREFIX = {"foot": NotifyMode.OSC777, "rxvt-unicode": NotifyMode.OSC777}
_BY_VARIABLE = {
    "ITERM_SESSION_ID": NotifyMode.OSC9,
    "WEZTERM_PANE": NotifyMode.OSC9,
    "GHOSTTY_RESOURCES_DIR": NotifyMode.OSC9,
    "KITTY_WINDOW_ID": NotifyMode.OSC9,
}


class Notice(NamedTuple):
    """A resolved ``--notify``: what to write and through which multiplexer."""

    mode: NotifyMode
    wrap: Wrap = Wrap.NONE

    @property
    def sequence(self) -> str:
        """The bytes to write: built from :data:`TEXT` alone, never from a call."""
        seq = _SEQUENCES.get(self.mode, "")
        if not seq or self.mode is NotifyMode.BELL:
            return seq
        if self.wrap is Wrap.TMUX:
            return f"{ESC}Ptmux;{seq.replace(ESC, ESC + ESC)}{ESC}\\"
        if self.wrap is Wrap.SCREEN:
            return f"{ESC}P{seq}{ESC}\\"
        return seq


def pick(env: Mapping[str, str]) -> NotifyMode:
    """``auto``: the notification the terminal in ``env`` is known to show, else the bell."""
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if env.get("LC_TERMINAL", "").lower() == "iterm2":  # iTerm2 sends it over ssh
        return NotifyMode.OSC9
    if program in _BY_PROGRAM:
        return _BY_PROGRAM[program]
    if program and program not in ("tmux", "screen"):  # a terminal that says what it is
        return NotifyMode.BELL
    if term in _BY_TERM:
        return _BY_TERM[term]
    for prefix, mode in _BY_TERM_PREFIX.items():
        if term.startswith(prefix):
            return mode
    for name, mode in _BY_VARIABLE.items():
        if env.get(name):
            return mode
    return NotifyMode.BELL


def resolve(mode: NotifyMode, env: Mapping[str, str]) -> Notice | None:
    """What to write for ``mode`` at a terminal described by ``env``; None for nothing
    (``none``, or ``TERM=dumb``: a terminal that takes no control sequences)."""
    if env.get("TERM") == "dumb":
        return None
    if mode is NotifyMode.AUTO:
        mode = pick(env)
    if mode is NotifyMode.NONE:
        return None
    if env.get("TMUX"):
        return Notice(mode, Wrap.TMUX)
    if env.get("STY"):
        return Notice(mode, Wrap.SCREEN)
    return Notice(mode)
