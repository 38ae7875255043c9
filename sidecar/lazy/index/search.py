"""Running a query: BM25, then recency; hits grouped by Builder with a highlighted snippet.

The index answers which messages match and how well; everything shown comes from the
store, a few rows per search by primary key, so a Builder regrouped since its messages were
indexed is shown as it is now, and redacted (``lazy.view.redaction``) before a snippet is cut.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

import tantivy

from lazy.index.documents import TASK_BASE, texts_of
from lazy.index.indexer import IndexUnreadable, SearchIndex, tantivy_failed
from lazy.index.query import Parsed, parse, scoped
from lazy.index.query import compile as compile_query
from lazy.index.snippets import SNIPPET_CHARS, Marks, pattern, snippet
from lazy.model import SearchGroup, SearchHit, SearchResults
from lazy.store.index_feed import shown_builders, shown_memories, shown_messages, shown_tasks
from lazy.store.queries import short_id
from lazy.view.redaction import redactor

Redact = Callable[[str], str]

POOL = 60  # top documents ranked first: Builders' best messages are mostly among them
DEEPER = 16  # when they fill too few Builders: this many times more, once


def search(
    ix: SearchIndex,
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 10,
    per_builder: int = 3,
    now: datetime | None = None,
) -> SearchResults:
    """Builders with matching messages, best first; raises ``QueryError`` on a bad query,
    ``IndexUnreadable`` when a read of the index fails (results would not be whole)."""
    parsed = parse(query, now)
    chosen, total = _ranked(ix, parsed, limit, per_builder)
    shown = _shown(conn, [mid for hits in chosen for mid, _ in hits])
    builders = {
        r[0]: r[1:]
        for r in shown_builders(conn, list({r[1] for r in shown.values() if r[1] is not None}))
    }
    redact = redactor(ix.home)
    hits_of, best = _hits(chosen, shown, parsed, redact)
    groups = []
    for bid, hits_shown in hits_of.items():
        if bid.startswith(STANDALONE):
            groups.append(_memory_group(bid[len(STANDALONE) :], best[bid], hits_shown, shown))
            continue
        started, project, agent, summary = builders.get(bid) or (None, None, "?", "")
        groups.append(
            SearchGroup(
                builder_id=bid,
                short_id=short_id(bid),
                started_at=started,
                project=project,
                tool=agent,
                summary=redact(summary or ""),
                score=best[bid],
                hits=hits_shown,
            )
        )
    return SearchResults(query=query, total_hits=total, groups=groups)


def _ranked(
    ix: SearchIndex, parsed: Parsed, limit: int, per_builder: int
) -> tuple[list[list[tuple[int, float]]], int]:
    """(the best hits of the best Builders, as ``_choose`` picks them; how many documents
    matched in all)."""
    searcher = ix.searcher()  # reloaded first: compiling asks the index what it holds
    compiled = compile_query(parsed, ix.index)
    pool = max(POOL, limit * per_builder * 2)
    try:
        found = searcher.search(compiled, pool, count=True)
        total = int(getattr(found, "count", 0) or 0)  # the stub lacks it; the object has it
        chosen = _choose(searcher, found.hits, limit, per_builder)
        if len(chosen) < limit < total and len(found.hits) == pool:
            # a few Builders hold all the best messages: look deeper for the next ones
            deeper = searcher.search(compiled, min(total, pool * DEEPER), count=False)
            chosen = _choose(searcher, deeper.hits, limit, per_builder)
    except BaseException as e:
        if not tantivy_failed(e):
            raise
        raise IndexUnreadable(ix.path, e) from e
    return chosen, total


def _shown(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Any]:
    """The stored rows of the chosen documents, by document id (a message's id, minus a
    memory's rowid, ``-TASK_BASE`` minus a task's id)."""
    shown = {r[0]: r for r in shown_messages(conn, [i for i in ids if i > 0])}
    shown |= {-r[0]: r for r in shown_memories(conn, [-i for i in ids if -TASK_BASE < i < 0])}
    shown |= {
        -TASK_BASE - r[0]: r
        for r in shown_tasks(conn, [-TASK_BASE - i for i in ids if i <= -TASK_BASE])
    }
    return shown


def _hits(
    chosen: list[list[tuple[int, float]]], shown: dict[int, Any], parsed: Parsed, redact: Redact
) -> tuple[dict[str, list[SearchHit]], dict[str, float]]:
    """(the hits shown, by group key: a Builder's id, or a memory node's; each group's best
    score), in the order chosen."""
    marks = pattern(parsed.terms())
    typed = parsed.words()
    hits_of: dict[str, list[SearchHit]] = {}
    best: dict[str, float] = {}
    for hits in chosen:
        for mid, score in hits:
            row = shown.get(mid)
            if row is None or (row[1] is None and mid > 0):  # gone, or out of its Builder
                continue
            # a memory of no session (Claude Code's harness memory) is grouped by its node
            key = row[1] if row[1] is not None else STANDALONE + row[8]
            best.setdefault(key, score)
            if mid > 0:
                hit = _hit(row, score, marks, parsed.fields, redact)
            elif mid <= -TASK_BASE:
                hit = _task_hit(row, score, marks, redact)
            else:
                hit = _memory_hit(row, score, marks, redact)
            hit.terms = hit.terms or typed
            hits_of.setdefault(key, []).append(hit)
    return hits_of, best


def _choose(
    searcher: tantivy.Searcher, hits: list[tuple[float, Any]], limit: int, per_builder: int
) -> list[list[tuple[int, float]]]:
    """The best ``per_builder`` (message id, score) of each of the best ``limit`` Builders:
    BM25 first, then the newer message; Builders by their best message."""
    addresses = [address for _, address in hits]
    ids = searcher.fast_field_values("doc_id", addresses)
    keys = searcher.fast_field_values("builder", addresses)
    scores = [score for score, _ in hits]
    if len(set(scores)) < len(scores):  # ties, broken by recency
        times = searcher.fast_field_values("ts", addresses)
    else:
        times = [0] * len(hits)
    ranked = sorted(
        zip(hits, ids, keys, times, strict=True),
        key=lambda h: (-h[0][0], -(h[3] or 0)),
    )
    chosen: dict[int, list[tuple[int, float]]] = {}
    for (score, _), mid, key, _ts in ranked:
        if not isinstance(mid, int) or not isinstance(key, int):
            continue  # every document has both
        picked = chosen.get(key)
        if picked is None:
            if len(chosen) == limit:
                continue
            picked = chosen[key] = []
        if len(picked) < per_builder:
            picked.append((mid, round(float(score), 4)))
    return list(chosen.values())


def _hit(
    row: Any, score: float, marks: Marks | None, fields: tuple[str, ...], redact: Redact
) -> SearchHit:
    _, _, sid, number, role, ts, kind, text, packed, meta = row
    conversation, machinery = texts_of(role, text, packed, bool(meta))
    texts = {"text": redact(conversation), "tools": redact(machinery)}
    passage, field = "", fields[0]
    ranges: list[tuple[int, int]] = []
    for name in fields:  # the first field searched that shows a match
        passage, ranges = snippet(texts[name], marks)
        if passage:
            field = name
            break
    if not passage:  # matched by filters alone: show the message's start
        field = "text" if texts["text"] else "tools"
        passage = texts[field][:SNIPPET_CHARS]
    return SearchHit(
        terms=matched(marks, *(texts.get(name, "") for name in fields)),
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


def matched(marks: Marks | None, *texts: str) -> list[str]:
    """What the query's terms matched in a hit's texts, as written there (``Marks.words``):
    a viewer highlights these in the whole message."""
    seen: dict[str, str] = {}
    for text in texts:
        for word in marks.words(text) if marks is not None and text else []:
            seen.setdefault(word.lower(), word)
    return list(seen.values())


STANDALONE = "\0memory:"  # the group key of memories in no Builder, before their node


def _memory_group(
    tree: str, score: float, hits: list[SearchHit], shown: dict[int, Any]
) -> SearchGroup:
    """Memories in no Builder (Claude Code's harness memory records): one group per node,
    with no Builder id; each hit's memory_path is what `lazy get` reads."""
    project = next((r[10] for r in shown.values() if r[1] is None and r[8] == tree), None)
    return SearchGroup(
        builder_id="",
        short_id="memory",
        started_at=None,
        project=project,
        tool="claude",
        summary=f"Claude Code memory records ({tree})",
        score=score,
        hits=hits,
    )


def _memory_hit(row: Any, score: float, marks: Marks | None, redact: Redact) -> SearchHit:
    _, _, sid, number, role, temporal, kind, content, tree, name, _ = row
    content = redact(content)
    passage, ranges = snippet(content, marks)
    return SearchHit(
        terms=matched(marks, content),
        number=number or 0,
        role=role or "assistant",
        session_id=sid or "",  # "": a memory of no session (Claude Code's harness memory)
        timestamp=temporal,
        score=score,
        snippet=passage or content[:SNIPPET_CHARS],
        highlights=ranges,
        sidechain=kind == "sidechain",
        field="memory",
        kind="memory",
        memory_path=f"{tree}/{name}",
    )


def _task_hit(row: Any, score: float, marks: Marks | None, redact: Redact) -> SearchHit:
    _, _, code, first, goal, created, prompt = row
    text = redact(f"{goal}\n\n{prompt}")
    passage, ranges = snippet(text, marks)
    return SearchHit(
        terms=matched(marks, text),
        number=first,  # where the range it was promoted from starts
        role="user",
        session_id="",
        timestamp=created,
        score=score,
        snippet=passage or text[:SNIPPET_CHARS],
        highlights=ranges,
        kind="task",
        task_code=code,
    )


def search_scoped(
    ix: SearchIndex, conn: sqlite3.Connection, query: str, projects: list[str] | None, *, limit: int
) -> SearchResults:
    """``query`` searched within ``projects`` (None or none: every project, unless the
    query names its own); the results carry the query as typed, the scope said apart."""
    results = search(ix, conn, scoped(query, projects), limit=limit)
    results.query = query
    return results
