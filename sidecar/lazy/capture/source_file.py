"""Capture: read what a source file gained since last time and store it, one transaction
per batch. Safe to run from several processes at once on the same file."""

from __future__ import annotations

import errno
import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from lazy.agents import LineReader, SourceRef, make_reader, source_of
from lazy.agents.files import open_source
from lazy.agents.jsonl import LongLine, read_complete, split_lines
from lazy.builders.regroup import refresh
from lazy.capture.refusal import strict_prefix
from lazy.projects import project_of
from lazy.records import Quarantined, ReadBatch, SessionFacts
from lazy.store import Store, StoreError, sessions, source_files
from lazy.store.archive import compress_raw
from lazy.store.messages import Message, apply_batch
from lazy.store.sessions import load_facts
from lazy.store.source_files import Conflict

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
    prepared: dict[str, list[Message]]


@dataclass
class _Source:
    """The file being captured, open, as it was when opened."""

    path: Path
    agent: str
    sid: str  # the main session it belongs to (an older subagent file learns it as read)
    subagent_id: str | None
    f: IO[bytes]
    size: int
    mtime: int

    @property
    def spath(self) -> str:
        return str(self.path)


@dataclass
class _Cursor:
    """Where the capture reads next, and what the store must still say for it to write."""

    generation: int = 0
    start: int = 0
    line_no: int = 1
    expected: tuple[int, int] | None = None  # the file's (read offset, generation), if known


@dataclass
class _Batch:
    data: bytes  # empty for a long line
    raw: bytes  # ``data`` compressed, when parsed ahead
    batch: ReadBatch
    prepared: dict[str, list[Message]] | None
    long: LongLine | None


def _hash(f: IO[bytes], start: int, end: int) -> bytes:
    f.seek(start)
    return hashlib.blake2b(f.read(end - start), digest_size=16).digest()


def _windows(f: IO[bytes], offset: int) -> tuple[bytes, bytes]:
    return _hash(f, 0, min(WINDOW, offset)), _hash(f, max(0, offset - WINDOW), offset)


def capture_file(
    store: Store,
    path: Path,
    *,
    regroup: bool = True,
    fresh: Fresh | None = None,
    agent: str | None = None,
    source: SourceRef | None = None,
) -> CaptureResult:
    """Capture what ``path`` holds beyond what the store has; idempotent.

    ``fresh`` is the file's first batch parsed ahead by :func:`parse_ahead`; it is used only
    when the store turns out to know nothing of the file or its session. ``source`` is the
    source the file is, as discovery found it; else ``agent``'s (the agent that wrote it,
    default: told by its name) reading of its name.
    """
    source = source or source_of(path, agent)
    sid = source.session_id
    result = CaptureResult(str(path), sid, "unchanged")
    for _ in range(20):
        try:
            # a retry carries on from what the lost race's committed batches stored
            _capture(store, path, source, fresh, result)
            break
        except Conflict:
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
    store: Store, path: Path, source: SourceRef, fresh: Fresh | None, result: CaptureResult
) -> CaptureResult:
    sid, subagent_id = source.session_id, source.subagent_id
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
            src = _Source(path, source.agent, sid, subagent_id, f, size, mtime)
            return _capture_open(store, src, fresh, result)
        except OSError as e:  # the file went away or broke mid-read
            return _fail(store, path, sid, "error", e, result)


def _capture_open(
    store: Store, src: _Source, fresh: Fresh | None, result: CaptureResult
) -> CaptureResult:
    conn = store.conn
    row = source_files.row(conn, src.spath)
    if _passed_over(conn, row, src, result):
        return result
    at = _resume_at(row, src)
    known = sessions.holds(conn, src.sid, src.subagent_id)
    if row is not None or known or (fresh is not None and fresh.size > src.size):
        fresh = None  # what was parsed ahead did not know what the store knows
    if at.start == 0 and known and _refused(store, src, at, result):
        return result
    reader = fresh.reader if fresh else _reader(src, load_facts(conn))
    wrote_any = False
    while (got := _next_batch(src, at, reader, fresh)) is not None:
        fresh = None
        if not _write_batch(store, src, at, reader, got, result):
            return result  # a lazy one-shot, forgotten
        wrote_any = True
    unchanged_row = row is not None and (row["size"], row["mtime_ns"]) == (src.size, src.mtime)
    if not wrote_any and not unchanged_row:
        # remember the file (its size and mtime) even with nothing to store; a torn last
        # line that stays torn costs no write on later passes
        with store.write() as c:
            source_files.check(c, src.spath, at.expected)
            _upsert_file(c, src, "ok")
    if result.sessions:
        result.status = "captured"
    elif not wrote_any and at.start == 0:
        result.status = "empty"
    return result


def _reader(src: _Source, load: Callable[[str], SessionFacts | None] | None = None) -> LineReader:
    return make_reader(src.agent, src.spath, src.sid, src.subagent_id, load)


def _upsert_file(c: sqlite3.Connection, src: _Source, status: str) -> int:
    return source_files.upsert(
        c, src.spath, src.agent, src.sid, src.subagent_id, src.size, src.mtime, status=status
    )


def _passed_over(
    conn: sqlite3.Connection, row: sqlite3.Row | None, src: _Source, result: CaptureResult
) -> bool:
    """Nothing to read: a one-shot (or a subagent of one), a refused copy unchanged since,
    or a file read to its end and not touched since."""
    if row is not None and row["status"] == "oneshot":
        result.status = "oneshot"
        return True
    if src.subagent_id is not None and source_files.in_oneshot(conn, src.sid):
        result.status = "oneshot"  # a subagent of a lazy one-shot is part of it
        return True
    if row is not None and row["size"] == src.size and row["mtime_ns"] == src.mtime:
        if row["status"] == "refused":
            result.status = "refused"
            return True
        if row["read_offset"] >= src.size:
            return True  # nothing new: not even a stat-changing touch
        # else a capture was interrupted mid-file, or the last line is still torn
    return False


def _resume_at(row: sqlite3.Row | None, src: _Source) -> _Cursor:
    """Where the store left the file: read on from there if what it read is still there."""
    at = _Cursor()
    if row is None:
        return at
    at.expected = (row["read_offset"], row["generation"])
    at.generation = row["generation"]
    offset = row["read_offset"]
    intact = src.size >= offset and _windows(src.f, offset) == (row["head_hash"], row["tail_hash"])
    if intact and row["status"] not in ("refused", "deleted"):
        at.start, at.line_no = offset, row["lines_read"] + 1
    else:
        # rewritten (or shorter): read it whole again, merge by id; deleted by `lazy
        # doctor`: read afresh when asked for again (an import naming it, or the file grew)
        at.generation += 1
    return at


def _refused(store: Store, src: _Source, at: _Cursor, result: CaptureResult) -> bool:
    refusal = strict_prefix(store.conn, src.path, src.agent, src.sid, src.subagent_id, src.f, BATCH)
    if refusal is None:
        return False
    with store.write() as c:
        source_files.check(c, src.spath, at.expected)
        _upsert_file(c, src, "refused")
    store.log("refused", refusal, path=src.spath, session_id=src.sid, code="STRICT_PREFIX")
    result.status, result.reason = "refused", refusal
    return True


def _next_batch(
    src: _Source, at: _Cursor, reader: LineReader, fresh: Fresh | None
) -> _Batch | None:
    """The next run of complete lines (or one long line) read; None at the end."""
    if fresh is not None:
        src.size, src.mtime = fresh.size, fresh.mtime_ns
        if not fresh.data:
            return None
        return _Batch(fresh.data, fresh.raw, fresh.batch, fresh.prepared, None)
    got = read_complete(src.f, at.start, BATCH)
    if isinstance(got, LongLine):
        return _Batch(b"", b"", reader.read([got.line(at.line_no)]), None, got)
    if not got:
        return None
    return _Batch(got, b"", reader.read(split_lines(got, at.start, at.line_no)), None, None)


def _write_batch(
    store: Store, src: _Source, at: _Cursor, reader: LineReader, b: _Batch, result: CaptureResult
) -> bool:
    """Store one batch and move the file's cursor past it, in one transaction; False when
    the file turned out to be a lazy one-shot (then forgotten)."""
    end = b.long.end if b.long is not None else at.start + len(b.data)
    with store.write() as c:
        source_files.check(c, src.spath, at.expected)
        main_facts = b.batch.facts.get(src.sid) or reader.facts.get(src.sid)
        if src.subagent_id is None and main_facts is not None and main_facts.oneshot:
            source_files.forget_oneshot(c, src.spath, src.sid, src.size, src.mtime)
            result.status = "oneshot"
            return False
        if src.subagent_id is not None and src.sid.startswith("agent-") and b.batch.sidechain_of:
            src.sid = next(iter(b.batch.sidechain_of.values()))[0]  # older layout: name the parent
        fid = _upsert_file(c, src, "ok")
        if b.long is None:
            packed = b.raw or compress_raw(b.data)
            source_files.archive(c, fid, at.generation, (at.start, end), at.line_no, packed)
        else:
            source_files.archive_long(c, src.f, fid, at.generation, at.line_no, b.long)
        added, updated, touched = apply_batch(
            c, b.batch, src.spath, src.agent, at.generation, b.prepared, project_of=project_of
        )
        if src.subagent_id is not None and "subagents" not in src.path.parts:
            # 2.0.x layout: listed only if a tool call of the parent spawned it
            sessions.mark_flat(c, src.sid, src.subagent_id)
        lines_read = at.line_no + b.batch.lines - 1
        hashes = _windows(src.f, end)
        source_files.advance(
            c, fid, end=end, lines_read=lines_read, hashes=hashes, generation=at.generation
        )
    at.expected = (end, at.generation)
    result.messages_added += added
    result.messages_updated += updated
    result.bytes_read += end - at.start
    result.quarantined.extend(b.batch.quarantine)
    result.sessions |= touched
    at.start, at.line_no = end, at.line_no + b.batch.lines
    return True
