"""The repository itself: the layers, the docs and their examples, packaging, CI, the
Makefile, and the test suite's own structure and PostgreSQL cluster."""
