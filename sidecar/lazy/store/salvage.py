"""Copy what can still be read out of a damaged store into a new one.

Why by hand: the ``sqlite3`` shell's ``.recover`` is the tool for this, but the shell of
Debian 12 (SQLite 3.40.1) fails on every database with "SQL logic error", and Python's
``iterdump`` stops at the first unreadable page. So each table is read in rowid order, in
batches; where a batch hits a damaged page the scan jumps ahead (doubling the jump until a
read succeeds, then narrowing back by bisection) so only the rows on damaged pages are lost.
Indexes are not copied: the new store builds its own, so a damaged index loses nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lazy.store.schema import SCHEMA_VERSION, migrate

BATCH = 500
MAX_ROWID = 2**63 - 1
# derived from the rest and emptied afterwards anyway: the index is rebuilt
SKIPPED = {"sqlite_sequence", "index_queue"}

Progress = Callable[[str, int], None]  # (table, rows copied so far)


@dataclass
class Salvaged:
    version: int  # the damaged store's schema version, as its header says (0: unreadable)
    copied: dict[str, int] = field(default_factory=dict)  # rows per table
    lost: dict[str, list[str]] = field(default_factory=dict)  # what could not be read, per table
    unreadable: str | None = None  # why nothing at all could be read


def _code(e: BaseException) -> str:
    return str(getattr(e, "sqlite_errorname", None) or type(e).__name__)


def salvage(damaged: Path, target: Path, progress: Progress | None = None) -> Salvaged:
    """Fill the new store ``target`` (created here, lazy's schema) with every row of
    ``damaged`` that can be read. ``damaged`` is only read."""
    src = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True, isolation_level=None)
    dst = sqlite3.connect(target, isolation_level=None)
    try:
        try:
            version = int(src.execute("PRAGMA user_version").fetchone()[0])
            tables = {
                str(r[0]) for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.DatabaseError as e:
            migrate(dst)
            return Salvaged(0, unreadable=f"{_code(e)}: {e}")
        if version > SCHEMA_VERSION:
            raise ValueError(f"{damaged} is schema v{version}, newer than this lazy")
        # the new store at the damaged one's version, so every column has its place; the
        # migrations after it run once the rows are in
        migrate(dst, upto=version)
        out = Salvaged(version)
        wanted = [
            str(r[0])
            for r in dst.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        dst.execute("BEGIN")
        for table in wanted:
            if table in SKIPPED or table not in tables:
                continue
            _copy(src, dst, table, out, progress)
        dst.execute("COMMIT")
        migrate(dst)
        return out
    finally:
        src.close()
        dst.close()


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _copy(
    src: sqlite3.Connection,
    dst: sqlite3.Connection,
    table: str,
    out: Salvaged,
    progress: Progress | None,
) -> None:
    try:
        have = set(_columns(src, table))
    except sqlite3.DatabaseError as e:
        out.lost.setdefault(table, []).append(f"its columns are unreadable [{_code(e)}: {e}]")
        return
    cols = [c for c in _columns(dst, table) if c in have]
    names = ", ".join(f'"{c}"' for c in cols)
    insert = f'INSERT OR IGNORE INTO "{table}"({names}) VALUES ({", ".join("?" * len(cols))})'
    rowid = (
        dst.execute(
            "SELECT 1 FROM sqlite_master WHERE name=? AND sql LIKE '%WITHOUT ROWID%'", (table,)
        ).fetchone()
        is None
    )
    n = 0
    if not rowid:
        # a few narrow tables of derived rows (re-derived from the raw archive): whole or not
        try:
            rows = src.execute(f'SELECT {names} FROM "{table}"').fetchall()
        except sqlite3.DatabaseError as e:
            out.lost.setdefault(table, []).append(f"unreadable [{_code(e)}: {e}]")
            rows = []
        dst.executemany(insert, rows)
        out.copied[table] = len(rows)
        return
    select = f'SELECT rowid, {names} FROM "{table}" WHERE rowid > ? ORDER BY rowid LIMIT {BATCH}'
    after = -MAX_ROWID - 1
    while True:
        try:
            rows = src.execute(select, (after,)).fetchall()
        except sqlite3.DatabaseError as e:
            resume = _past_damage(src, select, after)
            where = f"rowids after {after}" if after > -MAX_ROWID - 1 else "its first rowids"
            upto = "the end" if resume is None else f"rowid {resume + 1}"
            out.lost.setdefault(table, []).append(
                f"{where} up to {upto} are on damaged pages [{_code(e)}: {e}]"
            )
            if resume is None:
                break
            after = resume
            continue
        if not rows:
            break
        dst.executemany(insert, [r[1:] for r in rows])
        n += len(rows)
        after = int(rows[-1][0])
        if progress:
            progress(table, n)
    out.copied[table] = n


def _readable(src: sqlite3.Connection, select: str, after: int) -> bool:
    try:
        src.execute(select, (after,)).fetchall()
    except sqlite3.DatabaseError:
        return False
    return True


def _past_damage(src: sqlite3.Connection, select: str, bad: int) -> int | None:
    """The smallest ``after`` beyond ``bad`` from which the scan reads again (found by
    doubling the jump, then bisecting back), or None when nothing after it does."""
    step = 1
    good = None
    while bad + step < MAX_ROWID:
        if _readable(src, select, bad + step):
            good = bad + step
            break
        bad, step = bad + step, step * 2
    if good is None:
        return None
    while good - bad > 1:  # bad fails, good reads: the first start that reads lies between
        mid = (bad + good) // 2
        if _readable(src, select, mid):
            good = mid
        else:
            bad = mid
    return good
