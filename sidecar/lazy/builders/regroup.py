"""Joining session files into Builders: one per logical conversation.

A Builder runs from a start or /clear to the next /clear; compaction and resume continue
it. Sessions are joined by the links Claude Code writes (formats.md §1.5), read from the
store's entry DAG, so stored conversations regroup without a re-import:

- a ``continued-in`` record names the session that carries the conversation on;
- a session opened by /clear starts a Builder (its reused caveat line links nothing);
- a session whose lines carry ``forkedFrom`` (2.1.x ``--fork-session``, ``/branch``) is a
  fork: a Builder of its own, linked to the one it came from;
- a session whose first entry repeats another session's uuid is a copy of it: a 1.0.x
  resume (continues it) or, from 2.x on, a fork;
- a 1.0.x session that opens by replaying a compaction summary (``-p --continue`` or
  ``--resume`` after a /compact copies the conversation from the summary on, with fresh
  uuids) continues the nearest earlier session of its project that holds that summary;
- a session whose first entry's parent lies in another session continues it when that
  parent was the other's leaf, and forks it when the parent lies mid-conversation;
- a compaction boundary whose logical parent lies in another session continues it.

Codex resumes in the same file and names a fork's origin (``forked_from_id``). OpenCode
continues in the same session and writes nothing that links a fork to its origin but the
title it gives the fork, "<origin title> (fork #N)": a fork of the earlier session of that
title.

``summary.leafUuid`` is a title, not a link, and is not used.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from lazy.agents.claude.reader import is_compact_summary, said
from lazy.store import Store
from lazy.store.archive import decompress

# Bumped whenever the joining rules change: stored conversations then regroup by the new
# rules on the next refresh, with no re-import.
JOIN_VERSION = 5
_FORK_TITLE = re.compile(r"^(.*) \(fork #\d+\)$")


# a message as a 1.0.x replay repeats it: role, words, block kinds, blocks (tool content)
_Said = tuple[str, str, str, bytes | None]


@dataclass(slots=True)
class _S:
    id: str
    tool: str
    started_at: str
    version: str
    clear_start: bool
    continued_in: str | None
    copied_from: str | None
    forked: bool
    head_msg: str | None
    head_uuid: str | None
    head_parent: str | None
    tail_uuid: str | None
    title: str | None
    project: str | None
    builder_id: str | None
    dirty: int
    rank: int = 0


def _owners(c: sqlite3.Connection, uuid: str, exclude: str) -> list[str]:
    return [
        r[0]
        for r in c.execute(
            "SELECT session_id FROM entries WHERE uuid=? AND session_id<>?"
            " AND session_id NOT LIKE '%:%'",
            (uuid, exclude),
        )
    ]


def _compaction_replayed(
    c: sqlite3.Connection, s: _S, old_in: dict[str | None, list[_S]]
) -> str | None:
    """The session whose compaction a 1.0.x session opens by replaying: the nearest earlier
    1.0.x session of the same project holding that summary (its words are the model's, and
    a ``--continue`` takes the project's latest session)."""
    earlier = [o for o in old_in.get(s.project, []) if o.rank < s.rank]
    if not earlier:
        return None
    first = c.execute(
        "SELECT meta, text FROM messages WHERE session_id=? ORDER BY seq LIMIT 1", (s.id,)
    ).fetchone()
    if first is None or not first[0] or not is_compact_summary(first[1]):
        return None
    for o in reversed(earlier):
        if c.execute(
            "SELECT 1 FROM messages WHERE session_id=? AND meta=1 AND text=? LIMIT 1",
            (o.id, first[1]),
        ).fetchone():
            return o.id
    return None


def _link(
    c: sqlite3.Connection,
    s: _S,
    by_id: dict[str, _S],
    continued_from: dict[str, str],
    first_with: dict[str, _S],
    old_in: dict[str | None, list[_S]],
) -> tuple[str | None, str]:
    """(the session ``s`` is joined to, "continue" | "fork"), or (None, "root")."""
    if s.id in continued_from:
        return continued_from[s.id], "continue"
    if s.clear_start:
        return None, "root"
    # a copy: a fork from 2.x on (and whenever it says so), a resume in 1.0.x
    copy = "continue" if s.version.startswith("1.") and not s.forked else "fork"
    if s.tool != "claude":  # Codex resumes in the same file; a fork names its origin
        copy = "fork"
    if s.copied_from:
        origin = by_id.get(s.copied_from)
        return (origin.id if origin and origin.rank < s.rank else None), copy
    if s.tool == "opencode" and s.title and (m := _FORK_TITLE.match(s.title)):
        origin = first_with.get("title:" + m.group(1))
        return (origin.id if origin and origin.rank < s.rank else None), "fork"
    if s.tool != "claude":
        return None, "root"  # the uuid-DAG rules below are Claude Code's
    if s.head_msg and s.version.startswith("1."):
        # 1.0.x -p --resume replays the earlier chain with fresh uuids but the same replies
        first = first_with.get(s.head_msg)
        if first is not None and first.rank < s.rank:
            return first.id, "continue"
    if s.version.startswith("1.") and (src := _compaction_replayed(c, s, old_in)) is not None:
        return src, "continue"

    def earlier(ids: list[str]) -> str | None:
        cands = [by_id[i] for i in ids if i in by_id and by_id[i].rank < s.rank]
        return min(cands, key=lambda x: x.rank).id if cands else None

    if s.head_uuid:
        src = earlier(_owners(c, s.head_uuid, s.id))
        if src is not None:
            return src, copy
    if s.head_parent:
        src = earlier(_owners(c, s.head_parent, s.id))
        if src is not None:
            # resumed from where the other ended: it goes on; from its middle: a fork
            return src, ("continue" if by_id[src].tail_uuid == s.head_parent else "fork")
    for (target,) in c.execute("SELECT target_uuid FROM session_links WHERE session_id=?", (s.id,)):
        src = earlier(_owners(c, target, s.id))
        if src is not None:
            return src, "continue"
    return None, "root"


def refresh(store: Store, *, full: bool = False) -> int:
    """Bring Builders up to date with what capture changed; returns Builders touched."""
    if not full and not _pending(store):
        return 0  # the common read path: nothing to do, and no write lock taken
    with store.write() as c:
        return refresh_in(c, full=full)


def refresh_in(c: sqlite3.Connection, *, full: bool = False) -> int:
    """:func:`refresh` inside a write transaction the caller holds."""
    joined = c.execute("SELECT value FROM meta WHERE key='join_version'").fetchone()
    if joined is None or joined[0] != str(JOIN_VERSION):
        full = True
        c.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('join_version', ?)",
            (str(JOIN_VERSION),),
        )
    dirty = c.execute("SELECT MAX(dirty) FROM sessions").fetchone()[0] or 0
    if not dirty and not full:
        return 0
    changed = _regroup(c) if full or dirty >= 2 else set()
    # Builders whose membership changed, or that lost a message (a retracted caveat),
    # are renumbered whole; the rest only number what their newest session gained.
    whole = changed | {
        r[0]
        for r in c.execute(
            "SELECT builder_id FROM sessions WHERE dirty>=2 AND builder_id IS NOT NULL"
        )
    }
    touched = whole | {
        r[0]
        for r in c.execute(
            "SELECT builder_id FROM sessions WHERE dirty>0 AND builder_id IS NOT NULL"
        )
    }
    for bid in touched:
        _renumber(c, bid, whole=bid in whole)
    c.execute("UPDATE sessions SET dirty=0 WHERE dirty>0")
    return len(touched)


def _pending(store: Store) -> bool:
    c = store.conn
    joined = c.execute("SELECT value FROM meta WHERE key='join_version'").fetchone()
    if joined is None or joined[0] != str(JOIN_VERSION):
        return True
    return c.execute("SELECT 1 FROM sessions WHERE dirty > 0 LIMIT 1").fetchone() is not None


def _regroup(c: sqlite3.Connection) -> set[str]:
    # A copy shares its original's first timestamps, so time alone cannot order them: a
    # session that names its origin sorts after it, and an unmarked copy (1.0.x resume)
    # holds more than its original, so it sorts after that too.
    rows = c.execute(
        "SELECT id, COALESCE(started_at, ''), COALESCE(version, ''), clear_start, continued_in,"
        " copied_from, forked, head_msg, head_uuid, head_parent, builder_id, dirty, message_count,"
        " tail_uuid, tool, title, project FROM sessions WHERE kind='main' AND oneshot=0"
    ).fetchall()
    rows.sort(key=lambda r: (r[1], r[5] is not None, r[12], r[0]))
    sessions = [
        _S(
            id=r[0],
            tool=r[14],
            started_at=r[1],
            version=r[2],
            clear_start=bool(r[3]),
            continued_in=r[4],
            copied_from=r[5],
            forked=bool(r[6]),
            head_msg=r[7],
            head_uuid=r[8],
            head_parent=r[9],
            tail_uuid=r[13],
            title=r[15],
            project=r[16],
            builder_id=r[10],
            dirty=r[11],
            rank=rank,
        )
        for rank, r in enumerate(rows)
    ]
    by_id = {s.id: s for s in sessions}
    continued_from = {s.continued_in: s.id for s in sessions if s.continued_in}
    first_with: dict[str, _S] = {}  # the first session with a head message id, or a title
    old_in: dict[str | None, list[_S]] = {}  # each project's 1.0.x Claude Code sessions, in order
    for s in sessions:
        if s.head_msg:
            first_with.setdefault(s.head_msg, s)
        if s.tool == "opencode" and s.title:
            first_with.setdefault("title:" + s.title, s)
        if s.tool == "claude" and s.version.startswith("1."):
            old_in.setdefault(s.project, []).append(s)
    builder: dict[str, str] = {}
    forked: dict[str, str] = {}
    fork_of: dict[str, str] = {}
    for s in sessions:  # in order, so what a session continues is already placed
        src, how = _link(c, s, by_id, continued_from, first_with, old_in)
        if src is not None and how == "continue" and src in builder:
            builder[s.id] = builder[src]
        else:
            builder[s.id] = s.id
            if how == "fork":
                fork_of[s.id] = src or s.copied_from or ""
    for sid, origin in fork_of.items():
        if origin:  # the Builder its origin belongs to; one not in the store (yet) by its id
            forked[sid] = builder.get(origin, origin)
    touched: set[str] = set()
    for s in sessions:
        if s.builder_id != builder[s.id] or s.dirty:
            touched.add(builder[s.id])
        if s.builder_id != builder[s.id]:
            if s.builder_id:
                touched.add(s.builder_id)
            c.execute("UPDATE sessions SET builder_id=? WHERE id=?", (builder[s.id], s.id))
            c.execute(
                "UPDATE messages SET builder_id=NULL, number=NULL WHERE session_id=?", (s.id,)
            )
    # sidechains follow their parent session
    for sid, parent, current in c.execute(
        "SELECT s.id, p.builder_id, s.builder_id FROM sessions s"
        " LEFT JOIN sessions p ON p.id = s.parent_session_id WHERE s.kind='sidechain'"
    ).fetchall():
        if parent != current:
            c.execute("UPDATE sessions SET builder_id=?, dirty=1 WHERE id=?", (parent, sid))
            c.execute("UPDATE messages SET builder_id=NULL, number=NULL WHERE session_id=?", (sid,))
            touched |= {b for b in (parent, current) if b}
    live = set(builder.values())
    for (bid,) in c.execute("SELECT id FROM builders").fetchall():
        if bid not in live:
            c.execute("DELETE FROM builders WHERE id=?", (bid,))
    for bid, was in c.execute(
        "SELECT id, forked_from FROM builders WHERE forked_from IS NOT NULL"
    ).fetchall():
        if forked.get(bid) != was:
            c.execute("UPDATE builders SET forked_from=NULL WHERE id=?", (bid,))
    for sid, root in forked.items():
        touched.add(sid)
        c.execute(
            "INSERT INTO builders(id, tool, forked_from)"
            " SELECT ?, tool, ? FROM sessions WHERE id=?"
            " ON CONFLICT(id) DO UPDATE SET forked_from=excluded.forked_from",
            (sid, root, sid),
        )
    return touched & live


def _renumber(c: sqlite3.Connection, bid: str, *, whole: bool) -> None:
    sessions = [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main' AND message_count>0"
            " ORDER BY started_at, message_count, id",
            (bid,),
        )
    ]
    if not sessions:
        c.execute("DELETE FROM builders WHERE id=?", (bid,))
        return
    last = sessions[-1]
    marks = ",".join("?" * len(sessions))
    known = c.execute("SELECT message_count FROM builders WHERE id=?", (bid,)).fetchone()
    dirty_mains = {
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main' AND dirty>0", (bid,)
        )
    }
    settled = (
        not whole
        and known is not None
        and known[0] > 0
        and dirty_mains <= {last}
        # the newest session already belongs here (its replayed head was handled)
        and c.execute(
            "SELECT 1 FROM messages WHERE session_id=? AND builder_id=? LIMIT 1", (last, bid)
        ).fetchone()
    )
    if settled:
        # only the newest session grew: its new messages follow the rest
        count = int(known[0]) + _number(c, bid, last, int(known[0]))
    else:
        seen: set[str] = set()
        updates: list[tuple[str, int | None, int]] = []
        count = 0
        versions = dict(
            c.execute(
                f"SELECT id, COALESCE(version, '') FROM sessions WHERE id IN ({marks})",
                sessions,
            ).fetchall()
        )
        # 1.0.x -p resumes replay the earlier chain with fresh uuids: their leading
        # messages repeat the Builder so far (same replies by id, same prompts and tool
        # output by content), from its start or from the compaction summary they open with
        replays = any(versions.get(sid, "").startswith("1.") for sid in sessions[1:])
        so_far: list[_Said] = []
        # tool content only matters (and is only unpacked) where a replay is to be matched
        blocks_col = "blocks" if replays else "NULL"
        for i, sid in enumerate(sessions):
            matching = replays and i > 0 and versions.get(sid, "").startswith("1.")
            pos: int | None = None  # where in the Builder so far the replay has got to
            for mid, key, was_builder, was_number, role, text, kinds, blocks in c.execute(
                "SELECT id, key, builder_id, number, role, text, kinds,"
                f" {blocks_col} FROM messages WHERE session_id=? ORDER BY seq",
                (sid,),
            ).fetchall():
                dup = key in seen  # a copy of an earlier file's message, by its id
                content: _Said = (role, text, kinds, decompress(blocks) if blocks else None)
                if matching:
                    if pos is None:
                        pos = _replay_start(so_far, content)
                    if dup or (pos < len(so_far) and so_far[pos] == content):
                        dup, pos = True, pos + 1
                    else:
                        matching = False
                number: int | None = None
                if not dup:
                    seen.add(key)
                    count += 1
                    number = count
                    if replays:
                        so_far.append(content)
                if (was_builder, was_number) != (bid, number):  # write only what changed
                    updates.append((bid, number, mid))
        c.executemany("UPDATE messages SET builder_id=?, number=? WHERE id=?", updates)
    for (sid,) in c.execute(
        "SELECT id FROM sessions WHERE builder_id=? AND kind='sidechain' AND dirty>0", (bid,)
    ).fetchall():
        top = c.execute(
            "SELECT COALESCE(MAX(number), 0) FROM messages WHERE session_id=? AND builder_id=?",
            (sid, bid),
        ).fetchone()[0]
        _number(c, bid, sid, int(top))
    _summarize(c, bid, sessions, count)


def _replay_start(so_far: list[_Said], first: _Said) -> int:
    """Where a 1.0.x replay opening with ``first`` starts in the Builder so far: at its
    start, or, when it opens with a compaction summary, at the latest copy of that summary
    (the replay runs from the last compaction on)."""
    if first[0] == "system" and is_compact_summary(first[1]):
        for at in range(len(so_far) - 1, -1, -1):
            if so_far[at] == first:
                return at
    return 0


def _number(c: sqlite3.Connection, bid: str, sid: str, after: int) -> int:
    """Number the session's messages not yet placed in the Builder, after ``after``."""
    ids = c.execute(
        "SELECT id FROM messages WHERE session_id=? AND builder_id IS NULL ORDER BY seq", (sid,)
    ).fetchall()
    c.executemany(
        "UPDATE messages SET builder_id=?, number=? WHERE id=?",
        [(bid, after + i, mid) for i, (mid,) in enumerate(ids, 1)],
    )
    return len(ids)


def _summarize(c: sqlite3.Connection, bid: str, session_ids: list[str], count: int) -> None:
    first = c.execute(
        "SELECT project, started_at, title, tool FROM sessions WHERE id=?", (session_ids[0],)
    ).fetchone()
    marks = ",".join("?" * len(session_ids))
    span = c.execute(
        f"SELECT MIN(started_at), MAX(updated_at) FROM sessions WHERE id IN ({marks})",
        session_ids,
    ).fetchone()
    first_words = next(
        (
            words
            for (text,) in c.execute(
                "SELECT m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
                " WHERE m.builder_id=? AND s.kind='main' AND m.role='user' AND m.meta=0"
                " AND m.number IS NOT NULL ORDER BY m.number LIMIT 20",
                (bid,),
            )
            if (words := said(text))
        ),
        "",
    )
    title = c.execute(
        f"SELECT title FROM sessions WHERE id IN ({marks}) AND title IS NOT NULL"
        " ORDER BY updated_at DESC LIMIT 1",
        session_ids,
    ).fetchone()
    summary = first_words[:300]
    c.execute(
        "INSERT INTO builders(id, tool, project, started_at, updated_at, summary, title,"
        " message_count) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
        " project=excluded.project, started_at=excluded.started_at,"
        " updated_at=excluded.updated_at, summary=excluded.summary, title=excluded.title,"
        " message_count=excluded.message_count",
        (bid, first[3], first[0], span[0], span[1], summary, title[0] if title else None, count),
    )
