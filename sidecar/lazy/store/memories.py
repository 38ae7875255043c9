"""Per-message memories: project slugs, reconciling an import, reading by path."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from lazy.model import MemoryView, TreeChild
from lazy.os.clock import now_iso
from lazy.store.db import fetch_row

_SLUG_UNSAFE = re.compile(r"[^a-z0-9_]+")


def uuid7() -> str:
    """A time-ordered id (RFC 9562 UUIDv7): a millisecond timestamp, then random bits."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (rand >> 68 & 0xFFF) << 64
    value |= 0b10 << 62 | rand & ((1 << 62) - 1)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def slug_base(project: str) -> str:
    """A project's plain slug: its directory name, lower-cased, ``[a-z0-9_]`` only
    (``memory-engine`` -> ``memory_engine``)."""
    name = Path(project).name or "root"
    out = _SLUG_UNSAFE.sub("_", name.lower()).strip("_")
    return out or "project"


def slug_with_hash(base: str, project: str) -> str:
    """The slug a later project whose plain slug is taken gets."""
    return f"{base}_{hashlib.sha1(project.encode()).hexdigest()[:4]}"


def given_slugs(db: Path) -> list[tuple[str, str]]:
    """The (project, slug) pairs a store has given out, read without writing anything (no
    migration, no lock held past the read); none when there is no such store yet."""
    if not db.exists():
        return []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return [
                (str(a), str(b)) for a, b in conn.execute("SELECT project, slug FROM project_slugs")
            ]
        finally:
            conn.close()
    except sqlite3.Error:
        return []  # an older schema, or a damaged store: a dry run then guesses fresh slugs


def slug_for(c: sqlite3.Connection, project: str) -> str:
    """The project's slug, assigned on first sight: the plain one if free, else with a
    4-character hash of the project path. Call inside a write transaction."""
    r = c.execute("SELECT slug FROM project_slugs WHERE project=?", (project,)).fetchone()
    if r is not None:
        return str(r[0])
    base = slug_base(project)
    slug = base
    if c.execute("SELECT 1 FROM project_slugs WHERE slug=?", (slug,)).fetchone():
        slug = slug_with_hash(base, project)
    c.execute("INSERT INTO project_slugs(project, slug) VALUES (?,?)", (project, slug))
    return slug


@dataclass(slots=True)
class Planned:
    name: str
    content: str
    meta: str  # JSON, keys sorted: compared as text
    temporal: str | None


def reconcile(c: sqlite3.Connection, tree: str, planned: Iterable[Planned]) -> tuple[int, int, int]:
    """Insert new slots, rewrite a slot whose content, meta or temporal differ, leave the
    rest: (inserted, updated, skipped). One indexed read of the node, then batched writes."""
    have = {
        name: (content, meta, temporal)
        for name, content, meta, temporal in c.execute(
            "SELECT name, content, meta, temporal FROM memories WHERE tree=?", (tree,)
        )
    }
    now = now_iso()
    inserts, updates = [], []
    skipped = 0
    for p in planned:
        old = have.get(p.name)
        if old is None:
            inserts.append((uuid7(), tree, p.name, p.content, p.meta, p.temporal, now, now))
        elif old != (p.content, p.meta, p.temporal):
            updates.append((p.content, p.meta, p.temporal, now, tree, p.name))
        else:
            skipped += 1
    c.executemany(
        "INSERT INTO memories(id, tree, name, content, meta, temporal, created_at, updated_at)"
        " VALUES (?,?,?,?,?,?,?,?)",
        inserts,
    )
    c.executemany(
        "UPDATE memories SET content=?, meta=?, temporal=?, updated_at=? WHERE tree=? AND name=?",
        updates,
    )
    return len(inserts), len(updates), skipped


def get_memory(conn: sqlite3.Connection, tree: str, name: str) -> MemoryView | None:
    r = conn.execute(
        "SELECT id, content, meta, temporal, created_at, updated_at FROM memories"
        " WHERE tree=? AND name=?",
        (tree, name),
    ).fetchone()
    if r is None:
        return None
    return MemoryView(
        id=r[0],
        path=f"{tree}/{name}",
        tree=tree,
        name=name,
        content=r[1],
        meta=orjson.loads(r[2]),
        temporal=r[3],
        created_at=r[4],
        updated_at=r[5],
    )


def children(conn: sqlite3.Connection, path: str) -> list[TreeChild]:
    """What sits directly under a node: sub-nodes (with how many memories lie below each),
    then its memories in time order."""
    prefix = "" if path == "/" else path
    nodes: dict[str, int] = {}
    # '/' < '0' in byte order: the half-open range is exactly the trees below the prefix
    for tree, n in conn.execute(
        "SELECT tree, COUNT(*) FROM memories WHERE tree > ? AND tree < ? GROUP BY tree",
        (prefix + "/", prefix + "0"),
    ):
        head = tree[len(prefix) + 1 :].split("/", 1)[0]
        nodes[head] = nodes.get(head, 0) + n
    out = [
        TreeChild(name=name, path=f"{prefix}/{name}", kind="node", count=n)
        for name, n in sorted(nodes.items())
    ]
    for (name,) in conn.execute(
        "SELECT name FROM memories WHERE tree=? ORDER BY temporal, name", (path,)
    ):
        out.append(TreeChild(name=name, path=f"{prefix}/{name}", kind="memory", count=1))
    return out


def given_slug(conn: sqlite3.Connection, project: str) -> str | None:
    """The slug the project was given, if it was (never assigns one: see ``slug_for``)."""
    r = conn.execute("SELECT slug FROM project_slugs WHERE project=?", (project,)).fetchone()
    return str(r[0]) if r is not None else None


def contents(conn: sqlite3.Connection, tree: str) -> dict[str, str]:
    """The content of each memory directly in ``tree``, by name."""
    rows = conn.execute("SELECT name, content FROM memories WHERE tree=?", (tree,)).fetchall()
    return {str(name): str(content) for name, content in rows}


# ---- what `lazy import <agent>` reads of the stored sessions (lazy.memories.session_import)

_SESSION_COLS = (
    "id, tool, kind, parent_session_id, agent_id, project, cwd, git_branch, version, title,"
    " git_commit, git_repo, provider, started_at"
)


def give_slugs(c: sqlite3.Connection, rows: Iterable[tuple[str, str]]) -> None:
    """Record slugs given out elsewhere (a dry run's scratch store copies the real one's)."""
    c.executemany("INSERT INTO project_slugs VALUES (?,?)", rows)


def session_of(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    """A stored session's row: what its memories say of where they came from."""
    return fetch_row(conn, f"SELECT {_SESSION_COLS} FROM sessions WHERE id=?", (session_id,))


def sidechains_of(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """The subagent sessions of a session, in the order they started."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM sessions WHERE parent_session_id=? AND kind='sidechain'"
            " ORDER BY started_at, id",
            (session_id,),
        )
    ]


def user_prompts(conn: sqlite3.Connection, session_id: str) -> int:
    """How many prompts the user typed in a session (harness text not counted)."""
    row = conn.execute(
        "SELECT COUNT(*) FROM messages WHERE session_id=? AND role='user' AND meta=0",
        (session_id,),
    ).fetchone()
    return int(row[0])


def source_key(
    c: sqlite3.Connection, session_id: str, subagent_id: str | None = None
) -> str | None:
    """The store's key of the source a session was read from: with ``subagent_id``, that
    subagent's file of the session; else the session's own (its main file first)."""
    if subagent_id is not None:
        r = c.execute(
            "SELECT path FROM source_files WHERE session_id=? AND agent_id=? LIMIT 1",
            (session_id, subagent_id),
        ).fetchone()
    else:
        r = c.execute(
            "SELECT path FROM source_files WHERE session_id=? ORDER BY agent_id IS NOT NULL LIMIT 1",
            (session_id,),
        ).fetchone()
    return None if r is None else str(r[0])


def session_messages(c: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """A session's messages in order, as memories are planned from them."""
    rows: list[sqlite3.Row] = c.execute(
        "SELECT key, role, kinds, text, blocks, ts, model, tool_name, provider, agent_mode, meta"
        " FROM messages WHERE session_id=? ORDER BY seq",
        (session_id,),
    ).fetchall()
    return rows
