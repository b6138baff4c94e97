"""The JSON documents askcli ships in ``askcli/wire/data/``, each file read once, when first
asked for (``askcli schema`` prints them; nothing else reads them)."""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from typing import Any


@functools.cache
def _text(name: str) -> str:
    return (files(__package__) / "data" / name).read_text(encoding="utf-8")


def load(name: str) -> Any:
    """The document in ``data/NAME``, a fresh copy for each caller to change as it likes."""
    return json.loads(_text(name))
