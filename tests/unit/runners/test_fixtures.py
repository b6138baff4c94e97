"""Recorded sessions in fixtures/ replay to the same stdout, stderr and exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from askcli import fixtures

from tests.support.paths import ROOT

FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))


def test_there_are_fixtures() -> None:
    assert len(FIXTURES) >= 5


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_replays(path: Path) -> None:
    expected, actual = fixtures.replay(fixtures.load(path))
    assert actual.stderr == expected.stderr
    assert actual.stdout == expected.stdout
    assert actual.status == expected.status


def test_a_changed_fixture_no_longer_matches(tmp_path: Path) -> None:
    fixture = fixtures.load(FIXTURES[0])
    fixture["answers"] = ["q"]
    expected, actual = fixtures.replay(fixture)
    assert actual != expected
    assert actual.render() != expected.render()  # what askcli sent, printed or ended with


def test_load_refuses_other_files(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "something-else"}')
    with pytest.raises(ValueError, match="not an askcli-fixture/1 fixture"):
        fixtures.load(path)
