"""Capture: read what a source file gained since last time and store it, one transaction
per batch. Safe to run from several processes at once on the same file."""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from lazy.agents import COMPRESSED, LineReader, file_identity, make_reader, tool_of
from lazy.agents.jsonl import HEAD_KEPT, Line, LongLine, pieces, read_complete, split_lines
from lazy.blocks import role_of, spoken
from lazy.builders.regroup import refresh, refresh_in
from lazy.projects import project_of
from lazy.records import MessagePart, Quarantined, ReadBatch, SessionFacts
from lazy.store import Store, StoreError, now_iso
from lazy.store.archive import (
    compress_raw,
    decompress,
    decompress_frames,
    pack_blocks,
    unpack_blocks,
)
from lazy.store.db import fetch_row

BATCH = 16 * 1024 * 1024
WINDOW = 4096  # bytes hashed at the head and just before the read offset


@dataclass
class CaptureResult:
    path: str
    session_id: str
    status: str  # captured | unchanged | empty | refused | oneshot | missing | error
    messages_added: int = 0
    messages_updated: int = 0
    bytes_read: int = 0
    reason: str | None = None
    code: str | None = None
    quarantined: list[Quarantined] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)


@dataclass
class Fresh:
    """The first batch of a file the store has not seen, read and parsed ahead of its
    write (off the store's thread: bulk import overlaps parsing with SQLite and zstd)."""

    size: int
    mtime_ns: int
    data: bytes
    raw: bytes
    batch: ReadBatch
    reader: LineReader
    prepared: dict[str, list[_Message]]


def open_source(path: Path) -> tuple[IO[bytes], int, int]:
    """(the file, its size, its mtime); a compressed rollout is read decompressed."""
    if path.name.endswith(COMPRESSED):
        st = os.stat(path)
        with open(path, "rb") as raw:
            packed = raw.read()
        data = gzip.decompress(packed) if path.name.endswith(".gz") else decompress_frames(packed)
        return io.BytesIO(data), len(data), st.st_mtime_ns
    f = open(path, "rb")  # noqa: SIM115 - the caller closes it
    st = os.fstat(f.fileno())
    return f, st.st_size, st.st_mtime_ns


def parse_ahead(path: Path, tool: str | None = None) -> Fresh | None:
    """Pure: touches the file, never the store. None when the file cannot be read."""
    sid, agent = file_identity(path)
    try:
        f, size, mtime = open_source(path)
        with f:
            data = read_complete(f, 0, BATCH)
        if isinstance(data, LongLine):
            return None  # capture archives it piece by piece, in its own transaction
        reader = make_reader(tool or tool_of(path), str(path), sid, agent)
        batch = reader.read(split_lines(data, 0, 1))
        return Fresh(size, mtime, data, compress_raw(data), batch, reader, prepare(batch))
    except Exception:  # unreadable, damaged, or a failure no rule foresaw: capture says why
        return None


class _Conflict(Exception):
    """Another process advanced this file between our read and our write."""


def _hash(f: IO[bytes], start: int, end: int) -> bytes:
    f.seek(start)
    return hashlib.blake2b(f.read(end - start), digest_size=16).digest()


def _windows(f: IO[bytes], offset: int) -> tuple[bytes, bytes]:
    return _hash(f, 0, min(WINDOW, offset)), _hash(f, max(0, offset - WINDOW), offset)


def _row(conn: sqlite3.Connection, path: str) -> sqlite3.Row | None:
    return fetch_row(conn, "SELECT * FROM source_files WHERE path = ?", (path,))


def _load_facts(conn: sqlite3.Connection) -> Callable[[str], SessionFacts | None]:
    def load(key: str) -> SessionFacts | None:
        r = conn.execute(
            "SELECT cwd, git_branch, version, started_at, updated_at, title, clear_start,"
            " continued_in, oneshot, first_user_seen, head_uuid, head_parent, copied_from,"
            " forked, head_msg, tail_uuid, git_commit, git_repo, provider, cursor"
            " FROM sessions WHERE id = ?",
            (key,),
        ).fetchone()
        if r is None:
            return None
        return SessionFacts(
            cwd=r[0],
            git_branch=r[1],
            version=r[2],
            first_timestamp=r[3],
            last_timestamp=r[4],
            title=r[5],
            clear_start=bool(r[6]),
            continued_in=r[7],
            oneshot=bool(r[8]),
            first_user_seen=bool(r[9]),
            head_uuid=r[10],
            head_parent=r[11],
            copied_from=r[12],
            forked=bool(r[13]),
            head_msg=r[14],
            tail_uuid=r[15],
            git_commit=r[16],
            git_repo=r[17],
            provider=r[18],
            cursor=r[19],
        )

    return load


def capture_file(
    store: Store,
    path: Path,
    *,
    regroup: bool = True,
    fresh: Fresh | None = None,
    tool: str | None = None,
) -> CaptureResult:
    """Capture what ``path`` holds beyond what the store has; idempotent.

    ``fresh`` is the file's first batch parsed ahead by :func:`parse_ahead`; it is used only
    when the store turns out to know nothing of the file or its session. ``tool`` is the
    agent that wrote it (default: told by its name).
    """
    sid, _ = file_identity(path)
    tool = tool or tool_of(path)
    result = CaptureResult(str(path), sid, "unchanged")
    for _ in range(20):
        try:
            # a retry carries on from what the lost race's committed batches stored
            _capture(store, path, tool, fresh, result)
            break
        except _Conflict:
            fresh = None
            continue
        except Exception as e:
            if isinstance(e, StoreError) and not files_fault(e):
                raise  # the store's failure, not this file's: the caller says it
            unexpected(store, e, result)
            break
    else:  # pragma: no cover - twenty writers racing on one file
        raise StoreError("capture kept racing with another process", "EAGAIN", str(path))
    if result.quarantined:
        q = result.quarantined[0]
        more = f" (and {len(result.quarantined) - 1} more)" if len(result.quarantined) > 1 else ""
        store.log(
            "warning",
            f"{len(result.quarantined)} line(s) quarantined; line {q.line_no}: {q.reason}{more}",
            path=str(path),
            session_id=sid,
            code="BAD_LINE",
        )
    if regroup and result.sessions:
        refresh(store)
    return result


def files_fault(e: StoreError) -> bool:
    """A store error caused by the file, not the store: a batch SQLite cannot hold (a line
    past its 1 GB limit). The store is fine, the next file can be captured."""
    return e.code == "SQLITE_TOOBIG"


def unexpected(store: Store, e: Exception, result: CaptureResult) -> CaptureResult:
    """A failure no rule foresaw, capturing one source: what its committed batches stored
    stays, the capture log says why with the machine detail, and the caller goes on with
    its next file. The next pass tries again from where the store left off."""
    code = e.code if isinstance(e, StoreError) else type(e).__name__
    said = e.detail if isinstance(e, StoreError) else str(e)
    detail = f"{code}: {said}" if said else code  # a MemoryError says nothing more
    result.status, result.reason, result.code = "error", f"could not be captured: {detail}", code
    store.log(
        "error",
        "could not be captured",
        path=result.path,
        session_id=result.session_id,
        code=code,
        detail=detail,
    )
    return result


def _fail(
    store: Store, path: Path, sid: str, status: str, e: OSError, result: CaptureResult
) -> CaptureResult:
    code = errno.errorcode.get(e.errno or 0, type(e).__name__)
    reason = {
        "missing": "the file disappeared before it could be read",
        "error": "the file could not be read",
    }[status]
    store.log("error", reason, path=str(path), session_id=sid, code=code, detail=str(e))
    result.status, result.reason, result.code = status, reason, code
    return result


def _capture(
    store: Store, path: Path, tool: str, fresh: Fresh | None, result: CaptureResult
) -> CaptureResult:
    spath = str(path)
    sid, agent = file_identity(path)
    try:
        f, size, mtime = open_source(path)  # closed below, across the batches
    except FileNotFoundError as e:
        return _fail(store, path, sid, "missing", e, result)
    except OSError as e:
        return _fail(store, path, sid, "error", e, result)
    except Exception as e:  # a damaged compressed rollout
        err = OSError(errno.EIO, f"cannot decompress: {e}")
        return _fail(store, path, sid, "error", err, result)
    with f:
        try:
            return _capture_open(
                store, path, spath, tool, sid, agent, f, size, mtime, fresh, result
            )
        except OSError as e:  # the file went away or broke mid-read
            return _fail(store, path, sid, "error", e, result)


def _capture_open(
    store: Store,
    path: Path,
    spath: str,
    tool: str,
    sid: str,
    agent: str | None,
    f: IO[bytes],
    size: int,
    mtime: int,
    fresh: Fresh | None,
    result: CaptureResult,
) -> CaptureResult:
    conn = store.conn
    row = _row(conn, spath)
    if row is not None and row["status"] == "oneshot":
        result.status = "oneshot"
        return result
    if (
        agent is not None
        and conn.execute(
            "SELECT 1 FROM source_files WHERE session_id=? AND agent_id IS NULL AND status='oneshot'",
            (sid,),
        ).fetchone()
    ):
        result.status = "oneshot"  # a subagent of a lazy one-shot is part of it
        return result
    if row is not None and row["size"] == size and row["mtime_ns"] == mtime:
        if row["status"] == "refused":
            result.status = "refused"
            return result
        if row["read_offset"] >= size:
            return result  # nothing new: not even a stat-changing touch
        # else a capture was interrupted mid-file, or the last line is still torn
    generation = 0
    start = 0
    line_no = 1
    expected: tuple[int, int] | None = None
    if row is not None:
        expected = (row["read_offset"], row["generation"])
        generation = row["generation"]
        offset = row["read_offset"]
        try:
            intact = size >= offset and _windows(f, offset) == (row["head_hash"], row["tail_hash"])
        except OSError as e:
            return _fail(store, path, sid, "error", e, result)
        if intact and row["status"] not in ("refused", "deleted"):
            start, line_no = offset, row["lines_read"] + 1
        else:
            # rewritten (or shorter): read it whole again, merge by id; deleted by `lazy
            # doctor`: read afresh when asked for again (an import naming it, or the file grew)
            generation += 1

    # does the store hold the session this file carries (the main one, or this subagent)?
    known = conn.execute(
        "SELECT 1 FROM sessions WHERE (? IS NULL AND id=?)"
        " OR (parent_session_id=? AND agent_id=?) LIMIT 1",
        (agent, sid, sid, agent),
    ).fetchone()
    if row is not None or known is not None or (fresh is not None and fresh.size > size):
        fresh = None  # what was parsed ahead did not know what the store knows
    if start == 0 and known is not None:
        refusal = _strict_prefix(store, path, tool, sid, agent, f)
        if refusal is not None:
            with store.write() as c:
                _check(c, spath, expected)
                _upsert_file(c, spath, tool, sid, agent, size, mtime, status="refused")
            store.log("refused", refusal, path=spath, session_id=sid, code="STRICT_PREFIX")
            result.status, result.reason = "refused", refusal
            return result

    reader = fresh.reader if fresh else make_reader(tool, spath, sid, agent, _load_facts(conn))
    wrote_any = False
    while True:
        prepared = None
        long: LongLine | None = None
        if fresh is not None:
            data, raw, batch, prepared = fresh.data, fresh.raw, fresh.batch, fresh.prepared
            size, mtime = fresh.size, fresh.mtime_ns
            fresh = None
        else:
            try:
                got = read_complete(f, start, BATCH)
            except OSError as e:
                return _fail(store, path, sid, "error", e, result)
            raw = b""
            if isinstance(got, LongLine):
                long, data = got, b""
                batch = reader.read([got.line(line_no)])
            else:
                data = got
                batch = reader.read(split_lines(data, start, line_no))
        if not data and long is None:
            break
        end = long.end if long is not None else start + len(data)
        with store.write() as c:
            _check(c, spath, expected)
            main_facts = batch.facts.get(sid) or reader.facts.get(sid)
            if agent is None and main_facts is not None and main_facts.oneshot:
                _forget_file(c, spath, sid, size, mtime)
                result.status = "oneshot"
                return result
            if agent is not None and sid.startswith("agent-") and batch.sidechain_of:
                sid = next(iter(batch.sidechain_of.values()))[0]  # older layout: name the parent
            file_id = _upsert_file(c, spath, tool, sid, agent, size, mtime, status="ok")
            if long is None:
                c.execute(
                    "INSERT OR IGNORE INTO raw_chunks(file_id, generation, start, end,"
                    " first_line, data) VALUES (?,?,?,?,?,?)",
                    (file_id, generation, start, end, line_no, raw or compress_raw(data)),
                )
            else:
                _archive_long(c, f, file_id, generation, line_no, long)
            added, updated, touched = _apply(c, batch, spath, tool, generation, prepared)
            if agent is not None and "subagents" not in path.parts:
                # 2.0.x layout: listed only if a tool call of the parent spawned it
                c.execute(
                    "UPDATE sessions SET flat=1 WHERE parent_session_id=? AND agent_id=?",
                    (sid, agent),
                )
            head, tail = _windows(f, end)
            c.execute(
                "UPDATE source_files SET read_offset=?, lines_read=?, head_hash=?, tail_hash=?,"
                " generation=?, status='ok', updated_at=? WHERE id=?",
                (end, line_no + batch.lines - 1, head, tail, generation, now_iso(), file_id),
            )
        wrote_any = True
        expected = (end, generation)
        result.messages_added += added
        result.messages_updated += updated
        result.bytes_read += end - start
        result.quarantined.extend(batch.quarantine)
        result.sessions |= touched
        start, line_no = end, line_no + batch.lines
    unchanged_row = row is not None and (row["size"], row["mtime_ns"]) == (size, mtime)
    if not wrote_any and not unchanged_row:
        # remember the file (its size and mtime) even with nothing to store; a torn last
        # line that stays torn costs no write on later passes
        with store.write() as c:
            _check(c, spath, expected)
            _upsert_file(c, spath, tool, sid, agent, size, mtime, status="ok")
    if result.sessions:
        result.status = "captured"
    elif not wrote_any and start == 0:
        result.status = "empty"
    return result


def _archive_long(
    c: sqlite3.Connection, f: IO[bytes], file_id: int, generation: int, line_no: int, long: LongLine
) -> None:
    """A line past MAX_LINE kept verbatim as pieces of at most PIECE bytes, each its own row
    (no value near SQLite's 1 GB limit, nothing held whole), in the caller's transaction:
    all of it is archived and the cursor passes it, or neither."""
    for pos, piece in pieces(f, long):
        c.execute(
            "INSERT OR IGNORE INTO raw_chunks(file_id, generation, start, end, first_line, data,"
            " line_size) VALUES (?,?,?,?,?,?,?)",
            (file_id, generation, pos, pos + len(piece), line_no, compress_raw(piece), long.size),
        )


def _check(c: sqlite3.Connection, spath: str, expected: tuple[int, int] | None) -> None:
    r = c.execute(
        "SELECT read_offset, generation FROM source_files WHERE path=?", (spath,)
    ).fetchone()
    if (None if r is None else (r[0], r[1])) != expected:
        raise _Conflict


def _upsert_file(
    c: sqlite3.Connection,
    spath: str,
    tool: str,
    sid: str,
    agent: str | None,
    size: int,
    mtime: int,
    *,
    status: str,
) -> int:
    c.execute(
        "INSERT INTO source_files(path, tool, session_id, agent_id, size, mtime_ns, status,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns,"
        " session_id=excluded.session_id,"
        " status=excluded.status, updated_at=excluded.updated_at",
        (spath, tool, sid, agent, size, mtime, status, now_iso()),
    )
    r = c.execute("SELECT id FROM source_files WHERE path=?", (spath,)).fetchone()
    return int(r[0])


def _forget_file(c: sqlite3.Connection, spath: str, sid: str, size: int, mtime: int) -> None:
    """A lazy one-shot: keep nothing of it but the note that it is one."""
    r = c.execute("SELECT id FROM source_files WHERE path=?", (spath,)).fetchone()
    if r is not None:
        c.execute("DELETE FROM raw_chunks WHERE file_id=?", (r[0],))
    keys = [sid] + [
        r[0] for r in c.execute("SELECT id FROM sessions WHERE parent_session_id=?", (sid,))
    ]
    for table in ("messages", "entries", "session_links"):
        c.executemany(f"DELETE FROM {table} WHERE session_id=?", [(k,) for k in keys])
    c.executemany("DELETE FROM sessions WHERE id=?", [(k,) for k in keys])
    c.execute(
        "INSERT INTO source_files(path, tool, session_id, size, mtime_ns, status, updated_at)"
        " VALUES (?, 'claude', ?, ?, ?, 'oneshot', ?) ON CONFLICT(path) DO UPDATE SET"
        " status='oneshot', size=excluded.size, mtime_ns=excluded.mtime_ns",
        (spath, sid, size, mtime, now_iso()),
    )


def _strict_prefix(
    store: Store, path: Path, tool: str, sid: str, agent: str | None, f: IO[bytes]
) -> str | None:
    """Why this copy must not be stored: its messages are a strict prefix of what is."""
    stored: dict[str, list[str]] = {}
    for key, msg_key in store.conn.execute(
        "SELECT session_id, key FROM messages WHERE session_id IN"
        " (SELECT id FROM sessions WHERE (id = ? OR parent_session_id = ?)"
        "  AND (? IS NULL OR agent_id = ?)) ORDER BY session_id, seq",
        (sid, sid, agent, agent),
    ):
        stored.setdefault(key, []).append(msg_key)
    if not stored:
        return None
    reader = make_reader(tool, str(path), sid, agent)
    seen: dict[str, list[str]] = {}
    start, line_no = 0, 1
    while True:
        data = read_complete(f, start, BATCH)
        if isinstance(data, LongLine):  # quarantined whatever it holds: no message of it
            start, line_no = data.end, line_no + 1
            continue
        if not data:
            break
        batch = reader.read(split_lines(data, start, line_no))
        for key, parts in batch.parts.items():
            keys = seen.setdefault(key, [])
            for p in parts:
                if not keys or keys[-1] != p.key:
                    keys.append(p.key)
        start, line_no = start + len(data), line_no + batch.lines
    for key, new in seen.items():
        old = stored.get(key, [])
        if new and len(new) < len(old) and old[: len(new)] == new:
            return (
                f"refused a copy of session {key} whose {len(new)} message(s) are a strict"
                f" prefix of the {len(old)} stored: capture never shortens a conversation"
            )
    return None


def rederive(store: Store, session_id: str) -> int:
    """Rebuild a session's derived rows (and its subagents') from the raw archive through
    today's reader, and regroup, in one transaction; returns the messages it now has."""
    with store.write() as c:
        added = rederive_in(c, session_id)
        refresh_in(c, full=True)  # regrouped in the same transaction: never seen half-done
    return added


def stored_keys(c: sqlite3.Connection, session_id: str) -> set[tuple[str, str]]:
    """The session's stored messages (and its subagents'), by their identity: what a
    re-derivation must give back for it to lose nothing."""
    return {
        (r[0], r[1])
        for r in c.execute(
            "SELECT session_id, key FROM messages WHERE session_id IN"
            " (SELECT id FROM sessions WHERE id = ? OR parent_session_id = ?)",
            (session_id, session_id),
        )
    }


def rederive_in(c: sqlite3.Connection, session_id: str) -> int:
    """:func:`rederive` inside a write transaction the caller holds, without the regrouping
    (the caller regroups once, after every session it re-derives)."""
    files = c.execute(
        # refused copies too: their earlier generations hold what the store shows
        "SELECT id, path, agent_id, tool FROM source_files WHERE session_id=?"
        " AND status NOT IN ('oneshot', 'deleted') ORDER BY agent_id IS NOT NULL, path",
        (session_id,),
    ).fetchall()
    if not files:
        raise StoreError("nothing archived for this session", "ENOENT", session_id)
    keys = [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE id=? OR parent_session_id=?",
            (session_id, session_id),
        )
    ]
    for table, col in (
        ("messages", "session_id"),
        ("entries", "session_id"),
        ("session_links", "session_id"),
        ("sessions", "id"),
    ):
        c.executemany(f"DELETE FROM {table} WHERE {col}=?", [(k,) for k in keys])
    added = 0
    for file_id, spath, agent, tool in files:
        if tool == "opencode":
            from lazy.capture.opencode import rederive_records

            added += rederive_records(c, file_id, spath)
            continue
        generations = c.execute(
            "SELECT DISTINCT generation FROM raw_chunks WHERE file_id=? ORDER BY generation",
            (file_id,),
        ).fetchall()
        for (generation,) in generations:
            reader = make_reader(tool, spath, file_identity(Path(spath))[0], agent)
            for lines in _archived_lines(c, file_id, generation):
                added += _apply(c, reader.read(lines), spath, tool, generation)[0]
    return added


def _archived_lines(
    c: sqlite3.Connection, file_id: int, generation: int
) -> Iterator[Iterable[Line]]:
    """One generation of a file's raw archive as runs of lines, a chunk at a time: a line
    past MAX_LINE, archived in pieces, is one line of its first piece's head (the rest of
    its pieces are never read here)."""
    rows = c.execute(
        "SELECT id, start, first_line, line_size FROM raw_chunks WHERE file_id=?"
        " AND generation=? ORDER BY start",
        (file_id, generation),
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


# ---- writing a batch ---------------------------------------------------------------------


def _usage_size(u: dict[str, Any] | None) -> int:
    if not u:
        return -1
    v = u.get("output_tokens")
    return v if isinstance(v, int) else 0


def _build(parts: list[MessagePart], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    first = parts[0]
    role = role_of(blocks, first.role)
    text = spoken(blocks)
    usage = max((p.usage for p in parts), key=_usage_size, default=None)
    model = next((p.model for p in parts if p.model), None)
    tool_name = next((b.get("name") for b in blocks if b["type"] == "tool_use"), None)
    return {
        "role": role,
        "kinds": orjson.dumps([b["type"] for b in blocks]).decode(),
        "text": text,
        "blocks": pack_blocks(blocks),
        "model": model,
        "usage": orjson.dumps(usage).decode() if usage else None,
        "tool_name": tool_name,
        "request_id": next((p.request_id for p in parts if p.request_id), None),
    }


def _chunks(items: list[str], n: int = 500) -> Iterable[list[str]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _apply(
    c: sqlite3.Connection,
    batch: ReadBatch,
    spath: str,
    tool: str,
    generation: int,
    prepared: dict[str, list[_Message]] | None = None,
    *,
    replace: bool = False,
) -> tuple[int, int, set[str]]:
    """Store a batch. ``replace``: a message seen again with other content is rewritten
    (OpenCode edits its records in place); else it can only grow by new lines."""
    added = updated = 0
    touched: set[str] = set()
    for q in batch.quarantine:
        c.execute(
            "INSERT OR IGNORE INTO quarantine(path, line_no, byte_offset, generation, reason, raw,"
            " raw_size, at) VALUES (?,?,?,?,?,?,?,?)",
            (
                q.origin or spath,
                q.line_no,
                q.offset,
                generation,
                q.reason,
                compress_raw(q.raw),
                q.raw_size,
                now_iso(),
            ),
        )
    for key, entries in batch.entries.items():
        c.executemany(
            "INSERT OR IGNORE INTO entries(uuid, session_id) VALUES (?,?)",
            sorted((e.uuid, key) for e in entries if not e.meta),  # in key order: fewer page hops
        )
        links = [(key, e.logical_parent_uuid) for e in entries if e.logical_parent_uuid]
        if links:
            c.executemany("INSERT OR IGNORE INTO session_links VALUES (?,?)", links)
    if batch.spawns:
        c.executemany("INSERT OR IGNORE INTO spawns VALUES (?,?)", sorted(batch.spawns))
    for key, retracted in batch.retract.items():
        for uuid in retracted:
            n = c.execute(
                "DELETE FROM messages WHERE session_id=? AND key=? AND meta=1", (key, uuid)
            ).rowcount
            if n:
                c.execute(
                    "UPDATE sessions SET message_count = message_count - ?, dirty = 2 WHERE id=?",
                    (n, key),
                )
                touched.add(key)
    for key, facts in batch.facts.items():
        old = c.execute(
            "SELECT head_uuid, continued_in, clear_start, copied_from, last_seq FROM sessions"
            " WHERE id=?",
            (key,),
        ).fetchone()
        # A brand-new main session starts out as a Builder of its own, numbered as it is
        # written; regrouping rewrites only what joining it elsewhere changes.
        own = key if old is None and key not in batch.sidechain_of else None
        if prepared is None:
            prepared = prepare(batch)
        msgs = prepared.get(key, [])
        a, u, last = _apply_messages(c, key, msgs, old[4] if old else 0, own, replace)
        added += a
        updated += u
        relink = _upsert_session(c, key, tool, facts, batch, a, last, old)
        if a or u or relink:
            touched.add(key)
            c.execute(
                "UPDATE sessions SET dirty = MAX(dirty, ?) WHERE id = ?", (2 if relink else 1, key)
            )
    return added, updated, touched


@dataclass(slots=True)
class _Message:
    """A message as it will be inserted: its lines' parts merged, its row built."""

    key: str
    parts: list[MessagePart]
    uuids: list[str]
    row: dict[str, Any]


def prepare(batch: ReadBatch) -> dict[str, list[_Message]]:
    """Pure: group each session's parts into messages and build their rows (zstd included),
    so a second thread can do it while the store's thread writes."""
    out: dict[str, list[_Message]] = {}
    for key, parts in batch.parts.items():
        groups: dict[str, list[MessagePart]] = {}
        for p in parts:
            groups.setdefault(p.key, []).append(p)
        msgs = []
        for mkey, ps in groups.items():
            seen: set[str] = set()
            blocks: list[dict[str, Any]] = []
            uuids: list[str] = []
            for p in ps:
                if p.uuid not in seen:
                    seen.add(p.uuid)
                    uuids.append(p.uuid)
                    blocks.extend(p.blocks)
            msgs.append(_Message(mkey, ps, uuids, _build(ps, blocks)))
        out[key] = msgs
    return out


def _apply_messages(
    c: sqlite3.Connection,
    key: str,
    msgs: list[_Message],
    last_seq: int,
    own: str | None,
    replace: bool = False,
) -> tuple[int, int, int]:
    """Insert new messages, merge grown ones: (added, updated, the last seq used)."""
    if not msgs:
        return 0, 0, last_seq
    existing: dict[str, tuple[int, list[dict[str, Any]], str]] = {}
    if own is None:  # a brand-new session has nothing to merge with
        for chunk in _chunks([m.key for m in msgs]):
            marks = ",".join("?" * len(chunk))
            for mid, mkey, blocks, text, uuids in c.execute(
                "SELECT id, key, blocks, text, uuids FROM messages"
                f" WHERE session_id=? AND key IN ({marks})",
                [key, *chunk],
            ):
                existing[mkey] = (mid, unpack_blocks(blocks, text), uuids)
    seq = last_seq
    added = updated = 0
    inserts = []
    for msg in msgs:
        if msg.key in existing:
            mid, old_blocks, old_uuids = existing[msg.key]
            if replace:
                if old_blocks != unpack_blocks(msg.row["blocks"], msg.row["text"]):
                    c.execute(
                        "UPDATE messages SET role=:role, kinds=:kinds, text=:text, blocks=:blocks,"
                        " model=:model, usage=:usage, tool_name=:tool_name WHERE id=:id",
                        {**msg.row, "id": mid},
                    )
                    updated += 1
                continue
            have = set(orjson.loads(old_uuids))
            grown = [p for p in msg.parts if p.uuid not in have]
            if not grown:
                continue
            blocks = list(old_blocks)
            for p in grown:
                blocks.extend(p.blocks)
            uuids = [*orjson.loads(old_uuids), *(p.uuid for p in grown)]
            m = _build(msg.parts, blocks)
            c.execute(
                "UPDATE messages SET role=:role, kinds=:kinds, text=:text,"
                " blocks=:blocks, model=COALESCE(model, :model), usage=COALESCE(:usage, usage),"
                " tool_name=COALESCE(tool_name, :tool_name), uuids=:uuids WHERE id=:id",
                {**m, "uuids": orjson.dumps(uuids).decode(), "id": mid},
            )
            updated += 1
            continue
        seq += 1
        m = msg.row
        first = msg.parts[0]
        inserts.append(
            (
                key,
                msg.key,
                seq,
                m["role"],
                m["kinds"],
                m["text"],
                m["blocks"],
                orjson.dumps(msg.uuids).decode(),
                first.meta,
                m["model"],
                m["request_id"],
                m["usage"],
                m["tool_name"],
                first.timestamp,
                own,
                seq if own else None,
                first.provider,
                first.agent_mode,
            )
        )
        added += 1
    c.executemany(
        "INSERT INTO messages(session_id, key, seq, role, kinds, text, blocks, uuids, meta,"
        " model, request_id, usage, tool_name, ts, builder_id, number, provider, agent_mode)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        inserts,
    )
    return added, updated, seq


def _upsert_session(
    c: sqlite3.Connection,
    key: str,
    tool: str,
    f: SessionFacts,
    batch: ReadBatch,
    added: int,
    last_seq: int,
    old: tuple[Any, ...] | None,
) -> bool:
    """Merge what this batch learnt; True when Builder membership may have changed."""
    side = batch.sidechain_of.get(key)
    project = project_of(f.cwd) if f.cwd else None
    c.execute(
        "INSERT INTO sessions(id, tool, kind, parent_session_id, agent_id, project, cwd,"
        " git_branch, version, started_at, updated_at, title, clear_start, first_user_seen,"
        " continued_in, head_uuid, head_parent, oneshot, message_count, copied_from, last_seq,"
        " builder_id, forked, head_msg, tail_uuid, git_commit, git_repo, provider, cursor)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(id) DO UPDATE SET"
        " project=COALESCE(sessions.project, excluded.project),"
        " cwd=COALESCE(sessions.cwd, excluded.cwd),"
        " git_branch=COALESCE(sessions.git_branch, excluded.git_branch),"
        " version=COALESCE(sessions.version, excluded.version),"
        " started_at=MIN(COALESCE(sessions.started_at, excluded.started_at),"
        "                COALESCE(excluded.started_at, sessions.started_at)),"
        " updated_at=MAX(COALESCE(sessions.updated_at, ''), COALESCE(excluded.updated_at, '')),"
        " title=COALESCE(excluded.title, sessions.title),"
        " clear_start=MAX(sessions.clear_start, excluded.clear_start),"
        " first_user_seen=MAX(sessions.first_user_seen, excluded.first_user_seen),"
        " continued_in=COALESCE(excluded.continued_in, sessions.continued_in),"
        " head_uuid=COALESCE(sessions.head_uuid, excluded.head_uuid),"
        " head_parent=COALESCE(sessions.head_parent, excluded.head_parent),"
        " copied_from=COALESCE(sessions.copied_from, excluded.copied_from),"
        " forked=MAX(sessions.forked, excluded.forked),"
        " head_msg=COALESCE(sessions.head_msg, excluded.head_msg),"
        " tail_uuid=COALESCE(excluded.tail_uuid, sessions.tail_uuid),"
        " message_count=sessions.message_count + excluded.message_count,"
        " last_seq=MAX(sessions.last_seq, excluded.last_seq),"
        " git_commit=COALESCE(sessions.git_commit, excluded.git_commit),"
        " git_repo=COALESCE(sessions.git_repo, excluded.git_repo),"
        " provider=COALESCE(sessions.provider, excluded.provider),"
        " cursor=COALESCE(excluded.cursor, sessions.cursor)",
        (
            key,
            tool,
            "sidechain" if side else "main",
            side[0] if side else None,
            side[1] if side else None,
            project,
            f.cwd,
            f.git_branch,
            f.version,
            f.first_timestamp,
            f.last_timestamp,
            f.title,
            f.clear_start,
            f.first_user_seen,
            f.continued_in,
            f.head_uuid,
            f.head_parent,
            f.oneshot,
            added,
            f.copied_from,
            last_seq,
            None if side else key,
            f.forked,
            f.head_msg,
            f.tail_uuid,
            f.git_commit,
            f.git_repo,
            f.provider,
            f.cursor,
        ),
    )
    if old is None:
        return True
    if any(e.logical_parent_uuid for e in batch.entries.get(key, [])):
        return True
    return (
        (old[0] is None and f.head_uuid is not None)
        or old[1] != f.continued_in
        or (not old[2] and f.clear_start)
        or old[3] != f.copied_from
    )
