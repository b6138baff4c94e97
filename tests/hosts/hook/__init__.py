"""askcli hook: Claude Code's hooks."""
