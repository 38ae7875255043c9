"""The store's own health: SQLite's quick check and the schema version; the search index
caught up with it."""

from __future__ import annotations

import sqlite3

from lazy.doctor.context import Context
from lazy.doctor.report import Check
from lazy.index.indexer import health
from lazy.store import maintenance
from lazy.store.db import not_writable, readonly_error, recover_fix
from lazy.store.integrity import SHOWN, quick_check
from lazy.store.schema import SCHEMA_VERSION

STORE = "Store is intact"
INDEX = "Search index is caught up"


LOCK_PROBE_MS = 1000  # how long the check waits for another process's write lock

# what each open failure is, said first: the fixes differ, and the wrong one loses data
KINDS = {
    "readonly": "read-only, not damaged",
    "full": "the disk is full",
    "locked": "locked by another process",
    "corrupt": "damaged",
    "notadb": "not a database",
    "schema": "written by a newer lazy",
}


def store_check(ctx: Context) -> Check:
    if ctx.store is None:
        kind = ctx.error.kind if ctx.error is not None else "other"
        label = f" ({KINDS[kind]})" if kind in KINDS else ""
        detail = [f"{ctx.path} could not be opened{label}: {ctx.problem}"]
        return Check(STORE, "fail", detail, ctx.fix)
    if not ctx.exists:
        return Check(STORE, "ok", [f"no store yet at {ctx.path}: the first capture creates it"])
    conn = ctx.store.conn
    try:
        problems = quick_check(conn)
        version = maintenance.schema_version(conn)
    except sqlite3.DatabaseError as e:
        code = getattr(e, "sqlite_errorname", type(e).__name__)
        detail = [f"{ctx.path} (damaged): quick_check could not run [{code}: {e}]"]
        return Check(STORE, "fail", detail, recover_fix(ctx.path))
    if problems:
        detail = [
            f"{ctx.path} (damaged): quick_check found {len(problems)} problem(s);"
            " lazy writes nothing into it until it is recovered:"
        ]
        detail += [f"  {p}" for p in problems[:SHOWN]]
        if len(problems) > SHOWN:
            detail.append(f"  … and {len(problems) - SHOWN} more")
        return Check(STORE, "fail", detail, recover_fix(ctx.path))
    if version != SCHEMA_VERSION:  # opening migrates an older one: only a newer one is left
        detail = [f"{ctx.path} is schema v{version}; this lazy reads v{SCHEMA_VERSION}"]
        return Check(STORE, "fail", detail, "upgrade lazy: pip install -U lazy-builders")
    ro = not_writable(ctx.home)
    if ro is not None:  # opened for reading only: SQLite says so at the first write
        why = readonly_error(ctx.home, ro)
        return Check(STORE, "fail", [f"{ctx.path} ({KINDS['readonly']}): {why}"], why.fix)
    builders, messages = maintenance.totals(conn)
    detail = [
        f"{ctx.path}: quick_check ok, schema v{version}",
        f"{builders:,} conversation(s), {messages:,} message(s)",
    ]
    holder = maintenance.write_lock_held(conn, LOCK_PROBE_MS)
    if holder is not None:
        detail.append(
            f"{ctx.path} is locked: another process has held its write lock for over"
            f" {LOCK_PROBE_MS / 1000:g} s [{holder}]; captures wait for it, then fail"
        )
        return Check(STORE, "warn", detail, f"wait for it to finish (`fuser {ctx.path}` names it)")
    return Check(STORE, "ok", detail)


def index_check(ctx: Context) -> Check:
    store = ctx.need_store()
    path = ctx.home / "index"
    why, lag = health(ctx.home, store.conn)
    if why is not None and lag == 0:
        return Check(INDEX, "ok", [f"{path}: {why}; nothing is stored to search"])
    if why is not None:
        detail = [
            f"{path}: {why}",
            f"{lag:,} stored message(s) are not searchable until it is rebuilt",
        ]
        return Check(INDEX, "warn", detail, "lazy index rebuild")
    if lag:
        detail = [f"{path}: {lag:,} message(s) changed in the store are not searchable yet"]
        return Check(INDEX, "warn", detail, "lazy index rebuild")
    return Check(INDEX, "ok", [f"{path}: every stored message is searchable"])
