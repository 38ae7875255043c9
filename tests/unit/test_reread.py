"""A store written before a reader change, opened by today's lazy: the sessions the new reader
reads differently are re-derived once from the raw archive, with no re-import.

``tests/data/claude-1.0.65-compact-continue.store-089c81f.sql`` is the store lazy at main
089c81f wrote for the ``-p --continue`` after an interactive ``/compact`` of the 1.0.65 capture
(tests/unit/test_compact_replay.py): the replayed compaction summary and caveat stored as
plain user messages, the continue file a Builder of its own summarised by that summary. Its
source files are gone, as they are once Claude Code has swept them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lazy.capture.live import PerThread
from lazy.capture.reread import READER_VERSION, reread
from lazy.index.indexer import SearchIndex
from lazy.index.search import search
from lazy.store import Store
from lazy.store.queries import list_builders
from lazy.store.schema import MIGRATIONS, statements
from lazy.view.reading import transcript
from support.cli import lazy

DUMP = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "claude-1.0.65-compact-continue.store-089c81f.sql"
)
TUI = "65c2f027-98b6-4390-8a4a-d701af916635"
CONTINUED = "75a174c3-6fd4-4090-bd7b-2b56708fc6ee"
P1 = "First typed prompt (p-v1_0_compact_continue-01)"
P4 = "Continued after the TUI (p-v1_0_compact_continue-08)"
SUMMARY_OPENING = "This session is being continued from a previous conversation"
TUI_MESSAGES = 11  # numbered in the TUI session; the continue file adds its prompt and answer


def old_store(home: Path) -> Path:
    """LAZY_HOME holding the store as lazy at 089c81f left it, and a search index built from
    it (so the index has the old rows' documents to let go of)."""
    home.mkdir(parents=True)
    db = sqlite3.connect(home / "store.db", isolation_level=None)
    for migration in MIGRATIONS[:5]:  # the schema it had
        for stmt in statements(migration):
            db.execute(stmt)
    db.execute("PRAGMA user_version = 5")
    db.executescript(DUMP.read_text())
    db.close()
    with Store.open(home) as store:  # the store alone: no surface, so nothing re-read yet
        assert (
            store.conn.execute("SELECT value FROM meta WHERE key='reader_version'").fetchone()
            is None
        )
        ix = SearchIndex.open(home)
        ix.catch_up(store)
        found = search(ix, store.conn, '"Continued after the TUI"')
        assert [g.builder_id for g in found.groups] == [CONTINUED]
        found = search(ix, store.conn, '"running local commands"')  # the caveat, as a prompt
        assert [g.builder_id for g in found.groups] == [CONTINUED]
    return home


def as_json(tmp_path: Path, *args: str) -> Any:
    return json.loads(lazy(*args, "--json", cwd=tmp_path).stdout)


def rows(home: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(home / "store.db")
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def message_ids(home: Path, session: str) -> list[int]:
    return [
        r[0] for r in rows(home, "SELECT id FROM messages WHERE session_id=? ORDER BY seq", session)
    ]


def test_a_store_from_before_is_reread_once_on_open(tmp_path: Path) -> None:
    home = old_store(tmp_path / "lazy")
    assert not list((tmp_path / "home").rglob("*.jsonl"))  # nothing to re-import from
    tui_ids, old_ids = message_ids(home, TUI), message_ids(home, CONTINUED)

    (b,) = as_json(tmp_path, "conversations", "--all-projects")["builders"]
    assert (b["id"], b["summary"], b["message_count"]) == (TUI, P1, TUI_MESSAGES + 2)
    shown = as_json(tmp_path, "conversations", "show", TUI)["messages"]
    numbers = sorted(n for m in shown for n in (m["number"], *m["absorbed"]))
    assert numbers == list(range(1, TUI_MESSAGES + 3))
    assert [(m["session_id"], m["role"], m["text"]) for m in shown[-2:-1]] == [
        (CONTINUED, "user", P4)
    ]
    assert not any(m["text"].startswith(SUMMARY_OPENING) and m["role"] == "user" for m in shown)
    # exactly the session the new reader reads differently was re-derived: only its rows
    # changed (and are queued for the index), its head now harness text
    queued = rows(home, "SELECT DISTINCT message_id FROM index_queue")
    assert queued and {q for (q,) in queued} == set(old_ids) | set(message_ids(home, CONTINUED))
    assert not {q for (q,) in queued} & set(tui_ids)
    assert rows(
        home, "SELECT role, meta FROM messages WHERE session_id=? ORDER BY seq LIMIT 1", CONTINUED
    ) == [("system", 1)]

    # the index followed: the continue's prompt is found in the one Builder, numbered there
    hits = as_json(tmp_path, "search", "--all-projects", '"Continued after the TUI"')
    assert [(g["builder_id"], [h["number"] for h in g["hits"]]) for g in hits["groups"]] == [
        (TUI, [TUI_MESSAGES + 1])
    ]
    hits = as_json(tmp_path, "search", "--all-projects", '"running local commands"')
    assert [g["builder_id"] for g in hits["groups"]] == []  # the caveat is no one's words

    # once: the next open re-derives nothing (no message row written, none queued)
    assert rows(home, "SELECT COUNT(*) FROM index_queue") == [(0,)]
    as_json(tmp_path, "conversations", "--all-projects")
    assert rows(home, "SELECT COUNT(*) FROM index_queue") == [(0,)]


def test_the_step_is_recorded_and_not_taken_again(tmp_path: Path) -> None:
    """``meta.reader_version`` says the step was taken: a store that has it is not searched
    again, even when it holds rows of the old shape."""
    home = old_store(tmp_path / "lazy")
    with Store.open(home) as store:
        done = reread(store)
        assert done.rederived == [CONTINUED] and not done.failed
        assert store.conn.execute(
            "SELECT value FROM meta WHERE key='reader_version'"
        ).fetchone() == (str(READER_VERSION),)
        with store.write() as c:  # the old shape again, by hand
            c.execute(
                "UPDATE messages SET role='user', meta=0 WHERE session_id=? AND seq=1", (CONTINUED,)
            )
        assert reread(store).rederived == []


def test_live_capture_rereads_on_its_first_connection(tmp_path: Path) -> None:
    """The sidecar and the daemon open the store through PerThread: the first connection
    re-reads, before any request or sweep reads it."""
    home = old_store(tmp_path / "lazy")
    store = PerThread(home, 16).store()
    try:
        assert [b.id for b in list_builders(store.conn)] == [TUI]
        assert transcript(store.conn, TUI).builder.summary == P1
    finally:
        store.close()


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (
            "UPDATE raw_chunks SET data=x'00' WHERE file_id IN"
            " (SELECT id FROM source_files WHERE session_id=?)",
            "ZstdError",
        ),
        (
            # a message its archive no longer gives: dropping it is the doctor's, previewed
            "INSERT INTO messages(session_id, key, seq, role, kinds, text, uuids)"
            " VALUES (?, 'kept-elsewhere', 99, 'user', 'text', 'only in the store', '[]')",
            "would drop 1 stored message(s)",
        ),
    ],
    ids=["damaged-archive", "would-drop-a-message"],
)
def test_a_session_not_reread_keeps_its_rows(tmp_path: Path, damage: str, why: str) -> None:
    """Re-reading only rewrites what the archive gives back whole: otherwise the session
    keeps its rows, the user is told (stderr, capture log) once, and the step is recorded."""
    home = old_store(tmp_path / "lazy")
    with Store.open(home) as store, store.write() as c:
        c.execute(damage, (CONTINUED,))
    before = message_ids(home, CONTINUED)
    first = lazy("conversations", "--all-projects", "--json", cwd=tmp_path)
    assert CONTINUED in first.stderr and why in first.stderr, first.stderr
    assert message_ids(home, CONTINUED) == before
    # (its token usage, read from the archive for the usage table, is logged apart)
    logged = rows(
        home,
        "SELECT level, code FROM capture_log WHERE session_id=? AND reason LIKE 'not re-read%'",
        CONTINUED,
    )
    assert len(logged) == 1 and logged[0][0] == "warning" and logged[0][1], logged
    again = lazy("conversations", "--all-projects", "--json", cwd=tmp_path)
    assert CONTINUED not in again.stderr  # recorded: not tried on every open
