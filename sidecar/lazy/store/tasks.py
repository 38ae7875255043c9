"""The ``tasks`` table: reading and writing tasks (backlog tasks promoted from a range of a
Builder's messages; lazy.tasks checks and creates a promotion)."""

from __future__ import annotations

import sqlite3

from lazy.model import Task

_COLS = "code, goal, prompt, parent, status, created_at, builder_id, from_message, to_message"


def _task(row: tuple[object, ...]) -> Task:
    return Task.model_validate(dict(zip(_COLS.split(", "), row, strict=True)))


def get_task(conn: sqlite3.Connection, code: str) -> Task | None:
    row = conn.execute(f"SELECT {_COLS} FROM tasks WHERE code=?", (code,)).fetchone()
    return _task(row) if row is not None else None


def list_tasks(
    conn: sqlite3.Connection, *, builder_id: str | None = None, projects: list[str] | None = None
) -> list[Task]:
    """Newest first; a Builder's by their range instead. ``projects`` None: every project
    (a task's project is its Builder's)."""
    if builder_id is not None:
        sql = f"SELECT {_COLS} FROM tasks WHERE builder_id=? ORDER BY from_message, to_message"
        return [_task(r) for r in conn.execute(sql, (builder_id,))]
    sql = f"SELECT {_COLS} FROM tasks"
    args: list[object] = []
    if projects is not None:
        sql += (
            " WHERE builder_id IN (SELECT id FROM builders"
            f" WHERE project IN ({','.join('?' * len(projects))}))"
        )
        args += projects
    sql += " ORDER BY created_at DESC, id DESC"
    return [_task(r) for r in conn.execute(sql, args)]


def exact_task(conn: sqlite3.Connection, builder_id: str, first: int, last: int) -> Task | None:
    """The Builder's task promoted from exactly ``first``..``last``, if any."""
    row = conn.execute(
        "SELECT code FROM tasks WHERE builder_id=? AND from_message=? AND to_message=?",
        (builder_id, first, last),
    ).fetchone()
    return get_task(conn, str(row[0])) if row is not None else None


def last_number(conn: sqlite3.Connection, builder_id: str) -> int:
    """How many messages the Builder's own line has (numbered from 1)."""
    row = conn.execute(
        "SELECT MAX(m.number) FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.builder_id=? AND s.kind='main'",
        (builder_id,),
    ).fetchone()
    return int(row[0] or 0)


def overlapping(conn: sqlite3.Connection, builder_id: str, first: int, last: int) -> list[Task]:
    """The Builder's tasks sharing at least one message with ``first``..``last``."""
    sql = (
        f"SELECT {_COLS} FROM tasks WHERE builder_id=? AND from_message<=? AND to_message>=?"
        " ORDER BY from_message, to_message"
    )
    return [_task(r) for r in conn.execute(sql, (builder_id, last, first))]


def insert_task(conn: sqlite3.Connection, task: Task) -> None:
    """Inside the caller's write transaction."""
    conn.execute(
        f"INSERT INTO tasks({_COLS}) VALUES (?,?,?,?,?,?,?,?,?)",
        (task.code, task.goal, task.prompt, task.parent, task.status, task.created_at,
         task.builder_id, task.from_message, task.to_message),
    )  # fmt: skip


def code_exists(conn: sqlite3.Connection, code: str) -> bool:
    return conn.execute("SELECT 1 FROM tasks WHERE code=?", (code,)).fetchone() is not None
