"""Running a source: ask, check, record and replay."""
