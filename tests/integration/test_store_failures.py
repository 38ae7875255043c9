"""A store that cannot be written is told apart from a damaged one, and never made worse.

Each failure as a user meets it, through the real `lazy` in a child process: a read-only
LAZY_HOME (a read-only bind mount: root ignores file modes), a full disk (a file size limit in
the child, reliability.md §2.3), a store locked by another process, one of a newer schema, a
text file where store.db should be. Each gets its own diagnosis and fix from `lazy doctor`,
and every command names the file, in one clear line, with no traceback."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from store_support import Home, count, snapshot

from lazy.store.schema import SCHEMA_VERSION
from support import poll, require

STORE = "Store is intact"


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` read-only for everyone, root included, while the block runs."""
    require(os.geteuid() == 0, "a read-only bind mount needs root")
    subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


def one_clear_error(p: subprocess.CompletedProcess[str], *names: str) -> str:
    """The command failed with an error that names the file, and no traceback."""
    assert p.returncode != 0, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    first = p.stderr.strip().splitlines()[0]
    assert first.startswith("Error: "), p.stderr
    for name in names:
        assert name in first, (name, p.stderr)
    return p.stderr


@pytest.fixture
def home(tmp: Path) -> Home:
    h = Home(tmp)
    h.session(("the zqkept conversation", "it is stored"), ("more of it", "still stored"))
    h.session(("another zqkept one", "stored too"), ("and more", "yes"))
    h.imported()
    h.lazy("index", "rebuild")
    return h


# ---- read-only -----------------------------------------------------------------------------


def test_a_read_only_home_is_not_called_damaged(home: Home) -> None:
    with read_only(home.lazy_home):
        code, checks = home.doctor()
        store = checks[STORE]
        assert code == 1 and store["status"] == "fail", store
        said = store["detail"][0]
        assert "read-only" in said and str(home.lazy_home) in said, said
        assert "not damaged" in said
        fix = store["fix"]
        assert "writable" in fix and "do not move store.db aside" in fix, fix
        assert "--reimport-conversations" not in fix and "--recover-store" not in fix
        # the checks that need the store say why they could not run, with the same fix
        live = checks["Conversation capture is live"]
        assert live["fix"] == fix


@pytest.mark.parametrize(
    "args",
    [
        ("search", "--all-projects", "zqkept"),
        ("index", "rebuild"),
        ("import-conversation", "--all-projects", "--yes"),
        ("conversations", "--all-projects"),
    ],
)
def test_commands_on_a_read_only_home_say_so_in_one_line(home: Home, args: tuple[str]) -> None:
    with read_only(home.lazy_home):
        said = one_clear_error(home.lazy(*args, ok=False), str(home.lazy_home), "read-only")
        assert "fix: make" in said


# ---- full ---------------------------------------------------------------------------------


def _file_size_limit(n: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


def test_a_full_disk_is_told_as_such(home: Home) -> None:
    before = count(home.db, "SELECT COUNT(*) FROM messages")
    s = home.session(*[(f"zqbig turn {i} " + "x" * 4000, "y" * 4000) for i in range(200)])
    limit = home.db.stat().st_size + 64 * 1024  # less than the new session needs

    p = home.lazy(
        "import-conversation", "--all-projects", "--yes",
        ok=False, preexec=lambda: _file_size_limit(limit),
    )  # fmt: skip
    said = one_clear_error(p, str(home.db))
    assert "the disk is full or a file size limit" in said, said
    assert "fix: free space" in said
    # what was stored before is intact, and the new session went in whole or not at all
    conn = sqlite3.connect(home.db)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        after = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        part = conn.execute("SELECT COUNT(*) FROM messages WHERE session_id=?", (s.id,)).fetchone()[
            0
        ]
    finally:
        conn.close()
    assert after - part == before and part in (0, 400), (before, after, part)

    _, checks = home.doctor(preexec=lambda: _file_size_limit(limit))
    disk = checks["Free disk where the store lives"]
    assert disk["status"] == "fail", disk
    assert any("file size limit" in line for line in disk["detail"]), disk
    assert "ulimit -f" in disk["fix"]


# ---- locked -------------------------------------------------------------------------------

HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_store_locked_by_another_process(home: Home) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home.db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        _, checks = home.doctor()
        store = checks[STORE]
        assert store["status"] == "warn", store
        assert any("is locked" in line and str(home.db) in line for line in store["detail"])
        assert "wait for it" in store["fix"]
        assert "aside" not in store["fix"]
        # a hook waits 2 s, then says why in its fallback log, naming the file
        s = home.session(("zqlocked turn", "answer"))
        home.hook(s)
        log = home.lazy_home / "hook-failures.log"
        text = poll(lambda: log.exists() and log.read_text(), timeout=30, what="the fallback log")
        assert "is locked" in text and str(home.db) in text, text
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout and holder.stdout.close()


# ---- a newer schema; not a database --------------------------------------------------------


def test_a_store_of_a_newer_schema_is_left_as_it_is(home: Home) -> None:
    with sqlite3.connect(home.db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.close()
    before = snapshot(home.db)
    _, checks = home.doctor()
    store = checks[STORE]
    assert store["status"] == "fail"
    assert f"schema v{SCHEMA_VERSION + 3}" in store["detail"][0]
    assert "written by a newer lazy" in store["detail"][0]
    assert "upgrade lazy" in store["fix"]
    said = one_clear_error(home.lazy("import-conversation", "--all-projects", "--yes", ok=False),
                           str(home.db), "newer than this lazy")  # fmt: skip
    assert "fix: upgrade lazy" in said
    assert snapshot(home.db) == before


def test_a_text_file_named_store_db(tmp: Path) -> None:
    h = Home(tmp)
    h.lazy_home.mkdir(mode=0o700)
    h.db.write_text("these are my notes, not a database\n" * 50)
    h.db.chmod(0o600)
    h.session(("zqnotes", "fine"), ("more", "ok"))
    before = snapshot(h.db)
    _, checks = h.doctor()
    store = checks[STORE]
    assert store["status"] == "fail"
    said = store["detail"][0]
    assert "not a database" in said and "SQLITE_NOTADB" in said and str(h.db) in said
    assert "--recover-store" in store["fix"] and "never deleted" in store["fix"]
    p = h.lazy("import-conversation", "--all-projects", "--yes", ok=False)
    one_clear_error(p, str(h.db), "is not an SQLite database")
    assert snapshot(h.db) == before
