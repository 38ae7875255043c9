"""Writing what a reader made of a batch of lines: quarantined lines, the entry DAG, spawns,
retractions, sessions and their messages, one batch in the caller's transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from lazy.blocks import role_of, spoken
from lazy.os.clock import now_iso
from lazy.records import MessagePart, ReadBatch
from lazy.store import sessions, usage
from lazy.store.archive import compress_raw, pack_blocks, unpack_blocks


@dataclass(slots=True)
class Message:
    """A message as it will be inserted: its lines' parts merged, its row built."""

    key: str
    parts: list[MessagePart]
    uuids: list[str]
    row: dict[str, Any]


def prepare(batch: ReadBatch) -> dict[str, list[Message]]:
    """Pure: group each session's parts into messages and build their rows (zstd included),
    so a second thread can do it while the store's thread writes."""
    out: dict[str, list[Message]] = {}
    for key, parts in batch.parts.items():
        groups: dict[str, list[MessagePart]] = {}
        for p in parts:
            groups.setdefault(p.key, []).append(p)
        msgs = []
        for mkey, ps in groups.items():
            seen: set[str] = set()
            blocks: list[dict[str, Any]] = []
            uuids: list[str] = []
            for p in ps:
                if p.uuid not in seen:
                    seen.add(p.uuid)
                    uuids.append(p.uuid)
                    blocks.extend(p.blocks)
            msgs.append(Message(mkey, ps, uuids, _build(ps, blocks)))
        out[key] = msgs
    return out


def _usage_size(u: dict[str, Any] | None) -> int:
    if not u:
        return -1
    v = u.get("output_tokens")
    return v if isinstance(v, int) else 0


def _build(parts: list[MessagePart], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    first = parts[0]
    role = role_of(blocks, first.role)
    text = spoken(blocks)
    usage = max((p.usage for p in parts), key=_usage_size, default=None)
    model = next((p.model for p in parts if p.model), None)
    tool_name = next((b.get("name") for b in blocks if b["type"] == "tool_use"), None)
    return {
        "role": role,
        "kinds": orjson.dumps([b["type"] for b in blocks]).decode(),
        "text": text,
        "blocks": pack_blocks(blocks),
        "model": model,
        "usage": orjson.dumps(usage).decode() if usage else None,
        "tool_name": tool_name,
        "request_id": next((p.request_id for p in parts if p.request_id), None),
    }


def _chunks(items: list[str], n: int = 500) -> Iterable[list[str]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def apply_batch(
    c: sqlite3.Connection,
    batch: ReadBatch,
    spath: str,
    agent: str,
    generation: int,
    prepared: dict[str, list[Message]] | None = None,
    *,
    replace: bool = False,
    project_of: Callable[[str], str],
) -> tuple[int, int, set[str]]:
    """Store a batch: (messages added, messages updated, sessions touched). ``replace``: a
    message seen again with other content is rewritten (OpenCode edits its records in
    place); else it can only grow by new lines. ``project_of`` names a cwd's project."""
    _quarantine(c, batch, spath, generation)
    _link(c, batch)
    touched = _retract(c, batch)
    added = updated = 0
    for key, facts in batch.facts.items():
        old = sessions.links(c, key)
        # A brand-new main session starts out as a Builder of its own, numbered as it is
        # written; regrouping rewrites only what joining it elsewhere changes.
        own = key if old is None and key not in batch.sidechain_of else None
        if prepared is None:
            prepared = prepare(batch)
        msgs = prepared.get(key, [])
        a, u, last = _apply_messages(c, key, msgs, old.last_seq if old else 0, own, replace)
        added += a
        updated += u
        side = batch.sidechain_of.get(key)
        owner = sessions.Owner(agent, *side) if side else sessions.Owner(agent)
        project = project_of(facts.cwd) if facts.cwd else None
        sessions.upsert(c, key, owner, facts, project=project, added=a, last_seq=last)
        relink = (
            old is None
            or any(e.logical_parent_uuid for e in batch.entries.get(key, []))
            or old.changed_by(facts)
        )
        if a or u or relink:
            touched.add(key)
            sessions.mark_dirty(c, key, 2 if relink else 1)
    usage.apply(c, batch)  # after the sessions: which copy counts asks what each one is
    return added, updated, touched


def _quarantine(c: sqlite3.Connection, batch: ReadBatch, spath: str, generation: int) -> None:
    for q in batch.quarantine:
        c.execute(
            "INSERT OR IGNORE INTO quarantine(path, line_no, byte_offset, generation, reason, raw,"
            " raw_size, at) VALUES (?,?,?,?,?,?,?,?)",
            (
                q.origin or spath,
                q.line_no,
                q.offset,
                generation,
                q.reason,
                compress_raw(q.raw),
                q.raw_size,
                now_iso(),
            ),
        )


def _link(c: sqlite3.Connection, batch: ReadBatch) -> None:
    """The batch's part of the entry DAG, its logical links and the subagents it spawned."""
    for key, entries in batch.entries.items():
        c.executemany(
            "INSERT OR IGNORE INTO entries(uuid, session_id) VALUES (?,?)",
            sorted((e.uuid, key) for e in entries if not e.meta),  # in key order: fewer page hops
        )
        links = [(key, e.logical_parent_uuid) for e in entries if e.logical_parent_uuid]
        if links:
            c.executemany("INSERT OR IGNORE INTO session_links VALUES (?,?)", links)
    if batch.spawns:
        c.executemany("INSERT OR IGNORE INTO spawns VALUES (?,?)", sorted(batch.spawns))


def _retract(c: sqlite3.Connection, batch: ReadBatch) -> set[str]:
    """Harness messages the batch takes back; the sessions that lost one."""
    touched: set[str] = set()
    for key, retracted in batch.retract.items():
        for uuid in retracted:
            n = c.execute(
                "DELETE FROM messages WHERE session_id=? AND key=? AND meta=1", (key, uuid)
            ).rowcount
            if n:
                c.execute(
                    "UPDATE sessions SET message_count = message_count - ?, dirty = 2 WHERE id=?",
                    (n, key),
                )
                touched.add(key)
    return touched


_Stored = tuple[int, list[dict[str, Any]], str]  # a stored message: id, blocks, uuids (JSON)


def _stored(c: sqlite3.Connection, key: str, msgs: list[Message]) -> dict[str, _Stored]:
    existing: dict[str, _Stored] = {}
    for chunk in _chunks([m.key for m in msgs]):
        marks = ",".join("?" * len(chunk))
        for mid, mkey, blocks, text, uuids in c.execute(
            "SELECT id, key, blocks, text, uuids FROM messages"
            f" WHERE session_id=? AND key IN ({marks})",
            [key, *chunk],
        ):
            existing[mkey] = (mid, unpack_blocks(blocks, text), uuids)
    return existing


def _apply_messages(
    c: sqlite3.Connection,
    key: str,
    msgs: list[Message],
    last_seq: int,
    own: str | None,
    replace: bool = False,
) -> tuple[int, int, int]:
    """Insert new messages, merge grown ones: (added, updated, the last seq used)."""
    if not msgs:
        return 0, 0, last_seq
    # a brand-new session has nothing to merge with
    existing = _stored(c, key, msgs) if own is None else {}
    seq = last_seq
    updated = 0
    inserts = []
    for msg in msgs:
        if msg.key in existing:
            updated += _merge(c, msg, existing[msg.key], replace)
            continue
        seq += 1
        inserts.append(_insert_row(key, msg, seq, own))
    c.executemany(
        "INSERT INTO messages(session_id, key, seq, role, kinds, text, blocks, uuids, meta,"
        " model, request_id, usage, tool_name, ts, builder_id, number, provider, agent_mode)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        inserts,
    )
    return len(inserts), updated, seq


def _merge(c: sqlite3.Connection, msg: Message, stored: _Stored, replace: bool) -> int:
    """A message seen again: rewritten (``replace``) or grown by its new lines; 1 if it
    changed."""
    mid, old_blocks, old_uuids = stored
    if replace:
        if old_blocks == unpack_blocks(msg.row["blocks"], msg.row["text"]):
            return 0
        c.execute(
            "UPDATE messages SET role=:role, kinds=:kinds, text=:text, blocks=:blocks,"
            " model=:model, usage=:usage, tool_name=:tool_name WHERE id=:id",
            {**msg.row, "id": mid},
        )
        return 1
    have = set(orjson.loads(old_uuids))
    grown = [p for p in msg.parts if p.uuid not in have]
    if not grown:
        return 0
    blocks = list(old_blocks)
    for p in grown:
        blocks.extend(p.blocks)
    uuids = [*orjson.loads(old_uuids), *(p.uuid for p in grown)]
    m = _build(msg.parts, blocks)
    c.execute(
        "UPDATE messages SET role=:role, kinds=:kinds, text=:text,"
        " blocks=:blocks, model=COALESCE(model, :model), usage=COALESCE(:usage, usage),"
        " tool_name=COALESCE(tool_name, :tool_name), uuids=:uuids WHERE id=:id",
        {**m, "uuids": orjson.dumps(uuids).decode(), "id": mid},
    )
    return 1


def _insert_row(key: str, msg: Message, seq: int, own: str | None) -> tuple[Any, ...]:
    m = msg.row
    first = msg.parts[0]
    return (
        key,
        msg.key,
        seq,
        m["role"],
        m["kinds"],
        m["text"],
        m["blocks"],
        orjson.dumps(msg.uuids).decode(),
        first.meta,
        m["model"],
        m["request_id"],
        m["usage"],
        m["tool_name"],
        first.timestamp,
        own,
        seq if own else None,
        first.provider,
        first.agent_mode,
    )


def keys_in_order(
    c: sqlite3.Connection, session_id: str, subagent_id: str | None
) -> dict[str, list[str]]:
    """Each stored session's message keys in order: the session's own and its sidechains',
    or only subagent ``subagent_id``'s when one is named."""
    stored: dict[str, list[str]] = {}
    for key, msg_key in c.execute(
        "SELECT session_id, key FROM messages WHERE session_id IN"
        " (SELECT id FROM sessions WHERE (id = ? OR parent_session_id = ?)"
        "  AND (? IS NULL OR agent_id = ?)) ORDER BY session_id, seq",
        (session_id, session_id, subagent_id, subagent_id),
    ):
        stored.setdefault(key, []).append(msg_key)
    return stored


def stored_keys(c: sqlite3.Connection, session_id: str) -> set[tuple[str, str]]:
    """The session's stored messages (and its subagents'), by their identity: what a
    re-derivation must give back for it to lose nothing."""
    return {
        (r[0], r[1])
        for r in c.execute(
            "SELECT session_id, key FROM messages WHERE session_id IN"
            " (SELECT id FROM sessions WHERE id = ? OR parent_session_id = ?)",
            (session_id, session_id),
        )
    }


def last_id(conn: sqlite3.Connection) -> int:
    """The id of the newest message stored (0 for none): ids only grow."""
    return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0])


def messages_since(conn: sqlite3.Connection, after: int) -> int:
    """How many messages were stored after the one with id ``after``."""
    return int(conn.execute("SELECT COUNT(*) FROM messages WHERE id > ?", (after,)).fetchone()[0])


def builders_grown_since(conn: sqlite3.Connection, after: int) -> list[tuple[str, int]]:
    """(Builder, its newest message id) for each Builder with a message newer than ``after``."""
    # "+builder_id": by the id range, not by walking the whole builder_id index (at a
    # million messages that scan took half a second and filled the page cache)
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT builder_id, MAX(id) FROM messages WHERE id > ? AND +builder_id IS NOT NULL"
            " GROUP BY +builder_id",
            (after,),
        )
    ]
