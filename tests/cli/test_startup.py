"""What start-up loads, and the path that draws no screens: functional checks, not timings."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.calls import call, question
from tests.support.paths import EXAMPLES
from tests.support.processes import askcli_path

SLOW = ("pydantic", "pydantic_core", "importlib_metadata", "pkg_resources", "dataclasses")
PROBE = """
import sys
from askcli.cli import main
sys.argv = ["askcli", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
slow = {slow!r}
loaded = [m for m in sys.modules if m.split(".")[0] in slow or m == "importlib.metadata"]
print(" ".join(sorted(loaded)) or "none", file=sys.stderr)
"""


def printed_after(args: list[str], stdin: str, tail: str) -> str:
    """The last line a run of askcli with ``args`` leaves on stderr, ``tail`` run after it."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.split("slow = ")[0] + tail, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=20,
    )
    return proc.stderr.strip().splitlines()[-1]


def modules_after(args: list[str], stdin: str) -> str:
    return printed_after(args, stdin, "slow = " + PROBE.split("slow = ")[1].format(slow=SLOW))


def data_read_after(args: list[str], stdin: str) -> bool:
    """Whether askcli with ``args`` loaded the reader of its data files (askcli/wire/data/)."""
    tail = "print('askcli.wire.shipped_json' in sys.modules, file=sys.stderr)"
    return printed_after(args, stdin, tail) == "True"


COMMAND_MODULES = (
    "print(' '.join(sorted(m for m in sys.modules if m.startswith('askcli.cli.'))),"
    " file=sys.stderr)"
)


def test_a_command_loads_its_own_module_of_commands_alone() -> None:
    assert printed_after(["ask", "--help"], "", COMMAND_MODULES) == (
        "askcli.cli.asking askcli.cli.params"
    )
    assert printed_after(["claude", "--help"], "", COMMAND_MODULES) == (
        "askcli.cli.claude_acp askcli.cli.params"
    )
    assert printed_after(["inbox", "log", "--help"], "", COMMAND_MODULES) == (
        "askcli.cli.inbox_mcp_hook askcli.cli.params askcli.cli.teams"
    )
    every = printed_after(["--help"], "", COMMAND_MODULES).split()
    assert {"askcli.cli.asking", "askcli.cli.claude_acp", "askcli.cli.setup_doctor"} <= set(every)


def test_the_long_schemas_are_read_only_by_the_commands_that_print_them() -> None:
    assert not data_read_after(["ask", str(EXAMPLES / "login.json")], "1\n2\ny\n")
    assert not data_read_after(["schema", "--format", "gemini"], "")
    assert data_read_after(["schema", "--format", "elicitation"], "")
    assert data_read_after(["schema", "--format", "claude-code"], "")


def test_a_valid_call_is_answered_without_loading_pydantic() -> None:
    assert modules_after(["ask", str(EXAMPLES / "login.json")], "1\n2\ny\n") == "none"


def test_a_todo_and_a_permission_prompt_need_no_pydantic_either() -> None:
    stream = json.dumps({"todos": []}) + "\n" + (EXAMPLES / "bash.json").read_text()
    assert modules_after(["ask", "--state", "/dev/null/x"], stream + "n\n") == "none"


def test_an_invalid_call_loads_pydantic_to_say_why() -> None:
    bad = json.dumps(call(question(labels=("A",))))
    assert "pydantic" in modules_after(["ask"], bad + "\n")


def test_screens_nobody_sees_change_nothing_on_stdout() -> None:
    session = "".join(
        json.dumps(call(question(f"Q{n}?", multi=n % 2 == 1), id=f"toolu_{n}")) + "\n1\n\n"
        for n in range(20)
    )
    shown = subprocess.run(
        [str(askcli_path()), "ask"], input=session, capture_output=True, text=True, timeout=20
    )
    hidden = subprocess.run(
        [str(askcli_path()), "ask"],
        input=session,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        timeout=20,
    )
    assert "Choose 1-3" in shown.stderr
    assert (hidden.stdout, hidden.returncode) == (shown.stdout, shown.returncode)
    assert len(hidden.stdout.splitlines()) == 20
