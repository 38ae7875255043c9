"""Reading opencode.db (OpenCode 1.2 on): the session listing with a change stamp, and one
session's records from one consistent snapshot. Read-only, never blocking on OpenCode."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from lazy.agents.nesting import bounded
from lazy.agents.opencode.records import (
    RAW_KEPT,
    Record,
    SessionRef,
    bad_json,
    integer,
    string,
)
from lazy.records import Quarantined

# OpenCode holds the database open while it runs; a reader waits this long for a lock and
# then reports, so a capture never hangs on a busy agent.
BUSY_TIMEOUT_S = 1.0
# Session columns OpenCode stores as JSON text (drizzle ``mode: "json"``).
_JSON_COLUMNS = frozenset(["summary_diffs", "revert", "permission", "model", "goal", "metadata"])
_LIST_COLUMNS = ("id", "parent_id", "directory", "title", "version", "time_created", "time_updated")


def db_paths(data_dir: Path) -> list[Path]:
    """opencode.db, then any channel database (opencode-<channel>.db) beside it."""
    main = data_dir / "opencode.db"
    out = [main] if main.is_file() else []
    try:
        others = sorted(p for p in data_dir.glob("opencode-*.db") if p.is_file())
    except OSError:
        others = []
    return out + others


def _connect(db: Path) -> sqlite3.Connection:
    # mode=ro, never immutable=1: an immutable open ignores the WAL and would read a torn
    # state while OpenCode runs. isolation_level=None: transactions are explicit.
    uri = f"file:{quote(str(db))}?mode=ro"
    con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        con.execute("PRAGMA query_only=1")
    except sqlite3.Error:
        con.close()
        raise
    return con


def _db_problem(db: Path, err: Exception, what: str = "") -> Quarantined:
    return Quarantined(0, 0, f"{db}: {what}SQLite error: {err}", b"", str(db))


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in con.execute(f"PRAGMA table_info({table})")}


def _session_info(row: dict[str, Any]) -> dict[str, Any]:
    """A session row in the shape OpenCode's own Session.fromRow gives (and its JSON files
    had); columns it does not map are kept under their own names, so nothing is lost."""
    cols = dict(row)
    for k in _JSON_COLUMNS & cols.keys():
        v = cols[k]
        if isinstance(v, str | bytes):
            with contextlib.suppress(orjson.JSONDecodeError):
                cols[k] = orjson.loads(v)
    info: dict[str, Any] = {}
    mapping = {
        "id": "id",
        "slug": "slug",
        "project_id": "projectID",
        "workspace_id": "workspaceID",
        "directory": "directory",
        "path": "path",
        "parent_id": "parentID",
        "title": "title",
        "version": "version",
        "revert": "revert",
        "permission": "permission",
        "agent": "agent",
        "model": "model",
    }
    for col, key in mapping.items():
        if cols.get(col) is not None:
            info[key] = cols[col]
    summary = {
        k: cols[f"summary_{k}"]
        for k in ("additions", "deletions", "files", "diffs")
        if cols.get(f"summary_{k}") is not None
    }
    if summary:
        info["summary"] = summary
    if cols.get("share_url"):
        info["share"] = {"url": cols["share_url"]}
    time = {
        k: cols[f"time_{k}"]
        for k in ("created", "updated", "compacting", "archived")
        if cols.get(f"time_{k}") is not None
    }
    info["time"] = time
    used = set(mapping) | {"share_url"}
    used |= {f"summary_{k}" for k in ("additions", "deletions", "files", "diffs")}
    used |= {f"time_{k}" for k in ("created", "updated", "compacting", "archived")}
    for col, v in cols.items():
        if col not in used and v is not None and col not in info:
            info[col] = v
    return info


def _db_tables(con: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def list_db(db: Path) -> tuple[list[SessionRef], list[Quarantined]]:
    try:
        con = _connect(db)
    except sqlite3.Error as e:
        return [], [_db_problem(db, e)]
    try:
        con.execute("BEGIN")  # one snapshot for the sessions and their counts
        tables = _db_tables(con)
        if "session" not in tables:
            con.execute("COMMIT")
            return [], []  # created, not yet migrated: no sessions
        agg: dict[str, list[int]] = {}  # session -> [newest update, messages, parts, msg bytes]
        for table in ("message", "part"):
            if table not in tables:
                continue
            cols = _columns(con, table)
            if "session_id" not in cols:
                continue  # an older part table: its rows still load through their messages
            newest = "max(time_updated)" if "time_updated" in cols else "0"
            size = "sum(length(data))" if table == "message" and "data" in cols else "0"
            for sid, n, t, b in con.execute(
                f"SELECT session_id, count(*), {newest}, {size} FROM {table} GROUP BY session_id"
            ):
                a = agg.setdefault(str(sid), [0, 0, 0, 0])
                a[0] = max(a[0], integer(t) or 0)
                a[1 if table == "message" else 2] = int(n)
                a[3] += integer(b) or 0
        # only the listing's columns: summary_diffs can hold whole files
        wanted = [c for c in _LIST_COLUMNS if c in _columns(con, "session")]
        cur = con.execute(f"SELECT {', '.join(wanted)} FROM session")
        rows = [dict(zip(wanted, r, strict=True)) for r in cur]
        con.execute("COMMIT")
    except sqlite3.Error as e:
        return [], [_db_problem(db, e)]
    finally:
        con.close()
    refs = []
    for row in rows:
        sid = string(row.get("id"))
        if sid is None:
            continue
        a = agg.get(sid, [0, 0, 0, 0])
        updated = integer(row.get("time_updated"))
        # OpenCode bumps time_updated on its upserts (seen on 1.18.33); the message bytes
        # also catch an answer completed in place by a build that would not.
        stamp = f"{max(a[0], updated or 0)}:{a[1]}:{a[2]}:{a[3]}"
        refs.append(
            SessionRef(
                sid,
                str(db),
                string(row.get("parent_id")),
                string(row.get("directory")),
                string(row.get("title")),
                string(row.get("version")),
                integer(row.get("time_created")),
                updated,
                stamp,
            )
        )
    return refs, []


def _raw(data: Any) -> bytes:
    return data.encode() if isinstance(data, str) else bytes(data or b"")


def _db_record(
    db: Path, kind: str, ids: dict[str, Any], data: Any
) -> tuple[Record | None, Quarantined | None]:
    """A message or part row as its record: the data JSON with the columns' ids put back.
    A row nested too deep is kept cut, and quarantined whole."""
    rid = str(ids["id"])
    origin = f"{db}#{kind}/{rid}"
    raw = _raw(data)
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        return None, bad_json(f"{db} {kind} {rid}", raw, e, origin)
    if not isinstance(obj, dict):
        return None, Quarantined(0, 0, f"{origin}: not a JSON object", raw[:RAW_KEPT], origin)
    obj, why = bounded(obj, raw)
    obj.update({k: v for k, v in ids.items() if v is not None})
    blob = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    problem = Quarantined(0, 0, why, raw, origin) if why else None
    return Record(kind, rid, str(ids["sessionID"]), blob, origin), problem


def load_db(db: Path, sid: str) -> tuple[list[Record], list[Quarantined]]:
    records: list[Record] = []
    problems: list[Quarantined] = []
    try:
        con = _connect(db)
    except sqlite3.Error as e:
        return [], [_db_problem(db, e)]
    try:
        con.execute("BEGIN")  # messages and parts from one consistent snapshot
        cur = con.execute("SELECT * FROM session WHERE id=?", (sid,))
        names = [d[0] for d in cur.description]
        row = cur.fetchone()
        if row is None:
            con.execute("COMMIT")
            return [], [
                Quarantined(0, 0, f"{db}: session {sid} is not in the database", b"", str(db))
            ]
        info = _session_info(dict(zip(names, row, strict=True)))
        records.append(
            Record(
                "session",
                sid,
                sid,
                orjson.dumps(info, option=orjson.OPT_SORT_KEYS),
                f"{db}#session/{sid}",
            )
        )
        msgs = con.execute(
            "SELECT id, session_id, data FROM message WHERE session_id=? ORDER BY id", (sid,)
        ).fetchall()
        pcols = _columns(con, "part")
        if "session_id" in pcols:
            parts = con.execute(
                "SELECT id, message_id, session_id, data FROM part WHERE session_id=?"
                " ORDER BY message_id, id",
                (sid,),
            ).fetchall()
        else:
            parts = con.execute(
                "SELECT p.id, p.message_id, m.session_id, p.data FROM part p"
                " JOIN message m ON m.id = p.message_id WHERE m.session_id=?"
                " ORDER BY p.message_id, p.id",
                (sid,),
            ).fetchall()
        con.execute("COMMIT")
    except sqlite3.Error as e:
        return [], [_db_problem(db, e, f"reading session {sid}: ")]
    finally:
        con.close()
    by_msg: dict[str, list[tuple[Any, ...]]] = {}
    for p in parts:
        by_msg.setdefault(str(p[1]), []).append(p)
    for mid, msid, data in msgs:
        rec, bad = _db_record(db, "message", {"id": mid, "sessionID": msid or sid}, data)
        problems += [bad] if bad else []
        if rec is None:
            continue  # its parts are reported below as naming a missing message
        records.append(rec)
        for pid, pmid, psid, pdata in by_msg.pop(str(mid), []):
            ids = {"id": pid, "sessionID": psid or sid, "messageID": pmid}
            prec, pbad = _db_record(db, "part", ids, pdata)
            problems += [pbad] if pbad else []
            if prec is not None:
                records.append(prec)
    for mid, rows in sorted(by_msg.items()):
        for p in rows:
            reason = f"part {p[0]} names message {mid}, which is missing"
            problems.append(Quarantined(0, 0, reason, _raw(p[3])[:RAW_KEPT], f"{db}#part/{p[0]}"))
    return records, problems
