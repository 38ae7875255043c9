"""Read what OpenCode wrote, straight from disk, for the tests to compare lazy against.

Two generations: ``opencode.db`` (SQLite, 1.2+; the JSON ``data`` column lacks the ids, which
are columns) and the ``storage/`` JSON tree (<= 1.1.x; each file holds the full record). Both are
returned in one shape: sessions by id, each with its messages (id order) and their parts (id
order), every record with its ids re-added.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JsonDict = dict[str, Any]


@dataclass
class Message:
    info: JsonDict
    parts: list[JsonDict] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.info["id"])

    @property
    def role(self) -> str:
        return str(self.info.get("role"))

    def parts_of(self, kind: str) -> list[JsonDict]:
        return [p for p in self.parts if p.get("type") == kind]

    def text(self) -> str:
        return "".join(str(p.get("text", "")) for p in self.parts_of("text"))


@dataclass
class Session:
    info: JsonDict
    messages: list[Message] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.info["id"])

    @property
    def parent_id(self) -> str | None:
        value = self.info.get("parentID")
        return str(value) if value else None

    def by_role(self, role: str) -> list[Message]:
        return [m for m in self.messages if m.role == role]


@dataclass
class Storage:
    kind: str  # "sqlite" | "json"
    sessions: dict[str, Session]
    source_files: dict[str, Path]  # session id -> the file holding it

    def roots(self) -> list[Session]:
        return [s for s in self.sessions.values() if s.parent_id is None]

    def children_of(self, session_id: str) -> list[Session]:
        return [s for s in self.sessions.values() if s.parent_id == session_id]


def read_storage(data_dir: Path) -> Storage:
    """Both generations when both exist: 1.18.33 leaves an older release's tree alone (it
    neither migrates nor deletes it), so an upgraded user's data dir holds sessions in each."""
    db = data_dir / "opencode.db"
    tree = data_dir / "storage"
    parts = [read_db(db)] if db.is_file() else []
    if (tree / "session").is_dir():
        parts.append(read_tree(tree))
    if not parts:
        return Storage("empty", {}, {})
    sessions: dict[str, Session] = {}
    files: dict[str, Path] = {}
    for part in reversed(parts):  # the DB wins over a stale JSON copy of the same session
        sessions.update(part.sessions)
        files.update(part.source_files)
    return Storage("+".join(p.kind for p in parts), sessions, files)


def connect_ro(db: Path) -> sqlite3.Connection:
    """Read-only, never creating or checkpointing anything in OpenCode's dir."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    conn.row_factory = sqlite3.Row
    return conn


def read_db(db: Path) -> Storage:
    conn = connect_ro(db)
    try:
        sessions: dict[str, Session] = {}
        for row in conn.execute("SELECT * FROM session ORDER BY time_created, id"):
            info: JsonDict = {
                "id": row["id"],
                "projectID": row["project_id"],
                "parentID": row["parent_id"],
                "slug": row["slug"],
                "directory": row["directory"],
                "title": row["title"],
                "version": row["version"],
                "agent": row["agent"],
                "model": json.loads(row["model"]) if row["model"] else None,
                "time": {"created": row["time_created"], "updated": row["time_updated"]},
            }
            sessions[row["id"]] = Session(info)
        messages: dict[str, Message] = {}
        for row in conn.execute("SELECT * FROM message ORDER BY session_id, id"):
            data = json.loads(row["data"])
            data.update({"id": row["id"], "sessionID": row["session_id"]})
            message = Message(data)
            messages[row["id"]] = message
            sessions[row["session_id"]].messages.append(message)
        for row in conn.execute("SELECT * FROM part ORDER BY message_id, id"):
            data = json.loads(row["data"])
            data.update(
                {"id": row["id"], "messageID": row["message_id"], "sessionID": row["session_id"]}
            )
            messages[row["message_id"]].parts.append(data)
    finally:
        conn.close()
    return Storage("sqlite", sessions, {sid: db for sid in sessions})


def _load(path: Path) -> JsonDict:
    value = json.loads(path.read_text())
    if not isinstance(value, dict):
        raise ValueError(f"{path}: not a JSON object")
    return value


def read_tree(storage: Path) -> Storage:
    sessions: dict[str, Session] = {}
    files: dict[str, Path] = {}
    for path in sorted((storage / "session").glob("*/*.json")):
        info = _load(path)
        sessions[str(info["id"])] = Session(info)
        files[str(info["id"])] = path
    for session in sessions.values():
        for path in sorted((storage / "message" / session.id).glob("*.json")):
            message = Message(_load(path))
            message.parts = [
                _load(p) for p in sorted((storage / "part" / message.id).glob("*.json"))
            ]
            session.messages.append(message)
    return Storage("json", sessions, files)


def snapshot_rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables lazy reads, to prove an import changed nothing."""
    conn = connect_ro(db)
    try:
        return {
            table: [tuple(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY id")]
            for table in ("session", "message", "part", "project")
        }
    finally:
        conn.close()
