"""In-process tests, one folder per layer of askcli/ (docs/development.md, "Layers")."""
