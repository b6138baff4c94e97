"""askcli in a pty with what it showed kept as raw bytes (a notification is bytes, not text), in
an environment that says nothing of the terminal around the tests."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.processes import askcli_path

# what the terminal around the tests may say about itself; each test says it alone
TERMINAL_VARS = [
    "TERM_PROGRAM",
    "LC_TERMINAL",
    "ITERM_SESSION_ID",
    "WEZTERM_PANE",
    "GHOSTTY_RESOURCES_DIR",
    "KITTY_WINDOW_ID",
    "TMUX",
    "STY",
    "ASKCLI_NOTIFY",
    "NO_COLOR",
]


class Terminal:
    """askcli in a pty of ``columns`` columns, stdout to a file; the bytes it showed kept."""

    def __init__(
        self,
        args: list[str],
        tmp_path: Path,
        columns: int = 80,
        err: Path | None = None,
        **env: str,
    ) -> None:
        self.out = tmp_path / "stdout.json"
        command = " ".join(shlex.quote(a) for a in [str(askcli_path()), *args])
        if err is not None:
            command += f" 2> {shlex.quote(str(err))}"
        full_env = {k: v for k, v in os.environ.items() if k not in TERMINAL_VARS}
        full_env.update(
            TERM="xterm-256color",
            COLUMNS=str(columns),
            NO_COLOR="1",
            XDG_STATE_HOME=str(tmp_path / "state"),
        )
        full_env.update(env)
        self.child = pexpect.spawn(
            "/bin/sh",
            ["-c", f"exec {command} > {shlex.quote(str(self.out))}"],
            env=full_env,
            timeout=5,
            dimensions=(24, columns),
        )
        self.shown = b""

    def expect(self, text: str | bytes) -> None:
        want = text.encode() if isinstance(text, str) else text
        try:
            self.child.expect_exact(want)
        except (pexpect.TIMEOUT, pexpect.EOF):
            pytest.fail(f"did not see {want!r}; the terminal showed:\n{self.log()}")
        self.shown += self.child.before + self.child.after

    def log(self) -> str:
        rest = self.child.before if isinstance(self.child.before, bytes) else b""
        return repr(self.shown + rest)

    def type(self, line: str) -> None:
        self.child.sendline(line)

    def finish(self) -> tuple[int, Any]:
        try:
            self.child.expect(pexpect.EOF)
        except pexpect.TIMEOUT:
            pytest.fail(f"askcli did not exit; the terminal showed:\n{self.log()}")
        self.shown += self.child.before
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, self.log()
        lines = [json.loads(line) for line in self.out.read_text().splitlines() if line[:1] == "{"]
        return status, lines[0] if len(lines) == 1 else lines or None
