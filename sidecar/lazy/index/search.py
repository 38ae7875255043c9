"""Running a query: BM25, then recency; hits grouped by Builder with a highlighted snippet."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

import tantivy

from lazy.index.indexer import SearchIndex, split_text
from lazy.index.query import compile as compile_query
from lazy.index.query import parse
from lazy.model import SearchGroup, SearchHit, SearchResults
from lazy.store.queries import short_id

SNIPPET_CHARS = 180
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
    ranked: list[tuple[float, str, dict[str, Any]]] = []
    for score, address in found.hits:
        doc = searcher.doc(address).to_dict()
        ts = doc.get("ts", [None])[0]
        ranked.append((round(float(score), 4), ts.isoformat() if ts else "", doc))
    # BM25 first; among equal scores, the newer message (two stable sorts)
    ranked.sort(key=lambda r: r[1], reverse=True)
    ranked.sort(key=lambda r: r[0], reverse=True)
    snippets = {
        name: tantivy.SnippetGenerator.create(searcher, compiled, ix.index.schema, name)
        for name in ("text", "tools")
    }
    for gen in snippets.values():
        gen.set_max_num_chars(SNIPPET_CHARS)
    groups: dict[str, SearchGroup] = {}
    for score, ts, doc in ranked:
        bid = doc["builder"][0]
        group = groups.get(bid)
        if group is None:
            if len(groups) >= limit:
                continue
            group = groups[bid] = _group(conn, bid, score)
        if len(group.hits) < per_builder:
            group.hits.append(_hit(conn, doc, score, ts, snippets))
    total = int(getattr(found, "count", 0) or 0)  # the stub lacks it; the object has it
    return SearchResults(query=query, total_hits=total, groups=list(groups.values()))


def _group(conn: sqlite3.Connection, bid: str, score: float) -> SearchGroup:
    r = conn.execute(
        "SELECT started_at, project, tool, summary FROM builders WHERE id=?", (bid,)
    ).fetchone()
    started, project, tool, summary = r if r else (None, None, "?", "")
    return SearchGroup(
        builder_id=bid,
        short_id=short_id(bid),
        started_at=started,
        project=project,
        tool=tool,
        summary=summary or "",
        score=score,
        hits=[],
    )


def _hit(
    conn: sqlite3.Connection,
    doc: dict[str, Any],
    score: float,
    ts: str,
    snippets: dict[str, Any],
) -> SearchHit:
    source, texts = _as_doc(conn, int(doc["doc_id"][0]))
    field = "text"
    snippet = snippets["text"].snippet_from_doc(source)
    if not snippet.fragment():
        field = "tools"
        snippet = snippets["tools"].snippet_from_doc(source)
    text = snippet.fragment()
    ranges = [(r.start, r.end) for r in snippet.highlighted()]
    if not text:  # matched by a filter alone, or in the parts of a word: show its start
        field = "text" if texts["text"] else "tools"
        text = texts[field][:SNIPPET_CHARS]
        ranges = []
    sid = doc["session"][0]
    kind = conn.execute("SELECT kind FROM sessions WHERE id=?", (sid,)).fetchone()
    return SearchHit(
        number=int(doc.get("number", [0])[0]),
        role=doc["role"][0],
        session_id=sid,
        timestamp=ts or None,
        score=score,
        snippet=text,
        highlights=ranges,
        sidechain=bool(kind and kind[0] == "sidechain"),
        field="conversation" if field == "text" else "tools",
    )


def _as_doc(conn: sqlite3.Connection, doc_id: int) -> tuple[tantivy.Document, dict[str, str]]:
    """The message's text as the index saw it (the index does not store it), for snippets."""
    r = conn.execute("SELECT text, blocks, meta FROM messages WHERE id=?", (doc_id,)).fetchone()
    conversation, machinery = split_text(r[0], r[1], bool(r[2])) if r else ("", "")
    doc = tantivy.Document()
    doc.add_text("text", conversation)
    doc.add_text("tools", machinery)
    return doc, {"text": conversation, "tools": machinery}
