"""Helpers shared by the integration tests: the CLI, store inspection, polling."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any, TypeVar

import zstandard

from support.search import lazy_json

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PYTHON = sys.executable
LAZY = str(Path(sys.executable).with_name("lazy"))
CHILDREN = str(HERE / "children.py")

T = TypeVar("T")


def unzstd(data: bytes) -> bytes:
    """What the store keeps compressed (raw lines, quarantined bytes), as written."""
    return bytes(zstandard.ZstdDecompressor().decompress(data))


def import_all(lazy_home: Path, user_home: Path, source: Path) -> Any:
    return lazy_json(
        lazy_home,
        user_home,
        "import-conversation",
        "--all",
        "--all-projects",
        "--source",
        str(source),
    )


def child(script: str, *args: str) -> list[str]:
    """argv for one of the child programs in children.py."""
    return [PYTHON, CHILDREN, script, *args]


# ---- reading a store from outside ----------------------------------------------------------


def ro_connect(lazy_home: Path) -> sqlite3.Connection | None:
    """A read-only connection to the store, or None while it does not exist yet."""
    db = lazy_home / "store.db"
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
    except sqlite3.Error:
        return None
    return conn


def scalar(conn: sqlite3.Connection, sql: str, *args: object) -> Any:
    row = conn.execute(sql, args).fetchone()
    return None if row is None else row[0]


def integrity(conn: sqlite3.Connection) -> str:
    return "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check"))


def table_rows(
    conn: sqlite3.Connection, table: str, exclude: tuple[str, ...] = ("id",)
) -> list[tuple[Any, ...]]:
    """Every row of ``table`` (row ids left out), sorted: comparable across stores and
    independent of the exact schema."""
    cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in exclude]
    rows = conn.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
    return sorted(rows, key=lambda r: tuple((v is None, str(v)) for v in r))


def message_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every stored message, as comparable tuples."""
    return table_rows(conn, "messages")


def builder_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return table_rows(conn, "builders")


def duplicate_keys(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT session_id, key, COUNT(*) FROM messages GROUP BY session_id, key HAVING COUNT(*) > 1"
    ).fetchall()


def numbering_gaps(conn: sqlite3.Connection) -> dict[str, str]:
    """Builders whose main-session messages are not numbered exactly 1..n (n = its count)."""
    bad: dict[str, str] = {}
    for bid, count in conn.execute("SELECT id, message_count FROM builders").fetchall():
        numbers = [
            r[0]
            for r in conn.execute(
                "SELECT m.number FROM messages m JOIN sessions s ON s.id = m.session_id"
                " WHERE m.builder_id = ? AND s.kind = 'main' AND m.number IS NOT NULL"
                " ORDER BY m.number",
                (bid,),
            )
        ]
        if numbers != list(range(1, count + 1)):
            bad[bid] = f"message_count={count}, {len(numbers)} numbered, first {numbers[:10]}"
    return bad


def unnumbered(conn: sqlite3.Connection) -> int:
    """Main-session messages in no Builder: invisible in every transcript."""
    return int(
        scalar(
            conn,
            "SELECT COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id"
            " WHERE s.kind = 'main' AND s.oneshot = 0 AND (m.number IS NULL OR m.builder_id IS NULL)",
        )
    )
