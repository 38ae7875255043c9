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
from collections.abc import Callable
from dataclasses import dataclass, field

from lazy.agents.claude.reader import COMPACT_SUMMARY_OPENING, UNTAGGED_CAVEAT
from lazy.builders.regroup import refresh_in
from lazy.capture.rederive import rederive_in, reread_usage
from lazy.store import Store, meta
from lazy.store.db import log_in, savepoint
from lazy.store.messages import stored_keys
from lazy.store.sessions import mains_opening_with, sessions_with_usage


@dataclass(frozen=True, slots=True)
class Change:
    """A reader change: the lookup of the main session ids whose stored rows the reader
    before it wrote differently."""

    sessions: Callable[[sqlite3.Connection], list[str]]


REREADS: tuple[Change, ...] = (
    # 1: a Claude Code 1.0.x -p --continue (or --resume) after an interactive /compact replays
    # the conversation from its compaction summary on, without isCompactSummary and isMeta;
    # the summary and the caveat after it are now harness text (lazy.agents.claude.reader
    # _unflagged_harness), and such a file joins the Builder it continues. Before, the
    # summary was stored as the session's first message, a plain user one.
    Change(
        lambda c: mains_opening_with(c, "claude", "1.", (COMPACT_SUMMARY_OPENING, UNTAGGED_CAVEAT))
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
    value = meta.get(c, "reader_version")
    return int(value) if value is not None and value.isdigit() else 0


def reread(store: Store) -> Reread:
    """Re-derive the stored sessions the reader changes this store has not had read
    differently, and regroup; the common path (nothing to do) takes no write lock. A
    session whose archive cannot be read again, or whose re-reading would drop a stored
    message, keeps its rows; that is logged."""
    out = Reread()
    _usage(store, out)
    if _done(store.conn) >= READER_VERSION:
        return out
    with store.write() as c:
        done = _done(c)  # again, under the lock: another process may have just done it
        if done >= READER_VERSION:
            return out
        todo = sorted({sid for ch in REREADS[done:] for sid in ch.sessions(c)})
        for sid in todo:
            with savepoint(c, "reread") as rollback:
                try:
                    before = stored_keys(c, sid)
                    rederive_in(c, sid)
                    if lost := len(before - stored_keys(c, sid)):
                        # a change that drops stored messages is the doctor's, shown first
                        raise _Loses(f"re-reading it would drop {lost} stored message(s)")
                    out.rederived.append(sid)
                except sqlite3.Error:
                    raise  # the store failed: nothing is recorded, the next open tries again
                except Exception as e:  # this session's archive: the others still go ahead
                    rollback()
                    out.failed.append(
                        (sid, str(e) if isinstance(e, _Loses) else f"{type(e).__name__}: {e}")
                    )
                    log_in(
                        c,
                        "warning",
                        "not re-read from the raw archive after a reader change; it is shown"
                        " as stored",
                        session_id=sid,
                        code=type(e).__name__,
                        detail=str(e),
                    )
        if out.rederived:
            refresh_in(c, full=True)  # regrouped in the same transaction: never seen half-done
        meta.put(c, "reader_version", str(READER_VERSION))
    return out


def _usage(store: Store, out: Reread) -> None:
    """The usage rows (schema v7) of the sessions stored before them, read once from the
    raw archive by today's readers; only those rows are written (messages stay as stored,
    nothing is re-indexed). ``meta.usage_read`` says it was done."""
    if meta.get(store.conn, "usage_read") == "1":
        return
    with store.write() as c:
        if meta.get(c, "usage_read") == "1":
            return
        for sid in sessions_with_usage(c):
            with savepoint(c, "usage") as rollback:
                try:
                    reread_usage(c, sid)
                except sqlite3.Error:
                    raise
                except Exception as e:  # this session's archive: the others still go ahead
                    rollback()
                    out.failed.append((sid, f"{type(e).__name__}: {e}"))
                    log_in(
                        c,
                        "warning",
                        "its token usage could not be read from the raw archive",
                        session_id=sid,
                        code=type(e).__name__,
                        detail=str(e),
                    )
        meta.put(c, "usage_read", "1")
