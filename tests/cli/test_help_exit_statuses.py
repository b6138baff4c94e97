"""Every command's ``--help`` names every exit status it may end with (issue 11, item 11)."""

from __future__ import annotations

import re

import pytest

from tests.support.processes import run_askcli


@pytest.mark.parametrize(
    ("command", "statuses"),
    [
        (["ask"], {0, 1, 2, 3, 74, 129, 130, 141, 143}),
        (["claude"], {0, 1, 2, 3, 74, 129, 130, 141, 143}),
        (["check"], {0, 2, 74, 129, 130, 141, 143}),
        (["replay"], {0, 1, 2, 74, 129, 130, 141, 143}),
        (["todo", "show"], {0, 2, 74, 141}),
    ],
)
def test_help_names_every_exit_status(command: list[str], statuses: set[int]) -> None:
    shown = run_askcli(*command, "--help").stdout
    paragraph = shown[shown.index("Exit status") : shown.index("Options:")]
    named = {int(n) for n in re.findall(r"(?<![\w-])(\d+)(?=\s+[A-Za-z(])", paragraph)}
    assert named == statuses, paragraph
