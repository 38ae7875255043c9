"""Deleting whole conversations from the store, on a person's explicit request.

Everything of a Builder goes: its sessions' messages (the search index follows through its
queue), entries, links, the sessions and the Builder, and the raw archive of its files. Each
file keeps a note that it was deleted (``source_files.status = 'deleted'``), so live capture
does not bring it straight back from the copy still on disk, and `lazy doctor` does not count
it as uncaptured; an import asked for it (the bulk import, or naming it) reads it afresh.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from lazy.os.clock import now_iso


def delete_builders(c: sqlite3.Connection, builder_ids: Iterable[str]) -> list[str]:
    """Delete these Builders inside the caller's write transaction (the caller regroups
    after); returns the ids that were there to delete."""
    done = []
    for bid in builder_ids:
        mains = [
            r[0]
            for r in c.execute(
                "SELECT id FROM sessions WHERE builder_id=? AND kind='main'", (bid,)
            ).fetchall()
        ]
        if not mains:
            continue
        marks = ",".join("?" * len(mains))
        keys = [
            r[0]
            for r in c.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) OR parent_session_id IN ({marks})",
                mains + mains,
            ).fetchall()
        ]
        for table, col in (
            ("messages", "session_id"),
            ("entries", "session_id"),
            ("session_links", "session_id"),
            ("spawns", "session_id"),
            ("sessions", "id"),
        ):
            c.executemany(f"DELETE FROM {table} WHERE {col}=?", [(k,) for k in keys])
        files = c.execute(
            f"SELECT id, path FROM source_files WHERE session_id IN ({marks})"
            " AND status <> 'oneshot'",
            mains,
        ).fetchall()
        for file_id, path in files:
            c.execute("DELETE FROM raw_chunks WHERE file_id=?", (file_id,))
            c.execute("DELETE FROM raw_records WHERE file_id=?", (file_id,))
            c.execute("DELETE FROM quarantine WHERE path=?", (path,))
            c.execute(
                "UPDATE source_files SET status='deleted', read_offset=0, lines_read=0,"
                " head_hash=NULL, tail_hash=NULL, stamp=NULL, updated_at=? WHERE id=?",
                (now_iso(), file_id),
            )
        c.execute("DELETE FROM builders WHERE id=?", (bid,))
        c.execute("UPDATE builders SET forked_from=NULL WHERE forked_from=?", (bid,))
        done.append(bid)
    return done
