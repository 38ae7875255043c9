"""Where OpenCode keeps its sessions: ``$XDG_DATA_HOME/opencode`` (opencode.db, and the older
JSON storage). A child session (a subagent's task) is a sidechain of its parent."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from lazy.agents import SourceRef
from lazy.agents.discovery import Candidate, Discovery, as_child, collect
from lazy.agents.opencode.records import SessionRef, iso_ms
from lazy.agents.opencode.storage import list_sessions
from lazy.records import Quarantined

NAME = "opencode"


def opencode_home() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "opencode"


def source_of(ref: SessionRef) -> SourceRef:
    """A session as the store knows its source: keyed by its JSON file, or by
    ``<db>#<session>`` (one database holds every session); a child is its own subagent."""
    loc = str(ref.location)
    key = f"{loc}#{ref.session_id}" if loc.endswith(".db") else loc
    sub = ref.session_id if ref.parent_id else None
    return SourceRef(NAME, ref.session_id, sub, Path(loc), key)


def key_location(key: str) -> str:
    """The database or JSON file a source key names (the database's: ``<db>#<session>``)."""
    db, sep, _ = key.rpartition("#")
    return db if sep and db.endswith(".db") else key


def _listed(root: Path, problems: list[Quarantined]) -> Iterator[Candidate]:
    refs, bad = list_sessions(root)
    problems += bad
    for ref in refs:
        cand = Candidate(source_of(ref), ref.session_id, None, 1, ref.mtime_ns, ref.directory)
        cand.records, cand.started_at, cand.data_dir = ref, iso_ms(ref.created_ms), root
        yield as_child(cand, ref.parent_id)


def discover(roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    """OpenCode sessions in each data dir of ``roots``; with ``project``, those whose
    directory lies in it."""
    return collect(roots, project, _listed)
