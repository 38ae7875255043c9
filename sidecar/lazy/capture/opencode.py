"""Capturing an OpenCode session: its records, not lines.

OpenCode edits records in place (a part's text grows while it streams, a tool's state moves
from pending to completed), so a session is re-read whole when its stamp changes. Every
version of every record is archived verbatim; messages are rewritten to the newest version,
and a message the source no longer has is kept.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from lazy.agents import SourceRef
from lazy.agents.opencode.reader import read
from lazy.agents.opencode.records import Record, SessionRef
from lazy.agents.opencode.sources import source_of
from lazy.agents.opencode.storage import load_session
from lazy.builders.regroup import refresh
from lazy.capture.source_file import CaptureResult, files_fault, unexpected
from lazy.projects import project_of
from lazy.records import ReadBatch
from lazy.store import Store, StoreError, now_iso, source_files
from lazy.store.archive import compress_raw, decompress
from lazy.store.messages import apply_batch


def capture_session(
    store: Store,
    data_dir: Path,
    ref: SessionRef,
    *,
    regroup: bool = True,
    source: SourceRef | None = None,
) -> CaptureResult:
    """Capture one listed session (``source``: the source it is, as discovery found it)."""
    source = source or source_of(ref)
    key = source.key
    result = CaptureResult(key, source.session_id, "unchanged")
    try:
        return _capture(store, data_dir, ref, source, result, regroup)
    except Exception as e:
        if isinstance(e, StoreError) and not files_fault(e):
            raise  # the store's failure, not this session's: the caller says it
        return unexpected(store, e, result)


def _capture(
    store: Store,
    data_dir: Path,
    ref: SessionRef,
    source: SourceRef,
    result: CaptureResult,
    regroup: bool,
) -> CaptureResult:
    key = source.key
    seen = source_files.row(store.conn, key)
    if seen is not None and seen["stamp"] == ref.stamp:
        return result
    records, problems = load_session(data_dir, ref)
    batch = _said(read(records))
    batch.quarantine += problems
    result.quarantined = list(batch.quarantine)
    with store.write() as c:
        fid = source_files.upsert_records(c, key, source, len(records), ref.mtime_ns, ref.stamp)
        archived = _archive(c, fid, records)
        added, updated, touched = apply_batch(
            c, batch, key, source.agent, 0, replace=True, project_of=project_of
        )
    result.messages_added, result.messages_updated = added, updated
    result.bytes_read = archived
    result.sessions = touched
    result.status = "captured" if touched else ("empty" if seen is None else "unchanged")
    if problems:
        q = problems[0]
        store.log(
            "warning",
            f"{len(problems)} OpenCode record(s) could not be read; {q.origin}: {q.reason}",
            path=key,
            session_id=source.session_id,
            code="BAD_RECORD",
        )
    if regroup and touched:
        refresh(store)
    return result


def _archive(c: sqlite3.Connection, fid: int, records: list[Record]) -> int:
    """Keep each record version not yet kept; returns the bytes newly archived."""
    have = source_files.record_hashes(c, fid)
    now = now_iso()
    rows = []
    size = 0
    for r in records:
        digest = hashlib.blake2b(r.data, digest_size=16).digest()
        if (r.id, digest) not in have:
            have.add((r.id, digest))
            rows.append((fid, r.id, r.kind, digest, r.origin, compress_raw(r.data), now))
            size += len(r.data)
    source_files.archive_records(c, rows)
    return size


def rederive_records(c: sqlite3.Connection, fid: int, key: str, agent_name: str) -> int:
    """Re-read a session from the newest archived version of each of its records."""
    batch = records_batch(c, fid)
    return apply_batch(c, batch, key, agent_name, 0, replace=True, project_of=project_of)[0]


def records_batch(c: sqlite3.Connection, fid: int) -> ReadBatch:
    """What the reader makes of the newest archived version of each of a source's records."""
    records = [
        Record(kind, record_id, "", decompress(data), origin)
        for kind, record_id, origin, data in source_files.newest_records(c, fid)
    ]
    sid = source_files.session_of(c, fid)
    for r in records:
        r.session_id = sid
    order = {"session": 0, "message": 1, "part": 2}
    records.sort(key=lambda r: (order.get(r.kind, 3), r.id))
    return _said(read(records))


def _said(batch: ReadBatch) -> ReadBatch:
    """Messages with nothing in them yet (an answer whose parts are still to come) wait."""
    for key, parts in batch.parts.items():
        batch.parts[key] = [p for p in parts if p.blocks]
    return batch
