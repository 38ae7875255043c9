"""Whether the store may be written: a store failing SQLite's ``quick_check`` never is.

Writing into a damaged b-tree can spread the damage and loses what a recovery would have
read back, so every process checks before its first write. ``quick_check`` reads every page
(about 0.3 s per 200 MB, warm), too slow for each hook on a large store: a passing check is
remembered in ``store.checked`` with the identity of ``store.db`` as it was (device, inode,
size, mtime). A process that found the stamp true re-stamps the file when it closes, if
nothing but its own close (the last connection's checkpoint) changed it meanwhile; anything
else that changed it (a copy, a restore, a disk fault, another process's checkpoint) makes
the next writer check again. Losing the stamp costs one check, never a wrong answer.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import orjson

from lazy.os.private import open_private

STAMP = "store.checked"
SHOWN = 5  # problems of a failed check, quoted at most


def quick_check(conn: sqlite3.Connection) -> list[str]:
    """SQLite's quick_check: its problems, none when the store passes."""
    said = [line for r in conn.execute("PRAGMA quick_check") for line in str(r[0]).splitlines()]
    problems = [line for line in said if not line.startswith("*** in database")]
    return [] if problems == ["ok"] else problems


def identity(db: Path) -> list[int] | None:
    try:
        st = os.stat(db)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def stamped(home: Path) -> bool:
    """``store.db`` is as it was when it last passed (or lazy last left it after it had)."""
    try:
        said = orjson.loads((home / STAMP).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    now = identity(home / "store.db")
    return now is not None and isinstance(said, dict) and said.get("db") == now


def stamp(home: Path) -> None:
    """Remember that ``store.db`` as it is now passed; quietly nothing where the home is
    read-only (then nothing is written anyway)."""
    now = identity(home / "store.db")
    if now is None:
        return
    tmp = home / f".{STAMP}.{os.getpid()}.tmp"
    try:
        fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, orjson.dumps({"db": now}))
        finally:
            os.close(fd)
        os.replace(tmp, home / STAMP)  # no fsync: a stamp lost to a power cut costs a check
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def unstamp(home: Path) -> None:
    with contextlib.suppress(OSError):
        (home / STAMP).unlink()
