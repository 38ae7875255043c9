"""Read-side queries: Builders, transcripts, id resolution."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from lazy.agents import AGENTS
from lazy.model import BuilderInfo, SidechainInfo
from lazy.store.archive import unpack_blocks

SHORT = 8
# ids that open with their creation time (UUIDv7 thread ids, OpenCode's ses_…) share their
# first characters with every session of the same minute: their short form is their tail
_TIME_FIRST = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-|ses_)", re.I)


def short_id(bid: str) -> str:
    return bid[-SHORT:] if _TIME_FIRST.match(bid) else bid[:SHORT]


class NotFound(LookupError):
    pass


class Ambiguous(LookupError):
    def __init__(self, prefix: str, candidates: list[tuple[str, str | None, str]]):
        self.prefix = prefix
        self.candidates = candidates  # (builder id, started_at, summary)
        super().__init__(f"{prefix!r} matches {len(candidates)} conversations")


def _escape_like(text: str) -> str:
    """``text`` matched literally by ``LIKE … ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def resolve_builder(conn: sqlite3.Connection, ident: str) -> str:
    """A Builder id from any of its session ids or a unique prefix of one (or, for ids that
    open with a time, a unique tail: their short form)."""
    ident = ident.strip()
    if not ident:
        raise NotFound("an empty id")
    exact = conn.execute(
        "SELECT builder_id FROM sessions WHERE id=? AND builder_id IS NOT NULL", (ident,)
    ).fetchone()
    if exact is not None:
        return str(exact[0])
    rows = conn.execute(
        "SELECT DISTINCT s.builder_id FROM sessions s JOIN builders b ON b.id = s.builder_id"
        " WHERE s.kind='main' AND s.id LIKE ? ESCAPE '\\'",
        (_escape_like(ident) + "%",),
    ).fetchall()
    if not rows and len(ident) >= 4:
        rows = conn.execute(
            "SELECT DISTINCT s.builder_id FROM sessions s JOIN builders b ON b.id = s.builder_id"
            " WHERE s.kind='main' AND s.id LIKE ? ESCAPE '\\'",
            ("%" + _escape_like(ident),),
        ).fetchall()
        rows = [r for r in rows if _TIME_FIRST.match(r[0])]
    ids = sorted(r[0] for r in rows)
    if not ids:
        raise NotFound(ident)
    if len(ids) > 1:
        cands = conn.execute(
            f"SELECT id, started_at, summary FROM builders WHERE id IN ({','.join('?' * len(ids))})"
            " ORDER BY started_at DESC",
            ids,
        ).fetchall()
        raise Ambiguous(ident, [(r[0], r[1], r[2]) for r in cands])
    return str(ids[0])


# A 2.0.x agent file beside the session files is a sidechain only when one of the session's
# tool calls spawned it; the rest are the warm-ups 2.0.x ran at start-up.
_SPAWNED = (
    "(flat=0 OR EXISTS (SELECT 1 FROM spawns p"
    " WHERE p.session_id=sessions.parent_session_id AND p.agent_id=sessions.agent_id))"
)


def _infos(conn: sqlite3.Connection, rows: Iterable[tuple[object, ...]]) -> list[BuilderInfo]:
    out = []
    for bid, tool, project, started, updated, summary, title, count, forked in rows:
        sessions = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM sessions WHERE builder_id=? AND kind='main' AND message_count>0"
                " ORDER BY started_at, message_count, id",
                (bid,),
            )
        ]
        sides = [
            SidechainInfo(session_id=r[0], agent_id=r[1], message_count=r[2])
            for r in conn.execute(
                "SELECT id, agent_id, message_count FROM sessions WHERE builder_id=?"
                f" AND kind='sidechain' AND message_count>0 AND {_SPAWNED}"
                " ORDER BY started_at, id",
                (bid,),
            )
        ]
        out.append(
            BuilderInfo(
                id=str(bid),
                short_id=short_id(str(bid)),
                tool=str(tool),
                project=project if isinstance(project, str) else None,
                started_at=started if isinstance(started, str) else None,
                updated_at=updated if isinstance(updated, str) else None,
                message_count=int(count),  # type: ignore[call-overload]
                summary=str(summary or ""),
                title=title if isinstance(title, str) else None,
                session_ids=sessions,
                sidechains=sides,
                forked_from=forked if isinstance(forked, str) else None,
            )
        )
    return out


_COLS = "id, tool, project, started_at, updated_at, summary, title, message_count, forked_from"


def list_builders(
    conn: sqlite3.Connection,
    projects: list[str] | None = None,
    limit: int | None = None,
    tools: list[str] | None = None,
) -> list[BuilderInfo]:
    """Newest first; ``projects`` (``tools``) None means every project (agent)."""
    sql = f"SELECT {_COLS} FROM builders WHERE message_count > 0"
    args: list[object] = []
    if tools:
        sql += f" AND tool IN ({','.join('?' * len(tools))})"
        args += tools
    if projects is not None:
        sql += f" AND project IN ({','.join('?' * len(projects))})"
        args += projects
    sql += " ORDER BY started_at DESC, id"
    if limit:
        sql += " LIMIT ?"
        args.append(limit)
    return _infos(conn, conn.execute(sql, args).fetchall())


def _page_filter(
    conn: sqlite3.Connection,
    under: list[str] | None,
    tools: list[str] | None,
    text: str | None,
    shown: Callable[[str], str] | None,
) -> tuple[str, list[object]] | None:
    """The WHERE clause of ``builders_page``'s filters and its arguments; None when they
    match nothing (no folders to be under)."""
    sql = "message_count > 0"
    args: list[object] = []
    if tools:
        sql += f" AND tool IN ({','.join('?' * len(tools))})"
        args += tools
    if under is not None:
        roots = [u.rstrip("/") or "/" for u in under]
        if not roots:
            return None
        sql += (
            " AND (" + " OR ".join("project = ? OR project LIKE ? ESCAPE '\\'" for _ in roots) + ")"
        )
        for r in roots:
            args += [r, _escape_like(r.rstrip("/")) + "/%"]
    if text:
        col = "summary", "title"
        if shown is not None:
            conn.create_function("lazy_shown", 1, lambda v: v and shown(v), deterministic=True)
            col = "lazy_shown(summary)", "lazy_shown(title)"
        sql += f" AND ({col[0]} LIKE ? ESCAPE '\\' OR {col[1]} LIKE ? ESCAPE '\\')"
        args += [f"%{_escape_like(text)}%"] * 2
    return sql, args


def builders_page(
    conn: sqlite3.Connection,
    *,
    under: list[str] | None = None,
    tools: list[str] | None = None,
    text: str | None = None,
    after: tuple[str, str] | None = None,
    limit: int = 50,
    shown: Callable[[str], str] | None = None,
) -> list[BuilderInfo]:
    """Newest first, a page at a time: the Builders after ``after`` (the sort key and id of
    the last one of the page before) whose project is one of ``under`` or lies below it
    (None: every project), of ``tools``, whose summary or title holds ``text``: as
    ``shown`` makes them, when given (a filter matching the stored text would confirm a
    secret the surface redacts)."""
    found = _page_filter(conn, under, tools, text, shown)
    if found is None:
        return []
    where, args = found
    sql = f"SELECT {_COLS} FROM builders WHERE {where}"
    if after is not None:
        sql += " AND (COALESCE(started_at, '') < ? OR (COALESCE(started_at, '') = ? AND id > ?))"
        args += [after[0], after[0], after[1]]
    sql += " ORDER BY COALESCE(started_at, '') DESC, id LIMIT ?"
    args.append(limit)
    return _infos(conn, conn.execute(sql, args).fetchall())


def count_builders(
    conn: sqlite3.Connection,
    *,
    under: list[str] | None = None,
    tools: list[str] | None = None,
    text: str | None = None,
    shown: Callable[[str], str] | None = None,
) -> int:
    """How many Builders ``builders_page``'s filters match, on every page."""
    found = _page_filter(conn, under, tools, text, shown)
    if found is None:
        return 0
    where, args = found
    return int(conn.execute(f"SELECT count(*) FROM builders WHERE {where}", args).fetchone()[0])


def builder_info(conn: sqlite3.Connection, bid: str) -> BuilderInfo:
    rows = conn.execute(f"SELECT {_COLS} FROM builders WHERE id=?", (bid,)).fetchall()
    if not rows:
        raise NotFound(bid)
    return _infos(conn, rows)[0]


def source_files(conn: sqlite3.Connection, bid: str) -> list[tuple[str, str, str, str | None, int]]:
    """(path, tool, session id, agent id, size) of the files a Builder's sessions were
    captured from: main sessions' first, then subagents', each by path."""
    rows = conn.execute(
        "SELECT path, tool, session_id, agent_id, size FROM source_files WHERE session_id IN"
        " (SELECT id FROM sessions WHERE builder_id=?) ORDER BY agent_id IS NOT NULL, path",
        (bid,),
    ).fetchall()
    return [(str(p), str(t), str(s), a, int(n)) for p, t, s, a, n in rows]


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message row as the store keeps it, its blocks unpacked."""

    number: int
    role: str
    text: str
    session_id: str
    timestamp: str | None
    kinds: list[str]
    model: str | None
    tool_name: str | None
    blocks: list[dict[str, Any]]
    meta: bool


_MCOLS = (
    "m.number, m.role, m.text, m.session_id, m.ts, m.kinds, m.model, m.tool_name, m.blocks, m.meta"
)


def _stored(rows: Iterable[tuple[Any, ...]]) -> list[StoredMessage]:
    out = []
    for n, role, text, sid, ts, kinds, model, tool, packed, meta in rows:
        said = str(text)
        out.append(
            StoredMessage(
                number=int(n),
                role=str(role),
                text=said,
                session_id=str(sid),
                timestamp=ts if isinstance(ts, str) else None,
                kinds=orjson.loads(kinds),
                model=model if isinstance(model, str) else None,
                tool_name=tool if isinstance(tool, str) else None,
                blocks=unpack_blocks(packed if isinstance(packed, bytes) else None, said),
                meta=bool(meta),
            )
        )
    return out


def _line(bid: str, side: str | None) -> tuple[str, str]:
    """The WHERE clause and key of a Builder's own line, or of one of its subagents'."""
    return ("m.builder_id=? AND s.kind='main'", bid) if side is None else ("m.session_id=?", side)


def message_rows(
    conn: sqlite3.Connection, bid: str, side: str | None, first: int, last: int
) -> list[StoredMessage]:
    """Messages ``first``..``last`` of a Builder's own line, or of one of its subagents'
    sessions. Read by number, so a page costs the same at the start of a 50,000-message
    Builder as at its end."""
    where, key = _line(bid, side)
    rows = conn.execute(
        f"SELECT {_MCOLS} FROM messages m JOIN sessions s ON s.id=m.session_id"
        f" WHERE {where} AND m.number BETWEEN ? AND ? ORDER BY m.number",
        (key, first, last),
    ).fetchall()
    return _stored(rows)


def turn_before(conn: sqlite3.Connection, bid: str, side: str | None, number: int) -> int:
    """The number of the last user message before ``number`` in that line (0: none)."""
    where, key = _line(bid, side)
    row = conn.execute(
        f"SELECT max(m.number) FROM messages m JOIN sessions s ON s.id=m.session_id"
        f" WHERE {where} AND m.role='user' AND m.meta=0 AND m.number < ?",
        (key, number),
    ).fetchone()
    return int(row[0] or 0)


def line_batches(
    conn: sqlite3.Connection, bid: str, side: str | None, size: int = 2000
) -> Iterable[list[StoredMessage]]:
    """Every message of that line, in order, a batch at a time."""
    first = 1
    while True:
        batch = message_rows(conn, bid, side, first, first + size - 1)
        if not batch:
            return
        yield batch
        first = batch[-1].number + 1


def subagent_ends(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, tuple[str, str]]:
    """(first user words, last assistant words) of each of these sessions: what a subagent
    was asked, and what it answered."""
    out: dict[str, tuple[str, str]] = {}
    for sid in session_ids:
        first = conn.execute(
            "SELECT text FROM messages WHERE session_id=? AND role='user' AND text!=''"
            " ORDER BY seq LIMIT 1",
            (sid,),
        ).fetchone()
        last = conn.execute(
            "SELECT text FROM messages WHERE session_id=? AND role='assistant' AND text!=''"
            " ORDER BY seq DESC LIMIT 1",
            (sid,),
        ).fetchone()
        out[sid] = (str(first[0]) if first else "", str(last[0]) if last else "")
    return out


# ---- for the CLI (lazy.cli.doctor, lazy.cli.memories) ---------------------------------------


def deleted_paths(conn: sqlite3.Connection, session_ids: list[str]) -> list[str]:
    """The files of these sessions that `lazy doctor` deleted from the store."""
    marks = ",".join("?" * len(session_ids))
    return [
        r[0]
        for r in conn.execute(
            f"SELECT path FROM source_files WHERE session_id IN ({marks}) AND status='deleted'",
            session_ids,
        )
    ]


def memory_times(conn: sqlite3.Connection, node: str) -> dict[str, str | None]:
    """When each memory right under a tree node holds (its temporal), by name."""
    return {
        r[0]: r[1]
        for r in conn.execute("SELECT name, temporal FROM memories WHERE tree=?", (node,))
    }


# ---- sidecar: the queries behind the sidecar's features (server/features/), for any surface


@dataclass(frozen=True)
class BuilderSource:
    """A file an agent wrote one of a Builder's sessions to, as capture last read it."""

    path: str  # the file on disk (an OpenCode database holds many sessions)
    agent: str
    session_id: str
    subagent_id: str | None  # a subagent's own file
    size: int  # bytes when last captured
    exists: bool  # still there: agents delete old sessions, lazy keeps its copy


def _source_path(name: str, key: str) -> str:
    # the file a source's key names (an OpenCode database's sessions are "<db>#<session>")
    a = AGENTS.get(name)
    return key if a is None else a.location(key)


def builder_sources(conn: sqlite3.Connection, bid: str) -> list[BuilderSource]:
    """The files a Builder's sessions were captured from (main sessions' first, then
    subagents', each by path) and whether each is still on disk."""
    out = []
    for key, agent, sid, subagent_id, size in source_files(conn, bid):
        path = _source_path(agent, key)
        out.append(BuilderSource(path, agent, sid, subagent_id, size, Path(path).is_file()))
    return out


def own_line(
    conn: sqlite3.Connection, ident: str, session: str | None = None
) -> tuple[str, int] | None:
    """The Builder's id and message count when ``session`` (None: the Builder) is one of its
    own sessions, what a task is promoted from, not a subagent's; None for no one Builder."""
    try:
        info = builder_info(conn, resolve_builder(conn, ident))
    except (NotFound, Ambiguous):
        return None
    if session is not None and session not in info.session_ids:
        return None
    return info.id, info.message_count


def builder_projects(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Each Builder's project, by id."""
    return {str(bid): project for bid, project in conn.execute("SELECT id, project FROM builders")}


def builders_of_sessions(conn: sqlite3.Connection, session_ids: list[str]) -> set[str]:
    """The Builders these sessions belong to."""
    if not session_ids:
        return set()
    marks = ",".join("?" * len(session_ids))
    rows = conn.execute(
        f"SELECT DISTINCT builder_id FROM sessions WHERE id IN ({marks}) AND builder_id IS NOT NULL",
        session_ids,
    )
    return {r[0] for r in rows}
