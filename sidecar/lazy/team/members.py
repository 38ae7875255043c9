"""Membership on the team database: joining as one's role, adding a teammate to a project, and
what the server has recorded of one's pushes."""

from __future__ import annotations

from datetime import datetime

from lazy.team.db import TeamError
from lazy.team.identity import Member
from lazy.team.schema import Conn


def session_role(team: Conn) -> str:
    row = team.execute("SELECT session_user").fetchone()
    return str(row[0]) if row else "?"


def join(team: Conn, me: Member) -> str:
    """Register ``me`` as the connected role; the role's name. One email is one member: an
    email already joined under another role is refused."""
    role = session_role(team)
    row = team.execute(
        "SELECT role FROM lazy_team.members WHERE email = %s", (me.email,)
    ).fetchone()
    if row is not None and str(row[0]) != role:
        raise TeamError(
            f"{me.email} is already a member as role {row[0]}: join as that role"
            f" (user={row[0]}), or set team.email to another address",
            "refused",
        )
    team.execute(
        "INSERT INTO lazy_team.members (name, email) VALUES (%s, %s)"
        " ON CONFLICT (role) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email",
        (me.name, me.email),
    )
    return role


def joined_as(team: Conn) -> str:
    """The email the connected role joined as; a TeamError when it has not joined."""
    row = team.execute("SELECT email FROM lazy_team.members WHERE role = session_user").fetchone()
    if row is None:
        raise TeamError(
            f"role {session_role(team)} has not joined the team:"
            " run `lazy team join <conninfo>` first",
            "rights",
        )
    return str(row[0])


def add(team: Conn, project: str, email: str) -> None:
    """Add the member who joined with ``email`` to ``project`` (the caller must be in it)."""
    team.execute("SELECT lazy_team.add_member(%s, %s)", (project, email))


def pushes(team: Conn) -> tuple[int, datetime | None]:
    """How many pushes the server recorded of the caller's, and when the last one was."""
    row = team.execute(
        "SELECT count(*), max(at) FROM lazy_team.pushes WHERE member_id = lazy_team.me()"
    ).fetchone()
    return (int(row[0]), row[1]) if row else (0, None)
