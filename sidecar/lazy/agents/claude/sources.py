"""Where Claude Code keeps its sessions, and what a session file's path says: its project
dir is the cwd encoded, a subagent's file is ``agent-<id>.jsonl`` under the session's
``subagents/`` (2.1.x) or beside the sessions (2.0.x, whose lines name the parent)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from lazy.agents.base import SourceRef, jsonl_stem, unique

NAME = "claude"


def claude_roots() -> list[Path]:
    """``$CLAUDE_CONFIG_DIR/projects`` (each entry, if it lists several) and ~/.claude."""
    roots: list[Path] = []
    for d in filter(None, os.environ.get("CLAUDE_CONFIG_DIR", "").split(os.pathsep)):
        roots.append(Path(d).expanduser() / "projects")
    roots.append(Path.home() / ".claude" / "projects")
    return unique(roots)


def encode_dir(path: str) -> str:
    """Claude Code's project dir name for a cwd (lossy: every non-alphanumeric becomes -)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def source_of(path: Path) -> SourceRef:
    """(session id, subagent id) as a Claude Code file's path gives them."""
    stem = jsonl_stem(path)
    sid, sub = stem, None
    if stem.startswith("agent-"):
        sub = stem[len("agent-") :]
        parts = path.parts
        if "subagents" in parts:
            i = len(parts) - 1 - parts[::-1].index("subagents")
            sid = parts[i - 1]
        # else the older layout: the lines name the parent session
    return SourceRef(NAME, sid, sub, path, str(path))
