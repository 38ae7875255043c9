"""Claude Code's harness memory records brought into lazy's shared memory, where
``lazy search in:memories``, ``lazy ls`` and ``lazy get`` reach them.

A record's address is ``/share/projects/<project slug>/claude_memory/<record name>``; its
content is the file's text. Importing again changes only what changed on disk, so nothing the
store already holds is offered twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from lazy.agents.claude.memory import MemoryRecord, Unreadable, memory_dirs, read_records
from lazy.agents.claude.sources import claude_roots, encode_dir
from lazy.agents.discovery import worktrees
from lazy.memories.tree import DEFAULT_TREE_ROOT, join, label
from lazy.store import Store
from lazy.store.memories import Planned, contents, given_slug, reconcile, slug_for

NODE = "claude_memory"
SOURCE = "claude-harness-memory"


@dataclass
class MemoryPlan:
    project: str
    records: list[MemoryRecord] = field(default_factory=list)
    new: list[MemoryRecord] = field(default_factory=list)  # not in the store, or changed
    problems: list[Unreadable] = field(default_factory=list)


def _planned(r: MemoryRecord, project: str) -> Planned:
    meta = {"project": project, "source": SOURCE, "source_path": str(r.path), "tool": "claude"}
    return Planned(
        label(r.name),
        r.content,
        orjson.dumps(meta, option=orjson.OPT_SORT_KEYS).decode(),
        r.modified,
    )


def _tree(slug: str) -> str:
    return join(DEFAULT_TREE_ROOT, slug, NODE)


def plan_memory(store: Store, project: str) -> MemoryPlan:
    """The repo's records (every worktree's project dir), and which have no lazy counterpart:
    one readdir per Claude root plus one per ``memory/`` dir."""
    p = MemoryPlan(project)
    names = [encode_dir(w) for w in worktrees(project)]
    newest: dict[str, MemoryRecord] = {}  # worktrees may each keep a record of one name
    for d in memory_dirs(claude_roots(), names):
        records, problems = read_records(d)
        for r in records:
            if label(r.name) not in newest or r.modified > newest[label(r.name)].modified:
                newest[label(r.name)] = r
        p.problems += problems
    p.records = sorted(newest.values(), key=lambda r: r.name)
    slug = given_slug(store.conn, project)
    have = contents(store.conn, _tree(slug)) if slug is not None else {}
    p.new = [r for r in p.records if have.get(label(r.name)) != r.content]
    return p


def import_memory(store: Store, plan: MemoryPlan) -> tuple[int, int]:
    """Write the plan's new and changed records: (inserted, updated)."""
    if not plan.new:
        return 0, 0
    with store.write() as c:
        tree = _tree(slug_for(c, plan.project))
        inserted, updated, _ = reconcile(c, tree, [_planned(r, plan.project) for r in plan.new])
    return inserted, updated
