"""Strict-prefix refusal: capture never shortens a stored conversation. A copy of a session
whose messages are a strict prefix of what the store holds (an older backup, a file an
agent truncated) is refused, not merged."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import IO

from lazy.agents import make_reader
from lazy.agents.jsonl import LongLine, read_complete, split_lines
from lazy.store.messages import keys_in_order


def strict_prefix(
    c: sqlite3.Connection,
    path: Path,
    agent: str,
    sid: str,
    subagent_id: str | None,
    f: IO[bytes],
    limit: int,
) -> str | None:
    """Why this copy must not be stored: its messages are a strict prefix of what is.
    ``f`` is read whole, ``limit`` bytes at a time."""
    stored = keys_in_order(c, sid, subagent_id)
    if not stored:
        return None
    seen = _keys_in_file(path, agent, sid, subagent_id, f, limit)
    for key, new in seen.items():
        old = stored.get(key, [])
        if new and len(new) < len(old) and old[: len(new)] == new:
            return (
                f"refused a copy of session {key} whose {len(new)} message(s) are a strict"
                f" prefix of the {len(old)} stored: capture never shortens a conversation"
            )
    return None


def _keys_in_file(
    path: Path, agent: str, sid: str, subagent_id: str | None, f: IO[bytes], limit: int
) -> dict[str, list[str]]:
    """Each session's message keys in the order the file gives them."""
    reader = make_reader(agent, str(path), sid, subagent_id)
    seen: dict[str, list[str]] = {}
    start, line_no = 0, 1
    while True:
        data = read_complete(f, start, limit)
        if isinstance(data, LongLine):  # quarantined whatever it holds: no message of it
            start, line_no = data.end, line_no + 1
            continue
        if not data:
            break
        batch = reader.read(split_lines(data, start, line_no))
        for key, parts in batch.parts.items():
            keys = seen.setdefault(key, [])
            for p in parts:
                if not keys or keys[-1] != p.key:
                    keys.append(p.key)
        start, line_no = start + len(data), line_no + batch.lines
    return seen
