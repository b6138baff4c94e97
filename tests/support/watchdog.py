"""A watchdog for what a test session starts outside pytest (a server, namespaces): a
process of its own session that waits for the test process to end, however it ends (a
SIGKILL included), then runs a shell script that tidies up."""

from __future__ import annotations

import os
import subprocess


def start_watchdog(tidy: str) -> subprocess.Popen[bytes]:
    """A ``sh`` that outlives this process's Ctrl-C and hang-up, waits for it to end and
    then runs ``tidy``; its owner kills it first when it tidies up itself."""
    script = f"""
        trap '' INT HUP TERM
        while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done
        {tidy}
    """
    return subprocess.Popen(
        ["sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
