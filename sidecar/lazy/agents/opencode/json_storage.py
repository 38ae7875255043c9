"""Reading OpenCode's JSON storage (before 1.2, and what its migration left behind).

v1.1 layout: storage/session/<projectID>/<ses>.json, storage/message/<ses>/<msg>.json,
storage/part/<msg>/<prt>.json. Oldest (2025): project/<dir>/storage/session/info/<ses>.json,
…/session/message/<ses>/<msg>.json, …/session/part/<ses>/<msg>/<prt>.json. Drifted copies
keep parts flat in storage/part/<prt>.json, naming their message inside.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from lazy.agents.jsonl import unreadable
from lazy.agents.opencode.records import (
    RAW_KEPT,
    Record,
    SessionRef,
    bad_json,
    integer,
    mapping,
    string,
)
from lazy.records import Quarantined


def load_json(path: Path) -> tuple[bytes, dict[str, Any] | None, Quarantined | None]:
    """A JSON file's bytes and object, or why it could not be read."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        return b"", None, Quarantined(0, 0, f"{path}: unreadable: {e}", b"", str(path))
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        return raw, None, bad_json(path, raw, e)
    if not isinstance(obj, dict):
        return raw, None, Quarantined(0, 0, f"{path}: not a JSON object", raw[:RAW_KEPT], str(path))
    return raw, obj, None


def json_files(d: Path) -> list[Path]:
    """A directory's JSON files by name (OpenCode names them by id; temp files start with '.')."""
    try:
        with os.scandir(d) as it:
            names = [e.name for e in it if e.name.endswith(".json") and not e.name.startswith(".")]
    except OSError:
        return []
    return [d / n for n in sorted(names)]


def subdirs(d: Path) -> list[Path]:
    try:
        with os.scandir(d) as it:
            names = [e.name for e in it if e.is_dir()]
    except OSError:
        return []
    return [d / n for n in sorted(names)]


def files_stamp(paths: Iterable[Path]) -> tuple[int, int]:
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


@dataclass(slots=True)
class _Tree:
    """Where one session's files live."""

    session_file: Path
    message_dir: Path
    part_root: Path  # v1.1: part/<msg>/…; oldest: part/<ses>/<msg>/…
    flat_parts: Path | None  # v1.1's part/ itself, for drifted flat part files


def _v1_sessions(data_dir: Path) -> Iterator[Path]:
    for proj in subdirs(data_dir / "storage" / "session"):
        yield from json_files(proj)


def _oldest_sessions(data_dir: Path) -> Iterator[Path]:
    for proj in subdirs(data_dir / "project"):
        yield from json_files(proj / "storage" / "session" / "info")


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
        hit = _flat_cache[d] = (mtime, json_files(d))
    return hit[1]


# part/<message id>/ dirs of a v1.1 tree whose message file is gone, by the session their
# parts name: found once per listing (a scan of every part dir), reported by each load
_orphans: dict[Path, dict[str, list[Path]]] = {}


def _orphan_parts(storage: Path) -> dict[str, list[Path]]:
    files = [p for d in subdirs(storage / "message") for p in json_files(d)]
    known = {p.stem for p in files}
    ids: set[str] | None = None  # the ids inside, read only if a file is not named by its id
    out: dict[str, list[Path]] = {}
    for d in subdirs(storage / "part"):
        if d.name in known:
            continue
        if ids is None:
            ids = {i for p in files if (i := string((load_json(p)[1] or {}).get("id")))}
        if d.name in ids:
            continue
        for path in json_files(d):
            _, obj, _ = load_json(path)
            sid = string(obj.get("sessionID")) if obj else None
            out.setdefault(sid or "", []).append(path)
    _orphans[storage] = out
    return out


def _tree_stamp(tree: _Tree, flat: tuple[int, int]) -> str:
    msgs = json_files(tree.message_dir)
    files = [tree.session_file, *msgs]
    for m in msgs:  # a message's parts sit in a directory named by its id (= its file name)
        files.extend(json_files(tree.part_root / m.stem))
    newest, count = files_stamp(files)
    return f"{max(newest, flat[0])}:{count + flat[1]}"


def _json_ref(path: Path, obj: dict[str, Any], flat: tuple[int, int]) -> SessionRef:
    sid = string(obj.get("id")) or path.stem
    time = mapping(obj.get("time"))
    return SessionRef(
        sid,
        str(path),
        string(obj.get("parentID")),
        string(obj.get("directory")),
        string(obj.get("title")),
        string(obj.get("version")),
        integer(time.get("created")),
        integer(time.get("updated")),
        _tree_stamp(_tree(path, sid), flat),
    )


def load_json_session(location: Path, sid: str) -> tuple[list[Record], list[Quarantined]]:
    tree = _tree(location, sid)
    problems: list[Quarantined] = []
    raw, _, bad = load_json(location)
    if bad is not None:
        return [], [bad]
    records = [Record("session", sid, sid, raw, str(location))]
    messages: list[tuple[str, Record]] = []
    lost: set[str] = set()  # message files that would not parse: their parts have no message
    for path in json_files(tree.message_dir):
        mraw, mobj, mbad = load_json(path)
        if mbad is not None:
            problems.append(mbad)
            lost.add(path.stem)
            continue
        assert mobj is not None
        mid = string(mobj.get("id")) or path.stem
        messages.append((mid, Record("message", mid, sid, mraw, str(path))))
    known = {mid for mid, _ in messages}
    parts: dict[str, list[tuple[str, Record]]] = {}

    def take(path: Path, dir_mid: str | None, flat: bool) -> None:
        praw, pobj, pbad = load_json(path)
        if pbad is not None:
            problems.append(pbad)
            return
        assert pobj is not None
        mid = string(pobj.get("messageID")) or dir_mid
        if flat and mid not in known and pobj.get("sessionID") != sid:
            return  # another session's flat part
        pid = string(pobj.get("id")) or path.stem
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
        for d in subdirs(tree.part_root):
            for path in json_files(d):
                take(path, d.name, False)
    else:
        for mid in sorted(known | lost):
            for path in json_files(tree.part_root / mid):
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


def list_json(data_dir: Path) -> tuple[list[SessionRef], list[Quarantined]]:
    """The sessions of the JSON storage: the v1.1 layout's first, then the oldest one's (a
    session in both is listed twice; the first listed wins)."""
    refs: list[SessionRef] = []
    problems: list[Quarantined] = []
    flat_dir = data_dir / "storage" / "part"
    flat = files_stamp(json_files(flat_dir))
    if flat_dir.is_dir():
        for path in _orphan_parts(flat_dir.parent).get("", []):
            problems.append(
                Quarantined(
                    0, 0, "part names no session, and its message is missing", b"", str(path)
                )
            )
    for paths in (_v1_sessions(data_dir), _oldest_sessions(data_dir)):
        for path in paths:
            _, obj, bad_file = load_json(path)
            if bad_file is not None:
                problems.append(bad_file)
                continue
            assert obj is not None
            try:
                ref = _json_ref(path.absolute(), obj, flat)
            except Exception as e:
                problems.append(Quarantined(0, 0, unreadable(e), b"", str(path)))
                continue
            refs.append(ref)
    return refs, problems
