"""The store's own health: SQLite's quick check and the schema version; the search index
caught up with it."""

from __future__ import annotations

import sqlite3

from lazy.doctor.context import Context, damaged_fix
from lazy.doctor.report import Check
from lazy.index.indexer import health
from lazy.store.schema import SCHEMA_VERSION

STORE = "Store is intact"
INDEX = "Search index is caught up"
SHOWN = 5  # problems quick_check reports, listed at most


def store_check(ctx: Context) -> Check:
    if ctx.store is None:
        return Check(STORE, "fail", [f"{ctx.path} could not be opened: {ctx.problem}"], ctx.fix)
    if not ctx.exists:
        return Check(STORE, "ok", [f"no store yet at {ctx.path}: the first capture creates it"])
    conn = ctx.store.conn
    try:
        said = [line for r in conn.execute("PRAGMA quick_check") for line in str(r[0]).splitlines()]
        problems = [line for line in said if not line.startswith("*** in database")]
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.DatabaseError as e:
        code = getattr(e, "sqlite_errorname", type(e).__name__)
        detail = [f"{ctx.path}: quick_check could not run [{code}: {e}]"]
        return Check(STORE, "fail", detail, damaged_fix(ctx.home))
    if problems != ["ok"]:
        detail = [f"{ctx.path}: quick_check found {len(problems)} problem(s):"]
        detail += [f"  {p}" for p in problems[:SHOWN]]
        if len(problems) > SHOWN:
            detail.append(f"  … and {len(problems) - SHOWN} more")
        return Check(STORE, "fail", detail, damaged_fix(ctx.home))
    if version != SCHEMA_VERSION:  # opening migrates an older one: only a newer one is left
        detail = [f"{ctx.path} is schema v{version}; this lazy reads v{SCHEMA_VERSION}"]
        return Check(STORE, "fail", detail, "upgrade lazy: pip install -U lazy-builders")
    builders, messages = conn.execute(
        "SELECT (SELECT COUNT(*) FROM builders WHERE message_count > 0),"
        " (SELECT COUNT(*) FROM messages)"
    ).fetchone()
    return Check(
        STORE,
        "ok",
        [
            f"{ctx.path}: quick_check ok, schema v{version}",
            f"{builders:,} conversation(s), {messages:,} message(s)",
        ],
    )


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
