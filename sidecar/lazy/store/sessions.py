"""The sessions table: what readers learn about a session (its facts), by column name, how a
later batch merges into what is stored, and the rows joining reads back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lazy.agents import AGENTS
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
_FACT_LIST = ", ".join(f.column for f in FACTS)  # selected in this order, read by facts_of
_FIELDS = [f.field for f in FACTS]
_FLAGS = [f.field for f in FACTS if f.flag]


def facts_of(values: Sequence[Any]) -> SessionFacts:
    """The values of the columns of :data:`_FACT_LIST`, in its order, as the reader's facts
    (a regroup reads every main session's: a loop of lookups by name would cost it)."""
    kw: dict[str, Any] = dict(zip(_FIELDS, values, strict=True))
    for name in _FLAGS:
        kw[name] = bool(kw[name])
    return SessionFacts(**kw)


def load_facts(conn: sqlite3.Connection) -> Callable[[str], SessionFacts | None]:
    """What earlier captures stored of a session's facts, for a reader to carry on from."""

    def load(key: str) -> SessionFacts | None:
        r = conn.execute(f"SELECT {_FACT_LIST} FROM sessions WHERE id = ?", (key,)).fetchone()
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
    from lazy.store import usage  # usage imports nothing of this module's: no cycle at load

    usage.forget(c, keys)
    for table, col in (
        ("messages", "session_id"),
        ("entries", "session_id"),
        ("session_links", "session_id"),
        ("sessions", "id"),
    ):
        c.executemany(f"DELETE FROM {table} WHERE {col}=?", [(k,) for k in keys])


@dataclass(slots=True)
class SessionNode:
    """A main session as joining sees it: its row (its facts by the FACTS mapping), and what
    the store says around it, which joining would otherwise have to ask the store for."""

    id: str
    agent: str
    facts: SessionFacts = field(default_factory=SessionFacts)
    project: str | None = None
    builder_id: str | None = None
    dirty: int = 0
    message_count: int = 0
    head_owners: tuple[str, ...] = ()  # the other sessions holding its head entry
    parent_owners: tuple[str, ...] = ()  # ... holding its head entry's parent
    link_owners: tuple[tuple[str, ...], ...] = ()  # ... each compaction link's target
    # when it opens with a compaction summary: the sessions holding that summary
    summary_holders: frozenset[str] = frozenset()
    rank: int = 0  # its place in the order joining reads the sessions in

    @property
    def started_at(self) -> str:
        return self.facts.first_timestamp or ""

    @property
    def version(self) -> str:
        return self.facts.version or ""


def nodes(c: sqlite3.Connection, is_summary: Callable[[str], bool]) -> list[SessionNode]:
    """Every main session that joining places (one-shots aside), with what the store says
    around the Claude Code ones. ``is_summary`` tells a compaction summary's words."""
    out = [
        SessionNode(
            id=sid,
            agent=agent,
            facts=facts_of(facts),
            project=project,
            builder_id=builder_id,
            dirty=dirty,
            message_count=message_count,
        )
        for sid, agent, project, builder_id, dirty, message_count, *facts in c.execute(
            f"SELECT id, tool, project, builder_id, dirty, message_count, {_FACT_LIST}"
            " FROM sessions WHERE kind='main' AND oneshot=0"
        )
    ]
    claude = {n.id: n for n in out if _by_dag(n.agent)}
    heads, parents = _owners_of(c, "head_uuid"), _owners_of(c, "head_parent")
    links = _link_owners(c)
    for n in claude.values():
        n.head_owners = tuple(heads.get(n.id, ()))
        n.parent_owners = tuple(parents.get(n.id, ()))
        n.link_owners = tuple(tuple(o) for o in links.get(n.id, {}).values())
    old = [n for n in claude.values() if n.version.startswith("1.")]
    for n in old:
        n.summary_holders = _summary_holders(c, n, old, is_summary)
    return out


def _by_dag(name: str) -> bool:
    a = AGENTS.get(name)
    return a is not None and a.joins_by_uuid_dag


# another session holding an entry: its id has no ":" (a sidechain's has)
_OTHER = "e.session_id <> s.id AND e.session_id NOT LIKE '%:%'"
_CLAUDE_MAINS = "s.kind='main' AND s.oneshot=0 AND s.tool='claude'"


def _owners_of(c: sqlite3.Connection, column: str) -> dict[str, list[str]]:
    """The other sessions holding the entry each Claude Code main session's ``column``
    (head_uuid or head_parent) names."""
    out: dict[str, list[str]] = {}
    for sid, owner in c.execute(
        f"SELECT s.id, e.session_id FROM sessions s JOIN entries e ON e.uuid = s.{column}"
        f" WHERE {_CLAUDE_MAINS} AND {_OTHER}"
    ):
        out.setdefault(sid, []).append(owner)
    return out


def _link_owners(c: sqlite3.Connection) -> dict[str, dict[str, list[str]]]:
    """Each Claude Code main session's compaction links, in order, and the other sessions
    holding each link's target."""
    out: dict[str, dict[str, list[str]]] = {}
    for sid, target, owner in c.execute(
        "SELECT s.id, l.target_uuid, e.session_id FROM sessions s"
        " JOIN session_links l ON l.session_id = s.id"
        f" LEFT JOIN entries e ON e.uuid = l.target_uuid AND {_OTHER}"
        f" WHERE {_CLAUDE_MAINS} ORDER BY s.id, l.target_uuid"
    ):
        owners = out.setdefault(sid, {}).setdefault(target, [])
        if owner is not None:
            owners.append(owner)
    return out


def _summary_holders(
    c: sqlite3.Connection,
    n: SessionNode,
    old: list[SessionNode],
    is_summary: Callable[[str], bool],
) -> frozenset[str]:
    """When the 1.0.x session ``n`` opens with a compaction summary: the other 1.0.x
    sessions of its project holding that summary as harness text."""
    first = c.execute(
        "SELECT meta, text FROM messages WHERE session_id=? ORDER BY seq LIMIT 1", (n.id,)
    ).fetchone()
    if first is None or not first[0] or not is_summary(first[1]):
        return frozenset()
    return frozenset(
        o.id
        for o in old
        if o.id != n.id
        and o.project == n.project
        and c.execute(
            "SELECT 1 FROM messages WHERE session_id=? AND meta=1 AND text=? LIMIT 1",
            (o.id, first[1]),
        ).fetchone()
    )


def has_conversation(conn: sqlite3.Connection, session_id: str) -> bool:
    """The store holds this main session with something said in it (not an empty shell)."""
    return (
        conn.execute(
            "SELECT 1 FROM sessions WHERE id=? AND kind='main' AND message_count>0",
            (session_id,),
        ).fetchone()
        is not None
    )


def builders_of(conn: sqlite3.Connection, session_ids: set[str]) -> set[str]:
    """The Builders these sessions belong to."""
    marks = ",".join("?" * len(session_ids))
    return {
        r[0]
        for r in conn.execute(
            f"SELECT DISTINCT builder_id FROM sessions WHERE id IN ({marks})"
            " AND builder_id IS NOT NULL",
            sorted(session_ids),
        )
    }


def mains_opening_with(
    c: sqlite3.Connection, agent: str, version: str, openings: tuple[str, ...]
) -> list[str]:
    """The agent's main sessions written by a release whose version starts with
    ``version``, whose first message is a user one (not harness text) opening with one of
    ``openings``: an indexed lookup per candidate session, never a scan of every message."""
    opens = " OR ".join(
        f"substr(m.text, 1, length(?{i})) = ?{i}" for i in range(3, 3 + len(openings))
    )
    return [
        r[0]
        for r in c.execute(
            "SELECT s.id FROM sessions s JOIN messages m ON m.id ="
            # its first message: one seek of messages_placing (a session's messages are all
            # in its Builder, or all unplaced before it was ever grouped)
            " (SELECT h.id FROM messages h WHERE h.session_id = s.id"
            " AND h.builder_id IS s.builder_id ORDER BY h.seq LIMIT 1)"
            " WHERE s.tool = ?1 AND s.kind = 'main' AND s.version LIKE ?2 || '%'"
            f" AND m.role = 'user' AND m.meta = 0 AND ({opens})",
            (agent, version, *openings),
        )
    ]


def sessions_with_usage(c: sqlite3.Connection) -> list[str]:
    """The main sessions whose model responses may have tokens no usage row holds yet: a
    Codex thread (its token counts were not read before), a session with a message whose
    usage the store kept (an indexed look-up per session), and none with usage rows."""
    return [
        r[0]
        for r in c.execute(
            "SELECT id FROM sessions s WHERE kind = 'main'"
            " AND NOT EXISTS (SELECT 1 FROM usage u WHERE u.session_id = s.id)"
            " AND (tool = 'codex' OR EXISTS (SELECT 1 FROM messages m"
            " WHERE m.session_id = s.id AND m.usage IS NOT NULL))"
        )
    ]
