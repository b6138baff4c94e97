"""The PostgreSQL inbox's schema: its tables, roles and triggers as migrations from one
version to the next (:data:`MIGRATIONS`), made or brought up to date when a store first
connects (:func:`prepare`), looked at by ``askcli doctor`` (:func:`look`); and the driver,
psycopg, imported only when a PostgreSQL inbox is used, with what its errors say.
"""

from __future__ import annotations

from typing import Any

from ...errors import InboxError, InboxRefused
from .. import location

SCHEMA = "askcli"
APP = "askcli inbox"
# the schema this askcli makes (2: roles, row-level security, retries; 3: claimed_at;
# 4: resumed_by, resumed_at, resumed_until)
VERSION = 4
CHANNEL = "askcli_inbox"  # what the trigger notifies of every change (the inboxes listen)
ASKER_CHANNEL = "askcli_asker_"  # + md5(asker): of the changes of one asker's questions
LOCK = 0x61736B63  # the advisory lock held while the schema is made or migrated
TABLES = ("version", "questions", "inboxes", "askers", "teams")
PEOPLE = "askcli_people"  # the group role of those who answer
AGENTS = "askcli_agents"  # of the agents' roles: they ask, never answer
TEAMS = "askcli_teams"  # of the teams: a team is a group role that is a member of it
# MIGRATIONS[n] takes the schema from version n to n + 1
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
        f"CREATE TABLE {SCHEMA}.version (app TEXT PRIMARY KEY, version INTEGER NOT NULL)",
        f"""CREATE TABLE {SCHEMA}.questions (
            id BIGSERIAL PRIMARY KEY,
            ticket TEXT NOT NULL UNIQUE,
            key TEXT NOT NULL,
            agent TEXT NOT NULL,
            arrived DOUBLE PRECISION NOT NULL,
            call TEXT NOT NULL,
            status TEXT NOT NULL,
            claimed_by TEXT,
            result TEXT,
            delivered DOUBLE PRECISION,
            asker_pid INTEGER,
            asker_host TEXT,
            finished DOUBLE PRECISION,
            asker_start TEXT,
            conversation TEXT,
            claimed_until DOUBLE PRECISION,
            secret INTEGER,
            asker TEXT,
            addressed_to TEXT,
            answered_by TEXT,
            answered_host TEXT,
            decision TEXT
        )""",
        f"CREATE INDEX questions_status ON {SCHEMA}.questions (status, id)",
        f"CREATE INDEX questions_key ON {SCHEMA}.questions (key, id)",
        f"""CREATE TABLE {SCHEMA}.inboxes (
            id TEXT PRIMARY KEY,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            seen DOUBLE PRECISION NOT NULL,
            person TEXT,
            place TEXT
        )""",
        f"""CREATE TABLE {SCHEMA}.askers (
            id TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            seen DOUBLE PRECISION NOT NULL,
            place TEXT,
            pid INTEGER,
            start TEXT
        )""",
        f"""CREATE TABLE {SCHEMA}.teams (
            team TEXT NOT NULL,
            member TEXT NOT NULL,
            PRIMARY KEY (team, member)
        )""",
        # every change to the inboxes' channel, and to the channel of the question's asker
        f"""CREATE FUNCTION {SCHEMA}.notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('{CHANNEL}', OLD.id::text);
                ELSE
                    PERFORM pg_notify('{CHANNEL}', NEW.id::text);
                    IF NEW.asker IS NOT NULL THEN
                        PERFORM pg_notify('{ASKER_CHANNEL}' || md5(NEW.asker), NEW.id::text);
                    END IF;
                END IF;
                RETURN NULL;
            END $$""",
        f"""CREATE TRIGGER questions_changed AFTER INSERT OR DELETE OR UPDATE OF status
            ON {SCHEMA}.questions FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.notify()""",
    ),
    (  # 2: who asked and who answered are the database's word; retries know their own changes
        f"""ALTER TABLE {SCHEMA}.questions ADD COLUMN asked_by TEXT,
            ADD COLUMN answered_from TEXT, ADD COLUMN rules TEXT, ADD COLUMN claim_token TEXT,
            ADD COLUMN answer_token TEXT, ADD COLUMN take_token TEXT,
            ADD COLUMN withdraw_token TEXT""",
        f"ALTER TABLE {SCHEMA}.inboxes ADD COLUMN role TEXT",
        f"ALTER TABLE {SCHEMA}.askers ADD COLUMN role TEXT",
        # whether the session's role is (a member of) the role ``name``; false for no such role
        f"""CREATE FUNCTION {SCHEMA}.member_of(name TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE
            AS $$ SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = name
            AND pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')) $$""",
        # an agent's role (a member of {AGENTS}) asks and takes its answers, never answers
        f"""CREATE FUNCTION {SCHEMA}.is_agent() RETURNS BOOLEAN LANGUAGE sql STABLE
            AS $$ SELECT NOT COALESCE((SELECT rolsuper FROM pg_catalog.pg_roles
            WHERE rolname = session_user), false) AND {SCHEMA}.member_of('{AGENTS}') $$""",
        f"""CREATE FUNCTION {SCHEMA}.may_answer(addressed_to TEXT) RETURNS BOOLEAN
            LANGUAGE sql STABLE AS $$ SELECT NOT {SCHEMA}.is_agent() AND
            (addressed_to IS NULL OR {SCHEMA}.member_of(addressed_to)) $$""",
        # what no client writes: who asked, who answered and from where; what is final
        f"""CREATE FUNCTION {SCHEMA}.guard() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    NEW.asked_by := session_user;
                    NEW.answered_by := NULL;
                    NEW.answered_from := NULL;
                    IF NEW.status <> 'waiting' THEN
                        RAISE EXCEPTION 'askcli: a question is asked waiting'
                            USING ERRCODE = 'insufficient_privilege';
                    END IF;
                    RETURN NEW;
                END IF;
                NEW.asked_by := OLD.asked_by;
                NEW.call := OLD.call;  -- what the person sees is what they answer
                NEW.addressed_to := OLD.addressed_to;
                IF OLD.status IN ('answered', 'withdrawn') THEN
                    NEW.status := OLD.status;  -- final
                    NEW.answered_by := OLD.answered_by;
                    NEW.answered_from := OLD.answered_from;
                    NEW.decision := OLD.decision;
                    NEW.rules := OLD.rules;
                    IF NEW.result IS DISTINCT FROM OLD.result AND NEW.result IS NOT NULL THEN
                        NEW.result := OLD.result;  -- erased, never replaced
                    END IF;
                    RETURN NEW;
                END IF;
                IF NEW.status IN ('being answered', 'answered')
                        AND NEW.status IS DISTINCT FROM OLD.status
                        AND NOT {SCHEMA}.may_answer(OLD.addressed_to) THEN
                    RAISE EXCEPTION 'askcli: the role % may not answer question %',
                        session_user, OLD.id USING ERRCODE = 'insufficient_privilege';
                END IF;
                IF NEW.status = 'answered' THEN
                    NEW.answered_by := session_user;
                    NEW.answered_from := COALESCE(host(inet_client_addr()), 'local');
                ELSE
                    NEW.answered_by := NULL;
                    NEW.answered_from := NULL;
                END IF;
                RETURN NEW;
            END $$""",
        f"""CREATE TRIGGER questions_guarded BEFORE INSERT OR UPDATE ON {SCHEMA}.questions
            FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.guard()""",
        f"""CREATE FUNCTION {SCHEMA}.owned() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.role := session_user;
                RETURN NEW;
            END $$""",
        f"""CREATE FUNCTION {SCHEMA}.inbox_owned() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.role := session_user;
                NEW.person := session_user;  -- who answers there, whatever it says
                RETURN NEW;
            END $$""",
        f"""CREATE TRIGGER inboxes_owned BEFORE INSERT OR UPDATE ON {SCHEMA}.inboxes
            FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.inbox_owned()""",
        f"""CREATE TRIGGER askers_owned BEFORE INSERT OR UPDATE ON {SCHEMA}.askers
            FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.owned()""",
        # row-level security: what each role sees and changes (the owner is not bound by it)
        f"ALTER TABLE {SCHEMA}.questions ENABLE ROW LEVEL SECURITY",
        f"""CREATE POLICY asker_sees ON {SCHEMA}.questions FOR SELECT
            USING (asked_by = session_user)""",
        f"""CREATE POLICY answerer_sees ON {SCHEMA}.questions FOR SELECT
            USING ({SCHEMA}.may_answer(addressed_to))""",
        f"""CREATE POLICY agent_asks ON {SCHEMA}.questions FOR INSERT
            WITH CHECK (asked_by = session_user)""",
        f"""CREATE POLICY asker_changes ON {SCHEMA}.questions FOR UPDATE
            USING (asked_by = session_user)""",
        f"""CREATE POLICY answerer_changes ON {SCHEMA}.questions FOR UPDATE
            USING ({SCHEMA}.may_answer(addressed_to))""",
        f"ALTER TABLE {SCHEMA}.inboxes ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY anyone_sees ON {SCHEMA}.inboxes FOR SELECT USING (true)",
        f"""CREATE POLICY own_inbox ON {SCHEMA}.inboxes FOR INSERT
            WITH CHECK (role = session_user)""",
        f"""CREATE POLICY own_inbox_changes ON {SCHEMA}.inboxes FOR UPDATE
            USING (role = session_user)""",
        f"""CREATE POLICY own_or_silent_inbox_ends ON {SCHEMA}.inboxes FOR DELETE
            USING (role = session_user OR seen < extract(epoch FROM clock_timestamp()) - 60)""",
        f"ALTER TABLE {SCHEMA}.askers ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY anyone_sees ON {SCHEMA}.askers FOR SELECT USING (true)",
        f"""CREATE POLICY own_lease ON {SCHEMA}.askers FOR INSERT
            WITH CHECK (role = session_user)""",
        f"""CREATE POLICY own_lease_renewed ON {SCHEMA}.askers FOR UPDATE
            USING (role = session_user)""",
    ),
    (  # 3: when a claim was made (an inbox says since when another of its person's holds one)
        f"ALTER TABLE {SCHEMA}.questions ADD COLUMN claimed_at DOUBLE PRECISION",
    ),
    (  # 4: who resumes a deferred question's session (askcli resume), since when, its lease
        f"""ALTER TABLE {SCHEMA}.questions ADD COLUMN resumed_by TEXT,
            ADD COLUMN resumed_at DOUBLE PRECISION, ADD COLUMN resumed_until DOUBLE PRECISION""",
    ),
)


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise InboxError(
            "a PostgreSQL inbox needs psycopg, askcli's postgres extra:"
            " pip install 'askcli[postgres]'"
        ) from None
    return psycopg


def said(exc: BaseException, url: str = "") -> str:
    """What a driver's error says, in one line: libpq's words without its prefixes, and
    never ``url``'s password, where libpq repeats the URL or a piece of it (its
    ``invalid percent-encoded token: "<the password>"``)."""
    text = location.scrub(str(exc).strip(), url)
    if "percent-encoded" in text:
        text += " (a % in the URL is written %25)"
    text = text.splitlines()[0] if text else type(exc).__name__
    if " failed: " in text:
        text = text.rsplit(" failed: ", 1)[1]
    for prefix in ("FATAL:", "ERROR:"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return " ".join(text.split())


# the owner of a trusted object: a superuser, this role or the database's owner
_TRUSTED = (
    "(o.rolsuper OR o.rolname = session_user OR o.oid = (SELECT datdba FROM"
    " pg_catalog.pg_database WHERE datname = current_database()))"
)


def prepare(db: Any, where: str) -> None:
    """Make the schema, or bring it to :data:`VERSION`; refuse one askcli did not make, or
    a newer askcli's."""
    if _version(db, where) == VERSION:
        return
    psycopg = _driver()
    try:
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
            found = _version(db, where)  # made meanwhile by another process
            for statements in MIGRATIONS[found:]:
                for statement in statements:
                    db.execute(statement)
            db.execute(
                f"INSERT INTO {SCHEMA}.version (app, version) VALUES (%s, %s) ON CONFLICT"
                " (app) DO UPDATE SET version = excluded.version",
                (APP, VERSION),
            )
    except psycopg.Error as exc:
        raise InboxError(f"the inbox {where} cannot be made: {said(exc)}") from None


def _version(db: Any, where: str) -> int:
    """The schema's version: 0 where there is none; InboxRefused for one not askcli's."""
    psycopg = _driver()
    try:
        tables = {
            row[0]
            for row in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (SCHEMA,)
            ).fetchall()
        }
        strangers = db.execute(
            # made by a role other than the database's owner, a superuser or this role:
            # whoever made it could run code (triggers, functions) as everyone who uses it
            "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON"
            " n.oid = c.relnamespace JOIN pg_catalog.pg_roles o ON o.oid IN (c.relowner,"
            " n.nspowner) WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'f') AND NOT"
            f" {_TRUSTED} UNION SELECT '(the schema itself)' FROM pg_catalog.pg_namespace n"
            f" JOIN pg_catalog.pg_roles o ON o.oid = n.nspowner WHERE n.nspname = %s AND NOT"
            f" {_TRUSTED} ORDER BY 1",
            (SCHEMA, SCHEMA),
        ).fetchall()
        if not tables and not strangers:
            return 0
        row = None
        if "version" in tables and not strangers:
            row = db.execute(
                f"SELECT version FROM {SCHEMA}.version WHERE app = %s", (APP,)
            ).fetchone()
    except psycopg.Error as exc:
        raise InboxError(f"the inbox {where} cannot be read: {said(exc)}") from None
    if strangers:
        theirs = ", ".join(sorted({r[0] for r in strangers})[:5])
        raise InboxRefused(
            f"the inbox {where} cannot be used: its schema {SCHEMA} ({theirs}) is owned"
            " by a role that is neither the database's owner, a superuser nor this role;"
            " askcli leaves it unchanged"
        )
    if row is None:
        theirs = ", ".join(sorted(tables)[:5])
        raise InboxRefused(
            f"the inbox {where} cannot be used: its schema {SCHEMA} holds tables askcli did"
            f" not make ({theirs}); askcli leaves them unchanged"
        )
    version = int(row[0])
    if version > VERSION:
        raise InboxRefused(
            f"the inbox {where} was made by a newer askcli (schema {version}; this one knows"
            f" {VERSION}): upgrade askcli"
        )
    return version
