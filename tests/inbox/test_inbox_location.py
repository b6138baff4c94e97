"""Where a PostgreSQL inbox's URL holds its password (issue 28): found where libpq finds it,
with libpq's own parser (psycopg installed) and without it (the careful fallback), never
shown by askcli, never repeated from a libpq error, on a command line refused."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from askcli.errors import InboxError
from askcli.inbox import location
from askcli.inbox.store import postgres

from tests.support.inbox import COMMANDS, run_command
from tests.support.postgres import PASSWORD_ROLE, Cluster
from tests.support.processes import run_askcli

SECRET = "Zq8x-hunter2"

# (url, the password in it): each as libpq reads it (psql connects with it)
WITH_PASSWORD = [
    (f"postgresql://u:{SECRET}@db.example/askcli", SECRET),
    (f"postgres://u:{SECRET}@db.example:5432/askcli", SECRET),
    (f"postgresql://u:{SECRET}@[127.0.0.1]/db", SECRET),
    (f"postgresql://u:{SECRET}@[::1]:5433/db", SECRET),
    (f"postgresql://u@db.example/db?password={SECRET}", SECRET),
    (f"postgresql://u@db.example/db?sslmode=require&password={SECRET}", SECRET),
    (f"postgresql://u@db.example/db?passwor%64={SECRET}", SECRET),  # libpq decodes the key
    (f"postgresql://u@db.example/db#?password={SECRET}", SECRET),  # '#' is no fragment to libpq
    (f"postgresql://u:{SECRET}@h1,h2/db", SECRET),
    (f"postgresql://u:{SECRET}@h1:5432,h2:5433/db", SECRET),
    (f"postgresql://u:12?{SECRET}@db.example/db", f"12?{SECRET}"),  # a '?' in the password
    (f"postgresql://u:{SECRET}%40x@db.example/db", f"{SECRET}@x"),
    (f"host=db.example password={SECRET}", SECRET),
    (f"host=db.example dbname=askcli password = '{SECRET} x'", f"{SECRET} x"),
]
WITHOUT = [
    "postgresql://askcli@db.internal:5432/askcli?sslmode=verify-full",
    "postgresql://u@h1,h2/db",
    "postgresql://u:@db.example/db",  # an empty password is none (libpq)
    "postgresql:///askcli?host=/run/postgresql",
    "host=db.example dbname=askcli",
    "/home/me/.local/state/askcli/inbox.db",
]


@pytest.fixture(params=["libpq", "fallback"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test with psycopg's (libpq's) parser, and as if psycopg were not installed."""
    if request.param == "fallback":
        for name in [m for m in sys.modules if m == "psycopg" or m.startswith("psycopg.")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg: ImportError
        with pytest.raises(ImportError):
            import psycopg  # noqa: F401
    else:
        pytest.importorskip("psycopg")
    yield request.param


def test_libpq_reads_each_password_where_the_tests_say() -> None:
    conninfo = pytest.importorskip("psycopg.conninfo")
    for url, password in WITH_PASSWORD:
        assert conninfo.conninfo_to_dict(url).get("password") == password, url
    for url in WITHOUT[:-1]:
        assert "password" not in conninfo.conninfo_to_dict(url), url


@pytest.mark.parametrize(("url", "password"), WITH_PASSWORD)
def test_a_password_anywhere_libpq_reads_one_is_found_and_never_shown(
    parser: str, url: str, password: str
) -> None:
    assert location.has_password(url)
    assert location.password_refused(url, "--inbox-url") is not None
    shown = location.shown(url)
    assert SECRET not in shown and password not in shown
    assert "12?" not in shown


@pytest.mark.parametrize("url", WITHOUT)
def test_a_url_without_a_password_is_not_refused(parser: str, url: str) -> None:
    assert not location.has_password(url)


def test_shown_keeps_what_tells_the_inbox(parser: str) -> None:
    assert location.shown(WITH_PASSWORD[0][0]) == "postgresql://u@db.example/askcli"
    assert location.shown(WITH_PASSWORD[3][0]) == "postgresql://u@[::1]:5433/db"
    assert location.shown(WITH_PASSWORD[8][0]) == "postgresql://u@h1,h2/db"
    assert location.shown(WITHOUT[0]) == "postgresql://askcli@db.internal:5432/askcli"


# -- libpq's own errors never show the password ------------------------------------------

# a password libpq cannot read: it says "invalid percent-encoded token: "<the password>""
UNREADABLE = [
    f"postgresql://{PASSWORD_ROLE}:pa%zz{SECRET}@127.0.0.1:{{port}}/askcli",
    f"postgresql://{PASSWORD_ROLE}:{SECRET}%2@127.0.0.1:{{port}}/askcli",
    f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{{port}}/askcli?password={SECRET}%zz",
    f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{{port}}/askcli?password=a&{SECRET}",
    f"postgresql://{PASSWORD_ROLE}:a {SECRET}@127.0.0.1:{{port}}/askcli",
]


@pytest.mark.parametrize("template", UNREADABLE)
def test_the_driver_s_error_never_shows_the_password(
    postgres_cluster: Cluster, template: str
) -> None:
    psycopg = pytest.importorskip("psycopg")
    url = template.format(port=postgres_cluster.port)
    with pytest.raises(psycopg.Error) as raw:
        psycopg.connect(url, connect_timeout=5)
    assert SECRET in str(raw.value)  # libpq itself repeats it
    assert SECRET not in postgres.said(raw.value, url)
    with pytest.raises(InboxError) as refused:
        postgres.PostgresStore(url).ids()
    said = str(refused.value)
    assert SECRET not in said and "\n" not in said
    assert said.startswith(
        f"the inbox postgresql://{PASSWORD_ROLE}@127.0.0.1:{postgres_cluster.port}/askcli"
        " cannot be reached: "
    )


def test_a_raw_percent_is_said_without_the_password(postgres_cluster: Cluster) -> None:
    url = UNREADABLE[0].format(port=postgres_cluster.port)
    with pytest.raises(InboxError) as refused:
        postgres.PostgresStore(url).ids()
    assert str(refused.value).endswith(
        'cannot be reached: invalid percent-encoded token: "…" (a % in the URL is written %25)'
    )


@pytest.mark.parametrize(("args", "stdin", "status"), COMMANDS, ids=lambda v: str(v)[:20])
def test_no_command_shows_a_password_libpq_cannot_read(
    postgres_cluster: Cluster, tmp_path: Path, args: list[str], stdin: str, status: int
) -> None:
    url = UNREADABLE[0].format(port=postgres_cluster.port)
    code, err = run_command(args, stdin, {"ASKCLI_INBOX": url}, tmp_path)
    assert code == status
    assert len(err.splitlines()) == 1 and "percent-encoded" in err
    assert SECRET not in err


@pytest.mark.parametrize("template", UNREADABLE)
def test_doctor_never_shows_a_password_libpq_cannot_read(
    postgres_cluster: Cluster, tmp_path: Path, template: str
) -> None:
    url = template.format(port=postgres_cluster.port)
    home = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    doctor = run_askcli("doctor", env={**home, "ASKCLI_INBOX": url})
    assert doctor.returncode == 0, doctor.stderr
    assert "inbox: postgresql://" in doctor.stdout and "not usable" in doctor.stdout
    assert SECRET not in doctor.stdout + doctor.stderr


@pytest.mark.process
@pytest.mark.parametrize(
    "url", [url for url, _ in WITH_PASSWORD] + [t.format(port=5432) for t in UNREADABLE]
)
def test_setup_and_inbox_url_refuse_every_password(tmp_path: Path, url: str) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    done = run_askcli("setup", "gemini", "--inbox-url", url, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("askcli setup: --inbox-url holds a password")
    assert SECRET not in done.stderr
    assert not (tmp_path / ".gemini").exists()
    listed = run_askcli("inbox", "list", "--inbox-url", url, env=env)
    assert listed.returncode == 2 and "--inbox-url holds a password" in listed.stderr
    assert SECRET not in listed.stderr


def test_scrub_hides_the_password_and_keeps_the_rest(parser: str) -> None:
    url = f"postgresql://u:{SECRET}@h/db?sslmode=require"
    assert location.scrub(f'bad token: "{SECRET}"', url) == 'bad token: "…"'
    assert location.scrub(f"at {SECRET} and {url}", url) == (
        "at … and postgresql://u@h/db"  # the URL as shown, the password nowhere
    )
    kept = "failed to resolve host 'h'"  # 'h' is in the password, but is no password
    assert location.scrub(kept, url) == kept
    assert location.scrub(kept, "") == kept
