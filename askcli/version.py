"""askcli's version, on the ground floor so that every layer can name it."""

from __future__ import annotations

__version__ = "0.1.0.dev0"
