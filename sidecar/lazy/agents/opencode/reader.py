"""OpenCode reader: its storage (opencode.db or the JSON trees) in, normalized records out.

Three parts, each pure with respect to lazy's store: ``list_sessions`` (a cheap listing with a
change stamp), ``load_session`` (one session's records, verbatim, for the raw archive) and
``read`` (records -> messages and facts). The format notes behind every rule are in
shared/research/formats.md §3.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from lazy.agents.jsonl import unreadable
from lazy.agents.nesting import bounded
from lazy.blocks import clip, result_block
from lazy.records import ONESHOT_MARKER, MessagePart, Quarantined, ReadBatch, SessionFacts

RAW_KEPT = 64 * 1024  # bytes of a bad file kept with its quarantine report
# OpenCode holds the database open while it runs; a reader waits this long for a lock and
# then reports, so a capture never hangs on a busy agent.
BUSY_TIMEOUT_S = 1.0

PART_TYPES = frozenset(
    [
        "text",
        "reasoning",
        "tool",
        "file",
        "subtask",
        "agent",
        "patch",
        "compaction",
        "step-start",
        "step-finish",
        "snapshot",
        "retry",
    ]
)
# Session columns OpenCode stores as JSON text (drizzle ``mode: "json"``).
_JSON_COLUMNS = frozenset(["summary_diffs", "revert", "permission", "model", "goal", "metadata"])
_LIST_COLUMNS = ("id", "parent_id", "directory", "title", "version", "time_created", "time_updated")
INT64 = 2**63 - 1  # the largest integer SQLite stores


@dataclass(slots=True)
class Record:
    """One OpenCode record, verbatim, for lazy's raw archive."""

    kind: str  # "session" | "message" | "part"
    id: str
    session_id: str
    # A JSON file: its bytes as on disk. A DB row: the ``data`` column's JSON with the ids
    # the columns hold re-added (id, sessionID, messageID), orjson with sorted keys.
    data: bytes
    origin: str  # the JSON file's absolute path, or f"{db_path}#{table}/{id}"


@dataclass(slots=True)
class SessionRef:
    """A session as listed, no messages loaded."""

    session_id: str
    location: str  # the session's JSON file, or the opencode.db path
    parent_id: str | None  # a child (subagent/task) session's parent
    directory: str | None
    title: str | None
    version: str | None  # OpenCode's
    created_ms: int | None
    updated_ms: int | None
    stamp: str  # changes whenever anything of the session does; same data, same stamp

    @property
    def mtime_ns(self) -> int:
        """The last update as a file's mtime: 0 when unknown, never more than SQLite holds."""
        return max(0, min((self.updated_ms or 0) * 1_000_000, INT64))


# ---- small helpers ------------------------------------------------------------------------


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _int(v: Any) -> int | None:
    """An integer SQLite can hold; None for anything else (orjson reads past 64 bits, or
    1e300, as a float that no SQLite integer holds)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, float) and abs(v) <= INT64:  # also False for inf and nan
        v = int(v)
    if isinstance(v, int) and -INT64 <= v <= INT64:
        return v
    return None


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def iso_ms(ms: Any) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC with milliseconds and a Z."""
    n = _int(ms)
    if n is None:
        return None
    try:
        dt = datetime.fromtimestamp(n // 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{n % 1000:03d}Z"


def _bad_json(
    path: Path | str, raw: bytes, err: Exception, origin: str | None = None
) -> Quarantined:
    line = getattr(err, "lineno", 0) or 0
    where = f"line {line}" if line else "start"
    return Quarantined(
        line,
        0,
        f"{path}: not readable JSON at {where}: {err}",
        raw[:RAW_KEPT],
        origin or str(path),
    )


def _load_json(path: Path) -> tuple[bytes, dict[str, Any] | None, Quarantined | None]:
    """A JSON file's bytes and object, or why it could not be read."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        return b"", None, Quarantined(0, 0, f"{path}: unreadable: {e}", b"", str(path))
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        return raw, None, _bad_json(path, raw, e)
    if not isinstance(obj, dict):
        return raw, None, Quarantined(0, 0, f"{path}: not a JSON object", raw[:RAW_KEPT], str(path))
    return raw, obj, None


def _json_files(d: Path) -> list[Path]:
    """A directory's JSON files by name (OpenCode names them by id; temp files start with '.')."""
    try:
        with os.scandir(d) as it:
            names = [e.name for e in it if e.name.endswith(".json") and not e.name.startswith(".")]
    except OSError:
        return []
    return [d / n for n in sorted(names)]


def _subdirs(d: Path) -> list[Path]:
    try:
        with os.scandir(d) as it:
            names = [e.name for e in it if e.is_dir()]
    except OSError:
        return []
    return [d / n for n in sorted(names)]


def _files_stamp(paths: Iterable[Path]) -> tuple[int, int]:
    """(newest mtime_ns, count) of the files that exist."""
    newest = count = 0
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        count += 1
        newest = max(newest, st.st_mtime_ns)
    return newest, count


# ---- the database -------------------------------------------------------------------------


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


def _db_list(db: Path) -> tuple[list[SessionRef], list[Quarantined]]:
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
                a[0] = max(a[0], _int(t) or 0)
                a[1 if table == "message" else 2] = int(n)
                a[3] += _int(b) or 0
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
        sid = _str(row.get("id"))
        if sid is None:
            continue
        a = agg.get(sid, [0, 0, 0, 0])
        updated = _int(row.get("time_updated"))
        # OpenCode bumps time_updated on its upserts (seen on 1.18.33); the message bytes
        # also catch an answer completed in place by a build that would not.
        stamp = f"{max(a[0], updated or 0)}:{a[1]}:{a[2]}:{a[3]}"
        refs.append(
            SessionRef(
                sid,
                str(db),
                _str(row.get("parent_id")),
                _str(row.get("directory")),
                _str(row.get("title")),
                _str(row.get("version")),
                _int(row.get("time_created")),
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
        return None, _bad_json(f"{db} {kind} {rid}", raw, e, origin)
    if not isinstance(obj, dict):
        return None, Quarantined(0, 0, f"{origin}: not a JSON object", raw[:RAW_KEPT], origin)
    obj, why = bounded(obj, raw)
    obj.update({k: v for k, v in ids.items() if v is not None})
    blob = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    problem = Quarantined(0, 0, why, raw, origin) if why else None
    return Record(kind, rid, str(ids["sessionID"]), blob, origin), problem


def _db_load(db: Path, sid: str) -> tuple[list[Record], list[Quarantined]]:
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


# ---- the JSON trees ------------------------------------------------------------------------
#
# v1.1 layout: storage/session/<projectID>/<ses>.json, storage/message/<ses>/<msg>.json,
# storage/part/<msg>/<prt>.json. Oldest (2025): project/<dir>/storage/session/info/<ses>.json,
# …/session/message/<ses>/<msg>.json, …/session/part/<ses>/<msg>/<prt>.json. Drifted copies
# keep parts flat in storage/part/<prt>.json, naming their message inside.


@dataclass(slots=True)
class _Tree:
    """Where one session's files live."""

    session_file: Path
    message_dir: Path
    part_root: Path  # v1.1: part/<msg>/…; oldest: part/<ses>/<msg>/…
    flat_parts: Path | None  # v1.1's part/ itself, for drifted flat part files


def _v1_sessions(data_dir: Path) -> Iterator[Path]:
    for proj in _subdirs(data_dir / "storage" / "session"):
        yield from _json_files(proj)


def _oldest_sessions(data_dir: Path) -> Iterator[Path]:
    for proj in _subdirs(data_dir / "project"):
        yield from _json_files(proj / "storage" / "session" / "info")


def _tree(location: Path, sid: str) -> _Tree:
    if location.parent.name == "info" and location.parents[1].name == "session":
        root = location.parents[1]
        return _Tree(location, root / "message" / sid, root / "part" / sid, None)
    storage = location.parents[2]
    return _Tree(location, storage / "message" / sid, storage / "part", storage / "part")


# part/ of a big v1.1 tree holds one directory per message: list it for flat files once per
# change of the directory, not once per session loaded.
_flat_cache: dict[Path, tuple[int, list[Path]]] = {}


def _flat_part_files(tree: _Tree) -> list[Path]:
    d = tree.flat_parts
    if d is None:
        return []
    try:
        mtime = d.stat().st_mtime_ns
    except OSError:
        return []
    hit = _flat_cache.get(d)
    if hit is None or hit[0] != mtime:
        hit = _flat_cache[d] = (mtime, _json_files(d))
    return hit[1]


# part/<message id>/ dirs of a v1.1 tree whose message file is gone, by the session their
# parts name: found once per listing (a scan of every part dir), reported by each load
_orphans: dict[Path, dict[str, list[Path]]] = {}


def _orphan_parts(storage: Path) -> dict[str, list[Path]]:
    files = [p for d in _subdirs(storage / "message") for p in _json_files(d)]
    known = {p.stem for p in files}
    ids: set[str] | None = None  # the ids inside, read only if a file is not named by its id
    out: dict[str, list[Path]] = {}
    for d in _subdirs(storage / "part"):
        if d.name in known:
            continue
        if ids is None:
            ids = {i for p in files if (i := _str((_load_json(p)[1] or {}).get("id")))}
        if d.name in ids:
            continue
        for path in _json_files(d):
            _, obj, _ = _load_json(path)
            sid = _str(obj.get("sessionID")) if obj else None
            out.setdefault(sid or "", []).append(path)
    _orphans[storage] = out
    return out


def _tree_stamp(tree: _Tree, flat: tuple[int, int]) -> str:
    msgs = _json_files(tree.message_dir)
    files = [tree.session_file, *msgs]
    for m in msgs:  # a message's parts sit in a directory named by its id (= its file name)
        files.extend(_json_files(tree.part_root / m.stem))
    newest, count = _files_stamp(files)
    return f"{max(newest, flat[0])}:{count + flat[1]}"


def _json_ref(path: Path, obj: dict[str, Any], flat: tuple[int, int]) -> SessionRef:
    sid = _str(obj.get("id")) or path.stem
    time = _dict(obj.get("time"))
    return SessionRef(
        sid,
        str(path),
        _str(obj.get("parentID")),
        _str(obj.get("directory")),
        _str(obj.get("title")),
        _str(obj.get("version")),
        _int(time.get("created")),
        _int(time.get("updated")),
        _tree_stamp(_tree(path, sid), flat),
    )


def list_sessions(data_dir: Path) -> tuple[list[SessionRef], list[Quarantined]]:
    """Every session under an OpenCode data dir ($XDG_DATA_HOME/opencode), each listed once:
    the database's copy wins over JSON the v1.2 migration left behind, and the v1.1 layout's
    over the oldest one it was copied from. Never raises: problems come back quarantined."""
    refs: dict[str, SessionRef] = {}
    problems: list[Quarantined] = []
    for db in db_paths(data_dir):
        try:
            found, bad = _db_list(db)
        except Exception as e:  # a shape no rule foresaw: the other stores are still listed
            found, bad = [], [Quarantined(0, 0, unreadable(e), b"", str(db))]
        problems.extend(bad)
        for ref in found:
            refs.setdefault(ref.session_id, ref)
    flat_dir = data_dir / "storage" / "part"
    flat = _files_stamp(_json_files(flat_dir))
    if flat_dir.is_dir():
        for path in _orphan_parts(flat_dir.parent).get("", []):
            problems.append(
                Quarantined(
                    0, 0, "part names no session, and its message is missing", b"", str(path)
                )
            )
    for paths in (_v1_sessions(data_dir), _oldest_sessions(data_dir)):
        for path in paths:
            _, obj, bad_file = _load_json(path)
            if bad_file is not None:
                problems.append(bad_file)
                continue
            assert obj is not None
            try:
                ref = _json_ref(path.absolute(), obj, flat)
            except Exception as e:
                problems.append(Quarantined(0, 0, unreadable(e), b"", str(path)))
                continue
            refs.setdefault(ref.session_id, ref)
    out = sorted(
        refs.values(), key=lambda r: (r.created_ms is None, r.created_ms or 0, r.session_id)
    )
    return out, problems


def _json_load(location: Path, sid: str) -> tuple[list[Record], list[Quarantined]]:
    tree = _tree(location, sid)
    problems: list[Quarantined] = []
    raw, _, bad = _load_json(location)
    if bad is not None:
        return [], [bad]
    records = [Record("session", sid, sid, raw, str(location))]
    messages: list[tuple[str, Record]] = []
    lost: set[str] = set()  # message files that would not parse: their parts have no message
    for path in _json_files(tree.message_dir):
        mraw, mobj, mbad = _load_json(path)
        if mbad is not None:
            problems.append(mbad)
            lost.add(path.stem)
            continue
        assert mobj is not None
        mid = _str(mobj.get("id")) or path.stem
        messages.append((mid, Record("message", mid, sid, mraw, str(path))))
    known = {mid for mid, _ in messages}
    parts: dict[str, list[tuple[str, Record]]] = {}

    def take(path: Path, dir_mid: str | None, flat: bool) -> None:
        praw, pobj, pbad = _load_json(path)
        if pbad is not None:
            problems.append(pbad)
            return
        assert pobj is not None
        mid = _str(pobj.get("messageID")) or dir_mid
        if flat and mid not in known and pobj.get("sessionID") != sid:
            return  # another session's flat part
        pid = _str(pobj.get("id")) or path.stem
        if mid is None or mid not in known:
            problems.append(
                Quarantined(
                    0,
                    0,
                    f"part {pid} names message {mid}, which is missing",
                    praw[:RAW_KEPT],
                    str(path),
                )
            )
            return
        parts.setdefault(mid, []).append((path.name, Record("part", pid, sid, praw, str(path))))

    if tree.flat_parts is None:  # oldest layout: every part dir of the session is known
        for d in _subdirs(tree.part_root):
            for path in _json_files(d):
                take(path, d.name, False)
    else:
        for mid in sorted(known | lost):
            for path in _json_files(tree.part_root / mid):
                take(path, mid, False)
        for path in _flat_part_files(tree):
            take(path, None, True)
        storage = tree.part_root.parent
        orphans = _orphans.get(storage)
        if orphans is None:
            orphans = _orphan_parts(storage)
        for path in orphans.get(sid, []):
            take(path, path.parent.name, False)
    for mid, rec in messages:
        records.append(rec)
        records.extend(r for _, r in sorted(parts.get(mid, []), key=lambda x: x[0]))
    return records, problems


def load_session(data_dir: Path, ref: SessionRef) -> tuple[list[Record], list[Quarantined]]:
    """One session's records: the session, then each message (by id; in a JSON tree by file
    name, which is the id) followed by its parts. What cannot be read is reported and left
    out; the rest still loads. Never raises."""
    location = Path(ref.location)
    try:
        if location.suffix == ".db":
            return _db_load(location, ref.session_id)
        return _json_load(location, ref.session_id)
    except (OSError, IndexError) as e:  # vanished since listed, or not a session's path
        return [], [Quarantined(0, 0, f"{location}: unreadable: {e}", b"", str(location))]
    except Exception as e:  # a shape no rule foresaw: this session, not the listing, fails
        return [], [Quarantined(0, 0, unreadable(e), b"", str(location))]


# ---- normalization ---------------------------------------------------------------------------


def _tool_blocks(part: dict[str, Any]) -> list[dict[str, Any]]:
    state = _dict(part.get("state"))
    call = part.get("callID")
    inp = state.get("input", part.get("input"))
    blocks: list[dict[str, Any]] = [
        {"type": "tool_use", "id": call, "name": part.get("tool"), "input": clip(inp)}
    ]
    status = state.get("status")
    if status in ("completed", "error", "success"):  # "success": a drifted older spelling
        is_error = status == "error"
        if is_error:
            out = state.get("error", part.get("error"))
        else:
            out = state.get("output", part.get("output"))
        if isinstance(out, dict | list):
            out = orjson.dumps(out).decode()
        text = "" if out is None else str(out)
        blocks.append(result_block(call, text, is_error))
    return blocks


def _file_block(part: dict[str, Any]) -> dict[str, Any]:
    mime = _str(part.get("mime"))
    url = part.get("url")
    name = _str(part.get("filename"))
    if mime is not None and mime.startswith("image/"):
        out: dict[str, Any] = {"type": "image", "media_type": mime}
        if name:
            out["filename"] = name
        if isinstance(url, str) and url.startswith("data:") and "," in url:
            data = url.split(",", 1)[1]  # base64 payload: only its size and a digest are kept
            out["bytes"] = len(data) * 3 // 4
            out["sha256"] = hashlib.sha256(data.encode()).hexdigest()[:16]
        elif isinstance(url, str):
            out["url"] = url
        return out
    out = {"type": "file", "filename": name, "media_type": mime}
    if isinstance(url, str) and not url.startswith("data:"):
        out["url"] = url
    return out


@dataclass(slots=True)
class _Msg:
    sid: str
    mid: str
    data: dict[str, Any]
    parts: list[dict[str, Any]]
    origin: str
    raw: bytes


def _blocks(msg: _Msg, batch: ReadBatch) -> tuple[list[dict[str, Any]], bool]:
    """The message's blocks and whether it is only harness (synthetic text, a compaction)."""
    blocks: list[dict[str, Any]] = []
    synthetic: list[dict[str, Any]] = []
    real = compaction = False
    for p in msg.parts:
        kind = p.get("type")
        if not isinstance(kind, str) or kind not in PART_TYPES:
            name = kind if isinstance(kind, str) else "<none>"
            batch.unknown_types[name] = batch.unknown_types.get(name, 0) + 1
            continue
        if kind == "text":
            block = {"type": "text", "text": str(p.get("text") or "")}
            if p.get("synthetic") is True:
                synthetic.append(block)
            elif p.get("ignored") is not True:
                blocks.append(block)
                real = True
            continue
        if kind == "reasoning":
            blocks.append({"type": "thinking", "text": str(p.get("text") or "")})
        elif kind == "tool":
            blocks.extend(_tool_blocks(p))
        elif kind == "file":
            blocks.append(_file_block(p))
        elif kind == "subtask":
            blocks.append(
                {
                    "type": "subtask",
                    "agent": p.get("agent"),
                    "description": p.get("description"),
                    "prompt": p.get("prompt"),
                }
            )
        elif kind == "agent":
            blocks.append({"type": "agent", "name": p.get("name")})
        elif kind == "patch":
            files = p.get("files")
            blocks.append({"type": "patch", "files": files if isinstance(files, list) else []})
        elif kind == "compaction":
            blocks.append({"type": "compaction", "auto": bool(p.get("auto"))})
            compaction = True
            continue
        else:
            continue  # step-start, step-finish, snapshot, retry: bookkeeping, no words
        real = True
    summary = msg.data.get("role") == "assistant" and msg.data.get("summary") is True
    meta = summary or (not real and bool(synthetic or compaction))
    if meta and synthetic:
        # nothing but harness text: keep it (as a system message) rather than an empty one
        blocks = synthetic + blocks
    return blocks, meta


def _facts(batch: ReadBatch, sid: str) -> SessionFacts:
    f = batch.facts.get(sid)
    if f is None:
        f = batch.facts[sid] = SessionFacts()
    return f


def _session_facts(batch: ReadBatch, sid: str, obj: dict[str, Any]) -> None:
    f = _facts(batch, sid)
    for src, attr in (("directory", "cwd"), ("title", "title"), ("version", "version")):
        v = _str(obj.get(src))
        if v is not None:
            setattr(f, attr, v)
    parent = _str(obj.get("parentID"))
    if parent is not None and parent != sid:
        batch.sidechain_of[sid] = (parent, sid)


def _part_of(msg: _Msg, batch: ReadBatch) -> MessagePart | None:
    d = msg.data
    role = d.get("role")
    if role not in ("user", "assistant"):
        name = f"role:{role}" if isinstance(role, str) else "role:<none>"
        batch.unknown_types[name] = batch.unknown_types.get(name, 0) + 1
        return None
    blocks, meta = _blocks(msg, batch)
    time = _dict(d.get("time"))
    ts = iso_ms(time.get("created"))
    model = _dict(d.get("model"))
    if role == "assistant":
        model_id = _str(d.get("modelID")) or _str(model.get("modelID"))
        provider = _str(d.get("providerID")) or _str(model.get("providerID"))
    else:
        model_id = _str(model.get("modelID")) or _str(d.get("modelID"))
        provider = _str(model.get("providerID")) or _str(d.get("providerID"))
    tokens = d.get("tokens")
    usage = tokens if role == "assistant" and isinstance(tokens, dict) else None

    f = _facts(batch, msg.sid)
    f.saw(ts)
    f.saw(iso_ms(time.get("completed")))
    if role == "assistant":
        if f.provider is None and provider is not None:
            f.provider = provider
        if f.cwd is None:
            path = d.get("path")
            cwd = _str(_dict(path).get("cwd")) if isinstance(path, dict) else _str(path)
            f.cwd = cwd
    if not meta:
        if f.head_uuid is None:
            f.head_uuid = msg.mid
        f.tail_uuid = msg.mid
        if role == "user" and not f.first_user_seen:
            first = next((b["text"] for b in blocks if b["type"] == "text"), None)
            if first is not None:
                f.first_user_seen = True
                f.oneshot = first.startswith(ONESHOT_MARKER)
    for p in msg.parts:  # the task tool names the child session it ran
        if p.get("type") == "tool":
            child = _str(_dict(_dict(p.get("state")).get("metadata")).get("sessionId"))
            if child is not None:
                batch.spawns.add((msg.sid, child))
    return MessagePart(
        msg.mid,
        msg.mid,
        "system" if meta else role,
        blocks,
        ts,
        0,
        model=model_id,
        usage=usage,
        meta=meta,
        provider=provider,
        agent_mode=_str(d.get("agent")) or _str(d.get("mode")),
    )


def _problem(rec: Record | _Msg, reason: str) -> Quarantined:
    """A record kept whole in quarantine, with why."""
    raw = rec.raw if isinstance(rec, _Msg) else rec.data
    return Quarantined(0, 0, reason, raw, rec.origin)


def read(records: list[Record]) -> ReadBatch:
    """Records (as load_session returns them) in, one MessagePart per OpenCode message out,
    keyed by session id. Pure. A record that cannot be read (or is nested too deep, then
    read cut) is quarantined whole with why; the others are read."""
    batch = ReadBatch()
    batch.lines = len(records)
    msgs: dict[tuple[str, str], _Msg] = {}
    order: list[_Msg] = []
    last: dict[str, str] = {}  # session -> the message its part files follow
    sessions: dict[str, dict[str, Any]] = {}
    for rec in records:
        try:
            obj = orjson.loads(rec.data)
        except orjson.JSONDecodeError as e:
            batch.quarantine.append(_bad_json(rec.origin, rec.data, e))
            continue
        if not isinstance(obj, dict):
            batch.quarantine.append(
                Quarantined(
                    0, 0, f"{rec.origin}: not a JSON object", rec.data[:RAW_KEPT], rec.origin
                )
            )
            continue
        obj, why = bounded(obj, rec.data)
        if why is not None:
            batch.quarantine.append(_problem(rec, why))
        try:
            _record(batch, rec, obj, sessions, msgs, order, last)
        except Exception as e:
            batch.quarantine.append(_problem(rec, unreadable(e)))
    for msg in order:
        try:
            part = _part_of(msg, batch)
        except Exception as e:
            batch.quarantine.append(_problem(msg, unreadable(e)))
            continue
        if part is not None:
            batch.parts.setdefault(msg.sid, []).append(part)
    for sid, obj in sessions.items():
        f = _facts(batch, sid)
        if f.first_timestamp is None:  # a session with no messages yet: its own times
            time = _dict(obj.get("time"))
            f.saw(iso_ms(time.get("created")))
            f.saw(iso_ms(time.get("updated")))
    return batch


def _record(
    batch: ReadBatch,
    rec: Record,
    obj: dict[str, Any],
    sessions: dict[str, dict[str, Any]],
    msgs: dict[tuple[str, str], _Msg],
    order: list[_Msg],
    last: dict[str, str],
) -> None:
    sid = rec.session_id
    if rec.kind == "session":
        sessions[sid] = obj
        _session_facts(batch, sid, obj)
    elif rec.kind == "message":
        msg = _Msg(sid, rec.id, obj, [], rec.origin, rec.data)
        if (sid, rec.id) not in msgs:
            order.append(msg)
        msgs[(sid, rec.id)] = msg
        last[sid] = rec.id
    elif rec.kind == "part":
        # Drifted part files may not name their message: they follow it in the records.
        mid = _str(obj.get("messageID")) or last.get(sid)
        target = msgs.get((sid, mid)) if mid is not None else None
        if target is None:
            batch.quarantine.append(
                Quarantined(
                    0,
                    0,
                    f"part {rec.id} names message {mid}, which is missing",
                    rec.data[:RAW_KEPT],
                    rec.origin,
                )
            )
            return
        target.parts.append(obj)
    else:
        batch.unknown_types[f"record:{rec.kind}"] = (
            batch.unknown_types.get(f"record:{rec.kind}", 0) + 1
        )
