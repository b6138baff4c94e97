"""The timeout's reason counts seconds in English: "within 1 second", "within 2 seconds" (issue
11, item 11)."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from askcli.lines import TextLineReader
from askcli.questions.outcome import Outcome
from askcli.terminal.conversation import Conversation
from askcli.terminal.options import RunOptions

from tests.support.calls import call
from tests.support.processes import askcli_path


@pytest.mark.parametrize(
    ("timeout", "words"),
    [
        (1, "no reply within 1 second"),
        (1.0, "no reply within 1 second"),
        (2, "no reply within 2 seconds"),
        (0.5, "no reply within 0.5 seconds"),
        (1.5, "no reply within 1.5 seconds"),
        (0.00001, "no reply within 0.00001 seconds"),
        (604800, "no reply within 604800 seconds"),
        (1234567.0, "no reply within 1234567 seconds"),
    ],
)
def test_the_timeout_reason_counts_seconds_in_english(timeout: float, words: str) -> None:
    conv = Conversation(
        TextLineReader(io.StringIO("")), io.StringIO(), options=RunOptions(timeout=timeout)
    )
    assert conv.why(Outcome.TIMED_OUT) == words
    assert conv.why(Outcome.ENDED) == "the input ended"


@pytest.mark.process
def test_one_second_end_to_end(tmp_path: Path) -> None:
    calls = tmp_path / "call.json"
    calls.write_text(json.dumps(call()) + "\n")
    proc = subprocess.Popen(  # the answers' stdin stays open: only the timeout ends the wait
        [str(askcli_path()), "ask", "--timeout", "1", "--state", os.devnull, str(calls)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.wait(timeout=10) == 3
    finally:
        proc.kill()
    out, err = proc.communicate()
    assert json.loads(out)["content"] == "No answer from the user (no reply within 1 second)."
    assert "askcli: no answer (no reply within 1 second)" in err
