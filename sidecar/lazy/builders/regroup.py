"""Regrouping: Builders brought up to date with what capture changed. The stored sessions
are loaded as nodes, joined by the rules (lazy.builders.rules), and what changed is saved:
each session's Builder, each fork's origin, and the numbering of each Builder's messages.
"""

from __future__ import annotations

import sqlite3

from lazy.agents.claude.reader import is_compact_summary, said
from lazy.builders.rules import JOIN_VERSION, group
from lazy.store import Store, usage
from lazy.store import builders as rows
from lazy.store.archive import decompress
from lazy.store.sessions import SessionNode, nodes

# a message as a 1.0.x replay repeats it: role, words, block kinds, blocks (tool content)
_Said = tuple[str, str, str, bytes | None]


def refresh(store: Store, *, full: bool = False) -> int:
    """Bring Builders up to date with what capture changed; returns Builders touched."""
    if not full and not rows.pending(store.conn, JOIN_VERSION):
        return 0  # the common read path: nothing to do, and no write lock taken
    with store.write() as c:
        return refresh_in(c, full=full)


def refresh_in(c: sqlite3.Connection, *, full: bool = False) -> int:
    """:func:`refresh` inside a write transaction the caller holds."""
    if rows.join_version(c) != str(JOIN_VERSION):
        full = True
        rows.set_join_version(c, str(JOIN_VERSION))
    dirty = rows.most_dirty(c)
    if not dirty and not full:
        return 0
    changed = _regroup(c) if full or dirty >= 2 else set()
    # Builders whose membership changed, or that lost a message (a retracted caveat),
    # are renumbered whole; the rest only number what their newest session gained.
    whole = changed | rows.builders_dirty(c, at_least=2)
    touched = whole | rows.builders_dirty(c, at_least=1)
    for bid in touched:
        _renumber(c, bid, whole=bid in whole)
    usage.recount_builders(c, touched)  # a fork's copies count in its origin alone
    rows.clean(c)
    return len(touched)


def _regroup(c: sqlite3.Connection) -> set[str]:
    """Join every main session again; the Builders whose membership changed."""
    sessions = nodes(c, is_compact_summary)
    grouping = group(sessions)
    builder = grouping.builder
    touched = _move_mains(c, sessions, builder)
    # sidechains follow their parent session
    for sid, parent, current in rows.sidechains_astray(c):
        rows.move_sidechain(c, sid, parent)
        touched |= {b for b in (parent, current) if b}
    live = set(builder.values())
    rows.keep_only(c, live)
    rows.unfork_but(c, grouping.forked)
    for sid, root in grouping.forked.items():
        touched.add(sid)
        rows.mark_fork(c, sid, root)
    return touched & live


def _move_mains(
    c: sqlite3.Connection, sessions: list[SessionNode], builder: dict[str, str]
) -> set[str]:
    touched: set[str] = set()
    for s in sessions:
        if s.builder_id != builder[s.id] or s.dirty:
            touched.add(builder[s.id])
        if s.builder_id != builder[s.id]:
            if s.builder_id:
                touched.add(s.builder_id)
            rows.move_main(c, s.id, builder[s.id])
    return touched


def _renumber(c: sqlite3.Connection, bid: str, *, whole: bool) -> None:
    sessions = rows.mains_with_messages(c, bid)
    if not sessions:
        rows.delete(c, bid)
        return
    last = sessions[-1]
    known = rows.message_count(c, bid)
    settled = (
        not whole
        and known is not None
        and known > 0
        and rows.dirty_mains(c, bid) <= {last}
        # the newest session already belongs here (its replayed head was handled)
        and rows.placed(c, last, bid)
    )
    if settled:
        assert known is not None
        # only the newest session grew: its new messages follow the rest
        count = known + rows.number_unplaced(c, bid, last, known)
    else:
        count = _number_whole(c, bid, sessions)
    for sid in rows.dirty_sidechains(c, bid):
        rows.number_unplaced(c, bid, sid, rows.top_number(c, sid, bid))
    _summarize(c, bid, sessions, count)


def _number_whole(c: sqlite3.Connection, bid: str, sessions: list[str]) -> int:
    """Number the Builder's messages from its first session on; returns how many it has.

    1.0.x -p resumes replay the earlier chain with fresh uuids: their leading messages
    repeat the Builder so far (same replies by id, same prompts and tool output by content),
    from its start or from the compaction summary they open with."""
    seen: set[str] = set()
    updates: list[tuple[str, int | None, int]] = []
    count = 0
    versions = rows.versions(c, sessions)
    replays = any(versions.get(sid, "").startswith("1.") for sid in sessions[1:])
    so_far: list[_Said] = []
    for i, sid in enumerate(sessions):
        matching = replays and i > 0 and versions.get(sid, "").startswith("1.")
        pos: int | None = None  # where in the Builder so far the replay has got to
        # tool content only matters (and is only unpacked) where a replay is to be matched
        for m in rows.messages_to_number(c, sid, with_blocks=replays):
            dup = m.key in seen  # a copy of an earlier file's message, by its id
            content: _Said = (m.role, m.text, m.kinds, decompress(m.blocks) if m.blocks else None)
            if matching:
                if pos is None:
                    pos = _replay_start(so_far, content)
                if dup or (pos < len(so_far) and so_far[pos] == content):
                    dup, pos = True, pos + 1
                else:
                    matching = False
            number: int | None = None
            if not dup:
                seen.add(m.key)
                count += 1
                number = count
                if replays:
                    so_far.append(content)
            if (m.builder_id, m.number) != (bid, number):  # write only what changed
                updates.append((bid, number, m.id))
    rows.set_numbers(c, updates)
    return count


def _replay_start(so_far: list[_Said], first: _Said) -> int:
    """Where a 1.0.x replay opening with ``first`` starts in the Builder so far: at its
    start, or, when it opens with a compaction summary, at the latest copy of that summary
    (the replay runs from the last compaction on)."""
    if first[0] == "system" and is_compact_summary(first[1]):
        for at in range(len(so_far) - 1, -1, -1):
            if so_far[at] == first:
                return at
    return 0


def _summarize(c: sqlite3.Connection, bid: str, session_ids: list[str], count: int) -> None:
    first_words = next((words for text in rows.first_prompts(c, bid) if (words := said(text))), "")
    rows.save_summary(c, bid, session_ids, first_words[:300], count)
