"""A store failing SQLite's quick_check is never written to, and `lazy doctor --recover-store`
keeps what can be read. The damage is real: bytes of a page of a store holding conversations
overwritten on disk, as a failing disk or a torn copy leaves them; every step is the real
`lazy` in a child process, and "wrote nothing" is the store file's bytes and mtime."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from store_support import Home, count, snapshot

STORE = "Store is intact"


def damage(db: Path, table: str) -> None:
    """Overwrite the header of ``table``'s root page (its b-tree becomes unreadable)."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name=?", (table,)
        ).fetchone()
    finally:
        conn.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\x0d\x00\x00\xff\xff" + b"\xee" * 200)


def conversations(h: Home) -> dict[str, int]:
    listed = json.loads(h.lazy("conversations", "--all-projects", "--json").stdout)["builders"]
    return {b["id"]: b["message_count"] for b in listed}


@pytest.fixture
def home(tmp: Path) -> Home:
    h = Home(tmp)
    for n in range(3):
        h.session((f"conversation {n} about zqdamage", "noted"), ("and then?", f"answer {n}"))
    h.imported()
    h.lazy("index", "rebuild")
    return h


# messages: capture reads it; tasks: capture never reads it, so only the check sees the damage
@pytest.mark.parametrize("table", ["messages", "tasks"])
def test_import_and_hook_refuse_a_damaged_store_and_write_nothing(home: Home, table: str) -> None:
    damage(home.db, table)
    new = home.session(("a new conversation zqafter", "it must wait"), ("more", "ok"))
    before = snapshot(home.db)

    p = home.lazy("import-conversation", "--all-projects", "--yes", ok=False)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    said = p.stderr
    assert str(home.db) in said and "quick_check" in said and "writes nothing" in said, said
    assert "lazy doctor --recover-store" in said
    assert snapshot(home.db) == before

    home.hook(new)  # a hook exits 0 whatever happens; it says why in its fallback log
    log = (home.lazy_home / "hook-failures.log").read_text()
    assert "quick_check" in log and str(home.db) in log, log
    assert snapshot(home.db) == before

    code, checks = home.doctor()
    store = checks[STORE]
    assert code == 1 and store["status"] == "fail"
    assert "(damaged)" in store["detail"][0]
    assert "--recover-store" in store["fix"] and "never deleted" in store["fix"]
    assert snapshot(home.db) == before


def test_recover_store_keeps_every_conversation_the_raw_archive_holds(home: Home) -> None:
    want = conversations(home)
    assert len(want) == 3
    damage(home.db, "messages")
    before = snapshot(home.db)

    # without a terminal and without --yes: the plan, and nothing changed
    p = home.lazy("doctor", "--recover-store")
    assert "is damaged" in p.stdout and "Re-run with --yes" in p.stdout, p.stdout
    assert snapshot(home.db) == before

    p = home.lazy("doctor", "--recover-store", "--yes", "--json")
    applied = json.loads(p.stdout)["applied"]
    assert applied["conversations"] == 3 and applied["rederived"] == 3, applied
    assert "messages" in applied["lost"]  # the damaged page's rows came back from the archive
    aside = Path(applied["aside"])
    assert aside == home.lazy_home / "store.db.damaged"
    assert snapshot(aside) == (before[0], snapshot(aside)[1])  # kept, byte for byte

    assert conversations(home) == want
    _, checks = home.doctor()
    assert checks[STORE]["status"] == "ok", checks[STORE]
    assert checks["Search index is caught up"]["status"] == "ok"
    assert count(home.db, "SELECT COUNT(*) FROM messages") == sum(want.values())
    found = home.lazy("search", "--all-projects", "zqdamage").stdout
    assert "3 conversation(s)" in found, found
    # writes go again: a new conversation is captured
    home.session(("after the recovery zqagain", "stored"), ("more", "ok"))
    home.imported()
    assert len(conversations(home)) == 4


def test_recover_store_when_store_db_is_not_a_database(tmp: Path) -> None:
    h = Home(tmp)
    h.lazy_home.mkdir(mode=0o700)
    h.db.write_bytes(b"not a database\n" * 100)
    h.session(("zqnotes", "fine"), ("more", "ok"))
    p = h.lazy("doctor", "--recover-store", "--yes")
    assert "Nothing could be read out of it" in p.stdout, p.stdout
    assert (h.lazy_home / "store.db.damaged").read_bytes() == b"not a database\n" * 100
    h.lazy("doctor", "--reimport-conversations", "--yes")
    assert len(conversations(h)) == 1


def test_recover_store_on_a_sound_store_changes_nothing(home: Home) -> None:
    before = snapshot(home.db)
    p = home.lazy("doctor", "--recover-store", "--yes")
    assert "nothing to recover" in p.stdout
    assert snapshot(home.db) == before
