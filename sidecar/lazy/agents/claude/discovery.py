"""Where Claude Code keeps its sessions: ``projects/<encoded cwd>/<session>.jsonl`` under
each config dir, subagents in ``<session>/subagents/agent-<id>.jsonl`` (2.1.x) or beside
the session as ``agent-<id>.jsonl`` (2.0.x, whose lines name the parent)."""

from __future__ import annotations

import os
from pathlib import Path

from lazy.agents.base import Agent
from lazy.agents.claude.sources import encode_dir
from lazy.agents.discovery import (
    Candidate,
    Discovery,
    file_candidate,
    in_project,
    keep_best,
    worktrees,
)


def _files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("tool-results", "memory")]
        for name in filenames:
            if name.endswith(".jsonl") and name != "journal.jsonl":
                out.append(Path(dirpath) / name)
    return out


def discover(me: Agent, roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    """Session files under ``roots``, for ``project`` (None: all).

    Files under an ``explicit`` root are all taken; the others are filtered to sessions
    whose cwd lies in the project or one of its worktrees. When the same session is in
    several dirs, the most complete copy wins (largest, then newest).
    """
    result = Discovery(roots=roots)
    repos = worktrees(project) if project else []
    prefixes = [encode_dir(r) for r in repos]
    old_layout_agents: list[Candidate] = []
    for root in roots:
        if not root.is_dir():
            continue
        filtered = project is not None and root not in explicit
        for path in _files(root):
            if filtered:
                rel = path.relative_to(root).parts
                if not any(rel[0].startswith(p[:200]) for p in prefixes):
                    continue
            found = file_candidate(path, me, result.problems)
            if found is None:
                continue
            cand, head = found
            # a head with no cwd in it (a big pasted image first) stays: its dir name matched
            if filtered and cand.cwd is not None and not in_project(cand.cwd, repos):
                continue
            if cand.is_sidechain and head.parent and cand.session_id.startswith("agent-"):
                cand.session_id = head.parent
            _place(result, cand, old_layout_agents)
    _old_layout(result, old_layout_agents)
    return result


def _place(result: Discovery, cand: Candidate, old_layout_agents: list[Candidate]) -> None:
    if cand.is_sidechain:
        old_layout_agents.append(cand)
    elif cand.oneshot:
        result.oneshots[cand.session_id] = cand
    else:
        keep_best(result.sessions, cand.session_id, cand)


def _old_layout(result: Discovery, subagents: list[Candidate]) -> None:
    """Subagent files go with their parent (an ``agent-<id>.jsonl`` beside the sessions
    names it in its lines), each subagent's most complete copy once."""
    by_key: dict[tuple[str, str | None], Candidate] = {}
    for cand in subagents:
        if cand.session_id not in result.oneshots:
            keep_best(by_key, (cand.session_id, cand.subagent_id), cand)
    for (sid, _), cand in sorted(by_key.items(), key=lambda kv: str(kv[1].path)):
        result.sidechains.setdefault(sid, []).append(cand)
