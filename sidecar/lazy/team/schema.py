"""The team database's schema, in the schema ``lazy_team``: versioned forward migrations like the
local store's, applied by ``lazy team init`` (as the database's owner), checked by every other
command, which refuses a schema newer than it knows.

Access: members log in as their own PostgreSQL roles, each granted the group role
``lazy_team_member``. Row-level security shows a member the rows of the projects they belong
to, and lets them write only their own Builders; joining a project that exists takes a
member of it (``lazy team add``). ``me()`` and ``my_projects()`` are SECURITY DEFINER so the
policies can read the membership they are about without recursing into their own rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import Connection, sql
from psycopg.rows import TupleRow

SCHEMA = "lazy_team"
GROUP = "lazy_team_member"

Conn = Connection[TupleRow]

_V1 = """
CREATE TABLE lazy_team.meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE lazy_team.members (
  id serial PRIMARY KEY,
  role name NOT NULL UNIQUE DEFAULT session_user,
  name text NOT NULL,
  email text NOT NULL UNIQUE,
  joined_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE lazy_team.projects (
  id serial PRIMARY KEY,
  key text NOT NULL UNIQUE,
  created_by int REFERENCES lazy_team.members,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE lazy_team.memberships (
  project_id int NOT NULL REFERENCES lazy_team.projects ON DELETE CASCADE,
  member_id int NOT NULL REFERENCES lazy_team.members ON DELETE CASCADE,
  added_by int REFERENCES lazy_team.members,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, member_id)
);

CREATE TABLE lazy_team.builders (
  member_id int NOT NULL REFERENCES lazy_team.members,
  builder_id text NOT NULL,
  project_id int NOT NULL REFERENCES lazy_team.projects,
  agent text NOT NULL,
  title text NOT NULL DEFAULT '',
  started_at timestamptz,
  updated_at timestamptz,
  message_count int NOT NULL,
  lines jsonb NOT NULL DEFAULT '{}',      -- messages pushed per line ('' the Builder's own)
  sessions jsonb NOT NULL DEFAULT '[]',   -- its sessions: another set means regrouped
  info jsonb NOT NULL,                    -- the redacted BuilderInfo
  pushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member_id, builder_id)
);
CREATE INDEX builders_project ON lazy_team.builders (project_id, updated_at DESC);

CREATE TABLE lazy_team.messages (
  member_id int NOT NULL,
  builder_id text NOT NULL,
  line text NOT NULL DEFAULT '',
  number int NOT NULL,
  project_id int NOT NULL,
  role text NOT NULL,
  at timestamptz,
  text text NOT NULL,                     -- its words and call summaries: what search reads
  view jsonb NOT NULL,                    -- the redacted MessageView
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', left(text, 200000))) STORED,
  PRIMARY KEY (member_id, builder_id, line, number),
  FOREIGN KEY (member_id, builder_id) REFERENCES lazy_team.builders ON DELETE CASCADE
);
CREATE INDEX messages_tsv ON lazy_team.messages USING gin (tsv);
CREATE INDEX messages_project ON lazy_team.messages (project_id);

CREATE TABLE lazy_team.seen (
  viewer_id int NOT NULL REFERENCES lazy_team.members,
  member_id int NOT NULL,
  builder_id text NOT NULL,
  message_count int NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (viewer_id, member_id, builder_id)
);

CREATE TABLE lazy_team.pushes (
  id bigserial PRIMARY KEY,
  member_id int NOT NULL REFERENCES lazy_team.members,
  machine text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  builders int NOT NULL,
  messages int NOT NULL
);

CREATE FUNCTION lazy_team.me() RETURNS int
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = lazy_team, pg_temp
  AS $$ SELECT id FROM lazy_team.members WHERE role = session_user $$;

CREATE FUNCTION lazy_team.my_projects() RETURNS SETOF int
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = lazy_team, pg_temp
  AS $$ SELECT project_id FROM lazy_team.memberships WHERE member_id = lazy_team.me() $$;

-- the project of this key, created with the caller as its first member when new; a project
-- that exists is the caller's only if they are a member of it
CREATE FUNCTION lazy_team.claim_project(k text) RETURNS int
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = lazy_team, pg_temp
  AS $$
DECLARE pid int; who int := lazy_team.me();
BEGIN
  IF who IS NULL THEN
    RAISE EXCEPTION 'role % has not joined the team', session_user USING ERRCODE = '42501';
  END IF;
  INSERT INTO lazy_team.projects (key, created_by) VALUES (k, who)
    ON CONFLICT (key) DO NOTHING RETURNING id INTO pid;
  IF pid IS NOT NULL THEN
    INSERT INTO lazy_team.memberships (project_id, member_id, added_by) VALUES (pid, who, who);
    RETURN pid;
  END IF;
  SELECT p.id INTO pid FROM lazy_team.projects p
    JOIN lazy_team.memberships m ON m.project_id = p.id AND m.member_id = who WHERE p.key = k;
  IF pid IS NULL THEN
    RAISE EXCEPTION 'not a member of project %', k USING ERRCODE = '42501',
      HINT = 'a member of it adds you: lazy team add <your email> --project ' || k;
  END IF;
  RETURN pid;
END $$;

-- a member of a project adds another member (by email) to it
CREATE FUNCTION lazy_team.add_member(k text, who_email text) RETURNS void
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = lazy_team, pg_temp
  AS $$
DECLARE pid int; them int;
BEGIN
  SELECT id INTO pid FROM lazy_team.projects
    WHERE key = k AND id IN (SELECT lazy_team.my_projects());
  IF pid IS NULL THEN
    RAISE EXCEPTION 'not a member of project %', k USING ERRCODE = '42501';
  END IF;
  SELECT id INTO them FROM lazy_team.members WHERE email = lower(who_email);
  IF them IS NULL THEN
    RAISE EXCEPTION 'no member %: they run lazy team join first', who_email
      USING ERRCODE = 'P0002';
  END IF;
  INSERT INTO lazy_team.memberships (project_id, member_id, added_by)
    VALUES (pid, them, lazy_team.me()) ON CONFLICT DO NOTHING;
END $$;

ALTER TABLE lazy_team.projects ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.memberships ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.builders ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.seen ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.pushes ENABLE ROW LEVEL SECURITY;
ALTER TABLE lazy_team.members ENABLE ROW LEVEL SECURITY;

CREATE POLICY members_read ON lazy_team.members FOR SELECT USING (true);
CREATE POLICY members_self ON lazy_team.members FOR INSERT WITH CHECK (role = session_user);
CREATE POLICY members_update ON lazy_team.members FOR UPDATE
  USING (role = session_user) WITH CHECK (role = session_user);
CREATE POLICY projects_read ON lazy_team.projects FOR SELECT
  USING (id IN (SELECT lazy_team.my_projects()));
CREATE POLICY memberships_read ON lazy_team.memberships FOR SELECT
  USING (project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY builders_read ON lazy_team.builders FOR SELECT
  USING (project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY builders_own ON lazy_team.builders FOR ALL
  USING (member_id = lazy_team.me())
  WITH CHECK (member_id = lazy_team.me() AND project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY messages_read ON lazy_team.messages FOR SELECT
  USING (project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY messages_own ON lazy_team.messages FOR ALL
  USING (member_id = lazy_team.me())
  WITH CHECK (member_id = lazy_team.me() AND project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY seen_own ON lazy_team.seen FOR ALL
  USING (viewer_id = lazy_team.me()) WITH CHECK (viewer_id = lazy_team.me());
CREATE POLICY pushes_own ON lazy_team.pushes FOR ALL
  USING (member_id = lazy_team.me()) WITH CHECK (member_id = lazy_team.me());

GRANT USAGE ON SCHEMA lazy_team TO lazy_team_member;
GRANT SELECT ON lazy_team.meta, lazy_team.projects, lazy_team.memberships TO lazy_team_member;
GRANT SELECT, INSERT, UPDATE ON lazy_team.members TO lazy_team_member;
GRANT SELECT, INSERT, UPDATE, DELETE ON lazy_team.builders, lazy_team.messages, lazy_team.seen
  TO lazy_team_member;
GRANT SELECT, INSERT ON lazy_team.pushes TO lazy_team_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA lazy_team TO lazy_team_member;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA lazy_team FROM PUBLIC;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA lazy_team TO lazy_team_member;
"""

# version 2: tasks promoted from the team's Builders, seen by the project's members
_V2 = """
CREATE TABLE lazy_team.tasks (
  id serial PRIMARY KEY,
  project_id int NOT NULL REFERENCES lazy_team.projects,
  code text NOT NULL,
  goal text NOT NULL,
  prompt text NOT NULL,
  parent text,
  created_by int NOT NULL REFERENCES lazy_team.members DEFAULT lazy_team.me(),
  created_at timestamptz NOT NULL DEFAULT now(),
  builder_member int NOT NULL,
  builder_id text NOT NULL,
  from_message int NOT NULL,
  to_message int NOT NULL CHECK (to_message >= from_message),
  UNIQUE (project_id, code),
  UNIQUE (builder_member, builder_id, from_message, to_message),
  FOREIGN KEY (builder_member, builder_id) REFERENCES lazy_team.builders ON DELETE CASCADE
);
CREATE INDEX tasks_builder ON lazy_team.tasks (builder_member, builder_id);
ALTER TABLE lazy_team.tasks ENABLE ROW LEVEL SECURITY;
CREATE POLICY tasks_read ON lazy_team.tasks FOR SELECT
  USING (project_id IN (SELECT lazy_team.my_projects()));
CREATE POLICY tasks_write ON lazy_team.tasks FOR INSERT
  WITH CHECK (created_by = lazy_team.me() AND project_id IN (SELECT lazy_team.my_projects()));
GRANT SELECT, INSERT ON lazy_team.tasks TO lazy_team_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA lazy_team TO lazy_team_member;
"""

# version 3: search through a function of the schema's owner. Under row-level security the
# planner may not use the GIN index for `@@` (not leakproof) before the policy's filter, and
# scanned every message (660 ms for a rare word at 600k messages, bench/team.py); here the
# membership filter is explicit, and the query planned for its values uses the index (200k
# messages: 97 ms by RLS, 5 ms here).
_V3 = """
CREATE FUNCTION lazy_team.find_messages(
  q tsquery, p_project text, p_member text, p_agent text,
  p_since timestamptz, p_until timestamptz, lim int
) RETURNS TABLE (member_id int, builder_id text, number int, role text, at timestamptz,
                 text text, rank real)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = lazy_team, pg_temp
  AS $$
BEGIN
  -- EXECUTE: planned for these values each time (a generic plan of a function's query did not
  -- use the GIN index)
  RETURN QUERY EXECUTE
    'SELECT x.member_id, x.builder_id, x.number, x.role, x.at, x.text, ts_rank_cd(x.tsv, $1)
     FROM lazy_team.messages x
     JOIN lazy_team.builders b ON b.member_id = x.member_id AND b.builder_id = x.builder_id
     JOIN lazy_team.members m ON m.id = x.member_id
     JOIN lazy_team.projects p ON p.id = x.project_id
     WHERE x.tsv @@ $1 AND x.line = ''''
       AND x.project_id IN (SELECT ms.project_id FROM lazy_team.memberships ms WHERE ms.member_id = $8)
       AND ($2::text IS NULL OR p.key = $2)
       AND ($3::text IS NULL OR m.email = lower($3) OR m.name = $3 OR m.role = $3)
       AND ($4::text IS NULL OR b.agent = $4)
       AND ($5::timestamptz IS NULL OR x.at >= $5) AND ($6::timestamptz IS NULL OR x.at < $6)
     ORDER BY 7 DESC, x.at DESC NULLS LAST
     LIMIT $7'
    USING q, p_project, p_member, p_agent, p_since, p_until, lim, lazy_team.me();
END $$;
REVOKE ALL ON FUNCTION lazy_team.find_messages FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lazy_team.find_messages TO lazy_team_member;
"""

# index i holds what takes the schema from version i to i + 1
MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)
VERSION = len(MIGRATIONS)


class SchemaError(RuntimeError):
    """The team schema is missing, or newer than this lazy knows."""


@dataclass(frozen=True)
class InitReport:
    created_group: bool
    from_version: int
    to_version: int


def version(conn: Conn) -> int:
    """The schema's version, 0 when there is none."""
    row = conn.execute("SELECT to_regclass('lazy_team.meta') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    got = conn.execute("SELECT value FROM lazy_team.meta WHERE key = 'schema_version'").fetchone()
    return int(str(got[0])) if got else 0


def check(conn: Conn) -> int:
    """The version, when this lazy can use it; else a SchemaError saying what to do."""
    v = version(conn)
    if v == 0:
        raise SchemaError(
            "the team database has no lazy schema: its owner runs `lazy team init <conninfo>`"
        )
    if v > VERSION:
        raise SchemaError(
            f"the team database's schema is version {v}; this lazy knows up to {VERSION}:"
            " upgrade lazy (nothing was read or written)"
        )
    if v < VERSION:
        raise SchemaError(
            f"the team database's schema is version {v}, older than this lazy's {VERSION}:"
            " its owner runs `lazy team init <conninfo>` to migrate it"
        )
    return v


def init(conn: Conn) -> InitReport:
    """Create the group role and the schema, or migrate it to this version; one transaction."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('lazy_team.init'))")
        have = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (GROUP,)).fetchone()
        if not have:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(GROUP)))
        v = version(conn)
        if v > VERSION:
            raise SchemaError(
                f"the team database's schema is version {v}; this lazy knows up to {VERSION}:"
                " upgrade lazy (nothing was changed)"
            )
        if v == 0:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(SCHEMA)))
        for step in MIGRATIONS[v:]:
            conn.execute(step.encode())
        conn.execute(
            "INSERT INTO lazy_team.meta VALUES ('schema_version', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (str(VERSION),),
        )
    return InitReport(created_group=not have, from_version=v, to_version=VERSION)


def invite(conn: Conn, role: str) -> bool:
    """Let a PostgreSQL role be a member (granted the group role), creating it (LOGIN, no
    password: it authenticates as the server's pg_hba.conf says) when it does not exist.
    True when the role was created."""
    with conn.transaction():
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(GROUP), sql.Identifier(role)))
    return not exists
