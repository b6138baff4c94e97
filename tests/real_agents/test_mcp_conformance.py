"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, installed by
``make test`` into .cache/ with the Node 22 it needs, pinned) against ``askcli mcp --http``,
through the loopback proxy tests/peers/mcp_token_proxy.mjs that adds the bearer token the
suite cannot send. Both protocol eras (``--requirements 2025-11-25`` and ``2026-07-28``):
the scenarios that apply to a server of tools pass check by check; every other scenario the
suite runs is one docs/mcp.md's table says does not apply."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.paths import ROOT
from tests.support.processes import askcli_path
from tests.support.real_agents import PEERS, free_port

SUITE = ROOT / ".cache" / "mcp-conformance" / "node_modules"
NODE = SUITE / ".bin" / "node"
CLI = SUITE / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
TOKEN = "conformance-token-0123456789abcdef"

pytestmark = pytest.mark.skipif(
    not (NODE.exists() and CLI.exists()),
    reason="the MCP conformance suite is not installed (make test installs it with npm)",
)

# the scenarios that apply to askcli, in each era the suite runs them
APPLIES = {
    "2025-11-25": [
        "server-initialize",
        "ping",
        "tools-list",
        "server-session-lifecycle",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
    ],
    "2026-07-28": [
        "server-stateless",
        "tools-list",
        "http-header-validation",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "caching",
    ],
}
# checks of those scenarios that cannot pass here, and the start of what the suite says
# (docs/mcp.md's table says why)
NOT_HERE = {
    ("server-stateless", "sep-2575-server-rejects-undeclared-capability"): "Not testable",
    ("server-stateless", "sep-2575-missing-capability-http-400"): "Not testable",
    ("server-stateless", "sep-2575-http-server-no-independent-requests-on-stream"): "Not testable",
    ("server-stateless", "sep-2575-server-no-log-without-loglevel"): "Not testable",
    ("caching", "sep-2549-prompts-list-caching-hints"): "prompts/list returned JSON-RPC error",
    ("caching", "sep-2549-resources-list-caching-hints"): "resources/list returned JSON-RPC error",
    ("caching", "sep-2549-resources-templates-list-caching-hints"): "resources/templates/list",
}
# the tasks extension's scenarios (issue 31): the checks that pass with askcli's own tools;
# the others drive fixture tools of the suite's test server (greet, slow_compute,
# failing_job, ...) that askcli has not, and say so (docs/mcp.md's tasks table)
TASKS = {
    "tasks-capability-negotiation": [
        "tasks-extension-advertised",
        "sep-2663-tasks-methods-non-declaring",
    ],
    "tasks-dispatch-and-envelope": [
        "sep-2663-tasks-result-removed-method-not-found",
        "tasks-removed-tasks-list",
        "sep-2663-tasks-get-invalid-task-id-32602",
    ],
    "tasks-request-headers": ["tasks-headers-reject-mismatched-method"],
}
FIXTURES = ("Unknown tool: ", "Not testable: no task was created", "routing-task fixture")
FINE = ("SUCCESS", "INFO", "SKIPPED")  # INFO: what the suite saw; SKIPPED: not this server's


def listening(port: int) -> bool:
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


def scenario_of(folder: str) -> str:
    """``server-tools-list-2026-12-01T22-02-10-862Z`` -> ``tools-list``."""
    return re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", folder.removeprefix("server-"))


class Run:
    """One run of the suite: each scenario's checks, and what it printed."""

    def __init__(self, checks: dict[str, list[dict[str, Any]]], output: str) -> None:
        self.checks = checks
        self.output = output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    """The suite run in both eras against one ``askcli mcp --http`` behind the proxy."""
    tmp = tmp_path_factory.mktemp("conformance")
    port, front = free_port(), free_port()
    env = {
        **os.environ,
        "ASKCLI_INBOX": str(tmp / "inbox.db"),
        "ASKCLI_MCP_TOKEN": TOKEN,
        "NO_COLOR": "1",
    }
    log = (tmp / "server.err").open("w")
    server = subprocess.Popen(
        [str(askcli_path()), "mcp", "--http", f"127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL,
        stderr=log,
        env=env,
        cwd=tmp,
    )
    proxy = subprocess.Popen(
        [str(NODE), str(PEERS / "mcp_token_proxy.mjs"), str(front), str(port)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert listening(port), (tmp / "server.err").read_text()
        assert listening(front), "the token proxy did not listen"
        found: dict[str, Run] = {}
        for era in APPLIES:
            out = tmp / era
            done = subprocess.run(
                [
                    *(str(NODE), str(CLI), "server", "--url", f"http://localhost:{front}/mcp"),
                    *("--requirements", era, "--output-dir", str(out)),
                ],
                capture_output=True,
                text=True,
                timeout=240,
                env={**env, "NO_COLOR": "1"},
            )
            checks = {
                scenario_of(folder.name): json.loads((folder / "checks.json").read_text())
                for folder in sorted(out.iterdir())
                if (folder / "checks.json").exists()
            }
            found[era] = Run(checks, done.stdout + done.stderr)
        for scenario in TASKS:
            out = tmp / scenario
            done = subprocess.run(
                [
                    *(str(NODE), str(CLI), "server", "--url", f"http://localhost:{front}/mcp"),
                    *("--scenario", scenario, "--output-dir", str(out)),
                ],
                capture_output=True,
                text=True,
                timeout=120,
                env={**env, "NO_COLOR": "1"},
            )
            checks = {
                scenario_of(folder.name): json.loads((folder / "checks.json").read_text())
                for folder in sorted(out.iterdir())
                if (folder / "checks.json").exists()
            }
            found[scenario] = Run(checks, done.stdout + done.stderr)
        yield found
    finally:
        for proc in (proxy, server):
            proc.terminate()
            proc.wait(timeout=10)
        log.close()
        assert "Traceback" not in (tmp / "server.err").read_text()


def said(check: dict[str, Any]) -> str:
    return str(check.get("errorMessage") or check.get("description") or "")


@pytest.mark.parametrize(
    ("era", "scenario"), [(era, name) for era, names in APPLIES.items() for name in names]
)
def test_a_scenario_that_applies_passes(runs: dict[str, Run], era: str, scenario: str) -> None:
    run = runs[era]
    assert scenario in run.checks, f"the suite ran no {scenario}:\n{run.output}"
    checks = run.checks[scenario]
    wrong = [
        f"{c.get('id')}: {c.get('status')}: {said(c)}"
        for c in checks
        if c.get("status") not in FINE
        and not said(c).startswith(NOT_HERE.get((scenario, str(c.get("id"))), "\0"))
    ]
    assert not wrong, "\n".join(wrong)
    passed = {str(c.get("id")) for c in checks if c.get("status") == "SUCCESS"}
    assert passed, f"{scenario}: no check passed: {checks}"
    # a check that cannot pass here still fails only for the reason docs/mcp.md gives
    for (name, check), reason in NOT_HERE.items():
        if name == scenario:
            found = [c for c in checks if c.get("id") == check]
            assert found and all(said(c).startswith(reason) for c in found), found


@pytest.mark.parametrize("scenario", list(TASKS))
def test_the_tasks_checks_that_apply_pass(runs: dict[str, Run], scenario: str) -> None:
    """The tasks extension's checks that askcli's tools can meet pass; every other one
    fails only for want of the suite's fixture tools."""
    run = runs[scenario]
    assert scenario in run.checks, f"the suite ran no {scenario}:\n{run.output}"
    checks = {str(c.get("id")): c for c in run.checks[scenario]}
    for check in TASKS[scenario]:
        assert checks[check]["status"] == "SUCCESS", checks[check]
    wrong = [
        f"{name}: {c.get('status')}: {said(c)}"
        for name, c in checks.items()
        if c.get("status") not in FINE and not said(c).startswith(FIXTURES)
    ]
    assert not wrong, "\n".join(wrong)


def not_applicable() -> list[str]:
    """The scenario patterns docs/mcp.md's conformance table says do not apply."""
    text = (ROOT / "docs" / "mcp.md").read_text()
    table = text[text.index("| scenarios | why they do not apply |") :]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return [name for row in rows for name in re.findall(r"`([a-z0-9*-]+)`", row.split("|")[1])]


def test_every_other_scenario_is_one_the_docs_say_does_not_apply(runs: dict[str, Run]) -> None:
    patterns = not_applicable()
    for era, run in runs.items():
        if era in TASKS:
            continue
        assert run.checks, f"the suite ran nothing in {era}:\n{run.output}"
        for scenario in run.checks:
            if scenario in APPLIES[era]:
                continue
            assert any(fnmatch.fnmatchcase(scenario, p) for p in patterns), (
                f"{era}: the suite's scenario {scenario} is neither one that applies nor in "
                "docs/mcp.md's table of those that do not"
            )
    # and the table names no scenario the suite does not have
    ran = {name for era, run in runs.items() if era not in TASKS for name in run.checks}
    for pattern in patterns:
        assert any(fnmatch.fnmatchcase(name, pattern) for name in ran), pattern
