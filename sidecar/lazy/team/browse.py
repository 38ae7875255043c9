"""Reading the team database: teammates' Builders, one transcript, full-text search. Row-level
security decides what a member sees; these queries only ask. Opening a transcript records
how far the viewer has seen it (``seen``), on the server, so "grew since you last looked" is
the same on every machine of theirs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import sql

from lazy.model import BuilderInfo, MessageView
from lazy.team.schema import Conn

MARK_START, MARK_STOP = "\x02", "\x03"  # around a hit in a snippet: never in stored text


@dataclass(frozen=True)
class TeamBuilder:
    member: str  # the member's name
    email: str
    project: str  # its team name (normalised remote)
    builder_id: str
    agent: str
    title: str
    message_count: int
    updated_at: datetime | None
    seen: int | None  # messages the viewer had seen when they last opened it (None: never);
    # all of them for the viewer's own Builders, which they have in their own store

    @property
    def grew(self) -> bool:
        return self.seen is None or self.message_count > self.seen


class NotFoundOnTeam(LookupError):
    """No Builder the viewer can see matches; or several do (``candidates``)."""

    def __init__(self, message: str, candidates: list[TeamBuilder] | None = None) -> None:
        super().__init__(message)
        self.candidates = candidates or []


_LIST = """
SELECT m.name, m.email, p.key, b.builder_id, b.agent, b.title, b.message_count, b.updated_at,
       CASE WHEN b.member_id = lazy_team.me() THEN b.message_count ELSE s.message_count END
FROM lazy_team.builders b
JOIN lazy_team.members m ON m.id = b.member_id
JOIN lazy_team.projects p ON p.id = b.project_id
LEFT JOIN lazy_team.seen s
  ON s.viewer_id = lazy_team.me() AND s.member_id = b.member_id AND s.builder_id = b.builder_id
"""


def _filters(
    project: str | None, member: str | None, agent: str | None, prefix: str = "b"
) -> tuple[list[sql.Composable], list[Any]]:
    where: list[sql.Composable] = []
    args: list[Any] = []
    if project:
        where.append(sql.SQL("p.key = %s"))
        args.append(project)
    if member:
        where.append(sql.SQL("(m.email = lower(%s) OR m.name = %s OR m.role = %s)"))
        args += [member, member, member]
    if agent:
        where.append(sql.SQL("{}.agent = %s").format(sql.Identifier(prefix)))
        args.append(agent)
    return where, args


def _builder(r: tuple[Any, ...]) -> TeamBuilder:
    return TeamBuilder(
        member=r[0],
        email=r[1],
        project=r[2],
        builder_id=r[3],
        agent=r[4],
        title=r[5],
        message_count=int(r[6]),
        updated_at=r[7],
        seen=None if r[8] is None else int(r[8]),
    )


def conversations(
    team: Conn,
    *,
    project: str | None = None,
    member: str | None = None,
    agent: str | None = None,
    limit: int = 50,
) -> list[TeamBuilder]:
    where, args = _filters(project, member, agent)
    q: sql.Composable = sql.SQL(_LIST)
    if where:
        q += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(where)
    q += sql.SQL(" ORDER BY b.updated_at DESC NULLS LAST, b.builder_id LIMIT %s")
    return [_builder(r) for r in team.execute(q, [*args, limit]).fetchall()]


def find(team: Conn, ident: str, member: str | None = None) -> TeamBuilder:
    """The one Builder whose id is or starts with ``ident`` (of ``member``, when given)."""
    where, args = _filters(None, member, None)
    where.append(sql.SQL("b.builder_id LIKE %s"))
    args.append(re.sub(r"([%_\\])", r"\\\1", ident) + "%")
    q = sql.SQL(_LIST) + sql.SQL(" WHERE ") + sql.SQL(" AND ").join(where)
    rows = [_builder(r) for r in team.execute(q + sql.SQL(" LIMIT 20"), args).fetchall()]
    exact = [r for r in rows if r.builder_id == ident]
    if len(exact) == 1 or len(rows) == 1:
        return (exact or rows)[0]
    if not rows:
        raise NotFoundOnTeam(
            f"no Builder {ident!r} on the team that you can see"
            " (see `lazy team conversations`; a project you are not in is not shown)"
        )
    raise NotFoundOnTeam(f"{ident!r} is ambiguous on the team: give more of the id", rows)


def transcript(
    team: Conn,
    b: TeamBuilder,
    *,
    mark_seen: bool = True,
    start: int = 1,
    count: int | None = None,
) -> tuple[BuilderInfo, list[MessageView]]:
    """A teammate's Builder as they pushed it (its own line; messages ``start``.. ``count`` of
    them, else all), and the viewer's mark moved to its end."""
    row = team.execute(
        "SELECT b.member_id, b.info FROM lazy_team.builders b JOIN lazy_team.members m"
        " ON m.id = b.member_id WHERE m.email = %s AND b.builder_id = %s",
        (b.email, b.builder_id),
    ).fetchone()
    if row is None:
        raise NotFoundOnTeam(f"Builder {b.builder_id} is no longer on the team")
    member_id, info = int(row[0]), row[1]
    end = 2**31 - 1 if count is None else start + count - 1
    views = team.execute(
        "SELECT view FROM lazy_team.messages WHERE member_id = %s AND builder_id = %s"
        " AND line = '' AND number BETWEEN %s AND %s ORDER BY number",
        (member_id, b.builder_id, start, end),
    ).fetchall()
    if mark_seen:
        team.execute(
            "INSERT INTO lazy_team.seen (viewer_id, member_id, builder_id, message_count)"
            " VALUES (lazy_team.me(), %s, %s, %s) ON CONFLICT (viewer_id, member_id, builder_id)"
            " DO UPDATE SET message_count = EXCLUDED.message_count, seen_at = now()",
            (member_id, b.builder_id, b.message_count),
        )
    return BuilderInfo.model_validate(info), [MessageView.model_validate(v[0]) for v in views]


def marks(snippet: str) -> tuple[str, list[tuple[int, int]]]:
    """A snippet's text without its hit markers, and where the hits are in it."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for i, piece in enumerate(snippet.replace(MARK_STOP, MARK_START).split(MARK_START)):
        if i % 2 == 1 and piece:
            spans.append((at, at + len(piece)))
        text.append(piece)
        at += len(piece)
    return "".join(text), spans


@dataclass(frozen=True)
class TeamHit:
    builder: TeamBuilder
    number: int
    role: str
    at: datetime | None
    rank: float
    snippet: str  # with MARK_START/MARK_STOP around the matched words


_PHRASE = re.compile(r'"([^"]+)"')


def tsquery(query: str) -> tuple[sql.Composable, list[str]]:
    """The query as PostgreSQL full-text search: each "quoted phrase" by phraseto_tsquery, the
    other words by plainto_tsquery, all of them required."""
    phrases = [p.strip() for p in _PHRASE.findall(query) if p.strip()]
    rest = _PHRASE.sub(" ", query).replace('"', " ").strip()
    parts: list[sql.Composable] = []
    args: list[str] = []
    for p in phrases:
        parts.append(sql.SQL("phraseto_tsquery('english', %s)"))
        args.append(p)
    if rest:
        parts.append(sql.SQL("plainto_tsquery('english', %s)"))
        args.append(rest)
    if not parts:
        raise ValueError("an empty query: give words to search for")
    return sql.SQL(" && ").join(parts), args


def search(
    team: Conn,
    query: str,
    *,
    project: str | None = None,
    member: str | None = None,
    agent: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 20,
) -> list[TeamHit]:
    tsq, targs = tsquery(query)
    # found and ranked by the schema's own function (the index used, the membership applied);
    # snippets (ts_headline reads the text) for the page only
    q = sql.SQL(
        "WITH q AS (SELECT {tsq} AS q),"
        " hits AS (SELECT h.* FROM q, lazy_team.find_messages(q.q, %s, %s, %s, %s, %s, %s) h)"
        " SELECT m.name, m.email, p.key, b.builder_id, b.agent, b.title, b.message_count,"
        "  b.updated_at, CASE WHEN b.member_id = lazy_team.me() THEN b.message_count"
        "  ELSE s.message_count END, h.number, h.role, h.at, h.rank,"
        "  ts_headline('english', left(h.text, 20000), q.q, %s)"
        " FROM hits h CROSS JOIN q"
        " JOIN lazy_team.builders b ON b.member_id = h.member_id AND b.builder_id = h.builder_id"
        " JOIN lazy_team.members m ON m.id = h.member_id"
        " JOIN lazy_team.projects p ON p.id = b.project_id"
        " LEFT JOIN lazy_team.seen s ON s.viewer_id = lazy_team.me()"
        "  AND s.member_id = h.member_id AND s.builder_id = h.builder_id"
        " ORDER BY h.rank DESC, h.at DESC NULLS LAST"
    ).format(tsq=tsq)
    args = [project, member, agent, since, until, limit]
    opts = f"StartSel={MARK_START}, StopSel={MARK_STOP}, MaxWords=30, MinWords=10, MaxFragments=2"
    rows = team.execute(q, [*targs, *args, opts]).fetchall()
    return [
        TeamHit(
            builder=_builder(r[:9]),
            number=int(r[9]),
            role=r[10],
            at=r[11],
            rank=float(r[12]),
            snippet=str(r[13]),
        )
        for r in rows
    ]


def members(team: Conn) -> list[tuple[str, str, list[str]]]:
    """Each member the viewer shares a project with: name, email, those projects."""
    rows = team.execute(
        "SELECT m.name, m.email, array_agg(p.key ORDER BY p.key) FROM lazy_team.memberships x"
        " JOIN lazy_team.members m ON m.id = x.member_id"
        " JOIN lazy_team.projects p ON p.id = x.project_id GROUP BY m.name, m.email"
        " ORDER BY m.name"
    ).fetchall()
    return [(str(r[0]), str(r[1]), list(r[2])) for r in rows]
