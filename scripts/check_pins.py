"""make check-pins: each npm package the Makefile pins, its pinned version beside the registry's
``latest`` and its newest version (prereleases included), and which pins are behind.

The pins are read from the Makefile (the one place they are written): every ``NAME_VERSION :=``
variable, and the package each is installed as (``PACKAGE@$(NAME_VERSION)``, in a recipe or
through a ``define`` called with ``$(call ...)``). Informational: it exits 0 whatever it finds,
and says in one line when npm or the registry cannot be reached."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAKEFILE = Path(__file__).resolve().parent.parent / "Makefile"
NPM_TIMEOUT = 60  # seconds one npm view may take
FETCH = ("--fetch-retries=0", "--fetch-timeout=20000")  # an unreachable registry: said soon
ASSIGNED = re.compile(r"^([A-Z][A-Z0-9_]*_VERSION)\s*:?=\s*(\S+)\s*$", re.MULTILINE)
DEFINE = re.compile(r"^define\s+(\w+)\s*\n(.*?)^endef\b", re.MULTILINE | re.DOTALL)
SPEC = re.compile(r"(?<![\w@/.-])(@?[a-z0-9][\w.-]*(?:/[\w.-]+)?)@\$\((\w+)\)")
SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")


@dataclass(frozen=True)
class Pin:
    """One pinned package: the Makefile's variable, the npm package, the version."""

    variable: str
    package: str
    version: str


@dataclass(frozen=True)
class Registry:
    """What ``npm view PACKAGE dist-tags versions --json`` says of one package."""

    latest: str
    versions: tuple[str, ...]


def pins(makefile: str) -> list[Pin]:
    """The Makefile's pins, in the order their variables are assigned."""
    versions = dict(ASSIGNED.findall(makefile))
    packages: dict[str, str] = {}
    for package, variable in SPEC.findall(_expanded(makefile)):
        if variable in versions:
            packages.setdefault(variable, package)
    return [Pin(v, packages[v], versions[v]) for v in versions if v in packages]


def _expanded(makefile: str) -> str:
    """The Makefile with each ``$(call NAME,ARGS)`` of a ``define`` replaced by its body,
    ``$(1)``, ``$(2)``... by the arguments (one level: enough for the npm recipes)."""
    bodies = {name: body for name, body in DEFINE.findall(makefile)}
    text = DEFINE.sub("", makefile)
    out = []
    for line in text.splitlines():
        call = re.search(r"\$\(call\s+(\w+),", line)
        if call and call.group(1) in bodies:
            args = _arguments(line[call.end() :])
            body = bodies[call.group(1)]
            for n, arg in enumerate(args, 1):
                body = body.replace(f"$({n})", arg)
            line = body
        out.append(line)
    return "\n".join(out)


def _arguments(rest: str) -> list[str]:
    """The comma-separated arguments up to the call's closing parenthesis."""
    args, depth, current = [], 0, ""
    for char in rest:
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            args.append(current)
            current = ""
            continue
        current += char
    args.append(current)
    return [a.strip() for a in args]


def version_key(version: str) -> tuple[Any, ...] | None:
    """Semantic versioning's order (a prerelease before its release; numeric identifiers
    numerically, before alphanumeric ones); None for what is not a version."""
    found = SEMVER.match(version)
    if not found:
        return None
    major, minor, patch, pre = found.groups()
    release = (int(major), int(minor), int(patch))
    if pre is None:
        return (release, 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (release, 0, ids)


def is_prerelease(version: str) -> bool:
    found = SEMVER.match(version)
    return bool(found and found.group(4))


def newest(versions: Iterable[str]) -> str | None:
    """The highest of ``versions`` (prereleases included), or None."""
    known = [(key, v) for v in versions if (key := version_key(v)) is not None]
    return max(known)[1] if known else None


def registry_of(answer: str) -> Registry:
    """``npm view PACKAGE dist-tags versions --json``'s answer read (a package of one version
    has ``versions`` as a string)."""
    data = json.loads(answer)
    versions = data.get("versions", [])
    if isinstance(versions, str):
        versions = [versions]
    latest = str(data.get("dist-tags", {}).get("latest", ""))
    return Registry(latest=latest, versions=tuple(versions))


def _older(a: str, b: str) -> bool:
    ka, kb = version_key(a), version_key(b)
    return ka is not None and kb is not None and ka < kb


def status(pin: Pin, found: Registry, held_for: str | None = None) -> tuple[str, bool]:
    """What the registry says of ``pin``, and whether it is behind. ``held_for``: the variable
    of a newer pin of the same package (this one is then the oldest release still in use,
    held on purpose). A prerelease pin follows the newest version; a release pin, ``latest``."""
    top = newest(found.versions) or found.latest
    if held_for is not None:
        return f"held: the oldest release still in use ({held_for} is the newer pin)", False
    if is_prerelease(pin.version):
        if _older(pin.version, top):
            return f"behind the newest prerelease {top}", True
        return (
            f"the newest (a prerelease, ahead of latest {found.latest}: what the tests need)",
            False,
        )
    if _older(pin.version, found.latest):
        same = _newest_of_major(pin.version, found.versions)
        useful = same and same != found.latest and _older(pin.version, same)
        line = f" (newest of its major: {same})" if useful else ""
        return f"behind latest {found.latest}{line}", True
    if _older(pin.version, top):
        return f"at latest; newer prereleases up to {top}", False
    return "current", False


def _newest_of_major(version: str, versions: Iterable[str]) -> str | None:
    major = version.split(".")[0]
    return newest(v for v in versions if v.split(".")[0] == major and not is_prerelease(v))


def held(all_pins: Sequence[Pin]) -> dict[str, str]:
    """For a package pinned twice or more, each older pin -> the variable of its newest pin."""
    out: dict[str, str] = {}
    for pin in all_pins:
        same = [p for p in all_pins if p.package == pin.package]
        top = max(same, key=lambda p: version_key(p.version) or ())
        if top is not pin and _older(pin.version, top.version):
            out[pin.variable] = top.variable
    return out


def npm_view(package: str) -> str:
    """``npm view PACKAGE dist-tags versions --json``'s stdout; OSError or CalledProcessError
    or TimeoutExpired when npm fails."""
    proc = subprocess.run(
        ["npm", "view", package, "dist-tags", "versions", "--json", *FETCH],
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT,
        check=True,
    )
    return proc.stdout


def report(all_pins: Sequence[Pin], answers: dict[str, str | Exception]) -> list[str]:
    """The table's lines and the summary, from each package's npm answer (or its failure)."""
    holding = held(all_pins)
    rows = [("pin", "package", "pinned", "latest", "newest", "")]
    behind = []
    for pin in all_pins:
        answer = answers[pin.package]
        if isinstance(answer, Exception):
            rows.append((pin.variable, pin.package, pin.version, "?", "?", _failure(answer)))
            continue
        found = registry_of(answer)
        text, late = status(pin, found, holding.get(pin.variable))
        top = newest(found.versions) or "?"
        rows.append((pin.variable, pin.package, pin.version, found.latest, top, text))
        if late:
            behind.append(pin.variable)
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[5] for r in rows
    ]
    lines = [line.rstrip() for line in lines]
    lines.append(f"behind: {', '.join(behind)}" if behind else "no pin is behind")
    return lines


def _failure(error: Exception) -> str:
    """What went wrong, in a few words: npm's ``--json`` error summary when it gave one."""
    if isinstance(error, subprocess.CalledProcessError):
        return f"npm failed: {_npm_error(error.output or '', error.stderr or '', error.returncode)}"
    if isinstance(error, subprocess.TimeoutExpired):
        return f"npm gave no answer in {NPM_TIMEOUT} s"
    return f"npm failed: {error}"


def _npm_error(stdout: str, stderr: str, status: int) -> str:
    try:
        said = json.loads(stdout)["error"]
        return str(said.get("summary") or said["code"])
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    codes = [line for line in stderr.splitlines() if line.startswith("npm error code ")]
    return codes[0].removeprefix("npm error ") if codes else f"exit status {status}"


def check(
    makefile: str, view: Callable[[str], str] = npm_view, npm: str | None = "npm"
) -> list[str]:
    """make check-pins's output lines."""
    all_pins = pins(makefile)
    if npm is None:
        return ["check-pins: npm not found: the registry cannot be asked (the pins are unchecked)"]
    packages = list(dict.fromkeys(p.package for p in all_pins))

    def asked(package: str) -> str | Exception:
        try:
            return view(package)
        except (OSError, subprocess.SubprocessError, ValueError) as error:
            return error

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = dict(zip(packages, pool.map(asked, packages), strict=True))
    failures = [a for a in answers.values() if isinstance(a, Exception)]
    if failures and len(failures) == len(answers):
        return [f"check-pins: the npm registry could not be reached ({_failure(failures[0])})"]
    return report(all_pins, answers)


def main() -> int:
    lines = check(MAKEFILE.read_text(), npm=shutil.which("npm"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
