"""askcli over a real SSH connection that drops (issue 29): ``ssh -tt`` to a throwaway ``sshd``
on 127.0.0.1 (tests/support/sshd.py), askcli asking there, the ssh client killed. sshd then closes
the remote pty: the session hangs up as when a network goes. Whoever gets the SIGHUP there (a
shell that passes it on, one that keeps it, one that ignores it), askcli's result says the
terminal hung up and its status is 129."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.paths import EXAMPLES, PEERS
from tests.support.processes import askcli_path, exit_env, poll
from tests.support.sshd import Sshd, remote

LIBRARY = EXAMPLES / "library.json"
FORWARD_HUP = PEERS / "forward_hup.py"
HUNG_UP = "No answer from the user (the terminal hung up)."

# how the remote session's leader treats SIGHUP: it passes it on to askcli (as bash does to
# its jobs), it traps it and keeps it (a wrapper script), or it ignores it (nohup-like)
SHELLS = {
    "passed on": "{forward} {rc} {out} {askcli}",
    "kept": "trap : HUP; {askcli} > {out}; echo $? > {rc}",
    "ignored": "trap '' HUP; {askcli} > {out}; echo $? > {rc}",
}


def session(sshd: Sshd, tmp_path: Path, how: str, *args: str) -> pexpect.spawn:
    """``askcli ARGS`` over ssh, its stdout and status to files in ``tmp_path``."""
    env = exit_env(tmp_path)
    askcli = remote(
        [askcli_path(), *args],
        env={key: env[key] for key in ("XDG_STATE_HOME", "NO_COLOR", "ASKCLI_NOTIFY")},
    )
    forward = f"{sys.executable} {FORWARD_HUP}"
    line = SHELLS[how].format(
        forward=forward, rc=tmp_path / "rc", out=tmp_path / "out.json", askcli=askcli
    )
    return sshd.spawn(f"cd {tmp_path} && {line}")


def shown(child: pexpect.spawn) -> str:
    log: Any = child.logfile_read
    return str(log.getvalue())


def drop(child: pexpect.spawn, tmp_path: Path) -> tuple[int, str]:
    """Kill the ssh client (the connection drops) and wait for askcli's status there."""
    child.kill(9)
    child.close(force=True)
    rc = tmp_path / "rc"
    poll(lambda: rc.exists() and rc.read_text().strip() != "", "askcli's status", timeout=15)
    out = tmp_path / "out.json"
    return int(rc.read_text()), out.read_text() if out.exists() else ""


@pytest.mark.parametrize("how", SHELLS)
def test_a_dropped_ssh_connection_at_a_question_gives_129_and_says_so(
    sshd: Sshd, how: str, tmp_path: Path
) -> None:
    child = session(sshd, tmp_path, how, "ask", str(LIBRARY))
    try:
        child.expect_exact("Choose 1-4 [1]: ")
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"no question; the session showed:\n{shown(child)}")
    code, out = drop(child, tmp_path)
    assert code == 129, out
    reply = json.loads(out)
    assert reply["content"] == HUNG_UP and reply["is_error"] is True


@pytest.mark.parametrize("how", ["kept", "ignored"])
def test_a_dropped_ssh_connection_with_stdout_on_its_terminal_gives_129(
    sshd: Sshd, how: str, tmp_path: Path
) -> None:
    """The result has nowhere to go: the status still says what happened."""
    askcli = remote([askcli_path(), "ask", LIBRARY], env={"XDG_STATE_HOME": str(tmp_path)})
    trap = ":" if how == "kept" else "''"
    child = sshd.spawn(f"trap {trap} HUP; {askcli}; echo $? > {tmp_path / 'rc'}")
    try:
        child.expect_exact("Choose 1-4 [1]: ")
    except (pexpect.TIMEOUT, pexpect.EOF):
        pytest.fail(f"no question; the session showed:\n{shown(child)}")
    code, _ = drop(child, tmp_path)
    assert code == 129
