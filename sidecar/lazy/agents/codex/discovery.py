"""Where Codex CLI keeps its sessions: rollouts (``rollout-<time>-<thread id>.jsonl``, maybe
compressed) under ``$CODEX_HOME/sessions`` and ``archived_sessions``. A subagent's thread is a
sidechain of the thread that spawned it, when that one is found too."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from lazy.agents.base import COMPRESSED, Agent
from lazy.agents.discovery import Candidate, Discovery, as_child, collect, file_candidate
from lazy.records import Quarantined


def _rollouts(root: Path) -> list[Path]:
    """Rollouts under a Codex home (its sessions/ and archived_sessions/), or under any dir
    of rollout copies."""
    dirs = [d for d in (root / "sessions", root / "archived_sessions") if d.is_dir()] or [root]
    out = []
    for top in dirs:
        for dirpath, _, filenames in os.walk(top):
            for name in filenames:
                if name in ("history.jsonl", "session_index.jsonl"):
                    continue
                if name.endswith(".jsonl") or any(name.endswith(".jsonl" + e) for e in COMPRESSED):
                    out.append(Path(dirpath) / name)
    return sorted(out)


def _listed(me: Agent, root: Path, problems: list[Quarantined]) -> Iterator[Candidate]:
    for path in _rollouts(root):
        found = file_candidate(path, me, problems)
        if found is not None:
            cand, head = found
            yield as_child(cand, head.parent)


def discover(me: Agent, roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    """Codex rollouts under ``roots``; with ``project``, those whose cwd lies in it."""
    return collect(roots, project, lambda root, problems: _listed(me, root, problems))
