"""The JSON documents askcli ships in ``askcli/wire/data/``, read when asked for (``askcli
schema`` prints them; nothing else reads them)."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any


def load(name: str) -> Any:
    """The document in ``data/NAME``."""
    return json.loads((files(__package__) / "data" / name).read_text(encoding="utf-8"))
