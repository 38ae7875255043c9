"""The CLI run in-process for the `lazy import <agent>` tests (click's runner: one process, so a
test can monkeypatch the importer), and the store read back. The sessions they import are
written by ``tests/fabricate``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from lazy.cli.main import cli

# ---- the CLI ------------------------------------------------------------------------------


def invoke(*args: str, ok: bool = True) -> Result:
    """``lazy <args>`` in this process; with ``ok``, a non-zero exit fails the test."""
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok and r.exit_code != 0:
        raise AssertionError(f"lazy {' '.join(args)} exited {r.exit_code}:\n{r.output}")
    return r


def report(*args: str) -> dict[str, Any]:
    """The JSON report of ``lazy <args> --json``."""
    out: dict[str, Any] = json.loads(invoke(*args, "--json").stdout)
    return out


def memories(lazy_home: Path) -> list[dict[str, Any]]:
    """Every stored memory, meta parsed, in path order (read-only, straight from SQLite)."""
    db = lazy_home / "store.db"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT id, tree, name, content, meta, temporal, updated_at FROM memories"
            " ORDER BY tree, name"
        ).fetchall()
    finally:
        con.close()
    return [
        {
            "id": r[0],
            "tree": r[1],
            "name": r[2],
            "path": f"{r[1]}/{r[2]}",
            "content": r[3],
            "meta": json.loads(r[4]),
            "temporal": r[5],
            "updated_at": r[6],
        }
        for r in rows
    ]


def count_rows(lazy_home: Path, table: str) -> int:
    con = sqlite3.connect(f"file:{lazy_home / 'store.db'}?mode=ro", uri=True)
    try:
        return int(con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        con.close()
