"""``askcli doctor`` on a PostgreSQL inbox only looks (issue 28): it says whether the inbox
answers and what its schema is, and leaves the database as it was: no schema made, none
migrated, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from askcli.inbox.store import open_store

from tests.support.postgres import PASSWORD, PASSWORD_ROLE, Cluster
from tests.support.processes import run_askcli

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")


def doctor(url: str, tmp_path: Path) -> str:
    home = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    done = run_askcli("doctor", env={**home, "ASKCLI_INBOX": url})
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("inbox: ")]
    return line


def schemas(url: str) -> list[str]:
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'"
            " AND nspname <> 'information_schema' ORDER BY 1"
        ).fetchall()
    return [row[0] for row in rows]


def test_doctor_makes_no_schema(postgres_url: str, tmp_path: Path) -> None:
    before = schemas(postgres_url)
    assert "askcli" not in before
    line = doctor(postgres_url, tmp_path)
    assert line == (
        f"inbox: {postgres_url} ($ASKCLI_INBOX): usable (PostgreSQL; no askcli schema yet:"
        " made at first use)"
    )
    assert schemas(postgres_url) == before  # the database is as it was
    store = open_store(postgres_url)
    store.ids()  # first use: made
    store.close()
    assert "askcli" in schemas(postgres_url)
    assert doctor(postgres_url, tmp_path).endswith("($ASKCLI_INBOX): usable (PostgreSQL)")


def test_doctor_says_when_the_role_cannot_make_the_schema(
    postgres_cluster: Cluster, tmp_path: Path
) -> None:
    name = postgres_cluster.new_database()  # the superuser's: the password role may not CREATE
    url = postgres_cluster.url(name, PASSWORD_ROLE, PASSWORD)
    line = doctor(url, tmp_path)
    assert line.endswith(
        "not usable: no askcli schema yet, and this role may not make one (it needs CREATE on"
        " the database, as its owner has, the first time)"
    )
    assert PASSWORD not in line
    assert "askcli" not in schemas(postgres_cluster.url(name))


def test_doctor_leaves_a_schema_askcli_did_not_make_alone(
    postgres_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("CREATE SCHEMA askcli")
        db.execute("CREATE TABLE askcli.questions (mine TEXT)")
    line = doctor(postgres_url, tmp_path)
    assert "not usable: the inbox" in line and "holds tables askcli did not make" in line
    with psycopg.connect(postgres_url) as db:
        found = db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'askcli'")
        assert found.fetchall() == [("questions",)]
