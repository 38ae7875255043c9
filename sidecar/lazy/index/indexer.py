"""The search index: Tantivy, derived from the store, caught up from its queue.

One writer at a time across processes (Tantivy's own lock file): a process that cannot take
it leaves the work to the holder and to the next catch-up. The store's ``index_queue``,
filled by triggers in the same transaction as every change to a message or memory, says what
is left to do; rows are dropped only after the index commit that covers them, so nothing is
lost, and the documents of a range of ids are replaced together from the store, so nothing
is indexed twice. A fresh index is filled from the whole store in one commit. The index is never
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
from typing import TYPE_CHECKING, Any

import orjson
import tantivy

from lazy.config import redaction_enabled
from lazy.index import checksums
from lazy.index.documents import REDACTED, TASK_BASE, prepare
from lazy.index.schema import SCHEMA_VERSION, TAGS, build_schema, register
from lazy.os.private import open_private, private_dir, tighten
from lazy.os.procs import pid_alive
from lazy.store import Store, index_feed
from lazy.view import redaction

if TYPE_CHECKING:
    from lazy.model import IndexStatus

WRITER_HEAP = 128 * 1024 * 1024
WRITER_THREADS = 2  # tokenizing beside the Python thread that builds the documents
BATCH = 5000  # queued changes per commit
CHUNK = 20_000  # documents per progress report in a fill
GAP = 32  # ids between two queued ones re-indexed rather than looked up apart
STAMP = "lazy-index.json"

Progress = Callable[[int, int], None]  # (documents done, documents in all)


class IndexBusy(Exception):
    """Another process holds the index's writer lock."""


class IndexUnreadable(Exception):
    """A read of the index failed midway (a damaged segment): its answers cannot be trusted,
    and it is rebuilt from the store."""

    def __init__(self, path: Path, e: BaseException):
        super().__init__(
            f"the search index {path} could not be read ({type(e).__name__}: {e});"
            " run `lazy index rebuild` (it is rebuilt from the store, nothing is lost)"
        )
        self.path = path


def tantivy_failed(e: BaseException) -> bool:
    """``e`` is Tantivy failing, not the process being stopped: a damaged file makes it
    raise ValueError or OSError, or panic (pyo3's PanicException is a BaseException)."""
    return not isinstance(e, KeyboardInterrupt | SystemExit | GeneratorExit | MemoryError)


def _damage(path: Path) -> str | None:
    """Why the index at ``path`` cannot be used: it does not open, or a segment file is not
    as Tantivy wrote it (which Tantivy itself does not notice: it answers from the damaged
    bytes)."""
    # checked first: a damaged segment can make Tantivy panic, and print its stack on stderr
    bad = checksums.damaged(path)
    if bad is not None:
        return f"the index is damaged: {bad}"
    try:
        _open(path).searcher()
    except BaseException as e:
        if not tantivy_failed(e):
            raise
        return f"the index could not be opened ({e})"
    return None


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


def ready(home: Path) -> bool:
    """The index under ``home`` is of this schema and filled: catching it up costs only
    what is queued (a hook indexes then, and leaves a fill or a rebuild to others)."""
    path = home / "index"
    return _stamp_ok(path) is None and _filled(path)


def redaction_state(redacting: bool) -> int | str:
    """What an index's stamp says of its redaction: the rules' version, or "off"."""
    return redaction.VERSION if redacting else "off"


def built_with(home: Path) -> int | str | None:
    """The redaction the index under ``home`` was filled with (None: not said, or unfilled);
    a catch-up redacts as the settings say at its time, so a change since reaches only what
    it indexes until a rebuild."""
    stamp = _read_stamp(home / "index")
    value = stamp.get("redaction") if stamp and stamp.get("filled") else None
    return value if isinstance(value, int | str) else None


def _stamp(path: Path, *, filled: bool, redacting: bool | None = None) -> None:
    tmp = path / (STAMP + ".tmp")
    value: dict[str, Any] = {"schema": SCHEMA_VERSION, "filled": filled}
    if redacting is not None:
        value["redaction"] = redaction_state(redacting)
    fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, orjson.dumps(value))
    finally:
        os.close(fd)
    tmp.replace(path / STAMP)


def _open(path: Path) -> tantivy.Index:
    index = tantivy.Index(build_schema(), path=str(path), reuse=True)
    register(index)
    return index


def _create(path: Path) -> tantivy.Index:
    private_dir(path)
    index = tantivy.Index(build_schema(), path=str(path), reuse=False)
    register(index)
    _stamp(path, filled=False)
    return index


def health(home: Path, conn: sqlite3.Connection) -> tuple[str | None, int]:
    """(why the index under ``home`` cannot be used as it is, or None; how many stored
    changes it still lacks). Read-only: never takes the writer, never starts one afresh."""
    path = home / "index"
    why = _stamp_ok(path)
    if why is None and not _filled(path):
        why = "the index was never filled"
    if why is None:
        why = _damage(path)
    if why is None:
        why = _miscounted(path, conn)
    return why, index_feed.lag(conn, everything=why is not None)


def redacted_counts(home: Path, names: tuple[str, ...]) -> dict[str, int] | None:
    """How many indexed messages had something redacted: ``"any"``, then each of ``names``
    (rules) with at least one. Term counts over the ``redacted=…`` tags, read-only; None
    when the index cannot be read (``health`` says why)."""
    path = home / "index"
    if _stamp_ok(path) is not None or _damage(path) is not None:
        return None  # never read a damaged segment: Tantivy answers from it, or panics
    try:
        index = _open(path)
        searcher = index.searcher()
        schema = index.schema
        message = tantivy.Query.term_query(schema, TAGS, "kind=conversation", index_option="basic")
        out: dict[str, int] = {}
        for name in ("any", *names):
            tagged = tantivy.Query.term_query(
                schema, TAGS, f"{REDACTED}={name}", index_option="basic"
            )
            both = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, tagged), (tantivy.Occur.Must, message)]
            )
            found = searcher.search(both, 1, count=True)
            n = int(getattr(found, "count", 0) or 0)  # not in the stub
            if n or name == "any":
                out[name] = n
    except BaseException as e:
        if not tantivy_failed(e):
            raise
        return None  # Tantivy says "corrupt" in many ways; health() reports it
    return out


def _miscounted(path: Path, conn: sqlite3.Connection) -> str | None:
    """With nothing queued, the index holds one document per message placed in a Builder:
    a different count means documents were lost or doubled (a damaged or stray segment)."""
    if index_feed.queued_any(conn):
        return None  # what is queued accounts for any difference
    stored = index_feed.placed_messages(conn)
    index = _open(path)
    query = _id_range(index.schema, 1, 2**62)
    try:
        found = index.searcher().search(query, 1, count=True)
        indexed = int(getattr(found, "count", 0) or 0)  # the stub lacks it; the object has it
    except BaseException as e:
        if not tantivy_failed(e):
            raise
        return f"the index could not be read ({e})"
    if indexed != stored:
        return f"the index holds {indexed:,} message(s), the store {stored:,}"
    return None


class SearchIndex:
    def __init__(self, home: Path, index: tantivy.Index, rebuilt: str | None):
        self.home = home
        self.path = home / "index"
        self.index = index
        self.rebuilt = rebuilt  # why open() had to start it afresh
        self._seen: tuple[int, int, int] | None = None  # meta.json when last reloaded

    def searcher(self) -> tantivy.Searcher:
        """A searcher of the last commit, this process's or another's. Reloading costs a
        tenth of a millisecond, a search of a rare word less: it is done only when the
        commit record (``meta.json``, replaced at every commit) changed."""
        try:
            st = (self.path / "meta.json").stat()
            seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        if seen is None or seen != self._seen:
            self.index.reload()
            self._seen = seen
        return self.index.searcher()

    @classmethod
    def open(cls, home: Path, *, verify: bool = True) -> SearchIndex:
        """The index under ``home``; one that is missing, damaged or of another schema is
        started afresh (and filled from the store by the next catch-up). ``verify``: check
        the segment files that changed since last checked (a hook leaves that to others)."""
        path = home / "index"
        _sweep(home)
        why = _stamp_ok(path)
        if why is None and verify:
            # before Tantivy reads them: a damaged segment can make it panic (its stack
            # printed on stderr), or answer from the damaged bytes without a word
            bad = checksums.damaged(path)
            why = None if bad is None else f"the index is damaged: {bad}"
        if why is None:
            try:
                index = _open(path)
                index.searcher()
                # started afresh by a process that did not get to fill it
                unfilled = None if _filled(path) else "the index was never filled"
                return cls(home, index, unfilled)
            except BaseException as e:  # Tantivy says "corrupt" in many ways, panics too
                if not tantivy_failed(e):
                    raise
                why = f"the index could not be opened ({e})"
        fresh = home / f"index.new-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        _create(fresh)
        _swap(home, fresh)
        return cls(home, _open(path), why)

    # -- writing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _writer(
        self, index: tantivy.Index | None = None, path: Path | None = None
    ) -> Iterator[Any]:
        try:
            writer = (index or self.index).writer(WRITER_HEAP, WRITER_THREADS)
        except ValueError as e:
            raise IndexBusy(str(e)) from e
        try:
            yield writer
        finally:
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()  # also drops the writer and its lock
            # Tantivy creates its segment and lock files 0666 & ~umask, and a umask is
            # process-wide (see lazy.os.private): once its threads are done, they are made
            # 0600 here. The index folder is 0700 meanwhile, so none is ever reachable.
            tighten(path or self.path)

    def catch_up(self, store: Store, progress: Progress | None = None) -> int:
        """Index what the store changed since the last catch-up; 0 when another process
        holds the writer (it, or the next catch-up, will do it), or when the index broke
        under it (the next open rebuilds it)."""
        if _filled(self.path) and self.rebuilt is None and not index_feed.queued_any(store.conn):
            return 0  # nothing to do: no writer (and its lock and memory) taken per search
        redacting = redaction_enabled(store.home)
        try:
            with self._writer() as writer:
                done = 0
                if not _filled(self.path):
                    # fresh: filled from the whole store (under the lock); from then on the
                    # store's queue says what the index still lacks
                    upto = index_feed.queued_upto(store.conn)
                    writer.delete_all_documents()  # a fill killed after its commit
                    done = _fill(store, writer, progress, redacting)
                    writer.commit()
                    _stamp(self.path, filled=True, redacting=redacting)
                    index_feed.dequeue(store, upto)
                drained = self._drain(store, writer, progress, redacting)
                if drained and not redacting and built_with(store.home) != "off":
                    # documents added unredacted: the index as a whole is no longer redacted
                    _stamp(self.path, filled=True, redacting=False)
                done += drained
        except IndexBusy:
            return 0
        except (ValueError, OSError):  # the index vanished or broke mid-write
            return 0
        self.rebuilt = None
        self.index.reload()
        return done

    def _drain(self, store: Store, writer: Any, progress: Progress | None, redacting: bool) -> int:
        conn = store.conn
        total = index_feed.queue_length(conn)
        done = 0
        while True:
            rows = index_feed.queued(conn, BATCH)
            if not rows:
                return done
            for lo, hi in _runs(sorted({r[1] for r in rows})):
                # the stored documents lo..hi replace whatever the index had of them
                writer.delete_documents_by_query(_id_range(self.index.schema, lo, hi))
                for doc in prepare(conn, lo, hi, redacting):
                    writer.add_json(doc)
            writer.commit()
            index_feed.dequeue(store, rows[-1][0])  # only once the index has it
            done += len(rows)
            if progress:
                progress(done, total)

    def rebuild(self, store: Store, progress: Progress | None = None) -> int:
        """Build a new index beside this one from the whole store and swap it in; searches
        keep using the old one until then. Returns the documents indexed."""
        fresh = self.home / f"index.new-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        index = _create(fresh)
        upto = index_feed.queued_upto(store.conn)
        redacting = redaction_enabled(store.home)
        with self._writer(index, fresh) as writer:
            done = _fill(store, writer, progress, redacting)
            writer.commit()
        _stamp(fresh, filled=True, redacting=redacting)
        _swap(self.home, fresh)
        self.index, self._seen = _open(self.path), None
        index_feed.dequeue(store, upto)  # what changed during the build stays queued
        self.rebuilt = None
        return done

    # -- reading ---------------------------------------------------------------------------

    def status(self, store: Store) -> IndexStatus:
        from lazy.model import IndexStatus  # pydantic: not on a hook's path

        self.index.reload()
        return IndexStatus(
            path=str(self.path),
            documents=self.index.searcher().num_docs,
            # an index started afresh lacks everything until its first catch-up
            lag=index_feed.lag(store.conn, everything=bool(self.rebuilt)),
            size_bytes=_dir_size(self.path),
            schema_version=SCHEMA_VERSION,
            rebuilt=self.rebuilt,
        )


def _runs(ids: list[int]) -> Iterator[tuple[int, int]]:
    """Sorted ids as ranges, each closing gaps of up to ``GAP`` ids, never mixing memories
    (negative) and messages: the index finds documents by a range of its id column (an
    indexed id would add 6% to the index), so one range for many near ids costs less than
    one per id."""
    start = prev = ids[0]
    for i in ids[1:]:
        if i - prev > GAP or (i < 0) != (prev < 0):
            yield start, prev
            start = i
        prev = i
    yield start, prev


def _id_range(schema: tantivy.Schema, lo: int, hi: int) -> tantivy.Query:
    return tantivy.Query.range_query(
        schema, "doc_id", tantivy.FieldType.Integer, lo, hi, include_lower=True, include_upper=True
    )


def _fill(store: Store, writer: Any, progress: Progress | None, redacting: bool) -> int:
    """Add every stored message, memory and task to ``writer``; the documents read. This thread
    makes the documents while the writer's threads index them, each on its own core."""
    conn = store.conn
    messages, rowids, task_ids = index_feed.all_ids(conn)
    memories = [-rowid for rowid in rowids]
    tasks = [-TASK_BASE - tid for tid in task_ids]
    total = len(memories) + len(messages) + len(tasks)
    done = 0
    for ids in (tasks, memories, messages):  # a range never mixes kinds
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i : i + CHUNK]
            for doc in prepare(conn, chunk[0], chunk[-1], redacting):
                writer.add_json(doc)
            done += len(chunk)
            if progress:
                progress(done, total)
    return done


def _sweep(home: Path) -> None:
    """Remove what a build or swap killed midway left behind (its process is gone)."""
    for d in [*home.glob("index.new-*"), *home.glob("index.old-*")]:
        pid = d.name.rsplit("-", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            shutil.rmtree(d, ignore_errors=True)


def _swap(home: Path, fresh: Path) -> None:
    """Put ``fresh`` where the index lives; a reader with the old files open keeps them."""
    live = home / "index"
    old = home / f"index.old-{os.getpid()}"
    if live.exists():
        live.rename(old)
    fresh.rename(live)
    shutil.rmtree(old, ignore_errors=True)
