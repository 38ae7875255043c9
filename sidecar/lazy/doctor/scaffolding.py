"""Local-command scaffolding in conversations stored before the reader dropped it, and
`lazy doctor --clean-local-command-conversations`, which puts each of them back through
today's reader from the raw archive: the result is what a fresh import of the session gives.

What is scaffolding is decided in one place, the Claude Code reader
(``lazy.agents.claude.reader``): a session is re-derived from its raw lines with today's pipeline,
and the stored messages it no longer produces are the ones that go. The text search in
:func:`_suspects` only narrows which sessions are worth re-reading; it decides nothing.
Re-deriving is tried inside a transaction that is rolled back, so what the listing shows
(messages dropped, the summary after) is exactly what applying it does.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from lazy.agents.claude.reader import BUILTIN_LOCAL_COMMANDS
from lazy.builders.regroup import refresh_in
from lazy.capture.rederive import rederive_in
from lazy.doctor.context import Context
from lazy.doctor.deletion import delete_builders
from lazy.doctor.report import Check
from lazy.store import Store
from lazy.store.messages import stored_keys
from lazy.store.queries import short_id
from lazy.view.redaction import redactor

TITLE = "No local-command scaffolding in stored conversations"
FIX = "lazy doctor --clean-local-command-conversations"


@dataclass
class Scaffolded:
    """A listed conversation (Builder) whose stored messages include scaffolding."""

    builder_id: str
    short_id: str
    started_at: str | None
    summary: str  # the one-line summary it has today
    summary_after: str = ""  # ... and the one it gets once cleaned
    drops: int = 0  # its stored messages today's reader drops
    empty: bool = False  # every stored message of it is scaffolding
    sessions: list[str] = field(default_factory=list)  # its sessions that lose messages


@dataclass
class Survey:
    found: list[Scaffolded] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (session, why)

    @property
    def cleanable(self) -> list[Scaffolded]:
        return [s for s in self.found if not s.empty]

    @property
    def empty(self) -> list[Scaffolded]:
        return [s for s in self.found if s.empty]


@dataclass
class Applied:
    cleaned: list[str] = field(default_factory=list)  # Builder ids
    deleted: list[str] = field(default_factory=list)
    dropped: int = 0  # scaffolding messages gone from the cleaned ones


def _suspects(c: sqlite3.Connection) -> list[str]:
    """Claude Code sessions (main ids) holding a message that may be scaffolding: one with
    Claude Code's command tags in it, or one that reads as a bare built-in command (how a
    reader that rewrote invocations would have stored it)."""
    bare = sorted(f"/{name}" for name in BUILTIN_LOCAL_COMMANDS)
    marks = ",".join("?" * len(bare))
    return [
        r[0]
        for r in c.execute(
            "SELECT DISTINCT COALESCE(s.parent_session_id, s.id) FROM messages m"
            " JOIN sessions s ON s.id = m.session_id"
            " WHERE s.tool = 'claude' AND s.builder_id IS NOT NULL AND ("
            " instr(m.text, '<command-name>') > 0 OR instr(m.text, '<local-command-') > 0"
            f" OR m.text IN ({marks})) ORDER BY 1",
            bare,
        ).fetchall()
    ]


def survey_in(c: sqlite3.Connection) -> Survey:
    """What cleaning would do, tried in the caller's write transaction and rolled back."""
    out = Survey()
    suspects = _suspects(c)
    if not suspects:
        return out
    owner: dict[str, str] = {}
    for sid in suspects:
        row = c.execute("SELECT builder_id FROM sessions WHERE id=?", (sid,)).fetchone()
        if row is not None and row[0] is not None:
            owner[sid] = row[0]
    before = {sid: stored_keys(c, sid) for sid in owner}
    redact = redactor()  # the summaries are listed to the user
    found: dict[str, Scaffolded] = {}
    members: dict[str, list[str]] = {}  # every session of the Builder, subagents' too
    first: dict[str, str] = {}  # the Builder's first main session
    for bid in set(owner.values()):
        row = c.execute("SELECT started_at, summary FROM builders WHERE id=?", (bid,)).fetchone()
        if row is None:
            continue
        found[bid] = Scaffolded(bid, short_id(bid), row[0], redact(row[1] or ""))
        members[bid] = [
            r[0] for r in c.execute("SELECT id FROM sessions WHERE builder_id=?", (bid,))
        ]
        first[bid] = c.execute(
            "SELECT id FROM sessions WHERE builder_id=? AND kind='main'"
            " ORDER BY started_at, message_count, id LIMIT 1",
            (bid,),
        ).fetchone()[0]
    c.execute("SAVEPOINT doctor_survey")
    try:
        for sid, bid in owner.items():
            if bid not in found:
                continue
            c.execute("SAVEPOINT doctor_session")
            try:
                rederive_in(c, sid)
            except Exception as e:  # a damaged archive: this session is left as it is
                c.execute("ROLLBACK TO doctor_session")
                out.unreadable.append((sid, f"{type(e).__name__}: {e}"))
                continue
            finally:
                c.execute("RELEASE doctor_session")
            dropped = len(before[sid] - stored_keys(c, sid))
            if dropped:
                found[bid].drops += dropped
                found[bid].sessions.append(sid)
        refresh_in(c, full=True)
        for bid, s in found.items():
            if not s.drops:
                continue
            marks = ",".join("?" * len(members[bid]))
            left = c.execute(
                f"SELECT COUNT(*) FROM messages WHERE session_id IN ({marks})", members[bid]
            ).fetchone()[0]
            s.empty = left == 0
            now = c.execute(
                "SELECT b.summary FROM sessions s JOIN builders b ON b.id = s.builder_id"
                " WHERE s.id = ?",
                (first[bid],),
            ).fetchone()
            s.summary_after = redact(now[0]) if now else ""
    finally:
        c.execute("ROLLBACK TO doctor_survey")
        c.execute("RELEASE doctor_survey")
    out.found = sorted(
        (s for s in found.values() if s.drops), key=lambda s: (s.started_at or "", s.builder_id)
    )
    return out


def survey(store: Store) -> Survey:
    """What cleaning would do; nothing is changed."""
    with store.trial() as c:
        return survey_in(c)


def apply(store: Store, clean: set[str], delete: set[str]) -> Applied:
    """Clean the Builders ``clean`` names and delete the all-scaffolding ones ``delete``
    names, in one transaction. Each is looked at again first: only what still is as it was
    listed is changed (a conversation that went on meanwhile is cleaned, never deleted)."""
    done = Applied()
    with store.write() as c:
        now = survey_in(c)
        for s in now.cleanable:
            if s.builder_id in clean:
                for sid in s.sessions:
                    rederive_in(c, sid)
                done.cleaned.append(s.builder_id)
                done.dropped += s.drops
        doomed = [s.builder_id for s in now.empty if s.builder_id in delete]
        done.deleted = delete_builders(c, doomed)
        if done.cleaned or done.deleted:
            refresh_in(c, full=True)
    return done


def scaffolding_check(ctx: Context) -> Check:
    found = survey(ctx.need_store())
    detail: list[str] = []
    if found.cleanable:
        drops = sum(s.drops for s in found.cleanable)
        detail.append(
            f"{len(found.cleanable)} conversation(s) still carry local-command scaffolding"
            f" ({drops} message(s) today's reader drops)"
        )
    if found.empty:
        detail.append(f"{len(found.empty)} conversation(s) are nothing but scaffolding")
    if found.unreadable:
        sid, why = found.unreadable[0]
        detail.append(
            f"{len(found.unreadable)} session(s) could not be re-read from the archive,"
            f" e.g. {sid}: {why}"
        )
    if found.found:
        return Check(TITLE, "warn", detail, FIX)
    return Check(TITLE, "ok", ["none found", *detail])
