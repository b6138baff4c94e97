# askcli: every target sets up what it needs in .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE ?= examples/login.json
CLAUDE_CODE := .cache/claude-code/node_modules/.bin/claude

.DEFAULT_GOAL := help
.PHONY: help install claude-code run test fuzz lint bench clean

help: ## list the targets
	@grep -E '^[a-z][a-z0-9_-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "make: '$(PYTHON) -m venv' failed; install Python's venv module (Debian: apt-get install python3-venv)" >&2; \
	  exit 1; }

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	$(BIN)/python -m compileall -q askcli  # as pip does for an installed package
	touch $@

$(VENV)/.dev: $(VENV)/.test
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

install: $(VENV)/.test ## create .venv and install askcli with its test tools

run: install ## answer the bundled example call at this terminal
	@$(BIN)/askcli ask $(EXAMPLE); echo "(askcli exited with status $$?)" >&2

$(CLAUDE_CODE):
	@if command -v npm >/dev/null 2>&1; then \
	  npm install --prefix .cache/claude-code --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code \
	    || echo "make: npm could not install Claude Code: the tests against it will be skipped" >&2; \
	else echo "make: npm not found: the tests against the real Claude Code will be skipped" >&2; fi

claude-code: $(CLAUDE_CODE) ## install the real Claude Code (npm) for the tests, once

test: install claude-code ## run the whole test suite
	$(BIN)/python -m pytest

fuzz: install ## the fuzz suites with ten times the cases of make test
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_fuzz.py

lint: $(VENV)/.dev ## ruff and mypy
	$(BIN)/ruff check askcli tests bench
	$(BIN)/ruff format --check askcli tests bench
	$(BIN)/mypy

bench: install ## print start-up, throughput, memory and replay figures against their targets
	$(BIN)/python -m compileall -q askcli
	$(BIN)/python bench/bench.py

clean: ## remove .venv and caches
	rm -rf $(VENV) .cache build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
