"""Push: this machine's Builders to the team database, incrementally and idempotently.

What goes is decided against the server, Builder by Builder: the messages of each line (the
Builder's own, each subagent's) past what the server holds for it. A Builder whose sessions
changed (regrouped) or that holds fewer messages than the server has is sent whole again.
Each Builder is one transaction, so a push cut short (a dropped connection, a killed process)
leaves every Builder either as it was or as it is now, and the next push sends the rest; rows
are keyed by (member, Builder, line, number), so sending one twice changes nothing — two
machines of one member pushing at once converge.

Candidates: the Builders with a message newer than the watermark (the newest local message
the last complete push covered; all of them on a first push). What is sent is the message
view, redacted (``lazy.export.document``), never the raw archive."""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from lazy.export.document import document, redacted_message
from lazy.model import BuilderInfo, MessageView
from lazy.store import queries
from lazy.store.messages import builders_grown_since, last_id
from lazy.store.queries import builder_projects
from lazy.team.db import TeamError, connect, lend
from lazy.team.identity import remote_of
from lazy.team.members import joined_as
from lazy.team.schema import Conn
from lazy.team.state import LastPush, TeamState, now, save
from lazy.usage.report import annotate
from lazy.view.messages import call_lines, words_of
from lazy.view.reading import builder_info, info, line_from
from lazy.view.redaction import Counting, keep

MAIN = ""  # the line of the Builder's own messages


@dataclass
class BuilderPush:
    builder_id: str
    project: str  # the local project dir
    key: str  # its name on the team
    agent: str
    title: str
    local_count: int
    server_count: int  # its own line's messages the server had (0: new there)
    whole: bool  # sent whole again: regrouped, or shorter than the server's copy
    lines: dict[str, list[MessageView]] = field(default_factory=dict)  # what goes, per line
    counts: dict[str, int] = field(default_factory=dict)  # each line's size after
    sessions: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    redactions: dict[str, int] = field(default_factory=dict)
    messages: int = 0  # how many go (``lines`` is let go of once they went)

    def __post_init__(self) -> None:
        self.messages = self.messages or sum(len(v) for v in self.lines.values())


@dataclass
class Skipped:
    project: str
    builders: int
    why: str


@dataclass
class Plan:
    builders: list[BuilderPush]
    skipped: list[Skipped]
    unchanged: int  # candidates the server already has as they are
    watermark: int  # the newest local message this plan covers

    @property
    def messages(self) -> int:
        return sum(b.messages for b in self.builders)

    @property
    def redactions(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for b in self.builders:
            for k, v in b.redactions.items():
                out[k] = out.get(k, 0) + v
        return dict(sorted(out.items()))


def project_key(project: str | None, state: TeamState) -> str | None:
    if not project:
        return None
    return state.names.get(project) or remote_of(project)


def _server_lines(team: Conn) -> dict[str, tuple[dict[str, int], list[str]]]:
    rows = team.execute(
        "SELECT builder_id, lines, sessions FROM lazy_team.builders"
        " WHERE member_id = lazy_team.me()"
    ).fetchall()
    return {str(r[0]): (dict(r[1]), list(r[2])) for r in rows}


def plan(
    conn: sqlite3.Connection,
    team: Conn,
    state: TeamState,
    *,
    everything: bool = False,
    tick: Callable[[], None] | None = None,
    each: Callable[[BuilderPush], None] | None = None,
) -> Plan:
    """What a push would send now, Builder by Builder; ``each`` is handed each one as it is
    planned (the push sends it then), and its messages are let go of after, so a push of a
    million messages holds one Builder's at a time. ``everything``: every local Builder is a
    candidate, not only those grown since the watermark."""
    mark = last_id(conn)
    if everything or state.watermark == 0:
        candidates = list(builder_projects(conn))
    else:
        candidates = [b for b, _ in builders_grown_since(conn, state.watermark)]
    server = _server_lines(team)
    out: list[BuilderPush] = []
    skipped: dict[str, Skipped] = {}
    unchanged = 0
    keys: dict[str | None, str | None] = {}
    for bid in candidates:
        if tick:
            tick()
        info = builder_info(conn, bid)
        if info.project not in keys:
            keys[info.project] = project_key(info.project, state)
        key = keys[info.project]
        if key is None:
            where = info.project or "(no project)"
            s = skipped.setdefault(
                where,
                Skipped(where, 0, "no git remote: name it with `lazy team name <dir> <name>`"),
            )
            s.builders += 1
            continue
        have, their_sessions = server.get(bid, ({}, []))
        sessions = sorted(info.session_ids)
        local = {MAIN: info.message_count} | {
            s.session_id: s.message_count for s in info.sidechains
        }
        whole = bool(have) and (
            their_sessions != sessions or any(local.get(k, 0) < v for k, v in have.items())
        )
        if have and not whole and all(have.get(k, 0) == v for k, v in local.items()):
            unchanged += 1
            continue
        builder, send, redactions = _what_goes(conn, bid, local, {} if whole else have)
        out.append(
            BuilderPush(
                builder_id=bid,
                project=info.project or "",
                key=key,
                agent=info.tool,
                title=builder.title or builder.summary[:200],
                local_count=info.message_count,
                server_count=have.get(MAIN, 0),
                whole=whole,
                lines={k: v for k, v in send.items() if v},
                counts=local,
                sessions=sessions,
                info=builder.model_dump(mode="json"),
                redactions=redactions,
            )
        )
        if each:
            each(out[-1])
        out[-1].lines = {}
    return Plan(out, list(skipped.values()), unchanged, mark)


def _what_goes(
    conn: sqlite3.Connection, bid: str, local: dict[str, int], have: dict[str, int]
) -> tuple[BuilderInfo, dict[str, list[MessageView]], dict[str, int]]:
    """The Builder's info and, per line, its messages past what the server has (all of them
    for a line it lacks), redacted and counted by rule. A line's first new message may be a
    result: the call it answers is sent again with it, now holding its output."""
    if not have:  # new there, or sent whole again: the export's document
        doc = document(conn, bid)
        lines = {MAIN: doc.messages} | {s.session_id: s.messages for s in doc.subagents}
        return doc.builder, lines, doc.redactions
    counting = Counting()
    builder = info(queries.builder_info(conn, bid), counting)
    send = {
        line: [
            redacted_message(m, counting, True)  # counted as an export counts them
            for m in line_from(
                conn, bid, None if line == MAIN else line, have.get(line, 0) + 1, keep
            )
        ]
        for line, n in local.items()
        if n > have.get(line, 0)
    }
    annotate(conn, builder, [m for ms in send.values() for m in ms])
    return builder, send, dict(sorted(counting.counts.items()))


def _ts(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None  # shown without a time rather than refused


def searchable_text(m: MessageView) -> str:
    """What team search reads of a message: its words and its calls' one-line summaries (tool
    output stays out, as it stays out of local search by default)."""
    return "\n".join([words_of(m), *call_lines(m)]).replace("\x00", "")


def _rows(b: BuilderPush, pid: int) -> Iterable[tuple[Any, ...]]:
    for line, ms in b.lines.items():
        for m in ms:
            yield (
                b.builder_id,
                line,
                m.number,
                pid,
                m.role,
                _ts(m.timestamp),
                searchable_text(m),
                m.model_dump_json().replace("\\u0000", ""),
            )


def send(team: Conn, b: BuilderPush) -> None:
    """One Builder, in one transaction."""
    with team.transaction():
        pid = team.execute("SELECT lazy_team.claim_project(%s)", (b.key,)).fetchone()
        assert pid is not None
        info = b.info
        team.execute(
            "INSERT INTO lazy_team.builders (member_id, builder_id, project_id, agent, title,"
            " started_at, updated_at, message_count, lines, sessions, info, pushed_at)"
            " VALUES (lazy_team.me(), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"
            " ON CONFLICT (member_id, builder_id) DO UPDATE SET project_id = EXCLUDED.project_id,"
            " agent = EXCLUDED.agent, title = EXCLUDED.title, started_at = EXCLUDED.started_at,"
            " updated_at = EXCLUDED.updated_at, message_count = EXCLUDED.message_count,"
            " lines = EXCLUDED.lines, sessions = EXCLUDED.sessions, info = EXCLUDED.info,"
            " pushed_at = now()",
            (
                b.builder_id,
                pid[0],
                b.agent,
                b.title.replace("\x00", ""),
                _ts(info.get("started_at")),
                _ts(info.get("updated_at")),
                b.local_count,
                Jsonb(b.counts),
                Jsonb(b.sessions),
                Jsonb(info),
            ),
        )
        if b.whole:
            team.execute(
                "DELETE FROM lazy_team.messages WHERE member_id = lazy_team.me()"
                " AND builder_id = %s",
                (b.builder_id,),
            )
        with team.cursor() as cur:
            cur.executemany(
                "INSERT INTO lazy_team.messages (member_id, builder_id, line, number, project_id,"
                " role, at, text, view) VALUES (lazy_team.me(), %s, %s, %s, %s, %s, %s, %s,"
                " %s::jsonb) ON CONFLICT (member_id, builder_id, line, number) DO UPDATE SET"
                " project_id = EXCLUDED.project_id, role = EXCLUDED.role, at = EXCLUDED.at,"
                " text = EXCLUDED.text, view = EXCLUDED.view",
                list(_rows(b, int(pid[0]))),
            )


def record(team: Conn, builders: int, messages: int) -> None:
    team.execute(
        "INSERT INTO lazy_team.pushes (member_id, machine, builders, messages)"
        " VALUES (lazy_team.me(), %s, %s, %s)",
        (socket.gethostname(), builders, messages),
    )


def run(
    conn: sqlite3.Connection,
    state: TeamState,
    *,
    home: Path | None = None,
    dry_run: bool = False,
    everything: bool = False,
    tick: Callable[[], None] | None = None,
    sent: Callable[[BuilderPush], None] | None = None,
    pool: ConnectionPool[Conn] | None = None,
) -> Plan:
    """Plan and (unless ``dry_run``) push, through ``pool`` when given (a process that pushes on
    every sweep), else one connection; the push record in team.json kept either way: the
    watermark moves only when every Builder of the plan went."""
    doing = "lazy team push"
    opened = lend(pool, state.conninfo, doing) if pool else connect(state.conninfo, doing)
    try:
        with opened as team:
            joined_as(team)

            def send_now(b: BuilderPush) -> None:
                send(team, b)
                if sent:
                    sent(b)

            p = plan(
                conn,
                team,
                state,
                everything=everything,
                tick=tick,
                each=None if dry_run else send_now,
            )
            if dry_run:
                return p
            if p.builders:
                record(team, len(p.builders), p.messages)
    except TeamError as e:
        if not dry_run:
            state.failing_since = state.failing_since or now()
            state.last_error = str(e)
            save(state, home)
        raise
    state.watermark = p.watermark
    state.checked_at = now()
    if p.builders:  # the last push that sent something: a sweep with nothing new keeps it
        state.last_push = LastPush(
            at=state.checked_at,
            builders=len(p.builders),
            messages=p.messages,
            redactions=sum(p.redactions.values()),
        )
    state.failing_since = None
    state.last_error = None
    save(state, home)
    return p
