"""This machine's side of the team: ``$LAZY_HOME/team.json`` (0600): the connection string
(never with a password), the names given to repos without a remote, and the push record —
the watermark (the newest local message id the last complete push covered), when it ran,
what it sent, when the server was last found up to date, and since when pushes have been
failing."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from lazy.config import lazy_home
from lazy.os.durable import atomic_write_bytes

FILE = "team.json"


class LastPush(BaseModel):
    at: str  # ISO 8601, UTC
    builders: int = 0
    messages: int = 0
    redactions: int = 0


class TeamState(BaseModel):
    conninfo: str
    email: str = ""  # who this machine pushes as (checked against the server on every push)
    names: dict[str, str] = Field(default_factory=dict)  # project dir -> its team name
    watermark: int = 0
    last_push: LastPush | None = None  # the last push that sent something
    checked_at: str | None = None  # the last complete push, whether or not it sent anything
    failing_since: str | None = None  # the first failed push since the last good one
    last_error: str | None = None


class StateError(ValueError):
    """team.json exists but cannot be used; the message names it and why."""


def path(home: Path | None = None) -> Path:
    return (home or lazy_home()) / FILE


def load(home: Path | None = None) -> TeamState | None:
    """The state, None when this machine has not joined a team."""
    p = path(home)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StateError(f"{p}: cannot be read [{type(e).__name__}: {e}]") from e
    try:
        return TeamState.model_validate_json(raw)
    except ValidationError as e:
        first = e.errors()[0]
        at = ".".join(str(x) for x in first["loc"]) or "the file"
        raise StateError(f"{p}: {at}: {first['msg']} (fix it, or join again)") from None


def save(state: TeamState, home: Path | None = None) -> None:
    p = path(home)
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_bytes(p, state.model_dump_json(indent=2).encode())
    os.chmod(p, 0o600)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
