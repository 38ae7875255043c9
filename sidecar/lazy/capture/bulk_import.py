"""Bulk and per-session import: discovery -> preview -> capture -> Builders."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from lazy.agents import SourceRef, make_reader
from lazy.agents.discovery import Candidate, Discovery
from lazy.agents.files import open_source
from lazy.agents.jsonl import LongLine, read_complete, split_lines
from lazy.builders.regroup import refresh
from lazy.capture import source_file
from lazy.capture.opencode import capture_session
from lazy.capture.source_file import CaptureResult, Fresh, capture_file
from lazy.model import ImportReport, QuarantineInfo, SkipInfo
from lazy.store import Store, source_files
from lazy.store.archive import compress_raw
from lazy.store.messages import prepare
from lazy.store.sessions import has_conversation


@dataclass
class Plan:
    discovery: Discovery
    imported: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    behind: list[str] = field(default_factory=list)  # imported, but the file has grown since
    # deleted from the store by `lazy doctor`: live capture passes over them, an import
    # that is asked for them (the bulk import, or naming one) reads them afresh
    deleted: list[str] = field(default_factory=list)

    @property
    def found(self) -> int:
        return len(self.discovery.sessions)


def plan(store: Store, discovery: Discovery) -> Plan:
    """Which discovered sessions the store already holds."""
    p = Plan(discovery)
    conn = store.conn
    for sid, cand in sorted(discovery.sessions.items(), key=lambda kv: kv[1].mtime_ns):
        seen = source_files.row(conn, str(cand.path))
        if has_conversation(conn, sid):
            p.imported.append(sid)
            if seen is None or (
                seen["status"] == "ok" and _grown(cand, seen["read_offset"], seen["stamp"])
            ):
                # a larger copy found elsewhere, an interrupted capture, or turns written since
                p.behind.append(sid)
            continue
        if source_files.deleted(conn, sid):
            p.deleted.append(sid)
            continue
        if seen is not None and seen["status"] != "ok":
            seen = None
        if seen is not None and seen["size"] == cand.size:
            p.empty.append(sid)  # read before: nothing in it is conversation
        else:
            p.missing.append(sid)
    return p


Progress = Callable[[Candidate], None]


def run_import(
    store: Store,
    discovery: Discovery,
    session_ids: list[str],
    *,
    on_file: Progress | None = None,
    report: ImportReport | None = None,
) -> ImportReport:
    """Capture the named sessions (and their subagent files), then regroup Builders."""
    report = report or ImportReport()
    report.ignored_oneshots = len(discovery.oneshots)
    report.quarantined += [  # sources that could not even be listed
        QuarantineInfo(file=q.origin or "?", line=q.line_no, reason=q.reason)
        for q in discovery.problems
    ]
    order = [c for sid in session_ids for c in discovery.files_of(sid)]
    with store.bulk() as bulk, _Ahead(store, order) as ahead:
        for sid in session_ids:
            _import_session(store, discovery, sid, report, on_file, ahead)
            bulk.tick()
    refresh(store)
    return report


def _grown(cand: Candidate, read_offset: int, stamp: str | None) -> bool:
    """The source holds more than the store read of it: a file grew past where capture
    stopped; a record store (OpenCode) has a new stamp."""
    if cand.records is not None:
        return bool(stamp != cand.records.stamp)
    return read_offset < cand.size


def capture(store: Store, cand: Candidate, fresh: Fresh | None = None) -> CaptureResult:
    """Capture one discovered candidate, whichever agent wrote it; Builders not regrouped."""
    if cand.records is not None:
        assert cand.data_dir is not None
        return capture_session(
            store, cand.data_dir, cand.records, regroup=False, source=cand.source
        )
    return capture_file(store, cand.path, regroup=False, fresh=fresh, source=cand.source)


def _import_session(
    store: Store,
    discovery: Discovery,
    sid: str,
    report: ImportReport,
    on_file: Progress | None,
    ahead: _Ahead,
) -> None:
    existed = has_conversation(store.conn, sid)
    main = None
    for cand in discovery.files_of(sid):
        res = capture(store, cand, ahead.take(cand))
        if not cand.is_sidechain:
            main = res
        report.messages_added += res.messages_added
        report.bytes_read += res.bytes_read
        report.quarantined += [
            QuarantineInfo(file=q.origin or res.path, line=q.line_no, reason=q.reason)
            for q in res.quarantined
        ]
        if cand.is_sidechain and res.status == "error":  # the session's other files go on
            report.skipped.append(_unread(sid, res))
        if on_file:
            on_file(cand)
    if main is None:
        return
    if main.status == "refused":
        report.refused.append(SkipInfo(session_id=sid, path=main.path, reason=main.reason or ""))
    elif main.status in ("missing", "error"):
        report.skipped.append(_unread(sid, main))
    elif main.status == "oneshot":
        report.ignored_oneshots += 1
    elif not has_conversation(store.conn, sid):
        report.skipped.append(
            SkipInfo(session_id=sid, path=main.path, reason="empty: no conversation in it")
        )
    elif existed:
        if main.messages_added or main.messages_updated:
            report.updated.append(sid)
    else:
        report.imported.append(sid)


def _unread(sid: str, res: CaptureResult) -> SkipInfo:
    return SkipInfo(session_id=sid, path=res.path, reason=f"{res.reason} [{res.code}]")


class _Ahead:
    """Parses the next new file on a second thread while the current one is written: the
    parse holds the GIL, SQLite and zstd release it, so the two overlap on two cores."""

    def __init__(self, store: Store, order: list[Candidate]):
        self.store = store
        self.order = order
        self.next = 0
        self.pending: tuple[Candidate, Future[Fresh | None]] | None = None
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="lazy-parse")

    def __enter__(self) -> _Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def take(self, cand: Candidate) -> Fresh | None:
        fresh = None
        if self.pending is not None and self.pending[0] is cand:
            fresh = self.pending[1].result()
        self.pending = None
        while self.next < len(self.order) and self.order[self.next] is not cand:
            self.next += 1
        self.next += 1
        if self.next < len(self.order):
            upcoming = self.order[self.next]
            if (
                upcoming.records is None
                and upcoming.size > 0
                and not source_files.known(self.store.conn, str(upcoming.path))
            ):
                self.pending = (
                    upcoming,
                    self.pool.submit(parse_ahead, upcoming.source),
                )
        return fresh


def parse_ahead(source: SourceRef) -> Fresh | None:
    """Pure: touches the file, never the store. None when the file cannot be read."""
    path = source.location
    try:
        f, size, mtime = open_source(path)
        with f:
            data = read_complete(f, 0, source_file.BATCH)
        if isinstance(data, LongLine):
            return None  # capture archives it piece by piece, in its own transaction
        reader = make_reader(source.agent, str(path), source.session_id, source.subagent_id)
        batch = reader.read(split_lines(data, 0, 1))
        return Fresh(size, mtime, data, compress_raw(data), batch, reader, prepare(batch))
    except Exception:  # unreadable, damaged, or a failure no rule foresaw: capture says why
        return None
