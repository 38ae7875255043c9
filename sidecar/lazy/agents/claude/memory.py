"""Claude Code's harness memory: the records it keeps in ``memory/`` under a project's dir in
``~/.claude/projects`` (one Markdown file per record, ``MEMORY.md`` the index of the rest).

Pure reading: which dirs belong to a repo, and what their records say."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SUFFIXES = (".md", ".markdown", ".txt")
MAX_BYTES = 1 << 20  # a record is a note; anything larger is not one


@dataclass(frozen=True)
class Unreadable:
    path: str
    reason: str


@dataclass(frozen=True)
class MemoryRecord:
    path: Path
    name: str  # the file's stem: MEMORY, user_preferences, ...
    content: str
    modified: str  # ISO-8601 UTC of the file's mtime


def memory_dirs(roots: list[Path], dir_names: list[str]) -> list[Path]:
    """The ``memory/`` dirs of the project dirs named ``dir_names`` (Claude Code's encoded
    cwds) under each root; one readdir per root, no walk."""
    out = []
    wanted = set(dir_names)
    for root in roots:
        try:
            entries = list(root.iterdir())
        except OSError:
            continue  # no such root: that agent is not installed there
        out += [
            e / "memory" for e in sorted(entries) if e.name in wanted and (e / "memory").is_dir()
        ]
    return out


def read_records(memory_dir: Path) -> tuple[list[MemoryRecord], list[Unreadable]]:
    """The records of one ``memory/`` dir, by name; what could not be read, with why."""
    records: list[MemoryRecord] = []
    problems: list[Unreadable] = []
    try:
        files = sorted(p for p in memory_dir.iterdir() if p.suffix.lower() in SUFFIXES)
    except OSError as e:
        return [], [Unreadable(str(memory_dir), f"cannot list: {e}")]
    for path in files:
        try:
            st = path.stat()
            if not path.is_file():
                continue
            if st.st_size > MAX_BYTES:
                problems.append(
                    Unreadable(str(path), f"{st.st_size} bytes: too large for a record")
                )
                continue
            raw = path.read_bytes()
        except OSError as e:
            problems.append(Unreadable(str(path), f"cannot read: {e}"))
            continue
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        when = datetime.fromtimestamp(st.st_mtime, UTC).isoformat().replace("+00:00", "Z")
        records.append(MemoryRecord(path, path.stem, text, when))
    return records, problems
