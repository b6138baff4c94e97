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


class Mode(enum.Enum):
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
    Mode.BELL: BEL,
    Mode.OSC9: f"{ESC}]9;{TEXT}{BEL}",
    Mode.OSC777: f"{ESC}]777;notify;{TITLE};{BODY}{BEL}",
}
# what each terminal is known to show: by $TERM_PROGRAM, by $TERM, by a variable it sets
# (these last survive inside tmux, where $TERM_PROGRAM and $TERM are tmux's own)
_BY_PROGRAM = {"iterm.app": Mode.OSC9, "wezterm": Mode.OSC9, "ghostty": Mode.OSC9}
_BY_TERM = {"xterm-kitty": Mode.OSC9, "xterm-ghostty": Mode.OSC9}
_BY_TERM_PREFIX = {"foot": Mode.OSC777, "rxvt-unicode": Mode.OSC777}
_BY_VARIABLE = {
    "ITERM_SESSION_ID": Mode.OSC9,
    "WEZTERM_PANE": Mode.OSC9,
    "GHOSTTY_RESOURCES_DIR": Mode.OSC9,
    "KITTY_WINDOW_ID": Mode.OSC9,
}


class Notice(NamedTuple):
    """A resolved ``--notify``: what to write and through which multiplexer."""

    mode: Mode
    wrap: Wrap = Wrap.NONE

    @property
    def sequence(self) -> str:
        """The bytes to write: built from :data:`TEXT` alone, never from a call."""
        seq = _SEQUENCES.get(self.mode, "")
        if not seq or self.mode is Mode.BELL:
            return seq
        if self.wrap is Wrap.TMUX:
            return f"{ESC}Ptmux;{seq.replace(ESC, ESC + ESC)}{ESC}\\"
        if self.wrap is Wrap.SCREEN:
            return f"{ESC}P{seq}{ESC}\\"
        return seq


def pick(env: Mapping[str, str]) -> Mode:
    """``auto``: the notification the terminal in ``env`` is known to show, else the bell."""
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if env.get("LC_TERMINAL", "").lower() == "iterm2":  # iTerm2 sends it over ssh
        return Mode.OSC9
    if program in _BY_PROGRAM:
        return _BY_PROGRAM[program]
    if program and program not in ("tmux", "screen"):  # a terminal that says what it is
        return Mode.BELL
    if term in _BY_TERM:
        return _BY_TERM[term]
    for prefix, mode in _BY_TERM_PREFIX.items():
        if term.startswith(prefix):
            return mode
    for name, mode in _BY_VARIABLE.items():
        if env.get(name):
            return mode
    return Mode.BELL


def resolve(mode: Mode, env: Mapping[str, str]) -> Notice | None:
    """What to write for ``mode`` at a terminal described by ``env``; None for nothing
    (``none``, or ``TERM=dumb``: a terminal that takes no control sequences)."""
    if env.get("TERM") == "dumb":
        return None
    if mode is Mode.AUTO:
        mode = pick(env)
    if mode is Mode.NONE:
        return None
    if env.get("TMUX"):
        return Notice(mode, Wrap.TMUX)
    if env.get("STY"):
        return Notice(mode, Wrap.SCREEN)
    return Notice(mode)
