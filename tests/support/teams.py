"""A team inbox on PostgreSQL with the roles of docs/team-inbox.md (its SQL block run verbatim): a
store and an askcli per role."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from askcli.inbox.store import Store, open_store

from tests.support.paths import ROOT
from tests.support.postgres import Cluster
from tests.support.processes import askcli_path

DOCS = ROOT / "docs" / "team-inbox.md"


ROLES = ("alice", "bob", "ci_agent", "other_agent", "mallory", "ops")


GROUPS = ("askcli_people", "askcli_agents", "askcli_teams")


PASSWORD = "a-password-of-their-own"


def docs_block() -> str:
    """The SQL block of docs/team-inbox.md that makes the roles."""
    text = DOCS.read_text()
    found = re.search(r"<!-- roles -->\n```sql\n(.*?)```", text, re.S)
    assert found, "docs/team-inbox.md has no <!-- roles --> sql block"
    return found.group(1)


def _drop_roles(cluster: Cluster, dbname: str) -> None:
    with cluster.connect(dbname) as db:
        for role in (*ROLES, *GROUPS):
            if db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                db.execute(f'DROP OWNED BY "{role}"')
    with cluster.connect() as db:
        for role in (*ROLES, *GROUPS):
            db.execute(f'DROP ROLE IF EXISTS "{role}"')


class Team:
    """One test's database with the docs' roles: a store per role, through ~/.pgpass."""

    def __init__(self, cluster: Cluster, url: str, tmp_path: Path) -> None:
        self.cluster = cluster
        self.owner_url = url
        self.dbname = urlsplit(url).path.lstrip("/")
        self.tmp = tmp_path
        self.stores: list[Store] = []
        owner = open_store(url)
        owner.ids()  # askcli's schema, made by the database's owner
        owner.close()
        with cluster.connect(self.dbname) as db:
            db.execute(docs_block())  # verbatim
            db.execute("CREATE ROLE other_agent LOGIN IN ROLE askcli_agents")
            db.execute("CREATE ROLE mallory LOGIN IN ROLE askcli_people")
            for role in ("alice", "bob", "ci_agent", "other_agent", "mallory"):
                db.execute(f"ALTER ROLE {role} PASSWORD '{PASSWORD}'")
        self.pgpass = tmp_path / "pgpass"
        self.pgpass.write_text(f"127.0.0.1:{cluster.port}:*:*:{PASSWORD}\n")
        self.pgpass.chmod(0o600)

    def url(self, role: str) -> str:
        return self.cluster.url(self.dbname, user=role)

    def store(self, role: str) -> Store:
        opened = open_store(self.url(role))
        self.stores.append(opened)
        return opened

    def sql(self, text: str) -> None:
        with self.cluster.connect(self.dbname) as db:
            db.execute(text)

    def askcli(
        self, role: str, args: list[str], stdin: str = ""
    ) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "ASKCLI_INBOX": self.url(role),
            "PGPASSFILE": str(self.pgpass),
            "HOME": str(self.tmp),
            "XDG_STATE_HOME": str(self.tmp / "state"),
            "NO_COLOR": "1",
        }
        proc = subprocess.run(
            [str(askcli_path()), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
            check=False,
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def close(self) -> None:
        for opened in self.stores:
            opened.close()


@pytest.fixture
def team(
    postgres_cluster: Cluster, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Team]:
    _drop_roles(postgres_cluster, urlsplit(postgres_url).path.lstrip("/"))
    made = Team(postgres_cluster, postgres_url, tmp_path)
    monkeypatch.setenv("PGPASSFILE", str(made.pgpass))
    yield made
    made.close()
    _drop_roles(postgres_cluster, made.dbname)
