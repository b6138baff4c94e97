"""Which calls are offered for resuming at a terminal (issue 21, item 8): not one declined with
Ctrl-C, still one stopped by SIGTERM or SIGHUP."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.support.paths import LOGIN
from tests.support.terminals import Terminal

WIDTHS = [80, 40]


def _journals(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "state" / "askcli" / "journal").glob("*.jsonl"))


def _answer_one_then(tmp_path: Path, columns: int, stop: signal.Signals) -> Terminal:
    term = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    term.expect("Choose 1-4 [1]: ")
    term.type("2")
    term.expect("(e.g. 1,3): ")
    term.child.kill(stop)
    term.expect_end()
    term.child.close()
    return term


@pytest.mark.parametrize("columns", WIDTHS)
def test_a_call_declined_with_ctrl_c_is_not_offered_again(tmp_path: Path, columns: int) -> None:
    first = _answer_one_then(tmp_path, columns, signal.SIGINT)
    assert first.child.exitstatus == 130, first.log.getvalue()
    assert _journals(tmp_path) == []  # the person declined: nothing kept to resume
    again = Terminal(["ask", str(LOGIN)], tmp_path, columns)
    again.expect("Choose 1-4 [1]: ")  # question 1, asked afresh
    assert "Resume?" not in again.log.getvalue()
    again.child.sendintr()
    again.expect_end()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_call_stopped_by_a_signal_is_still_offered_again(
    tmp_path: Path, stop: signal.Signals
) -> None:
    first = _answer_one_then(tmp_path, 80, stop)
    assert first.child.exitstatus == 128 + stop, first.log.getvalue()
    assert len(_journals(tmp_path)) == 1  # nobody declined: the answer waits to be resumed
    again = Terminal(["ask", str(LOGIN)], tmp_path, 80)
    again.expect("Resume? [Y/n] ")
    again.child.sendintr()
    again.expect_end()
