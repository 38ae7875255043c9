"""The index queue: messages stored but not yet in the search index."""

from __future__ import annotations

import sqlite3


def queued(conn: sqlite3.Connection, at_most: int) -> int:
    """How many messages wait to be indexed, counted no further than ``at_most``."""
    return int(
        conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM index_queue LIMIT ?)", (at_most,)
        ).fetchone()[0]
    )
