"""The meta table: the store's own small facts by key (the joining rules' version the
Builders were grouped by, the reader changes the stored rows were re-read for)."""

from __future__ import annotations

import sqlite3


def get(c: sqlite3.Connection, key: str) -> str | None:
    r = c.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return None if r is None else str(r[0])


def put(c: sqlite3.Connection, key: str, value: str) -> None:
    c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
