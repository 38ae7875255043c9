"""OpenCode's stores, as the real CLI writes them: the database with the exact DDL OpenCode
1.18.33 runs (copied from a real opencode.db, see tests/agents/opencode/FINDINGS_opencode.md), and
the JSON trees the way 1.1.65 writes them (pretty-printed full records), or the oldest per-project
layout the storage migration #1 reads.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from . import APP_CWD

# OpenCode 1.18.33's tables, verbatim from sqlite_master of a real opencode.db.
SCHEMA = Path(__file__).resolve().parents[1] / "data" / "opencode-1.18.33-schema.sql"
DDL = [s.strip() for s in re.sub(r"(?m)^--.*$", "", SCHEMA.read_text()).split(";\n") if s.strip()]

T0 = 1796046579574
CWD = "/home/u/proj"


# ---- sessions ------------------------------------------------------------------------


class Conv:
    """One session as full OpenCode records (ids included, as 1.1.65's JSON files hold them)."""

    def __init__(self, sid: str, parent: str | None = None, title: str = "Probe title") -> None:
        self.sid = sid
        self.info: dict[str, Any] = {
            "id": sid,
            "slug": "nimble-otter",
            "version": "1.18.33",
            "projectID": "global",
            "directory": CWD,
            "title": title,
            "time": {"created": T0, "updated": T0 + 60_000},
        }
        if parent:
            self.info["parentID"] = parent
        self.messages: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.n = 0

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.sid[4:12]}{self.n:04d}"

    def user(self, *parts: dict[str, Any], agent: str = "build") -> str:
        mid = self._id("msg")
        info = {
            "id": mid,
            "sessionID": self.sid,
            "role": "user",
            "time": {"created": T0 + self.n * 1000},
            "summary": {"diffs": []},
            "agent": agent,
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
        }
        self._add(info, parts)
        return mid

    def assistant(self, *parts: dict[str, Any], agent: str = "build", **extra: Any) -> str:
        mid = self._id("msg")
        parent = next((m["id"] for m, _ in reversed(self.messages) if m["role"] == "user"), None)
        info = {
            "id": mid,
            "sessionID": self.sid,
            "parentID": parent,
            "role": "assistant",
            "mode": agent,
            "agent": agent,
            "path": {"cwd": CWD, "root": "/"},
            "cost": 0.000594,
            "tokens": {
                "total": 62,
                "input": 28,
                "output": 34,
                "reasoning": 0,
                "cache": {"write": 0, "read": 0},
            },
            "modelID": "claude-sonnet-4-5",
            "providerID": "anthropic",
            "time": {"created": T0 + self.n * 1000, "completed": T0 + self.n * 1000 + 500},
            "finish": "stop",
        }
        info.update(extra)
        self._add(info, parts)
        return mid

    def _add(self, info: dict[str, Any], parts: tuple[dict[str, Any], ...]) -> None:
        full = []
        for p in parts:
            full.append(
                {"id": self._id("prt"), "sessionID": self.sid, "messageID": info["id"], **p}
            )
        self.messages.append((info, full))


def text(t: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": t, **extra}


def tool(name: str, call: str, status: str, inp: dict[str, Any], **state: Any) -> dict[str, Any]:
    return {
        "type": "tool",
        "tool": name,
        "callID": call,
        "state": {"status": status, "input": inp, **state},
    }


def write_json(path: Path, obj: Any, indent: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2) if indent else json.dumps(obj))
    return path


def write_v1_tree(data_dir: Path, *convs: Conv) -> None:
    """storage/ as OpenCode 1.1.65 writes it."""
    st = data_dir / "storage"
    (st / "migration").parent.mkdir(parents=True, exist_ok=True)
    (st / "migration").write_text("2")
    for c in convs:
        write_json(st / "session" / "global" / f"{c.sid}.json", c.info)
        for info, parts in c.messages:
            write_json(st / "message" / c.sid / f"{info['id']}.json", info)
            for p in parts:
                write_json(st / "part" / info["id"] / f"{p['id']}.json", p)


def write_oldest_tree(data_dir: Path, *convs: Conv, project: str = "home-u-proj") -> Path:
    """project/<dir>/storage/session/{info,message,part} (2025, before storage migration #1)."""
    root = data_dir / "project" / project / "storage" / "session"
    for c in convs:
        write_json(root / "info" / f"{c.sid}.json", c.info)
        for info, parts in c.messages:
            write_json(root / "message" / c.sid / f"{info['id']}.json", info)
            for p in parts:
                write_json(root / "part" / c.sid / info["id"] / f"{p['id']}.json", p)
    return root


def create_db(path: Path, *convs: Conv, wal: bool = True) -> None:
    """opencode.db with OpenCode's own DDL; data columns without the ids, as it stores them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    try:
        con.execute(f"PRAGMA journal_mode={'WAL' if wal else 'DELETE'}")
        for ddl in DDL:
            con.execute(ddl)
        con.execute(
            "INSERT INTO project VALUES ('global', '/', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)",
            (T0, T0),
        )
        for c in convs:
            insert_conv(con, c)
        con.commit()
    finally:
        con.close()


def insert_conv(con: sqlite3.Connection, c: Conv) -> None:
    i = c.info
    con.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version,"
        " permission, agent, model, time_created, time_updated)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            i["id"],
            i["projectID"],
            i.get("parentID"),
            i["slug"],
            i["directory"],
            i["directory"].lstrip("/"),
            i["title"],
            i["version"],
            '[{"permission":"question","pattern":"*","action":"deny"}]',
            "build",
            '{"id":"claude-sonnet-4-5","providerID":"anthropic","variant":"default"}',
            i["time"]["created"],
            i["time"]["updated"],
        ),
    )
    for info, parts in c.messages:
        data = {k: v for k, v in info.items() if k not in ("id", "sessionID")}
        t = info["time"]["created"]
        con.execute(
            "INSERT INTO message VALUES (?,?,?,?,?)",
            (info["id"], c.sid, t, t + 1, json.dumps(data, separators=(",", ":"))),
        )
        for p in parts:
            pdata = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
            con.execute(
                "INSERT INTO part VALUES (?,?,?,?,?,?)",
                (p["id"], info["id"], c.sid, t, t + 2, json.dumps(pdata, separators=(",", ":"))),
            )


def oc_conv(
    sid: str, cwd: str = APP_CWD, turns: int = 2, *, title: str = "Probe title", start: int = 0
) -> Conv:
    """An OpenCode session of ``turns`` prompt/answer pairs run in ``cwd``."""
    c = Conv(sid, title=title)
    c.info["directory"] = cwd
    if start:
        c.info["time"] = {"created": start, "updated": start + 60_000}
    for i in range(turns):
        c.user(text(f"{sid} question {i}"))
        c.assistant(
            {"type": "reasoning", "text": f"{sid} thinking {i}"},
            text(f"{sid} answer {i}"),
            tool("bash", f"toolu_{sid[-6:]}_{i}", "completed", {"command": "ls"}, output="a b"),
        )
    return c
