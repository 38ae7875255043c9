"""Running a query: BM25, then recency; hits grouped by Builder with a highlighted snippet.

The index answers which messages match and how well; everything shown comes from the
store, a few rows per search by primary key, so a Builder regrouped since its messages were
indexed is shown as it is now.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from lazy.index.documents import split_text
from lazy.index.indexer import SearchIndex
from lazy.index.query import compile as compile_query
from lazy.index.query import parse
from lazy.index.snippets import SNIPPET_CHARS, Marks, pattern, snippet
from lazy.model import SearchGroup, SearchHit, SearchResults
from lazy.store.queries import short_id

POOL = 100  # top documents ranked before grouping: enough, mostly, for ``limit`` Builders


def search(
    ix: SearchIndex,
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 10,
    per_builder: int = 3,
    now: datetime | None = None,
) -> SearchResults:
    """Builders with matching messages, best first; raises ``QueryError`` on a bad query."""
    parsed = parse(query, now)
    compiled = compile_query(parsed, ix.index)
    ix.index.reload()
    searcher = ix.index.searcher()
    found = searcher.search(compiled, max(POOL, limit * per_builder * 2), count=True)
    total = int(getattr(found, "count", 0) or 0)  # the stub lacks it; the object has it
    if not found.hits:
        return SearchResults(query=query, total_hits=total, groups=[])
    ids = searcher.fast_field_values("doc_id", [address for _, address in found.hits])
    score_of = {
        int(i): round(float(s), 4)
        for (s, _), i in zip(found.hits, ids, strict=True)
        if isinstance(i, int)  # every document has its id
    }
    rows = _rows(conn, "SELECT id, builder_id, ts FROM messages WHERE id IN ({})", list(score_of))
    # BM25 first; among equal scores, the newer message (two stable sorts)
    rows.sort(key=lambda r: r[2] or "", reverse=True)
    rows.sort(key=lambda r: score_of[r[0]], reverse=True)
    chosen: dict[str, list[int]] = {}
    for row in rows:
        bid = row[1]
        if bid is None:  # not placed in a Builder yet
            continue
        hits = chosen.get(bid)
        if hits is None:
            if len(chosen) >= limit:
                continue
            hits = chosen[bid] = []
        if len(hits) < per_builder:
            hits.append(row[0])
    marks = pattern(parsed.terms())
    shown = {
        r[0]: r
        for r in _rows(
            conn,
            "SELECT m.id, m.session_id, m.number, m.role, m.ts, s.kind, m.text, m.blocks, m.meta"
            " FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id IN ({})",
            [mid for hits in chosen.values() for mid in hits],
        )
    }
    builders = {
        r[0]: r
        for r in _rows(
            conn,
            "SELECT id, started_at, project, tool, summary FROM builders WHERE id IN ({})",
            list(chosen),
        )
    }
    groups = []
    for bid, hits in chosen.items():
        _, started, project, tool, summary = builders.get(bid) or (bid, None, None, "?", "")
        groups.append(
            SearchGroup(
                builder_id=bid,
                short_id=short_id(bid),
                started_at=started,
                project=project,
                tool=tool,
                summary=summary or "",
                score=score_of[hits[0]],
                hits=[
                    _hit(shown[mid], score_of[mid], marks, parsed.fields)
                    for mid in hits
                    if mid in shown
                ],
            )
        )
    return SearchResults(query=query, total_hits=total, groups=groups)


def _rows(conn: sqlite3.Connection, sql: str, ids: list[Any]) -> list[Any]:
    if not ids:
        return []
    return conn.execute(sql.format(",".join("?" * len(ids))), ids).fetchall()


def _hit(row: Any, score: float, marks: Marks | None, fields: tuple[str, ...]) -> SearchHit:
    _, sid, number, role, ts, kind, text, packed, meta = row
    conversation, machinery = split_text(text, packed, bool(meta))
    texts = {"text": conversation, "tools": machinery}
    passage, field = "", fields[0]
    ranges: list[tuple[int, int]] = []
    for name in fields:  # the first field searched that shows a match
        passage, ranges = snippet(texts[name], marks)
        if passage:
            field = name
            break
    if not passage:  # matched by filters alone: show the message's start
        field = "text" if conversation else "tools"
        passage = texts[field][:SNIPPET_CHARS]
    return SearchHit(
        number=number or 0,
        role=role,
        session_id=sid,
        timestamp=ts,
        score=score,
        snippet=passage,
        highlights=ranges,
        sidechain=kind == "sidechain",
        field="conversation" if field == "text" else "tools",
    )
