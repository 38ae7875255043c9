"""Stored sessions re-read, once, when a reader changes what their lines become.

``JOIN_VERSION`` (lazy.builders.regroup) regroups stored sessions when the joining rules change. A
reader change also changes the derived rows (messages, a session's facts), and those only a
re-derivation from the raw archive rewrites: a re-import leaves stored messages as they are,
and the agent's files may be gone (Claude Code deletes transcripts after 30 days).

Each entry of :data:`REREADS` is one such change, with the one query naming the sessions that
the reader before it stored differently, found by what that reader left (an indexed lookup
per candidate session, never a scan of every message). Opening the store for a surface
re-derives those of every change the store has not had yet, and regroups, in one write
transaction; ``meta.reader_version`` records how far the store has got, so each runs once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from lazy.agents.claude.reader import COMPACT_SUMMARY_OPENING, UNTAGGED_CAVEAT
from lazy.builders.regroup import refresh_in
from lazy.capture.rederive import rederive_in
from lazy.store import Store
from lazy.store.db import now_iso
from lazy.store.messages import stored_keys


@dataclass(frozen=True, slots=True)
class Change:
    """A reader change: the query selecting the main session ids whose stored rows the
    reader before it wrote differently."""

    sessions: str
    args: tuple[str, ...] = ()


REREADS: tuple[Change, ...] = (
    # 1: a Claude Code 1.0.x -p --continue (or --resume) after an interactive /compact replays
    # the conversation from its compaction summary on, without isCompactSummary and isMeta;
    # the summary and the caveat after it are now harness text (lazy.agents.claude.reader
    # _unflagged_harness), and such a file joins the Builder it continues. Before, the
    # summary was stored as the session's first message, a plain user one.
    Change(
        "SELECT s.id FROM sessions s JOIN messages m ON m.id ="
        # its first message: one seek of messages_placing (a session's messages are all in
        # its Builder, or all unplaced before it was ever grouped)
        " (SELECT h.id FROM messages h WHERE h.session_id = s.id AND h.builder_id IS s.builder_id"
        " ORDER BY h.seq LIMIT 1)"
        " WHERE s.tool = 'claude' AND s.kind = 'main' AND s.version LIKE '1.%'"
        " AND m.role = 'user' AND m.meta = 0"
        " AND (substr(m.text, 1, length(?1)) = ?1 OR substr(m.text, 1, length(?2)) = ?2)",
        (COMPACT_SUMMARY_OPENING, UNTAGGED_CAVEAT),
    ),
)
READER_VERSION = len(REREADS)


@dataclass
class Reread:
    rederived: list[str] = field(default_factory=list)  # main session ids
    failed: list[tuple[str, str]] = field(default_factory=list)  # (session, why): left as stored


class _Loses(Exception):
    """A re-derivation that would leave fewer stored messages than there are."""


def _done(c: sqlite3.Connection) -> int:
    row = c.execute("SELECT value FROM meta WHERE key='reader_version'").fetchone()
    return int(row[0]) if row is not None and str(row[0]).isdigit() else 0


def reread(store: Store) -> Reread:
    """Re-derive the stored sessions the reader changes this store has not had read
    differently, and regroup; the common path (nothing to do) takes no write lock. A
    session whose archive cannot be read again, or whose re-reading would drop a stored
    message, keeps its rows; that is logged."""
    out = Reread()
    if _done(store.conn) >= READER_VERSION:
        return out
    with store.write() as c:
        done = _done(c)  # again, under the lock: another process may have just done it
        if done >= READER_VERSION:
            return out
        todo = sorted({r[0] for ch in REREADS[done:] for r in c.execute(ch.sessions, ch.args)})
        for sid in todo:
            c.execute("SAVEPOINT reread")
            try:
                before = stored_keys(c, sid)
                rederive_in(c, sid)
                if lost := len(before - stored_keys(c, sid)):
                    # a change that drops stored messages is the doctor's, shown first
                    raise _Loses(f"re-reading it would drop {lost} stored message(s)")
                out.rederived.append(sid)
            except sqlite3.Error:
                raise  # the store itself failed: nothing is recorded, the next open tries again
            except Exception as e:  # this session's archive: the others still go ahead
                c.execute("ROLLBACK TO reread")
                out.failed.append(
                    (sid, str(e) if isinstance(e, _Loses) else f"{type(e).__name__}: {e}")
                )
                c.execute(
                    "INSERT INTO capture_log(at, level, session_id, reason, code, detail)"
                    " VALUES (?, 'warning', ?, ?, ?, ?)",
                    (
                        now_iso(),
                        sid,
                        "not re-read from the raw archive after a reader change; it is shown"
                        " as stored",
                        type(e).__name__,
                        str(e),
                    ),
                )
            finally:
                c.execute("RELEASE reread")
        if out.rederived:
            refresh_in(c, full=True)  # regrouped in the same transaction: never seen half-done
        c.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('reader_version', ?)",
            (str(READER_VERSION),),
        )
    return out
