"""What the search index reads from the store: the rows its documents are made of, the queue
of what changed since (filled by the store's triggers), and the rows a search shows.

Rows come back as tuples in the order each query names its columns; lazy.index makes the
documents and hits of them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from lazy.store.db import Store


def _meta(field: str) -> str:
    return f"json_extract(mem.meta, '$.{field}')"


# a memory's session is the one its meta names (a Claude subagent's memories name the parent)
_MEMORY_FROM = (
    "FROM memories mem"
    f" LEFT JOIN sessions s ON s.id = {_meta('source_session_id')}"
    " LEFT JOIN builders b ON b.id = s.builder_id"
)

# ---- documents ------------------------------------------------------------------------------

# the time as whole seconds is read by SQLite: parsing a million ISO strings in Python is a
# measurable part of a rebuild (a time without a zone is UTC to both)
_MESSAGE_SQL = (
    "SELECT m.id, m.builder_id, b.rowid, m.session_id, m.role, m.ts,"
    " CAST(strftime('%s', m.ts) AS INTEGER), m.model, m.text, m.blocks, m.meta, s.tool, s.project"
    " FROM messages m JOIN sessions s ON s.id = m.session_id"
    " LEFT JOIN builders b ON b.id = m.builder_id WHERE m.id BETWEEN ? AND ? ORDER BY m.id"
)
_MEMORY_SQL = (
    f"SELECT mem.rowid, s.builder_id, b.rowid, s.id, {_meta('source_message_role')},"
    " mem.temporal, CAST(strftime('%s', mem.temporal) AS INTEGER),"
    f" {_meta('source_model')}, mem.content, COALESCE(s.tool, {_meta('tool')}),"
    f" COALESCE(s.project, {_meta('project')}), {_meta('source')}"
    f" {_MEMORY_FROM} WHERE mem.rowid BETWEEN ? AND ? ORDER BY mem.rowid"
)
_TASK_SQL = (
    "SELECT t.id, t.builder_id, b.rowid, t.created_at,"
    " CAST(strftime('%s', t.created_at) AS INTEGER), t.goal, t.prompt, b.tool, b.project"
    " FROM tasks t LEFT JOIN builders b ON b.id = t.builder_id"
    " WHERE t.id BETWEEN ? AND ? ORDER BY t.id"
)


def message_rows(conn: sqlite3.Connection, lo: int, hi: int) -> Iterable[Any]:
    """Messages ``lo``..``hi``: (id, builder id, builder rowid, session id, role, ts, ts as
    seconds, model, text, blocks, meta, agent, project)."""
    return conn.execute(_MESSAGE_SQL, (lo, hi))


def memory_rows(conn: sqlite3.Connection, lo: int, hi: int) -> Iterable[Any]:
    """Memories of rowid ``lo``..``hi``: (rowid, builder id, builder rowid, session id, role,
    temporal, temporal as seconds, model, content, agent, project, source)."""
    return conn.execute(_MEMORY_SQL, (lo, hi))


def task_rows(conn: sqlite3.Connection, lo: int, hi: int) -> Iterable[Any]:
    """Tasks ``lo``..``hi``: (id, builder id, builder rowid, created at, created as seconds,
    goal, prompt, agent, project)."""
    return conn.execute(_TASK_SQL, (lo, hi))


def all_ids(conn: sqlite3.Connection) -> tuple[list[int], list[int], list[int]]:
    """(message ids ascending, memory rowids descending, task ids descending)."""
    messages = [r[0] for r in conn.execute("SELECT id FROM messages ORDER BY id")]
    memories = [r[0] for r in conn.execute("SELECT rowid FROM memories ORDER BY rowid DESC")]
    tasks = [r[0] for r in conn.execute("SELECT id FROM tasks ORDER BY id DESC")]
    return messages, memories, tasks


def placed_messages(conn: sqlite3.Connection) -> int:
    """How many messages are placed in a Builder (each is one document)."""
    return int(
        conn.execute("SELECT COUNT(*) FROM messages WHERE builder_id IS NOT NULL").fetchone()[0]
    )


# ---- the queue ------------------------------------------------------------------------------


def lag(conn: sqlite3.Connection, *, everything: bool) -> int:
    """What the index lacks: every stored document (an index started afresh), else the
    documents queued."""
    return int(
        conn.execute(
            "SELECT (SELECT COUNT(*) FROM messages) + (SELECT COUNT(*) FROM memories)"
            " + (SELECT COUNT(*) FROM tasks)"
            if everything
            else "SELECT COUNT(DISTINCT message_id) FROM index_queue"
        ).fetchone()[0]
    )


def queued_any(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM index_queue LIMIT 1").fetchone() is not None


def queue_length(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM index_queue").fetchone()[0])


def queued(conn: sqlite3.Connection, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` queue entries: (seq, document id)."""
    return [
        (int(seq), int(doc))
        for seq, doc in conn.execute(
            "SELECT seq, message_id FROM index_queue ORDER BY seq LIMIT ?", (limit,)
        )
    ]


def queued_upto(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM index_queue").fetchone()[0])


def dequeue(store: Store, upto: int) -> None:
    with store.write() as c:
        c.execute("DELETE FROM index_queue WHERE seq <= ?", (upto,))


# ---- what a search shows --------------------------------------------------------------------


def _rows(conn: sqlite3.Connection, sql: str, ids: list[Any]) -> list[Any]:
    if not ids:
        return []
    return conn.execute(sql.format(",".join("?" * len(ids))), ids).fetchall()


def shown_messages(conn: sqlite3.Connection, ids: list[int]) -> list[Any]:
    """(id, builder id, session id, number, role, ts, session kind, text, blocks, meta)."""
    return _rows(
        conn,
        "SELECT m.id, m.builder_id, m.session_id, m.number, m.role, m.ts, s.kind, m.text,"
        " m.blocks, m.meta FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.id IN ({})",
        ids,
    )


def shown_memories(conn: sqlite3.Connection, rowids: list[int]) -> list[Any]:
    """(rowid, builder id, session id, number of the message it was made from, its role,
    temporal, session kind, content, tree, name, project)."""
    return _rows(
        conn,
        "SELECT mem.rowid, s.builder_id, s.id, m.number, json_extract(mem.meta,"
        " '$.source_message_role'), mem.temporal, s.kind, mem.content, mem.tree, mem.name,"
        " COALESCE(s.project, json_extract(mem.meta, '$.project'))"
        f" {_MEMORY_FROM} LEFT JOIN messages m ON m.session_id = s.id"
        " AND m.key = json_extract(mem.meta, '$.source_message_id')"
        " WHERE mem.rowid IN ({})",
        rowids,
    )


def shown_tasks(conn: sqlite3.Connection, ids: list[int]) -> list[Any]:
    """(id, builder id, code, from message, goal, created at, prompt)."""
    return _rows(
        conn,
        "SELECT id, builder_id, code, from_message, goal, created_at, prompt FROM tasks"
        " WHERE id IN ({})",
        ids,
    )


def shown_builders(conn: sqlite3.Connection, ids: list[str]) -> list[Any]:
    """(id, started at, project, agent, summary)."""
    return _rows(
        conn, "SELECT id, started_at, project, tool, summary FROM builders WHERE id IN ({})", ids
    )
