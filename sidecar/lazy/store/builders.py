"""The builders table and Builder membership: which Builder each session and message belongs
to, their numbering, and each Builder's summary row. Joining decides; this writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from lazy.store import meta


def join_version(c: sqlite3.Connection) -> str | None:
    """The joining rules' version the stored Builders were last grouped by."""
    return meta.get(c, "join_version")


def set_join_version(c: sqlite3.Connection, version: str) -> None:
    meta.put(c, "join_version", version)


def pending(c: sqlite3.Connection, version: int) -> bool:
    """Builder work is waiting: rules of another version, or a session capture changed."""
    if join_version(c) != str(version):
        return True
    return c.execute("SELECT 1 FROM sessions WHERE dirty > 0 LIMIT 1").fetchone() is not None


def most_dirty(c: sqlite3.Connection) -> int:
    return int(c.execute("SELECT MAX(dirty) FROM sessions").fetchone()[0] or 0)


def builders_dirty(c: sqlite3.Connection, *, at_least: int) -> set[str]:
    """The Builders of sessions with work at least this dirty (1 renumber, 2 regroup)."""
    return {
        r[0]
        for r in c.execute(
            "SELECT builder_id FROM sessions WHERE dirty>=? AND builder_id IS NOT NULL",
            (at_least,),
        )
    }


def clean(c: sqlite3.Connection) -> None:
    c.execute("UPDATE sessions SET dirty=0 WHERE dirty>0")


def move_main(c: sqlite3.Connection, sid: str, bid: str) -> None:
    """A main session joins Builder ``bid``; its messages are numbered again there."""
    c.execute("UPDATE sessions SET builder_id=? WHERE id=?", (bid, sid))
    c.execute("UPDATE messages SET builder_id=NULL, number=NULL WHERE session_id=?", (sid,))


def sidechains_astray(c: sqlite3.Connection) -> list[tuple[str, str | None, str | None]]:
    """(sidechain, its parent's Builder, its own) for each not in its parent's Builder."""
    return [
        (sid, parent, current)
        for sid, parent, current in c.execute(
            "SELECT s.id, p.builder_id, s.builder_id FROM sessions s"
            " LEFT JOIN sessions p ON p.id = s.parent_session_id WHERE s.kind='sidechain'"
        ).fetchall()
        if parent != current
    ]


def move_sidechain(c: sqlite3.Connection, sid: str, bid: str | None) -> None:
    c.execute("UPDATE sessions SET builder_id=?, dirty=1 WHERE id=?", (bid, sid))
    c.execute("UPDATE messages SET builder_id=NULL, number=NULL WHERE session_id=?", (sid,))


def keep_only(c: sqlite3.Connection, live: set[str]) -> None:
    """Delete the Builders no session belongs to any more."""
    for (bid,) in c.execute("SELECT id FROM builders").fetchall():
        if bid not in live:
            c.execute("DELETE FROM builders WHERE id=?", (bid,))


def unfork_but(c: sqlite3.Connection, forked: dict[str, str]) -> None:
    """A Builder marked as forked from another that ``forked`` no longer says is not."""
    for bid, was in c.execute(
        "SELECT id, forked_from FROM builders WHERE forked_from IS NOT NULL"
    ).fetchall():
        if forked.get(bid) != was:
            c.execute("UPDATE builders SET forked_from=NULL WHERE id=?", (bid,))


def mark_fork(c: sqlite3.Connection, bid: str, origin: str) -> None:
    """Builder ``bid`` (its first session's id) forked from ``origin``."""
    c.execute(
        "INSERT INTO builders(id, tool, forked_from)"
        " SELECT ?, tool, ? FROM sessions WHERE id=?"
        " ON CONFLICT(id) DO UPDATE SET forked_from=excluded.forked_from",
        (bid, origin, bid),
    )


def delete(c: sqlite3.Connection, bid: str) -> None:
    c.execute("DELETE FROM builders WHERE id=?", (bid,))


def mains_with_messages(c: sqlite3.Connection, bid: str) -> list[str]:
    """The Builder's main sessions that hold messages, in the order they are numbered."""
    return [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main' AND message_count>0"
            " ORDER BY started_at, message_count, id",
            (bid,),
        )
    ]


def message_count(c: sqlite3.Connection, bid: str) -> int | None:
    r = c.execute("SELECT message_count FROM builders WHERE id=?", (bid,)).fetchone()
    return None if r is None else int(r[0])


def dirty_mains(c: sqlite3.Connection, bid: str) -> set[str]:
    return {
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main' AND dirty>0", (bid,)
        )
    }


def dirty_sidechains(c: sqlite3.Connection, bid: str) -> list[str]:
    return [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='sidechain' AND dirty>0", (bid,)
        ).fetchall()
    ]


def placed(c: sqlite3.Connection, sid: str, bid: str) -> bool:
    """Some message of the session is already numbered in Builder ``bid``."""
    return (
        c.execute(
            "SELECT 1 FROM messages WHERE session_id=? AND builder_id=? LIMIT 1", (sid, bid)
        ).fetchone()
        is not None
    )


def top_number(c: sqlite3.Connection, sid: str, bid: str) -> int:
    return int(
        c.execute(
            # without INDEXED BY the planner takes messages_builder and walks every message of the
            # Builder, once per session regrouped (22-27 ms a call on a 37,900-message Builder)
            "SELECT COALESCE(MAX(number), 0) FROM messages INDEXED BY messages_placing"
            " WHERE session_id=? AND builder_id=?",
            (sid, bid),
        ).fetchone()[0]
    )


def number_unplaced(c: sqlite3.Connection, bid: str, sid: str, after: int) -> int:
    """Number the session's messages not yet placed in the Builder, after ``after``."""
    ids = c.execute(
        "SELECT id FROM messages WHERE session_id=? AND builder_id IS NULL ORDER BY seq", (sid,)
    ).fetchall()
    c.executemany(
        "UPDATE messages SET builder_id=?, number=? WHERE id=?",
        [(bid, after + i, mid) for i, (mid,) in enumerate(ids, 1)],
    )
    return len(ids)


def versions(c: sqlite3.Connection, sessions: list[str]) -> dict[str, str]:
    marks = ",".join("?" * len(sessions))
    return {
        sid: version
        for sid, version in c.execute(
            f"SELECT id, COALESCE(version, '') FROM sessions WHERE id IN ({marks})", sessions
        ).fetchall()
    }


@dataclass(frozen=True, slots=True)
class Placed:
    """A message as numbering sees it (``blocks`` only when asked for)."""

    id: int
    key: str
    builder_id: str | None
    number: int | None
    role: str
    text: str
    kinds: str
    blocks: bytes | None


def messages_to_number(c: sqlite3.Connection, sid: str, *, with_blocks: bool) -> list[Placed]:
    blocks = "blocks" if with_blocks else "NULL"
    return [
        Placed(*r)
        for r in c.execute(
            "SELECT id, key, builder_id, number, role, text, kinds,"
            f" {blocks} FROM messages WHERE session_id=? ORDER BY seq",
            (sid,),
        ).fetchall()
    ]


def set_numbers(c: sqlite3.Connection, updates: list[tuple[str, int | None, int]]) -> None:
    """(Builder, number, message id) each."""
    c.executemany("UPDATE messages SET builder_id=?, number=? WHERE id=?", updates)


def first_prompts(c: sqlite3.Connection, bid: str) -> Iterator[str]:
    """The texts of the Builder's first user messages, in order (what it is about)."""
    for (text,) in c.execute(
        "SELECT m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
        " WHERE m.builder_id=? AND s.kind='main' AND m.role='user' AND m.meta=0"
        " AND m.number IS NOT NULL ORDER BY m.number LIMIT 20",
        (bid,),
    ):
        yield text


def save_summary(
    c: sqlite3.Connection, bid: str, session_ids: list[str], summary: str, count: int
) -> None:
    """The Builder's row: from its first session, its span, its latest title."""
    first = c.execute(
        "SELECT project, started_at, title, tool FROM sessions WHERE id=?", (session_ids[0],)
    ).fetchone()
    marks = ",".join("?" * len(session_ids))
    span = c.execute(
        f"SELECT MIN(started_at), MAX(updated_at) FROM sessions WHERE id IN ({marks})",
        session_ids,
    ).fetchone()
    title = c.execute(
        f"SELECT title FROM sessions WHERE id IN ({marks}) AND title IS NOT NULL"
        " ORDER BY updated_at DESC LIMIT 1",
        session_ids,
    ).fetchone()
    c.execute(
        "INSERT INTO builders(id, tool, project, started_at, updated_at, summary, title,"
        " message_count) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
        " project=excluded.project, started_at=excluded.started_at,"
        " updated_at=excluded.updated_at, summary=excluded.summary, title=excluded.title,"
        " message_count=excluded.message_count",
        (bid, first[3], first[0], span[0], span[1], summary, title[0] if title else None, count),
    )
