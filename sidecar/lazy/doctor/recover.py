"""`lazy doctor --recover-store`: a new store out of a damaged one, keeping what can be read.

1. every readable row is copied into a new file beside it (:mod:`lazy.store.salvage`);
2. every session is re-derived from the raw archive through today's reader, so messages on
   damaged pages come back from the verbatim source lines; a session whose archive gives
   fewer messages than were copied (its archive pages were the damaged ones) keeps the
   copied rows instead;
3. the new store passes ``quick_check``; the damaged file is moved aside with its ``-wal``
   and ``-shm`` (never deleted), and the new one takes its place.
The caller rebuilds the search index afterwards (message ids are the store's own).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from lazy.builders.regroup import refresh_in
from lazy.capture.rederive import rederive_in
from lazy.os.durable import fsync_dir, move_aside
from lazy.os.private import touch_private
from lazy.store import Store, StoreError
from lazy.store.db import explain, not_writable, readonly_error
from lazy.store.integrity import quick_check, stamp, unstamp
from lazy.store.salvage import Salvaged, salvage

# what SQLite pairs with a database by name: left behind, a -wal or a hot -journal would be
# applied to the new store.db
COMPANIONS = ("-wal", "-shm", "-journal")
LABEL = ".damaged"


@dataclass
class Survey:
    """What is wrong with the store, before anything is done."""

    path: Path
    problems: list[str]  # quick_check's, or why it cannot be read at all; [] when sound
    conversations: int | None = None  # as far as they can be counted


@dataclass
class Recovered:
    aside: Path  # where the damaged store now lies
    salvaged: Salvaged
    rederived: int = 0  # sessions re-derived from the raw archive
    kept: list[str] = field(default_factory=list)  # sessions left as copied (archive short)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (session, why)
    conversations: int = 0
    messages: int = 0


def survey(home: Path) -> Survey:
    """Whether the store at ``home`` needs recovering; raises the StoreError of a store that
    is not damaged but cannot be worked on (read-only, locked, newer schema)."""
    db = home / "store.db"
    if not db.exists():
        return Survey(db, [])
    ro = not_writable(home)
    if ro is not None:
        raise readonly_error(home, ro)
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise explain(e, db) from e
    try:
        try:
            problems = quick_check(conn)
        except sqlite3.DatabaseError as e:
            err = explain(e, db)
            if err.kind not in ("corrupt", "notadb"):
                raise err from e
            return Survey(db, [f"{err.message} [{err.code}: {err.detail}]"])
        found = Survey(db, problems)
        with contextlib.suppress(sqlite3.DatabaseError):
            found.conversations = int(
                conn.execute("SELECT COUNT(*) FROM builders WHERE message_count > 0").fetchone()[0]
            )
        return found
    finally:
        conn.close()


def recover(home: Path) -> Recovered:
    """Recover the damaged store at ``home`` (see the module's words). Nothing is deleted;
    on any failure before the swap the damaged store is where it was."""
    db = home / "store.db"
    fresh = home / f"store.db.recovering-{os.getpid()}"
    for stale in (fresh, *(fresh.with_name(fresh.name + c) for c in COMPANIONS)):
        stale.unlink(missing_ok=True)
    touch_private(fresh)
    salvaged = salvage(db, fresh)
    store = Store(home, _connect(fresh))
    store.checked = True  # a new file, just made; checked again below, before it is used
    store.path = fresh
    out = Recovered(aside=db, salvaged=salvaged)
    try:
        _rederive(store, out)
        conn = store.conn
        with store.write() as c:
            c.execute("DELETE FROM index_queue")  # the caller rebuilds the index whole
        problems = quick_check(conn)
        if problems:
            raise StoreError(
                f"the recovered store {fresh} fails quick_check itself; the damaged one is"
                " left where it was",
                "SQLITE_CORRUPT",
                "; ".join(problems[:5]),
                kind="corrupt",
                path=fresh,
            )
        out.conversations, out.messages = conn.execute(
            "SELECT (SELECT COUNT(*) FROM builders WHERE message_count > 0),"
            " (SELECT COUNT(*) FROM messages)"
        ).fetchone()
        conn.execute("PRAGMA journal_mode = DELETE")  # one file to put in place
    finally:
        store.conn.close()
    out.aside = _move_aside(db)
    try:
        os.link(fresh, db)  # never over a store another process made meanwhile
    except FileExistsError as e:
        raise StoreError(
            f"a new {db} appeared while recovering; the recovered store is {fresh}, the"
            f" damaged one {out.aside}: move the new one aside and rename {fresh.name}",
            "EEXIST",
            str(e),
            path=db,
        ) from e
    fresh.unlink()
    fsync_dir(home)
    unstamp(home)
    stamp(home)
    return out


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _rederive(store: Store, out: Recovered) -> None:
    conn = store.conn
    sessions = [
        str(r[0])
        for r in conn.execute(
            "SELECT DISTINCT session_id FROM source_files WHERE agent_id IS NULL"
            " AND status NOT IN ('oneshot', 'deleted') ORDER BY session_id"
        )
    ]
    with store.write() as c:
        for sid in sessions:
            had = _messages(c, sid)
            c.execute("SAVEPOINT one")
            try:
                now = rederive_in(c, sid)
            except Exception as e:  # a damaged chunk: the copied rows are all there is
                c.execute("ROLLBACK TO one")
                c.execute("RELEASE one")
                out.failed.append((sid, f"{type(e).__name__}: {e}"))
                continue
            if now < had:
                c.execute("ROLLBACK TO one")
                out.kept.append(sid)
            else:
                out.rederived += 1
            c.execute("RELEASE one")
        refresh_in(c, full=True)


def _messages(c: sqlite3.Connection, sid: str) -> int:
    return int(
        c.execute(
            "SELECT COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id"
            " WHERE s.id = ? OR s.parent_session_id = ?",
            (sid, sid),
        ).fetchone()[0]
    )


def _move_aside(db: Path) -> Path:
    """``store.db`` to ``store.db.damaged`` (or a stamped name when that is taken), its
    ``-wal`` and ``-shm`` beside it under the matching names, so SQLite still reads them
    together."""
    aside = move_aside(db, LABEL)
    for suffix in COMPANIONS:
        part = db.with_name(db.name + suffix)
        if part.exists():
            target = aside.with_name(aside.name + suffix)
            if target.exists():  # never replaced: the stamped name of the db is unique
                raise FileExistsError(target)
            part.rename(target)
    fsync_dir(db.parent)
    return aside
