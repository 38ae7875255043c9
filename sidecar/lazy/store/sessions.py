"""The sessions table: what readers learn about a session (its facts), by column name, how a
later batch merges into what is stored, and the rows joining reads back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lazy.records import SessionFacts

# How a later batch's value merges into the stored one (``{c}`` is the column):
_KEEP = "COALESCE(sessions.{c}, excluded.{c})"  # the first value learnt stays
_LATEST = "COALESCE(excluded.{c}, sessions.{c})"  # the newest value learnt wins
_MOST = "MAX(sessions.{c}, excluded.{c})"  # a flag once set stays set; a count only grows
_EARLIEST = "MIN(COALESCE(sessions.{c}, excluded.{c}), COALESCE(excluded.{c}, sessions.{c}))"
_LATEST_TIME = "MAX(COALESCE(sessions.{c}, ''), COALESCE(excluded.{c}, ''))"


@dataclass(frozen=True, slots=True)
class _Fact:
    column: str
    field: str  # of SessionFacts
    merge: str | None  # None: written when the row is made, never merged
    flag: bool = False  # an INTEGER column holding a bool


# Every SessionFacts field, once: the upsert writes them, load_facts reads them back.
FACTS = (
    _Fact("cwd", "cwd", _KEEP),
    _Fact("git_branch", "git_branch", _KEEP),
    _Fact("version", "version", _KEEP),
    _Fact("started_at", "first_timestamp", _EARLIEST),
    _Fact("updated_at", "last_timestamp", _LATEST_TIME),
    _Fact("title", "title", _LATEST),
    _Fact("clear_start", "clear_start", _MOST, flag=True),
    _Fact("continued_in", "continued_in", _LATEST),
    _Fact("oneshot", "oneshot", None, flag=True),  # a one-shot is forgotten, never merged
    _Fact("first_user_seen", "first_user_seen", _MOST, flag=True),
    _Fact("head_uuid", "head_uuid", _KEEP),
    _Fact("head_parent", "head_parent", _KEEP),
    _Fact("copied_from", "copied_from", _KEEP),
    _Fact("forked", "forked", _MOST, flag=True),
    _Fact("head_msg", "head_msg", _KEEP),
    _Fact("tail_uuid", "tail_uuid", _LATEST),
    _Fact("git_commit", "git_commit", _KEEP),
    _Fact("git_repo", "git_repo", _KEEP),
    _Fact("provider", "provider", _KEEP),
    _Fact("cursor", "cursor", _LATEST),
)
# the columns a batch writes besides its facts, and how they merge
_OWN = (
    ("id", None),
    ("tool", None),
    ("kind", None),
    ("parent_session_id", None),
    ("agent_id", None),
    ("builder_id", None),
    ("project", _KEEP),
    ("message_count", "sessions.{c} + excluded.{c}"),
    ("last_seq", _MOST),
)
_COLUMNS = [c for c, _ in _OWN] + [f.column for f in FACTS]
_MERGES = [(c, m) for c, m in _OWN if m] + [(f.column, f.merge) for f in FACTS if f.merge]
_UPSERT = (
    f"INSERT INTO sessions({', '.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})"
    " ON CONFLICT(id) DO UPDATE SET " + ", ".join(f"{c}={m.format(c=c)}" for c, m in _MERGES)
)
_LOAD = f"SELECT {', '.join(f.column for f in FACTS)} FROM sessions WHERE id = ?"


def facts_of(row: tuple[Any, ...]) -> SessionFacts:
    """A sessions row's facts columns (in the order of FACTS) as the reader's facts."""
    facts = SessionFacts()
    for f, v in zip(FACTS, row, strict=True):
        setattr(facts, f.field, bool(v) if f.flag else v)
    return facts


def load_facts(conn: sqlite3.Connection) -> Callable[[str], SessionFacts | None]:
    """What earlier captures stored of a session's facts, for a reader to carry on from."""

    def load(key: str) -> SessionFacts | None:
        r = conn.execute(_LOAD, (key,)).fetchone()
        return None if r is None else facts_of(r)

    return load


@dataclass(frozen=True, slots=True)
class Owner:
    """Who a session row belongs to: its agent, and for a sidechain its parent session and
    subagent id (None for a main session)."""

    agent: str
    parent_session_id: str | None = None
    subagent_id: str | None = None


def upsert(
    c: sqlite3.Connection,
    key: str,
    owner: Owner,
    facts: SessionFacts,
    *,
    project: str | None,
    added: int,
    last_seq: int,
) -> None:
    """Merge what a batch learnt of session ``key`` into its row (made if new)."""
    side = owner.parent_session_id is not None
    own = {
        "id": key,
        "tool": owner.agent,
        "kind": "sidechain" if side else "main",
        "parent_session_id": owner.parent_session_id,
        "agent_id": owner.subagent_id,
        "builder_id": None if side else key,
        "project": project,
        "message_count": added,
        "last_seq": last_seq,
    }
    values = [own[c] for c, _ in _OWN] + [getattr(facts, f.field) for f in FACTS]
    c.execute(_UPSERT, values)


@dataclass(frozen=True, slots=True)
class Links:
    """What a stored session said about its links before a batch: a batch that changes any
    of them may change which Builder it belongs to."""

    head_uuid: str | None
    continued_in: str | None
    clear_start: bool
    copied_from: str | None
    last_seq: int

    def changed_by(self, f: SessionFacts) -> bool:
        return (
            (self.head_uuid is None and f.head_uuid is not None)
            or self.continued_in != f.continued_in
            or (not self.clear_start and f.clear_start)
            or self.copied_from != f.copied_from
        )


def links(c: sqlite3.Connection, key: str) -> Links | None:
    r = c.execute(
        "SELECT head_uuid, continued_in, clear_start, copied_from, last_seq FROM sessions"
        " WHERE id=?",
        (key,),
    ).fetchone()
    return None if r is None else Links(r[0], r[1], bool(r[2]), r[3], r[4])


def mark_dirty(c: sqlite3.Connection, key: str, level: int) -> None:
    """Builder work to redo: 1 renumbers what the session gained, 2 regroups."""
    c.execute("UPDATE sessions SET dirty = MAX(dirty, ?) WHERE id = ?", (level, key))


def mark_flat(c: sqlite3.Connection, session_id: str, subagent_id: str) -> None:
    """A 2.0.x agent file beside the session files: listed only if a tool call spawned it."""
    c.execute(
        "UPDATE sessions SET flat=1 WHERE parent_session_id=? AND agent_id=?",
        (session_id, subagent_id),
    )


def holds(c: sqlite3.Connection, session_id: str, subagent_id: str | None) -> bool:
    """The store holds the session a file carries (the main one, or this subagent)."""
    return (
        c.execute(
            "SELECT 1 FROM sessions WHERE (? IS NULL AND id=?)"
            " OR (parent_session_id=? AND agent_id=?) LIMIT 1",
            (subagent_id, session_id, session_id, subagent_id),
        ).fetchone()
        is not None
    )


def family(c: sqlite3.Connection, session_id: str) -> list[str]:
    """A session's id and its subagents' (sidechain) ids."""
    return [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE id=? OR parent_session_id=?", (session_id, session_id)
        )
    ]


def forget(c: sqlite3.Connection, keys: list[str]) -> None:
    """Delete sessions and every row derived for them (the raw archive stays)."""
    for table, col in (
        ("messages", "session_id"),
        ("entries", "session_id"),
        ("session_links", "session_id"),
        ("sessions", "id"),
    ):
        c.executemany(f"DELETE FROM {table} WHERE {col}=?", [(k,) for k in keys])
