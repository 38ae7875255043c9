"""Members of a team, each with a store and a home of their own, and repos cloned from the same
remotes; what they pushed, read back from the server as the database's owner."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson

from fabricate.claude import Session
from support.postgres import Postgres
from support.search import run_lazy

AWS = "AKIAIOSFODNN7EXAMPLE"  # planted in a prompt: never on the server


def git_repo(path: Path, remote: str | None) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


class Member:
    def __init__(self, base: Path, role: str, name: str, pg: Postgres) -> None:
        self.role, self.name, self.email = role, name, f"{role}@acme.test"
        self.pg = pg
        self.home = base / role / "home"
        self.lazy_home = base / role / "lazy"
        self.home.mkdir(parents=True)
        self.projects = self.home / ".claude" / "projects"
        self.sessions: list[Session] = []

    @property
    def conninfo(self) -> str:
        return self.pg.conninfo(self.role)

    def env(self) -> dict[str, str]:
        return {"LAZY_TEAM_NAME": self.name, "LAZY_TEAM_EMAIL": self.email}

    def lazy(self, *args: str, ok: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        return run_lazy(self.lazy_home, self.home, *args, ok=ok, **{**self.env(), **env})

    def json(self, *args: str) -> Any:
        return orjson.loads(self.lazy(*args, "--json").stdout)

    def session(self, repo: Path, prompt: str, reply: str) -> Session:
        s = Session(self.projects, str(repo))
        s.turn(prompt, reply)
        self.sessions.append(s)
        return s

    def capture(self) -> None:
        self.lazy("import-conversation", "--all-projects", "--yes")


def reset(pg: Postgres) -> None:
    """The server as initdb left it: no team schema, no roles but the owner (a test never
    depends on what another left, whatever their order)."""
    pg.sql("DROP SCHEMA IF EXISTS lazy_team CASCADE")
    roles = pg.sql("SELECT rolname FROM pg_roles WHERE rolname !~ '^pg_' AND rolname <> 'postgres'")
    for role in roles.split():
        pg.sql(f'DROP ROLE "{role}"')


def fresh_team(pg: Postgres, base: Path, *members: tuple[str, str]) -> list[Member]:
    """A new team schema (any earlier one dropped), and ``members`` (role, name) invited and
    joined, each with a store and home of their own under ``base``."""
    reset(pg)
    owner = Member(base, "postgres", "Owner", pg)
    owner.lazy("team", "init", pg.conninfo())
    out = []
    for role, name in members:
        m = Member(base, role, name, pg)
        owner.lazy("team", "invite", role, "--db", pg.conninfo())
        m.lazy("team", "join", m.conninfo)
        out.append(m)
    return out


def pushed(pg: Postgres, role: str) -> tuple[int, int]:
    """(Builders, messages) the server holds of ``role``'s, read as the owner."""
    got = pg.sql(
        "SELECT (SELECT count(*) FROM lazy_team.builders b JOIN lazy_team.members m"
        " ON m.id = b.member_id WHERE m.role = '" + role + "'),"
        " (SELECT count(*) FROM lazy_team.messages x JOIN lazy_team.members m"
        " ON m.id = x.member_id WHERE m.role = '" + role + "')"
    )
    a, b = got.split("|")
    return int(a), int(b)
