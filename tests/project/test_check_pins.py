"""``make check-pins`` (scripts/check_pins.py): the pins read from the Makefile, the versions'
order, and its report from canned ``npm view`` answers (no network)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support.paths import ROOT

MAKEFILE = (ROOT / "Makefile").read_text()


@pytest.fixture(scope="module")
def pins() -> Iterator[ModuleType]:
    """scripts/check_pins.py, imported as the module ``check_pins`` (its dataclasses look
    their module up in sys.modules)."""
    spec = importlib.util.spec_from_file_location("check_pins", ROOT / "scripts" / "check_pins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def answer(latest: str, *versions: str, **tags: str) -> str:
    """``npm view PACKAGE dist-tags versions --json``'s answer."""
    return json.dumps({"dist-tags": {"latest": latest, **tags}, "versions": list(versions)})


# what the registry said on 2026-12-07, as far as the tests need it
REGISTRY = {
    "@anthropic-ai/claude-code": answer("2.1.332", "2.1.197", "2.1.300", "2.1.332"),
    "@google/gemini-cli": answer("0.61.0", "0.60.0", "0.61.0", "0.62.0-preview.1"),
    "@agentclientprotocol/claude-agent-acp": answer("0.101.0", "0.49.0", "0.101.0"),
    "opencode-ai": answer("1.18.40", "1.18.33", "1.18.40"),
    "@agentclientprotocol/codex-acp": answer("2.6.0", "2.6.0"),
    "@modelcontextprotocol/conformance": answer(
        "0.1.16", "0.1.16", "0.2.0-alpha.2", "0.2.0-alpha.12", "0.2.0-alpha.9"
    ),
    "node": answer("26.10.0", "22.23.3", "22.24.0", "26.10.0"),
    "@openai/codex": answer("0.171.0", "0.171.0"),
    "@modelcontextprotocol/inspector": json.dumps(
        {"dist-tags": {"latest": "2.12.0"}, "versions": "2.12.0"}
    ),
}


def test_every_npm_pin_of_the_makefile_is_read_with_its_package(pins: ModuleType) -> None:
    found = {p.variable: (p.package, p.version) for p in pins.pins(MAKEFILE)}
    assert {v: p for v, (p, _) in found.items()} == {
        "CLAUDE_CODE_VERSION": "@anthropic-ai/claude-code",
        "CLAUDE_CODE_CURRENT_VERSION": "@anthropic-ai/claude-code",
        "GEMINI_CLI_VERSION": "@google/gemini-cli",
        "CLAUDE_AGENT_ACP_VERSION": "@agentclientprotocol/claude-agent-acp",
        "CLAUDE_AGENT_ACP_CURRENT_VERSION": "@agentclientprotocol/claude-agent-acp",
        "OPENCODE_VERSION": "opencode-ai",
        "CODEX_ACP_VERSION": "@agentclientprotocol/codex-acp",
        "MCP_CONFORMANCE_VERSION": "@modelcontextprotocol/conformance",
        "CONFORMANCE_NODE_VERSION": "node",
        "CODEX_VERSION": "@openai/codex",
        "MCP_INSPECTOR_VERSION": "@modelcontextprotocol/inspector",
    }
    # the versions are the Makefile's own (no variable left out, none invented)
    for variable, (_, version) in found.items():
        assert f"\n{variable} := {version}\n" in MAKEFILE


def test_pins_through_define_and_call(pins: ModuleType) -> None:
    makefile = (
        "A_VERSION := 1.2.3\nB_VERSION := 0.1.0-beta.2\nUNUSED_VERSION := 9.9.9\n"
        "define install\n\tnpm install --prefix $(1) @scope/a@$(2)\nendef\n"
        "a:\n\t$(call install,.cache/a,$(A_VERSION))\n"
        "b:\n\tnpm install b-cli@$(B_VERSION) node@$(A_VERSION)\n"
    )
    assert [(p.variable, p.package, p.version) for p in pins.pins(makefile)] == [
        ("A_VERSION", "@scope/a", "1.2.3"),
        ("B_VERSION", "b-cli", "0.1.0-beta.2"),
    ]


def test_versions_in_semantic_versioning_order(pins: ModuleType) -> None:
    ordered = [
        "0.1.16",
        "0.2.0-alpha.2",
        "0.2.0-alpha.12",
        "0.2.0-alpha.beta",
        "0.2.0-beta",
        "0.2.0",
        "0.10.0",
        "2.1.197",
        "2.1.332",
    ]
    assert sorted(ordered[::-1], key=pins.version_key) == ordered
    assert pins.newest([*ordered[::-1], "latest", ""]) == "2.1.332"
    assert pins.version_key("not-a-version") is None
    assert pins.newest([]) is None


def test_the_report_from_canned_registry_answers(pins: ModuleType) -> None:
    lines = pins.check(MAKEFILE, view=REGISTRY.__getitem__)
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert lines[0].split() == ["pin", "package", "pinned", "latest", "newest"]

    def said(variable: str) -> str:
        return rows[variable].split(maxsplit=5)[5]

    assert said("CLAUDE_CODE_CURRENT_VERSION") == "current"
    assert said("CLAUDE_CODE_VERSION") == (
        "held: the oldest release still in use (CLAUDE_CODE_CURRENT_VERSION is the newer pin)"
    )
    assert said("CLAUDE_AGENT_ACP_VERSION").startswith("held: the oldest release still in use")
    # a prerelease pin follows the newest version: ahead of latest is not behind
    assert rows["MCP_CONFORMANCE_VERSION"].split()[2:5] == [
        "0.2.0-alpha.12",
        "0.1.16",
        "0.2.0-alpha.12",
    ]
    assert said("MCP_CONFORMANCE_VERSION") == (
        "the newest (a prerelease, ahead of latest 0.1.16: what the tests need)"
    )
    # a release pin follows latest; newer prereleases are said, not counted
    assert said("GEMINI_CLI_VERSION") == "at latest; newer prereleases up to 0.62.0-preview.1"
    assert said("OPENCODE_VERSION") == "behind latest 1.18.40"
    assert said("CONFORMANCE_NODE_VERSION") == (
        "behind latest 26.10.0 (newest of its major: 22.24.0)"
    )
    assert said("MCP_INSPECTOR_VERSION") == "current"  # one version: a string in npm's JSON
    assert lines[-1] == "behind: OPENCODE_VERSION, CONFORMANCE_NODE_VERSION"


def test_a_prerelease_pin_behind_a_newer_prerelease_is_behind(pins: ModuleType) -> None:
    pin = pins.Pin("X_VERSION", "x", "0.2.0-alpha.9")
    found = pins.registry_of(answer("0.1.16", "0.1.16", "0.2.0-alpha.9", "0.2.0-alpha.12"))
    assert pins.status(pin, found) == ("behind the newest prerelease 0.2.0-alpha.12", True)


def test_all_current_says_so(pins: ModuleType) -> None:
    makefile = "A_VERSION := 1.0.0\na:\n\tnpm install a@$(A_VERSION)\n"
    lines = pins.check(makefile, view=lambda _: answer("1.0.0", "0.9.0", "1.0.0"))
    assert lines[-1] == "no pin is behind"
    assert lines[1].split() == ["A_VERSION", "a", "1.0.0", "1.0.0", "1.0.0", "current"]


REFUSED = "FetchError: request to http://127.0.0.1:9/node failed, reason: connect ECONNREFUSED"


def unreachable(package: str) -> str:
    """npm view with the registry unreachable: its --json error on stdout, its log on stderr."""
    stdout = json.dumps({"error": {"code": "ECONNREFUSED", "summary": REFUSED, "detail": "…"}})
    stderr = "npm error code ECONNREFUSED\nnpm error A complete log of this run …\n"
    raise subprocess.CalledProcessError(1, ["npm", "view", package], stdout, stderr)


def test_without_npm_or_the_registry_one_line(pins: ModuleType) -> None:
    assert pins.check(MAKEFILE, view=REGISTRY.__getitem__, npm=None) == [
        "check-pins: npm not found: the registry cannot be asked (the pins are unchecked)"
    ]
    assert pins.check(MAKEFILE, view=unreachable) == [
        f"check-pins: the npm registry could not be reached (npm failed: {REFUSED})"
    ]

    def slow(package: str) -> str:
        raise subprocess.TimeoutExpired(["npm"], 60)

    (line,) = pins.check(MAKEFILE, view=slow)
    assert line == "check-pins: the npm registry could not be reached (npm gave no answer in 60 s)"


def test_npms_error_without_its_json(pins: ModuleType) -> None:
    def view(package: str) -> str:
        stderr = "npm error code E404\nnpm error 404 Not Found\nnpm error A complete log …\n"
        raise subprocess.CalledProcessError(1, ["npm"], "", stderr)

    (line,) = pins.check(MAKEFILE, view=view)
    assert line == "check-pins: the npm registry could not be reached (npm failed: code E404)"


def test_one_package_unknown_is_said_on_its_row(pins: ModuleType) -> None:
    def view(package: str) -> str:
        return unreachable(package) if package == "node" else REGISTRY[package]

    lines = pins.check(MAKEFILE, view=view)
    (row,) = [line for line in lines if line.startswith("CONFORMANCE_NODE_VERSION")]
    assert row.split(maxsplit=5)[2:] == ["22.23.3", "?", "?", f"npm failed: {REFUSED}"]
    assert lines[-1] == "behind: OPENCODE_VERSION"


def test_main_exits_0_without_npm(pins: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pins.shutil, "which", lambda _: None)
    assert pins.main() == 0


def test_the_development_page_names_every_pin_with_its_version(pins: ModuleType) -> None:
    page = (ROOT / "docs" / "development.md").read_text()
    table = page[page.index("## Pins\n") : page.index("`make check-pins` (")]
    missing = [
        f"{p.version} (`{p.variable}`"
        for p in pins.pins(MAKEFILE)
        if f"{p.version} (`{p.variable}`" not in table
    ]
    assert missing == []
