"""What `lazy doctor` reads and writes in the store to check and repair it: counts, the write
lock, deleting whole conversations, the rows that recovering, housekeeping and cleaning
scaffolding look at, and savepoints to try a repair and roll it back."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from lazy.os.clock import now_iso

# ---- counts ---------------------------------------------------------------------------------


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def conversation_count(conn: sqlite3.Connection) -> int:
    """Builders with at least one message."""
    return int(conn.execute("SELECT COUNT(*) FROM builders WHERE message_count > 0").fetchone()[0])


def totals(conn: sqlite3.Connection) -> tuple[int, int]:
    """(conversations with a message, messages)."""
    conversations, messages = conn.execute(
        "SELECT (SELECT COUNT(*) FROM builders WHERE message_count > 0),"
        " (SELECT COUNT(*) FROM messages)"
    ).fetchone()
    return int(conversations), int(messages)


def write_lock_held(conn: sqlite3.Connection, probe_ms: int) -> str | None:
    """The error of taking the write lock for ``probe_ms`` at most (and writing nothing),
    or None when it was free."""
    (before,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute(f"PRAGMA busy_timeout = {probe_ms}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError as e:
        return f"{getattr(e, 'sqlite_errorname', 'SQLITE_BUSY')}: {e}"
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(before)}")
    return None


# ---- deleting conversations -----------------------------------------------------------------


def delete_builders(c: sqlite3.Connection, builder_ids: Iterable[str]) -> list[str]:
    """Delete these Builders inside the caller's write transaction (the caller regroups
    after); returns the ids that were there to delete.

    Everything of a Builder goes: its sessions' messages (the search index follows through
    its queue), entries, links, the sessions and the Builder, and the raw archive of its
    files. Each file keeps a note that it was deleted (``source_files.status = 'deleted'``),
    so live capture does not bring it straight back from the copy still on disk, and `lazy
    doctor` does not count it as uncaptured; an import asked for it (the bulk import, or
    naming it) reads it afresh."""
    done = []
    for bid in builder_ids:
        mains = [
            r[0]
            for r in c.execute(
                "SELECT id FROM sessions WHERE builder_id=? AND kind='main'", (bid,)
            ).fetchall()
        ]
        if not mains:
            continue
        marks = ",".join("?" * len(mains))
        keys = [
            r[0]
            for r in c.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) OR parent_session_id IN ({marks})",
                mains + mains,
            ).fetchall()
        ]
        for table, col in (
            ("messages", "session_id"),
            ("entries", "session_id"),
            ("session_links", "session_id"),
            ("spawns", "session_id"),
            ("sessions", "id"),
        ):
            c.executemany(f"DELETE FROM {table} WHERE {col}=?", [(k,) for k in keys])
        files = c.execute(
            f"SELECT id, path FROM source_files WHERE session_id IN ({marks})"
            " AND status <> 'oneshot'",
            mains,
        ).fetchall()
        for file_id, path in files:
            c.execute("DELETE FROM raw_chunks WHERE file_id=?", (file_id,))
            c.execute("DELETE FROM raw_records WHERE file_id=?", (file_id,))
            c.execute("DELETE FROM quarantine WHERE path=?", (path,))
            c.execute(
                "UPDATE source_files SET status='deleted', read_offset=0, lines_read=0,"
                " head_hash=NULL, tail_hash=NULL, stamp=NULL, updated_at=? WHERE id=?",
                (now_iso(), file_id),
            )
        c.execute("DELETE FROM builders WHERE id=?", (bid,))
        c.execute("UPDATE builders SET forked_from=NULL WHERE forked_from=?", (bid,))
        done.append(bid)
    return done


# ---- recovering a damaged store -------------------------------------------------------------


def connect_new(path: Path) -> sqlite3.Connection:
    """A connection to a store file being made (WAL, synchronous=FULL), not yet a Store."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def single_file(conn: sqlite3.Connection) -> None:
    """Leave WAL mode: the store is then one file, to put in place."""
    conn.execute("PRAGMA journal_mode = DELETE")


def clear_index_queue(c: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: the index is then rebuilt whole."""
    c.execute("DELETE FROM index_queue")


def archived_sessions(conn: sqlite3.Connection) -> list[str]:
    """The main sessions whose files the raw archive holds (not one-shots, not deleted)."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT DISTINCT session_id FROM source_files WHERE agent_id IS NULL"
            " AND status NOT IN ('oneshot', 'deleted') ORDER BY session_id"
        )
    ]


def session_messages(c: sqlite3.Connection, sid: str) -> int:
    """The messages of a main session and of its subagents."""
    return int(
        c.execute(
            "SELECT COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id"
            " WHERE s.id = ? OR s.parent_session_id = ?",
            (sid, sid),
        ).fetchone()[0]
    )


# ---- housekeeping: lazy's own one-shots stored before the marker ---------------------------


def lone_user_messages(c: sqlite3.Connection, agent: str) -> list[tuple[str, int]]:
    """(Builder id, message id) of the agent's Builders whose main sessions hold exactly one
    message the user wrote."""
    rows = c.execute(
        "SELECT m.builder_id, MIN(m.id) FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE s.kind = 'main' AND s.tool = ? AND m.role = 'user' AND m.meta = 0"
        " AND m.builder_id IS NOT NULL GROUP BY m.builder_id HAVING COUNT(*) = 1",
        (agent,),
    ).fetchall()
    return [(str(bid), int(mid)) for bid, mid in rows]


def message_text(c: sqlite3.Connection, mid: int) -> str:
    return str(c.execute("SELECT text FROM messages WHERE id=?", (mid,)).fetchone()[0])


def builder_started(c: sqlite3.Connection, bid: str) -> tuple[str | None] | None:
    """(started at,) of the Builder; None when there is no such Builder."""
    row = c.execute("SELECT started_at FROM builders WHERE id=?", (bid,)).fetchone()
    return (row[0],) if row is not None else None


# ---- scaffolding: Claude Code's command tags stored as conversation -------------------------


def scaffolding_suspects(c: sqlite3.Connection, agent: str, bare: list[str]) -> list[str]:
    """The agent's sessions in a Builder (main ids) holding a message with Claude Code's
    command tags in it, or one whose text is one of ``bare``."""
    marks = ",".join("?" * len(bare))
    return [
        r[0]
        for r in c.execute(
            "SELECT DISTINCT COALESCE(s.parent_session_id, s.id) FROM messages m"
            " JOIN sessions s ON s.id = m.session_id"
            " WHERE s.tool = ? AND s.builder_id IS NOT NULL AND ("
            " instr(m.text, '<command-name>') > 0 OR instr(m.text, '<local-command-') > 0"
            f" OR m.text IN ({marks})) ORDER BY 1",
            [agent, *bare],
        ).fetchall()
    ]


def builder_of(c: sqlite3.Connection, sid: str) -> str | None:
    """The Builder a session is placed in."""
    row = c.execute("SELECT builder_id FROM sessions WHERE id=?", (sid,)).fetchone()
    return str(row[0]) if row is not None and row[0] is not None else None


def builder_head(c: sqlite3.Connection, bid: str) -> tuple[str | None, str | None] | None:
    """(started at, summary) of the Builder; None when there is no such Builder."""
    row = c.execute("SELECT started_at, summary FROM builders WHERE id=?", (bid,)).fetchone()
    return (row[0], row[1]) if row is not None else None


def builder_sessions(c: sqlite3.Connection, bid: str) -> list[str]:
    """Every session of the Builder, subagents' too."""
    return [r[0] for r in c.execute("SELECT id FROM sessions WHERE builder_id=?", (bid,))]


def first_main_session(c: sqlite3.Connection, bid: str) -> str:
    return str(
        c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main'"
            " ORDER BY started_at, message_count, id LIMIT 1",
            (bid,),
        ).fetchone()[0]
    )


def messages_of(c: sqlite3.Connection, sessions: list[str]) -> int:
    marks = ",".join("?" * len(sessions))
    return int(
        c.execute(
            f"SELECT COUNT(*) FROM messages WHERE session_id IN ({marks})", sessions
        ).fetchone()[0]
    )


def summary_of(c: sqlite3.Connection, sid: str) -> str | None:
    """The summary of the Builder the session is in; None when it is in none."""
    row = c.execute(
        "SELECT b.summary FROM sessions s JOIN builders b ON b.id = s.builder_id WHERE s.id = ?",
        (sid,),
    ).fetchone()
    return row[0] if row else None
