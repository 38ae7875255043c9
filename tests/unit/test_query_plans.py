"""Every statement the hot paths run against ``messages`` and ``usage`` is planned through an
index that answers it.

A store with a long Builder (a main session with subagents) is imported, grown and read the way
capture, regrouping and the transcript do it, with SQLite tracing each statement; each one that
reads ``messages`` is then planned again with EXPLAIN QUERY PLAN. A plan that scans the table, or
that walks a whole Builder to answer a question about one of its sessions, is a defect that grows
with history (issue 19: one such query was 92% of a 1 GB import's regrouping)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from fabricate.claude import Session, subagent
from lazy.capture.bulk_import import run_import
from lazy.capture.discovery import discover_tool
from lazy.store import Store
from lazy.store.builders import top_number
from lazy.usage.report import message_tokens
from lazy.view.reading import find, transcript_page

TURNS = 400
SUBAGENTS = 4


def _import(store: Store, root: Path) -> None:
    d = discover_tool("claude", [root], None, default_roots=False)
    run_import(store, d, list(d.sessions))


def _traced(store: Store, work: list[str]) -> None:
    store.conn.set_trace_callback(work.append)


def _plans(
    conn: sqlite3.Connection, statements: list[str], table: str = "messages"
) -> dict[str, list[str]]:
    plans = {}
    for sql in dict.fromkeys(statements):
        if not re.search(rf"\b(FROM|JOIN) {table}\b", sql) or not sql.lstrip().upper().startswith(
            ("SELECT", "WITH")
        ):
            continue
        plans[sql] = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()]
    return plans


def _scans(step: str) -> bool:
    return re.match(r"SCAN (messages|m)\b", step) is not None


def test_hot_message_queries_use_an_index(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    main = Session(root, "/w/p")
    for i in range(TURNS):
        main.turn(f"question {i} about compression", f"answer {i}")
    for k in range(SUBAGENTS):
        subagent(main, f"a{k:016x}", f"look into part {k}", f"part {k} is fine")
    _import(store, root)
    ran: list[str] = []
    _traced(store, ran)
    for i in range(3):  # live growth: a turn and a subagent appended, captured, regrouped
        main.turn(f"later question {i}", f"later answer {i}")
        subagent(main, f"b{i:016x}", f"then look into {i}", f"{i} is fine too")
        _import(store, root)
    page = transcript_page(store.conn, main.id, None, TURNS, 200)
    message_tokens(store.conn, main.id, page.messages)  # as transcripts/page serves it
    find(store.conn, main.id, None, "compression")
    store.conn.set_trace_callback(None)

    assert page.messages, "the page read nothing: the test exercised nothing"
    plans = _plans(store.conn, ran)
    assert len(plans) >= 5, plans  # the paths above did read messages
    scans = {sql: p for sql, p in plans.items() if any(_scans(step) for step in p)}
    assert scans == {}
    # a question about one session is answered from that session's rows, not its Builder's
    wide = {
        sql: p
        for sql, p in plans.items()
        if re.search(r"session_id\s*=", sql) and any("(builder_id=?)" in step for step in p)
    }
    assert wide == {}
    # a message's tokens are found by the message: not by every response of its session, which
    # is what the primary key (session_id, ukey) alone gives (4.7 s a page at 50,000 messages)
    usage = _plans(store.conn, ran, "usage")
    assert usage, "no statement read usage: the test exercised nothing"
    joined = {sql: p for sql, p in usage.items() if re.search(r"\bu\.key\b", sql)}
    assert joined, "no statement joined usage to its messages: the test exercised nothing"
    by_session = {
        sql: p
        for sql, p in joined.items()
        if not any(re.match(r"SEARCH u .*\(session_id=\? AND key=\?\)", step) for step in p)
    }
    assert by_session == {}
    assert any(t is not None for t in (m.tokens for m in page.messages)), "no tokens were found"


def test_a_sessions_top_number_is_found_through_its_own_rows(store: Store) -> None:
    ran: list[str] = []
    _traced(store, ran)
    assert top_number(store.conn, "s", "b") == 0
    store.conn.set_trace_callback(None)
    (plan,) = _plans(store.conn, ran).values()
    assert plan == ["SEARCH messages USING INDEX messages_placing (session_id=? AND builder_id=?)"]


def test_a_few_builders_totals_read_their_own_usage_rows(store: Store, tmp_path: Path) -> None:
    """The Builders list and tree price a page of Builders: their sessions, then each one's
    usage rows by the primary key, not every counted response in the store."""
    from lazy.usage.report import builders_totals

    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.turn("what did it cost?", "little")
    _import(store, root)
    ran: list[str] = []
    _traced(store, ran)
    totals = builders_totals(store.conn, [s.id])
    store.conn.set_trace_callback(None)
    assert totals[s.id].responses == 1
    [sql] = [q for q in ran if "FROM usage" in q]
    plan = [r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()]
    assert any(p.startswith("SEARCH s USING INDEX sessions_builder") for p in plan), plan
    assert not any("usage_ts" in p or p.startswith("SCAN u") for p in plan), plan
