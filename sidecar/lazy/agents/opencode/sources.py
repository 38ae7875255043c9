"""Where OpenCode keeps its sessions, and the store's key for one: its JSON file, or
``<db>#<session>`` (one database holds every session)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from lazy.agents.base import SourceRef

if TYPE_CHECKING:
    from lazy.agents.opencode.records import SessionRef

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
