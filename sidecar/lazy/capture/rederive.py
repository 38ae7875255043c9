"""Re-deriving: a session's derived rows rebuilt from the raw archive through today's
reader. What the store shows can always be rebuilt from what it keeps verbatim."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lazy.agents import agent
from lazy.builders.regroup import refresh_in
from lazy.capture.opencode import rederive_records
from lazy.projects import project_of
from lazy.store import Store, StoreError, sessions, source_files
from lazy.store.messages import apply_batch


def rederive(store: Store, session_id: str) -> int:
    """Rebuild a session's derived rows (and its subagents') from the raw archive through
    today's reader, and regroup, in one transaction; returns the messages it now has."""
    with store.write() as c:
        added = rederive_in(c, session_id)
        refresh_in(c, full=True)  # regrouped in the same transaction: never seen half-done
    return added


def rederive_in(c: sqlite3.Connection, session_id: str) -> int:
    """:func:`rederive` inside a write transaction the caller holds, without the regrouping
    (the caller regroups once, after every session it re-derives)."""
    files = source_files.archived_files(c, session_id)
    if not files:
        raise StoreError("nothing archived for this session", "ENOENT", session_id)
    sessions.forget(c, sessions.family(c, session_id))
    added = 0
    for fid, spath, subagent_id, name in files:
        a = agent(name)
        if a.reads == "records":
            added += rederive_records(c, fid, spath, a.name)
            continue
        sid = a.source(Path(spath)).session_id
        for generation in source_files.generations(c, fid):
            reader = a.make_reader(spath, sid, subagent_id)
            for lines in source_files.archived_lines(c, fid, generation):
                batch = reader.read(lines)
                added += apply_batch(c, batch, spath, name, generation, project_of=project_of)[0]
    return added


def reread_usage(c: sqlite3.Connection, session_id: str) -> None:
    """Only the usage rows of a session (and its subagents') from the raw archive through
    today's reader: its messages stay as they are."""
    from lazy.capture.opencode import records_batch
    from lazy.store import usage

    for fid, spath, subagent_id, name in source_files.archived_files(c, session_id):
        a = agent(name)
        if a.reads == "records":
            usage.apply(c, records_batch(c, fid))
            continue
        sid = a.source(Path(spath)).session_id
        for generation in source_files.generations(c, fid):
            reader = a.make_reader(spath, sid, subagent_id)
            for lines in source_files.archived_lines(c, fid, generation):
                usage.apply(c, reader.read(lines))
