"""Small reads by key that aliases need: a Builder's latest model, and the conversation a
native session id belongs to."""

from __future__ import annotations

import sqlite3


def last_model(conn: sqlite3.Connection, builder_id: str) -> str | None:
    """The model of the Builder's latest answer, recorded with its alias."""
    row = conn.execute(
        "SELECT m.model FROM messages m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.builder_id=? AND s.kind='main' AND m.model IS NOT NULL"
        " ORDER BY m.number DESC LIMIT 1",
        (builder_id,),
    ).fetchone()
    return str(row[0]) if row else None


def conversation_of(conn: sqlite3.Connection, native_id: str) -> tuple[str, str] | None:
    """(Builder id, summary) of the conversation a native session id belongs to, when the
    store has it."""
    row = conn.execute(
        "SELECT b.id, b.summary FROM sessions s JOIN builders b ON b.id = s.builder_id"
        " WHERE s.id=?",
        (native_id,),
    ).fetchone()
    return (str(row[0]), str(row[1] or "")) if row else None
