"""Where Codex CLI keeps its sessions, and what a rollout's name says: its thread id."""

from __future__ import annotations

import os
from pathlib import Path

from lazy.agents.base import SourceRef, jsonl_stem, uuid_tail

NAME = "codex"


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def recognises(path: Path) -> bool:
    return path.name.startswith("rollout-")


def source_of(path: Path) -> SourceRef:
    """A rollout's thread id: the uuid its name ends with."""
    stem = jsonl_stem(path)
    sid = uuid_tail(stem) or stem.removeprefix("rollout-")
    return SourceRef(NAME, sid, None, path, str(path))
