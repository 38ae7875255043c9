"""Joining rules: which session continues or forks which, over session nodes alone.

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

Everything here is pure: the nodes carry what the store says around each session (who
else holds its head entry, ...), so the rules run, and are tested, without SQLite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lazy.agents import AGENTS
from lazy.store.sessions import SessionNode

# Bumped whenever the joining rules change: stored conversations then regroup by the new
# rules on the next refresh, with no re-import.
JOIN_VERSION = 5


@dataclass
class Grouping:
    """What the rules make of the sessions: each session's Builder, and each forked
    Builder's origin (the Builder it came from, or a session id not in the store yet)."""

    builder: dict[str, str] = field(default_factory=dict)
    forked: dict[str, str] = field(default_factory=dict)


def in_order(nodes: Iterable[SessionNode]) -> list[SessionNode]:
    """The sessions in the order joining places them, each given its rank.

    A copy shares its original's first timestamps, so time alone cannot order them: a
    session that names its origin sorts after it, and an unmarked copy (1.0.x resume) holds
    more than its original, so it sorts after that too."""
    ordered = sorted(
        nodes, key=lambda s: (s.started_at, s.facts.copied_from is not None, s.message_count, s.id)
    )
    for rank, s in enumerate(ordered):
        s.rank = rank
    return ordered


class _Seen:
    """The sessions by what later sessions look them up by."""

    def __init__(self, sessions: list[SessionNode]):
        self.by_id = {s.id: s for s in sessions}
        self.continued_from = {s.facts.continued_in: s.id for s in sessions if s.facts.continued_in}
        self.first_with: dict[str, SessionNode] = {}  # first with a head message id, or a title
        self.old_in: dict[str | None, list[SessionNode]] = {}  # each project's 1.0.x Claude Code
        for s in sessions:
            if s.facts.head_msg:
                self.first_with.setdefault(s.facts.head_msg, s)
            if _fork_title(s) is not None and s.facts.title:
                self.first_with.setdefault("title:" + s.facts.title, s)
            if _by_dag(s) and s.version.startswith("1."):
                self.old_in.setdefault(s.project, []).append(s)

    def earlier(self, s: SessionNode, ids: Iterable[str]) -> str | None:
        """The earliest of ``ids`` placed before ``s``."""
        by_id = self.by_id
        cands = [by_id[i] for i in ids if i in by_id and by_id[i].rank < s.rank]
        return min(cands, key=lambda x: x.rank).id if cands else None

    def placed_before(self, s: SessionNode, origin: SessionNode | None) -> str | None:
        return origin.id if origin and origin.rank < s.rank else None


def group(nodes: Iterable[SessionNode]) -> Grouping:
    """Join the main sessions into Builders."""
    sessions = in_order(nodes)
    seen = _Seen(sessions)
    out = Grouping()
    fork_of: dict[str, str] = {}
    for s in sessions:  # in order, so what a session continues is already placed
        src, how = link(s, seen)
        if src is not None and how == "continue" and src in out.builder:
            out.builder[s.id] = out.builder[src]
        else:
            out.builder[s.id] = s.id
            if how == "fork":
                fork_of[s.id] = src or s.facts.copied_from or ""
    for sid, origin in fork_of.items():
        if origin:  # the Builder its origin belongs to; one not in the store (yet) by its id
            out.forked[sid] = out.builder.get(origin, origin)
    return out


def link(s: SessionNode, seen: _Seen) -> tuple[str | None, str]:
    """(the session ``s`` is joined to, "continue" | "fork"), or (None, "root")."""
    if s.id in seen.continued_from:
        return seen.continued_from[s.id], "continue"
    if s.facts.clear_start:
        return None, "root"
    # a copy: a fork from 2.x on (and whenever it says so), a resume in 1.0.x
    dag = _by_dag(s)
    copy = "continue" if s.version.startswith("1.") and not s.facts.forked else "fork"
    if not dag:  # it resumes in the same file: a copy is a fork, naming its origin
        copy = "fork"
    if s.facts.copied_from:
        return seen.placed_before(s, seen.by_id.get(s.facts.copied_from)), copy
    if (m := _fork_of(s)) is not None:
        return seen.placed_before(s, seen.first_with.get("title:" + m)), "fork"
    if not dag:
        return None, "root"  # the rules below are over the uuid DAG
    return _claude_link(s, seen, copy)


def _by_dag(s: SessionNode) -> bool:
    """Whether the session's agent joins over the uuid DAG (an agent no longer registered,
    say a test's, joins by what its sessions say alone)."""
    a = AGENTS.get(s.agent)
    return a is not None and a.joins_by_uuid_dag


def _fork_title(s: SessionNode) -> re.Pattern[str] | None:
    a = AGENTS.get(s.agent)
    return None if a is None else a.fork_title


def _fork_of(s: SessionNode) -> str | None:
    """The origin's title, when the agent names forks by title and this is one."""
    pattern = _fork_title(s)
    m = pattern.match(s.facts.title) if pattern is not None and s.facts.title else None
    return m.group(1) if m else None


def _claude_link(s: SessionNode, seen: _Seen, copy: str) -> tuple[str | None, str]:
    """The rules over Claude Code's uuid DAG, and over 1.0.x replays."""
    if s.facts.head_msg and s.version.startswith("1."):
        # 1.0.x -p --resume replays the earlier chain with fresh uuids but the same replies
        first = seen.first_with.get(s.facts.head_msg)
        if first is not None and first.rank < s.rank:
            return first.id, "continue"
    if s.version.startswith("1.") and (src := _compaction_replayed(s, seen)) is not None:
        return src, "continue"
    if s.facts.head_uuid:
        src = seen.earlier(s, s.head_owners)
        if src is not None:
            return src, copy
    if s.facts.head_parent:
        src = seen.earlier(s, s.parent_owners)
        if src is not None:
            # resumed from where the other ended: it goes on; from its middle: a fork
            return src, (
                "continue" if seen.by_id[src].facts.tail_uuid == s.facts.head_parent else "fork"
            )
    for owners in s.link_owners:
        src = seen.earlier(s, owners)
        if src is not None:
            return src, "continue"
    return None, "root"


def _compaction_replayed(s: SessionNode, seen: _Seen) -> str | None:
    """The session whose compaction a 1.0.x session opens by replaying: the nearest earlier
    1.0.x session of the same project holding that summary (its words are the model's, and
    a ``--continue`` takes the project's latest session)."""
    for o in reversed([o for o in seen.old_in.get(s.project, []) if o.rank < s.rank]):
        if o.id in s.summary_holders:
            return o.id
    return None
