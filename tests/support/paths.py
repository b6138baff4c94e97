"""Where things are: the repository, its examples, the stand-ins of tests/peers/ and the corpus."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PEERS = ROOT / "tests" / "peers"  # stand-ins run as processes
CORPUS = ROOT / "tests" / "corpus"  # real calls of Claude Code sessions


LIBRARY = EXAMPLES / "library.json"


LOGIN = EXAMPLES / "login.json"
