"""Source files as the store knows them: how far each was read (offset, lines, the hashes
that tell a rewrite), its generation, its status (ok, refused, oneshot, deleted), and its
raw archive, the chunks of bytes read from it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import IO

from lazy.agents import SourceRef
from lazy.agents.jsonl import HEAD_KEPT, Line, LongLine, pieces, split_lines
from lazy.os.clock import now_iso
from lazy.store import sessions
from lazy.store.archive import compress_raw, decompress
from lazy.store.db import fetch_row


class Conflict(Exception):
    """Another process advanced this file between our read and our write."""


def row(conn: sqlite3.Connection, spath: str) -> sqlite3.Row | None:
    return fetch_row(conn, "SELECT * FROM source_files WHERE path = ?", (spath,))


def in_oneshot(conn: sqlite3.Connection, session_id: str) -> bool:
    """The session's main file is a lazy one-shot (so its subagents are part of it)."""
    return (
        conn.execute(
            "SELECT 1 FROM source_files WHERE session_id=? AND agent_id IS NULL"
            " AND status='oneshot'",
            (session_id,),
        ).fetchone()
        is not None
    )


def check(c: sqlite3.Connection, spath: str, expected: tuple[int, int] | None) -> None:
    """Raise :class:`Conflict` unless the file is where this capture left it: (read offset,
    generation), or unknown (None)."""
    r = c.execute(
        "SELECT read_offset, generation FROM source_files WHERE path=?", (spath,)
    ).fetchone()
    if (None if r is None else (r[0], r[1])) != expected:
        raise Conflict


def upsert(
    c: sqlite3.Connection,
    spath: str,
    agent: str,
    session_id: str,
    subagent_id: str | None,
    size: int,
    mtime: int,
    *,
    status: str,
) -> int:
    """The file's row, made or brought up to its size, mtime and status; returns its id."""
    c.execute(
        "INSERT INTO source_files(path, tool, session_id, agent_id, size, mtime_ns, status,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns,"
        " session_id=excluded.session_id,"
        " status=excluded.status, updated_at=excluded.updated_at",
        (spath, agent, session_id, subagent_id, size, mtime, status, now_iso()),
    )
    return file_id(c, spath)


def file_id(c: sqlite3.Connection, spath: str) -> int:
    return int(c.execute("SELECT id FROM source_files WHERE path=?", (spath,)).fetchone()[0])


def advance(
    c: sqlite3.Connection,
    fid: int,
    *,
    end: int,
    lines_read: int,
    hashes: tuple[bytes, bytes],
    generation: int,
) -> None:
    """The file has been read and stored up to ``end``."""
    c.execute(
        "UPDATE source_files SET read_offset=?, lines_read=?, head_hash=?, tail_hash=?,"
        " generation=?, status='ok', updated_at=? WHERE id=?",
        (end, lines_read, hashes[0], hashes[1], generation, now_iso(), fid),
    )


def forget_oneshot(c: sqlite3.Connection, spath: str, sid: str, size: int, mtime: int) -> None:
    """A lazy one-shot: keep nothing of it but the note that it is one."""
    r = c.execute("SELECT id FROM source_files WHERE path=?", (spath,)).fetchone()
    if r is not None:
        c.execute("DELETE FROM raw_chunks WHERE file_id=?", (r[0],))
    keys = [sid] + [
        r[0] for r in c.execute("SELECT id FROM sessions WHERE parent_session_id=?", (sid,))
    ]
    sessions.forget(c, keys)
    c.execute(
        "INSERT INTO source_files(path, tool, session_id, size, mtime_ns, status, updated_at)"
        " VALUES (?, 'claude', ?, ?, ?, 'oneshot', ?) ON CONFLICT(path) DO UPDATE SET"
        " status='oneshot', size=excluded.size, mtime_ns=excluded.mtime_ns",
        (spath, sid, size, mtime, now_iso()),
    )


def archive(
    c: sqlite3.Connection,
    fid: int,
    generation: int,
    span: tuple[int, int],
    line_no: int,
    packed: bytes,
) -> None:
    """A run of complete lines, already compressed, kept verbatim."""
    c.execute(
        "INSERT OR IGNORE INTO raw_chunks(file_id, generation, start, end,"
        " first_line, data) VALUES (?,?,?,?,?,?)",
        (fid, generation, span[0], span[1], line_no, packed),
    )


def archive_long(
    c: sqlite3.Connection, f: IO[bytes], fid: int, generation: int, line_no: int, long: LongLine
) -> None:
    """A line past MAX_LINE kept verbatim as pieces of at most PIECE bytes, each its own row
    (no value near SQLite's 1 GB limit, nothing held whole), in the caller's transaction:
    all of it is archived and the cursor passes it, or neither."""
    for pos, piece in pieces(f, long):
        c.execute(
            "INSERT OR IGNORE INTO raw_chunks(file_id, generation, start, end, first_line, data,"
            " line_size) VALUES (?,?,?,?,?,?,?)",
            (fid, generation, pos, pos + len(piece), line_no, compress_raw(piece), long.size),
        )


def archived_files(
    c: sqlite3.Connection, session_id: str
) -> list[tuple[int, str, str | None, str]]:
    """(id, path, subagent id, agent) of every file archived for a session, main file first;
    refused copies too: their earlier generations hold what the store shows."""
    return [
        (r[0], r[1], r[2], r[3])
        for r in c.execute(
            "SELECT id, path, agent_id, tool FROM source_files WHERE session_id=?"
            " AND status NOT IN ('oneshot', 'deleted') ORDER BY agent_id IS NOT NULL, path",
            (session_id,),
        )
    ]


def archived_lines(c: sqlite3.Connection, fid: int, generation: int) -> Iterator[Iterable[Line]]:
    """One generation of a file's raw archive as runs of lines, a chunk at a time: a line
    past MAX_LINE, archived in pieces, is one line of its first piece's head (the rest of
    its pieces are never read here)."""
    rows = c.execute(
        "SELECT id, start, first_line, line_size FROM raw_chunks WHERE file_id=?"
        " AND generation=? ORDER BY start",
        (fid, generation),
    ).fetchall()
    long_line = None
    for chunk_id, start, first_line, line_size in rows:
        if line_size is not None and first_line == long_line:
            continue  # a later piece of the line just read
        (data,) = c.execute("SELECT data FROM raw_chunks WHERE id=?", (chunk_id,)).fetchone()
        if line_size is None:
            long_line = None
            yield split_lines(decompress(data), start, first_line)
        else:
            long_line = first_line
            head = decompress(data)[:HEAD_KEPT]
            yield [LongLine(start, line_size, head).line(first_line)]


def generations(c: sqlite3.Connection, fid: int) -> list[int]:
    return [
        r[0]
        for r in c.execute(
            "SELECT DISTINCT generation FROM raw_chunks WHERE file_id=? ORDER BY generation",
            (fid,),
        )
    ]


def known(conn: sqlite3.Connection, spath: str) -> bool:
    """The store has a row for this file (read, refused, a one-shot, or deleted)."""
    return conn.execute("SELECT 1 FROM source_files WHERE path=?", (spath,)).fetchone() is not None


def deleted(conn: sqlite3.Connection, session_id: str) -> bool:
    """`lazy doctor` deleted this session's conversation (any copy of it) on request."""
    return (
        conn.execute(
            "SELECT 1 FROM source_files WHERE session_id=? AND agent_id IS NULL"
            " AND status='deleted' LIMIT 1",
            (session_id,),
        ).fetchone()
        is not None
    )


def upsert_records(
    c: sqlite3.Connection,
    key: str,
    source: SourceRef,
    records: int,
    mtime: int,
    stamp: str,
) -> int:
    """A record store's session (OpenCode), read whole: ``records`` of them, at ``stamp``;
    returns its row's id."""
    c.execute(
        "INSERT INTO source_files(path, tool, session_id, agent_id, size, mtime_ns, stamp,"
        " read_offset, lines_read, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns,"
        " stamp=excluded.stamp, read_offset=excluded.read_offset,"
        " lines_read=excluded.lines_read, updated_at=excluded.updated_at",
        (
            key,
            source.agent,
            source.session_id,
            source.subagent_id,
            records,
            mtime,
            stamp,
            records,
            records,
            now_iso(),
        ),
    )
    return file_id(c, key)


def record_hashes(c: sqlite3.Connection, fid: int) -> set[tuple[str, bytes]]:
    """(record id, hash) of every record version archived for the file."""
    return {
        (r[0], r[1])
        for r in c.execute("SELECT record_id, hash FROM raw_records WHERE file_id=?", (fid,))
    }


def archive_records(
    c: sqlite3.Connection, rows: list[tuple[int, str, str, bytes, str, bytes, str]]
) -> None:
    """Record versions kept verbatim: (file id, record id, kind, hash, origin, compressed
    data, seen at) each."""
    c.executemany(
        "INSERT OR IGNORE INTO raw_records(file_id, record_id, kind, hash, origin, data, seen_at)"
        " VALUES (?,?,?,?,?,?,?)",
        rows,
    )


def newest_records(c: sqlite3.Connection, fid: int) -> list[tuple[str, str, str, bytes]]:
    """(kind, record id, origin, compressed data) of the newest archived version of each of
    the file's records."""
    return [
        (r[0], r[1], r[2], r[3])
        for r in c.execute(
            "SELECT kind, record_id, origin, data FROM raw_records WHERE id IN"
            " (SELECT MAX(id) FROM raw_records WHERE file_id=? GROUP BY record_id)",
            (fid,),
        )
    ]


def session_of(c: sqlite3.Connection, fid: int) -> str:
    return str(c.execute("SELECT session_id FROM source_files WHERE id=?", (fid,)).fetchone()[0])
