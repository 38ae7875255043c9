"""OpenCode's records and sessions as lazy lists and keeps them, and the small readers of
their values every part of the OpenCode reading shares (formats.md §3)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lazy.records import Quarantined

RAW_KEPT = 64 * 1024  # bytes of a bad file kept with its quarantine report
INT64 = 2**63 - 1  # the largest integer SQLite stores


@dataclass(slots=True)
class Record:
    """One OpenCode record, verbatim, for lazy's raw archive."""

    kind: str  # "session" | "message" | "part"
    id: str
    session_id: str
    # A JSON file: its bytes as on disk. A DB row: the ``data`` column's JSON with the ids
    # the columns hold re-added (id, sessionID, messageID), orjson with sorted keys.
    data: bytes
    origin: str  # the JSON file's absolute path, or f"{db_path}#{table}/{id}"


@dataclass(slots=True)
class SessionRef:
    """A session as listed, no messages loaded."""

    session_id: str
    location: str  # the session's JSON file, or the opencode.db path
    parent_id: str | None  # a child (subagent/task) session's parent
    directory: str | None
    title: str | None
    version: str | None  # OpenCode's
    created_ms: int | None
    updated_ms: int | None
    stamp: str  # changes whenever anything of the session does; same data, same stamp

    @property
    def mtime_ns(self) -> int:
        """The last update as a file's mtime: 0 when unknown, never more than SQLite holds."""
        return max(0, min((self.updated_ms or 0) * 1_000_000, INT64))


# ---- small helpers ------------------------------------------------------------------------


def string(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def integer(v: Any) -> int | None:
    """An integer SQLite can hold; None for anything else (orjson reads past 64 bits, or
    1e300, as a float that no SQLite integer holds)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, float) and abs(v) <= INT64:  # also False for inf and nan
        v = int(v)
    if isinstance(v, int) and -INT64 <= v <= INT64:
        return v
    return None


def mapping(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def iso_ms(ms: Any) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC with milliseconds and a Z."""
    n = integer(ms)
    if n is None:
        return None
    try:
        dt = datetime.fromtimestamp(n // 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{n % 1000:03d}Z"


def bad_json(
    path: Path | str, raw: bytes, err: Exception, origin: str | None = None
) -> Quarantined:
    line = getattr(err, "lineno", 0) or 0
    where = f"line {line}" if line else "start"
    return Quarantined(
        line,
        0,
        f"{path}: not readable JSON at {where}: {err}",
        raw[:RAW_KEPT],
        origin or str(path),
    )
