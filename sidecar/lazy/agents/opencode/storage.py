"""An OpenCode data dir ($XDG_DATA_HOME/opencode): its sessions listed, once each, and one
session's records loaded, from opencode.db or the older JSON storage. Pure with respect to
lazy's store."""

from __future__ import annotations

from pathlib import Path

from lazy.agents.jsonl import unreadable
from lazy.agents.opencode.db import db_paths, list_db, load_db
from lazy.agents.opencode.json_storage import list_json, load_json_session
from lazy.agents.opencode.records import Record, SessionRef
from lazy.records import Quarantined


def list_sessions(data_dir: Path) -> tuple[list[SessionRef], list[Quarantined]]:
    """Every session under an OpenCode data dir ($XDG_DATA_HOME/opencode), each listed once:
    the database's copy wins over JSON the v1.2 migration left behind, and the v1.1 layout's
    over the oldest one it was copied from. Never raises: problems come back quarantined."""
    refs: dict[str, SessionRef] = {}
    problems: list[Quarantined] = []
    for db in db_paths(data_dir):
        try:
            found, bad = list_db(db)
        except Exception as e:  # a shape no rule foresaw: the other stores are still listed
            found, bad = [], [Quarantined(0, 0, unreadable(e), b"", str(db))]
        problems.extend(bad)
        for ref in found:
            refs.setdefault(ref.session_id, ref)
    found, bad = list_json(data_dir)
    problems.extend(bad)
    for ref in found:
        refs.setdefault(ref.session_id, ref)
    out = sorted(
        refs.values(), key=lambda r: (r.created_ms is None, r.created_ms or 0, r.session_id)
    )
    return out, problems


def load_session(data_dir: Path, ref: SessionRef) -> tuple[list[Record], list[Quarantined]]:
    """One session's records: the session, then each message (by id; in a JSON tree by file
    name, which is the id) followed by its parts. What cannot be read is reported and left
    out; the rest still loads. Never raises."""
    location = Path(ref.location)
    try:
        if location.suffix == ".db":
            return load_db(location, ref.session_id)
        return load_json_session(location, ref.session_id)
    except (OSError, IndexError) as e:  # vanished since listed, or not a session's path
        return [], [Quarantined(0, 0, f"{location}: unreadable: {e}", b"", str(location))]
    except Exception as e:  # a shape no rule foresaw: this session, not the listing, fails
        return [], [Quarantined(0, 0, unreadable(e), b"", str(location))]
