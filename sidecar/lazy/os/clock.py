"""Times as lazy writes and reads them: ISO 8601 in UTC, to the millisecond, ``…Z``."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(value: str | None) -> datetime | None:
    """An ISO 8601 time as the agents write it (``…Z``); one without a zone is UTC. None
    when there is none or it does not parse."""
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)
