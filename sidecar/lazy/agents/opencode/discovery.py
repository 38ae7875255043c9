"""Where OpenCode keeps its sessions: ``$XDG_DATA_HOME/opencode`` (opencode.db, and the older
JSON storage). A child session (a subagent's task) is a sidechain of its parent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lazy.agents.base import Agent
from lazy.agents.discovery import Candidate, Discovery, as_child, collect
from lazy.agents.opencode.records import iso_ms
from lazy.agents.opencode.sources import source_of
from lazy.agents.opencode.storage import list_sessions
from lazy.records import Quarantined


def _listed(root: Path, problems: list[Quarantined]) -> Iterator[Candidate]:
    refs, bad = list_sessions(root)
    problems += bad
    for ref in refs:
        cand = Candidate(source_of(ref), ref.session_id, None, 1, ref.mtime_ns, ref.directory)
        cand.records, cand.started_at, cand.data_dir = ref, iso_ms(ref.created_ms), root
        yield as_child(cand, ref.parent_id)


def discover(me: Agent, roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    """OpenCode sessions in each data dir of ``roots``; with ``project``, those whose
    directory lies in it."""
    return collect(roots, project, _listed)
