"""The search index: Tantivy, derived from the store, caught up from its queue.

One writer at a time across processes (Tantivy's own lock file): a process that cannot take
it leaves the work to the holder and to the next catch-up. The store's ``index_queue``,
filled by triggers in the same transaction as every change to a message, says what is left
to do; rows are dropped only after the index commit that covers them, so nothing is lost, and
a document is replaced by its message id, so nothing is indexed twice. The index is never
the only copy of anything: missing, damaged or of another schema, it is rebuilt from the
store, beside the old one, and swapped in.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import tantivy

from lazy.blocks import render_block
from lazy.index.schema import SCHEMA_VERSION, build_schema, register
from lazy.model import IndexStatus
from lazy.store import Store, parse_iso
from lazy.store.archive import unpack_blocks

WRITER_HEAP = 128 * 1024 * 1024
WRITER_THREADS = 2  # tokenizing beside the Python thread that builds the documents
BATCH = 5000
STAMP = "lazy-index.json"

Progress = Callable[[int, int], None]  # (documents done, documents in all)


class IndexBusy(Exception):
    """Another process holds the index's writer lock."""


def _dir_size(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(dirpath) / name).stat().st_size
    return total


def _read_stamp(path: Path) -> dict[str, Any] | None:
    try:
        value = orjson.loads((path / STAMP).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _stamp_ok(path: Path) -> str | None:
    """Why the index at ``path`` cannot be used as it is (None: it can)."""
    if not path.is_dir() or not (path / STAMP).is_file():
        return "there is no index yet"
    stamp = _read_stamp(path)
    if stamp is None:
        return "the index's stamp is unreadable"
    if stamp.get("schema") != SCHEMA_VERSION:
        return f"the index is schema v{stamp.get('schema')}, this lazy writes v{SCHEMA_VERSION}"
    return None


def _filled(path: Path) -> bool:
    """The index was filled from the whole store once (a fresh one is not, until then)."""
    stamp = _read_stamp(path)
    return bool(stamp and stamp.get("filled"))


def _stamp(path: Path, *, filled: bool) -> None:
    tmp = path / (STAMP + ".tmp")
    tmp.write_bytes(orjson.dumps({"schema": SCHEMA_VERSION, "filled": filled}))
    tmp.replace(path / STAMP)


def _open(path: Path) -> tantivy.Index:
    index = tantivy.Index(build_schema(), path=str(path), reuse=True)
    register(index)
    return index


def _create(path: Path) -> tantivy.Index:
    path.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(build_schema(), path=str(path), reuse=False)
    register(index)
    _stamp(path, filled=False)
    return index


class SearchIndex:
    def __init__(self, home: Path, index: tantivy.Index, rebuilt: str | None):
        self.home = home
        self.path = home / "index"
        self.index = index
        self.rebuilt = rebuilt  # why open() had to start it afresh

    @classmethod
    def open(cls, home: Path) -> SearchIndex:
        """The index under ``home``; one that is missing, damaged or of another schema is
        started afresh (and filled from the store by the next catch-up)."""
        path = home / "index"
        _sweep(home)
        why = _stamp_ok(path)
        if why is None:
            try:
                index = _open(path)
                index.searcher()
                # started afresh by a process that did not get to fill it
                unfilled = None if _filled(path) else "the index was never filled"
                return cls(home, index, unfilled)
            except Exception as e:  # Tantivy says "corrupt" in many ways
                why = f"the index could not be opened ({e})"
        fresh = home / f"index.new-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        _create(fresh)
        _swap(home, fresh)
        return cls(home, _open(path), why)

    # -- writing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _writer(self, index: tantivy.Index | None = None) -> Iterator[Any]:
        try:
            writer = (index or self.index).writer(WRITER_HEAP, WRITER_THREADS)
        except ValueError as e:
            raise IndexBusy(str(e)) from e
        try:
            yield writer
        finally:
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()  # also drops the writer and its lock

    def catch_up(self, store: Store, progress: Progress | None = None) -> int:
        """Index what the store changed since the last catch-up; 0 when another process
        holds the writer (it, or the next catch-up, will do it), or when the index broke
        under it (the next open rebuilds it)."""
        try:
            with self._writer() as writer:
                if not _filled(self.path):
                    # fresh: everything goes in the queue (under the lock), and from then on
                    # the store's queue says what the index still lacks
                    self._requeue(store)
                    _stamp(self.path, filled=True)
                done = self._drain(store, writer, progress)
        except IndexBusy:
            return 0
        except (ValueError, OSError):  # the index vanished or broke mid-write
            return 0
        self.rebuilt = None
        self.index.reload()
        return done

    def _requeue(self, store: Store) -> None:
        """A fresh index holds nothing: every message goes back in the queue."""
        with store.write() as c:
            c.execute("DELETE FROM index_queue")
            c.execute("INSERT INTO index_queue(message_id) SELECT id FROM messages ORDER BY id")

    def _drain(self, store: Store, writer: Any, progress: Progress | None) -> int:
        conn = store.conn
        total = conn.execute("SELECT COUNT(*) FROM index_queue").fetchone()[0]
        done = 0
        while True:
            rows = conn.execute(
                "SELECT seq, message_id FROM index_queue ORDER BY seq LIMIT ?", (BATCH,)
            ).fetchall()
            if not rows:
                return done
            upto = rows[-1][0]
            ids = sorted({r[1] for r in rows})
            for doc_id, doc in _documents(conn, ids):
                writer.delete_documents_by_term("doc_id", doc_id)
                if doc is not None:
                    writer.add_document(doc)
            writer.commit()
            with store.write() as c:  # only once the index has it
                c.execute("DELETE FROM index_queue WHERE seq <= ?", (upto,))
            done += len(rows)
            if progress:
                progress(done, total)

    def rebuild(self, store: Store, progress: Progress | None = None) -> int:
        """Build a new index beside this one from the whole store and swap it in; searches
        keep using the old one until then. Returns the documents indexed."""
        fresh = self.home / f"index.new-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        index = _create(fresh)
        conn = store.conn
        upto = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM index_queue").fetchone()[0]
        ids = [r[0] for r in conn.execute("SELECT id FROM messages ORDER BY id")]
        done = 0
        with self._writer(index) as writer:
            for i in range(0, len(ids), BATCH):
                for _, doc in _documents(conn, ids[i : i + BATCH]):
                    if doc is not None:
                        writer.add_document(doc)
                done = min(i + BATCH, len(ids))
                if progress:
                    progress(done, len(ids))
            writer.commit()
        _stamp(fresh, filled=True)
        _swap(self.home, fresh)
        self.index = _open(self.path)
        with store.write() as c:  # what changed during the build stays queued
            c.execute("DELETE FROM index_queue WHERE seq <= ?", (upto,))
        self.rebuilt = None
        return len(ids)

    # -- reading ---------------------------------------------------------------------------

    def status(self, store: Store) -> IndexStatus:
        self.index.reload()
        return IndexStatus(
            path=str(self.path),
            documents=self.index.searcher().num_docs,
            lag=store.conn.execute(
                # an index started afresh lacks everything until its first catch-up
                "SELECT COUNT(*) FROM messages"
                if self.rebuilt
                else "SELECT COUNT(DISTINCT message_id) FROM index_queue"
            ).fetchone()[0],
            size_bytes=_dir_size(self.path),
            schema_version=SCHEMA_VERSION,
            rebuilt=self.rebuilt,
        )


def _sweep(home: Path) -> None:
    """Remove what a build or swap killed midway left behind (its process is gone)."""
    for d in [*home.glob("index.new-*"), *home.glob("index.old-*")]:
        pid = d.name.rsplit("-", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(d, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _swap(home: Path, fresh: Path) -> None:
    """Put ``fresh`` where the index lives; a reader with the old files open keeps them."""
    live = home / "index"
    old = home / f"index.old-{os.getpid()}"
    if live.exists():
        live.rename(old)
    fresh.rename(live)
    shutil.rmtree(old, ignore_errors=True)


_DOC_SQL = (
    "SELECT m.id, m.builder_id, m.number, m.session_id, m.role, m.ts, m.model, m.text,"
    " m.blocks, m.meta, s.tool, s.project, s.parent_session_id"
    " FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id IN ({})"
)


def split_text(text: str, packed: bytes | None, meta: bool) -> tuple[str, str]:
    """(the conversation: words and reasoning; the machinery: tool calls, tool output and
    harness text) of a stored message, as the index holds them."""
    said: list[str] = []
    tools: list[str] = []
    for b in unpack_blocks(packed, text):
        rendered = render_block(b)
        if rendered:
            (said if not meta and b["type"] in ("text", "thinking") else tools).append(rendered)
    return "\n\n".join(said), "\n\n".join(tools)


def _documents(
    conn: sqlite3.Connection, ids: list[int]
) -> Iterator[tuple[int, tantivy.Document | None]]:
    """(message id, its document; None when the message is gone or not yet placed)."""
    found: set[int] = set()
    for i in range(0, len(ids), 900):
        chunk = ids[i : i + 900]
        for row in conn.execute(_DOC_SQL.format(",".join("?" * len(chunk))), chunk):
            mid, bid, number, sid, role, ts, model, text, packed, meta, tool, project, _ = row
            found.add(mid)
            yield (
                mid,
                _document(
                    mid, bid, number, sid, role, ts, model, text, packed, meta, tool, project
                ),
            )
    for mid in ids:
        if mid not in found:
            yield mid, None


def _document(
    mid: int,
    bid: str | None,
    number: int | None,
    sid: str,
    role: str,
    ts: str | None,
    model: str | None,
    text: str,
    packed: bytes | None,
    meta: int,
    tool: str,
    project: str | None,
) -> tantivy.Document | None:
    if bid is None:
        return None  # not placed in a Builder yet: the regroup that places it requeues it
    conversation, machinery = split_text(text, packed, bool(meta))
    doc = tantivy.Document()
    doc.add_integer("doc_id", mid)
    doc.add_integer("number", number or 0)
    doc.add_text("builder", bid)
    doc.add_text("session", sid)
    doc.add_text("tool", tool)
    if project:
        doc.add_text("project", project)
        doc.add_text("project_name", project.rstrip("/").rsplit("/", 1)[-1])
    doc.add_text("role", role)
    doc.add_text("kind", "conversation")
    if model:
        doc.add_text("model", model)
    when = parse_iso(ts)
    if when is not None:
        doc.add_date("ts", when)
    doc.add_text("text", conversation)
    doc.add_text("text_parts", conversation)
    doc.add_text("tools", machinery)
    doc.add_text("tools_parts", machinery)
    return doc
