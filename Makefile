# askcli: every target sets up what it needs in .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE ?= examples/login.json
# The real Claude Code the tests run against, each release pinned (npm, into .cache/):
# tests/hosts/claude/ and tests/real_agents/ (test_permission_claude.py, test_hook_claude.py...)
# against 2.1.197, and tests/real_agents/test_wording_live.py (--wording claude-code's texts)
# against 2.1.332.
CLAUDE_CODE_VERSION := 2.1.197
CLAUDE_CODE_CURRENT_VERSION := 2.1.332
CLAUDE_CODE := .cache/claude-code/.installed-$(CLAUDE_CODE_VERSION)
CLAUDE_CODE_CURRENT := .cache/claude-code-$(CLAUDE_CODE_CURRENT_VERSION)/.installed-$(CLAUDE_CODE_CURRENT_VERSION)
# The real ACP agents tests/real_agents/test_acp_real.py, test_acp_sessions.py,
# test_acp_opencode.py and test_acp_codex.py run offline (npm, into .cache/, pinned; codex-acp is
# @agentclientprotocol/codex-acp, the archived @zed-industries/codex-acp no longer tested):
# claude-agent-acp both at the oldest release still in use and at the current one
GEMINI_CLI_VERSION := 0.61.0
CLAUDE_AGENT_ACP_VERSION := 0.49.0
CLAUDE_AGENT_ACP_CURRENT_VERSION := 0.101.0
OPENCODE_VERSION := 1.18.33
CODEX_ACP_VERSION := 2.6.0
GEMINI_CLI := .cache/gemini-cli/.installed-$(GEMINI_CLI_VERSION)
CLAUDE_AGENT_ACP := .cache/claude-agent-acp/.installed-$(CLAUDE_AGENT_ACP_VERSION)
CLAUDE_AGENT_ACP_CURRENT := .cache/claude-agent-acp-$(CLAUDE_AGENT_ACP_CURRENT_VERSION)/.installed-$(CLAUDE_AGENT_ACP_CURRENT_VERSION)
OPENCODE := .cache/opencode/.installed-$(OPENCODE_VERSION)
CODEX_ACP := .cache/codex-acp-$(CODEX_ACP_VERSION)/.installed-$(CODEX_ACP_VERSION)
# The official MCP conformance suite tests/real_agents/test_mcp_conformance.py runs against
# askcli mcp --http, with the Node >= 22 it needs (the npm package node), and the real Codex CLI
# tests/real_agents/test_mcp_codex.py runs offline with askcli mcp as its MCP server, and the
# MCP Inspector's CLI tests/real_agents/test_mcp_inspector.py drives askcli mcp with (npm, into
# .cache/, pinned)
MCP_CONFORMANCE_VERSION := 0.2.0-alpha.12
CONFORMANCE_NODE_VERSION := 22.23.3
CODEX_VERSION := 0.171.0
MCP_INSPECTOR_VERSION := 2.12.0
MCP_CONFORMANCE := .cache/mcp-conformance/.installed-$(MCP_CONFORMANCE_VERSION)-node-$(CONFORMANCE_NODE_VERSION)
CODEX := .cache/codex/.installed-$(CODEX_VERSION)
MCP_INSPECTOR := .cache/mcp-inspector/.installed-$(MCP_INSPECTOR_VERSION)

.DEFAULT_GOAL := help
.PHONY: help install claude-code claude-code-current acp-agents gemini-cli mcp-clients check-pins run try-claude try-acp test test-fast faults fuzz lint bench docs clean

help: ## list the targets
	@grep -E '^[a-z][a-z0-9_-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-19s %s\n", $$1, $$2}'

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

# The try's own line says askcli's status. Ctrl-C: the shell ignores it, so that make adds no
# line of its own (make itself then ends by it: 130); Python starts ignoring it too, so that
# none comes as a traceback while it starts, and the try takes it from its first line on.
try-claude: install claude-code ## askcli claude offline: the real Claude Code on a scripted stand-in model
	@trap '' INT; $(BIN)/python examples/offline.py claude || true

try-acp: install gemini-cli ## askcli acp offline: the real Gemini CLI over ACP on canned replies
	@trap '' INT; $(BIN)/python examples/offline.py acp || true

# $(call npm_claude_code,FOLDER,VERSION): that release into FOLDER, then touch the target; without
# npm, or when npm fails, a message and no target (the tests against it then skip, saying why)
define npm_claude_code
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "make: npm not found: the tests against the real Claude Code $(2) will be skipped" >&2; \
	elif npm install --prefix $(1) --save-exact --no-audit --no-fund --loglevel=error \
	    @anthropic-ai/claude-code@$(2); then touch $@; \
	else echo "make: npm could not install Claude Code $(2): the tests against it will be skipped" >&2; fi
endef

$(CLAUDE_CODE):
	$(call npm_claude_code,.cache/claude-code,$(CLAUDE_CODE_VERSION))

$(CLAUDE_CODE_CURRENT):
	$(call npm_claude_code,.cache/claude-code-$(CLAUDE_CODE_CURRENT_VERSION),$(CLAUDE_CODE_CURRENT_VERSION))

# $(call npm_package,FOLDER,PACKAGE@VERSION,NAME): as npm_claude_code, for any package
define npm_package
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "make: npm not found: the tests against $(3) will be skipped" >&2; \
	elif npm install --prefix $(1) --save-exact --no-audit --no-fund --loglevel=error $(2); \
	then touch $@; \
	else echo "make: npm could not install $(3): the tests against it will be skipped" >&2; fi
endef

$(GEMINI_CLI):
	$(call npm_package,.cache/gemini-cli,@google/gemini-cli@$(GEMINI_CLI_VERSION),Gemini CLI $(GEMINI_CLI_VERSION))

$(CLAUDE_AGENT_ACP):
	$(call npm_package,.cache/claude-agent-acp,@agentclientprotocol/claude-agent-acp@$(CLAUDE_AGENT_ACP_VERSION),claude-agent-acp $(CLAUDE_AGENT_ACP_VERSION))

$(CLAUDE_AGENT_ACP_CURRENT):
	$(call npm_package,.cache/claude-agent-acp-$(CLAUDE_AGENT_ACP_CURRENT_VERSION),@agentclientprotocol/claude-agent-acp@$(CLAUDE_AGENT_ACP_CURRENT_VERSION),claude-agent-acp $(CLAUDE_AGENT_ACP_CURRENT_VERSION))

$(OPENCODE):
	$(call npm_package,.cache/opencode,opencode-ai@$(OPENCODE_VERSION),OpenCode $(OPENCODE_VERSION))

$(MCP_CONFORMANCE):
	$(call npm_package,.cache/mcp-conformance,@modelcontextprotocol/conformance@$(MCP_CONFORMANCE_VERSION) node@$(CONFORMANCE_NODE_VERSION),the MCP conformance suite $(MCP_CONFORMANCE_VERSION))

$(CODEX):
	$(call npm_package,.cache/codex,@openai/codex@$(CODEX_VERSION),Codex CLI $(CODEX_VERSION))

$(MCP_INSPECTOR):
	$(call npm_package,.cache/mcp-inspector,@modelcontextprotocol/inspector@$(MCP_INSPECTOR_VERSION),the MCP Inspector $(MCP_INSPECTOR_VERSION))

mcp-clients: $(MCP_CONFORMANCE) $(CODEX) $(MCP_INSPECTOR) ## install the MCP conformance suite (with Node 22), Codex CLI and the MCP Inspector (npm) for the MCP tests, once

$(CODEX_ACP):
	$(call npm_package,.cache/codex-acp-$(CODEX_ACP_VERSION),@agentclientprotocol/codex-acp@$(CODEX_ACP_VERSION),codex-acp $(CODEX_ACP_VERSION))


acp-agents: $(GEMINI_CLI) $(CLAUDE_AGENT_ACP) $(CLAUDE_AGENT_ACP_CURRENT) $(OPENCODE) $(CODEX_ACP) ## install Gemini CLI, claude-agent-acp (two releases), OpenCode and codex-acp (npm) for the ACP tests, once

gemini-cli: $(GEMINI_CLI) ## install Gemini CLI alone (npm), the agent make try-acp uses, once

claude-code: $(CLAUDE_CODE) ## install the real Claude Code 2.1.197 (npm) for the tests, once

claude-code-current: $(CLAUDE_CODE_CURRENT) ## install Claude Code 2.1.332 (npm), whose texts --wording claude-code quotes

# Informational: exits 0 whatever is newer, and when npm or the registry cannot be reached
check-pins: ## list each npm pin beside the registry's latest and newest version, and which are behind
	@$(PYTHON) scripts/check_pins.py

test: install claude-code claude-code-current acp-agents mcp-clients ## run the whole test suite
	$(BIN)/python -m pytest

# The tests that run in this process alone: no process started, no terminal, no PostgreSQL, no
# real agent, nothing slow (the marks of pyproject.toml; docs/development.md, "Tests")
FAST := not real_agent and not pty and not postgres and not process and not slow
test-fast: install ## the in-process tests alone, in well under a minute
	$(BIN)/python -m pytest -m "$(FAST)" $(PYTEST_ARGS)

# The fault suite (tests/faults, issue 28) builds network namespaces, veth pairs and nftables
# rules: it needs root, ip (iproute2) and nft; nft is installed here when missing, as .ci/run
# installs postgresql (apt-get; without it, or not root, the suite skips saying why).
# PYTEST_ARGS picks scenarios: make faults PYTEST_ARGS='-k sigstop'
PYTEST_ARGS ?=
faults: install ## the fault suite: restarts, partitions, delay, loss, stops, kills, lost acknowledgements
	@if ! command -v nft >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing nftables for the fault suite" >&2; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables \
	    || echo "make: could not install nftables: the fault suite will be skipped" >&2; \
	fi
	ASKCLI_LEASE=$${ASKCLI_LEASE:-15} $(BIN)/python -m pytest tests/faults $(PYTEST_ARGS)

fuzz: install ## the fuzz suites with ten times the cases of make test
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/unit/runners/test_fuzz.py

lint: $(VENV)/.dev ## ruff and mypy
	$(BIN)/ruff check askcli tests bench scripts
	$(BIN)/ruff format --check askcli tests bench scripts
	$(BIN)/mypy
	$(BIN)/mypy scripts

# BENCH_ARGS=--team: the team figures alone (500 askers on two agents' network namespaces)
BENCH_ARGS ?=
bench: install ## print start-up, throughput, memory, replay and inbox figures against their targets, what one ask meets, and how long an MCP question can wait ($ASKCLI_BENCH_MCP_WAIT s, 600)
	$(BIN)/python -m compileall -q askcli
	$(BIN)/python bench/bench.py $(BENCH_ARGS)
	$(BIN)/python bench/ask_path.py
	$(BIN)/python bench/mcp_wait.py

docs: install ## regenerate docs/cli.md from every command's --help
	$(BIN)/python docs/gen_cli.py

clean: ## remove .venv and caches
	rm -rf $(VENV) .cache build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
