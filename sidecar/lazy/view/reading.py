"""The store's read API as every surface shows it: transcript text redacted.

Same names and arguments as ``lazy.store.queries`` (which stays verbatim: the store is the
system of record); the CLI, the sidecar, the ask prompt and task promotion read through
these. What is redacted: each message's text and tool-call lines, a Builder's summary and
title, a task's goal and prompt, a memory's content. Ids, times, paths and counts are kept.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy.model import (
    BuilderInfo,
    MemoryView,
    MessageView,
    Part,
    SidechainView,
    Task,
    ToolCall,
    Transcript,
)
from lazy.store import queries
from lazy.store.queries import StoredMessage
from lazy.view.messages import Subagents, build, searchable
from lazy.view.redaction import redactor

Redact = Callable[[str], str]


def _redact_value(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_value(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_value(v, redact) for v in value]
    return value


def _tool(t: ToolCall, redact: Redact) -> ToolCall:
    sub = t.subagent
    return t.model_copy(
        update={
            "summary": redact(t.summary),
            "input": _redact_value(t.input, redact),
            "output": redact(t.output) if t.output is not None else None,
            "diff": [
                d.model_copy(update={"diff": redact(d.diff), "path": redact(d.path)})
                for d in t.diff
            ],
            "todos": [x.model_copy(update={"text": redact(x.text)}) for x in t.todos],
            "subagent": sub.model_copy(
                update={
                    "description": redact(sub.description) if sub.description else None,
                    "outcome": redact(sub.outcome) if sub.outcome else None,
                }
            )
            if sub is not None
            else None,
        }
    )


def _part(p: Part, redact: Redact) -> Part:
    update: dict[str, Any] = {"text": redact(p.text)} if p.text else {}
    if p.tool is not None:
        update["tool"] = _tool(p.tool, redact)
    if p.name:
        update["name"] = redact(p.name)
    return p.model_copy(update=update) if update else p


def message(m: MessageView, redact: Redact) -> MessageView:
    """A message with every text in it redacted: its words, and each part's."""
    return m.model_copy(
        update={"text": redact(m.text), "parts": [_part(p, redact) for p in m.parts]}
    )


def info(b: BuilderInfo, redact: Redact) -> BuilderInfo:
    summary = redact(b.summary)
    title = redact(b.title) if b.title else b.title
    if summary is b.summary and title is b.title:
        return b
    return b.model_copy(update={"summary": summary, "title": title})


def task(t: Task, redact: Redact | None = None) -> Task:
    redact = redact or redactor()
    return t.model_copy(update={"goal": redact(t.goal), "prompt": redact(t.prompt)})


def memory(m: MemoryView, redact: Redact | None = None) -> MemoryView:
    redact = redact or redactor()
    meta = {k: redact(v) if isinstance(v, str) else v for k, v in m.meta.items()}
    return m.model_copy(update={"content": redact(m.content), "meta": meta})


# the messages read at a time either side of a page, so a call's results (after it) and
# the call a result answers (before it) are shown with it
_AROUND = 16


def _subagents(conn: sqlite3.Connection, info: BuilderInfo) -> Subagents | None:
    if not info.sidechains:
        return None
    ends = queries.subagent_ends(conn, [s.session_id for s in info.sidechains])
    return Subagents(
        info.sidechains,
        asked={k: v[0].strip() for k, v in ends.items()},
        answered={k: v[1] for k, v in ends.items()},
    )


def _line(
    conn: sqlite3.Connection, info: BuilderInfo, side: str | None, redact: Redact
) -> list[MessageView]:
    rows = queries.message_rows(conn, info.id, side, 1, 2**62)
    subs = _subagents(conn, info) if side is None else None
    return [
        message(m, redact) for m in build(rows, info.tool, subagents=subs, project=info.project)
    ]


def transcript(
    conn: sqlite3.Connection,
    bid: str,
    start: int = 1,
    end: int | None = None,
    *,
    home: Path | None = None,
    redact: Redact | None = None,
) -> Transcript:
    """A whole Builder: its own line (``start``..``end``) and each subagent's; ``redact``
    replaces the store's redactor (an export counts what it redacts)."""
    r = redact or redactor(home)
    b = queries.builder_info(conn, bid)
    messages = [
        m for m in _line(conn, b, None, r) if start <= m.number and (end is None or m.number <= end)
    ]
    sides = [
        SidechainView(
            session_id=s.session_id, agent_id=s.agent_id, messages=_line(conn, b, s.session_id, r)
        )
        for s in b.sidechains
    ]
    return Transcript(builder=info(b, r), messages=messages, sidechains=sides)


def _results_after(
    conn: sqlite3.Connection, bid: str, side: str | None, last: int
) -> list[StoredMessage]:
    """The run of tool results right after ``last``: the answers to the calls before it."""
    out: list[StoredMessage] = []
    while True:
        more = queries.message_rows(conn, bid, side, last + 1, last + _AROUND)
        run = list(itertools.takewhile(lambda m: m.role == "tool_result", more))
        out += run
        if len(run) < _AROUND or not more:
            return out
        last = run[-1].number


def _call_before(
    conn: sqlite3.Connection, bid: str, side: str | None, first: int
) -> list[StoredMessage]:
    """The messages from the last one before ``first`` that is not a tool result (the call
    the results at ``first`` answer) up to ``first``."""
    out: list[StoredMessage] = []
    while first > 1:
        more = queries.message_rows(conn, bid, side, max(1, first - _AROUND), first - 1)
        if not more:
            return out
        calls = [i for i, m in enumerate(more) if m.role != "tool_result"]
        if calls:
            return more[calls[-1] :] + out
        out = more + out
        first = more[0].number
    return out


def _page(
    conn: sqlite3.Connection,
    b: BuilderInfo,
    side: str | None,
    start: int,
    count: int,
    redact: Redact,
) -> list[MessageView]:
    end = start + count - 1
    rows = queries.message_rows(conn, b.id, side, start, end)
    if not rows:
        return []
    if rows[0].role == "tool_result":
        rows = _call_before(conn, b.id, side, rows[0].number) + rows
    rows += _results_after(conn, b.id, side, rows[-1].number)
    turn = queries.turn_before(conn, b.id, side, rows[0].number)
    subs = _subagents(conn, b) if side is None else None
    views = build(rows, b.tool, subagents=subs, turn=turn, project=b.project)
    return [
        message(m, redact)
        for m in views
        if start <= m.number <= end or any(start <= a <= end for a in m.absorbed)
    ]


def message_page(
    conn: sqlite3.Connection,
    bid: str,
    side: str | None,
    start: int,
    count: int,
    *,
    home: Path | None = None,
) -> list[MessageView]:
    """The messages shown for numbers ``start``..``start+count-1`` of a line: each whole,
    with the results of its calls (read past the end) and, for a result at the start, the
    message whose call it answers (read before it, so it may repeat the page before)."""
    return _page(conn, queries.builder_info(conn, bid), side, start, count, redactor(home))


def line_from(
    conn: sqlite3.Connection, bid: str, side: str | None, start: int, redact: Redact
) -> list[MessageView]:
    """A line's messages from ``start`` to its end, as ``message_page`` shows them (the
    message whose call a result at ``start`` answers included), through ``redact``."""
    return _page(conn, queries.builder_info(conn, bid), side, start, 2**62 - start, redact)


def builder_info(conn: sqlite3.Connection, bid: str, *, home: Path | None = None) -> BuilderInfo:
    return info(queries.builder_info(conn, bid), redactor(home))


def list_builders(
    conn: sqlite3.Connection,
    projects: list[str] | None = None,
    limit: int | None = None,
    tools: list[str] | None = None,
    *,
    home: Path | None = None,
) -> list[BuilderInfo]:
    r = redactor(home)
    return [info(b, r) for b in queries.list_builders(conn, projects, limit, tools)]


def builders_page(
    conn: sqlite3.Connection,
    *,
    under: list[str] | None = None,
    tools: list[str] | None = None,
    text: str | None = None,
    after: tuple[str, str] | None = None,
    limit: int = 50,
    home: Path | None = None,
) -> list[BuilderInfo]:
    r = redactor(home)
    page = queries.builders_page(
        conn, under=under, tools=tools, text=text, after=after, limit=limit, shown=r
    )
    return [info(b, r) for b in page]


def builders_count(
    conn: sqlite3.Connection,
    *,
    under: list[str] | None = None,
    tools: list[str] | None = None,
    text: str | None = None,
    home: Path | None = None,
) -> int:
    """How many Builders ``builders_page``'s filters match in all (``text`` as shown)."""
    return queries.count_builders(conn, under=under, tools=tools, text=text, shown=redactor(home))


@dataclass(frozen=True)
class TranscriptPage:
    """A page of a Builder's own line of messages, or of one of its subagents' sessions."""

    builder: BuilderInfo
    session_id: str | None  # the subagent's session; None: the Builder's own line
    messages: list[MessageView]
    total: int  # messages in this line
    next_start: int | None  # the number after this page; None at the end


def transcript_page(
    conn: sqlite3.Connection,
    ident: str,
    session_id: str | None,
    start: int,
    count: int,
    *,
    home: Path | None = None,
) -> TranscriptPage:
    """Messages ``start``.. (``count`` of them) of the Builder ``ident`` names; of
    ``session_id``'s line when that is one of its subagents' (one of its own sessions is
    its own line). NotFound for a session that is not the Builder's."""
    raw = queries.builder_info(conn, queries.resolve_builder(conn, ident))
    r = redactor(home)
    shown = info(raw, r)
    if session_id is not None and session_id not in {s.session_id for s in shown.sidechains} | set(
        shown.session_ids
    ):
        raise queries.NotFound(f"{session_id} in {shown.id}")
    side = session_id if session_id not in (None, *shown.session_ids) else None
    total = (
        shown.message_count
        if side is None
        else next(s.message_count for s in shown.sidechains if s.session_id == side)
    )
    messages = _page(conn, raw, side, start, count, r)
    last = max([start + count - 1, *(max([m.number, *m.absorbed]) for m in messages)])
    return TranscriptPage(shown, side, messages, total, last + 1 if last < total else None)


def find(
    conn: sqlite3.Connection,
    ident: str,
    session_id: str | None,
    query: str,
    *,
    limit: int = 5000,
    home: Path | None = None,
) -> tuple[list[tuple[int, int]], int]:
    """Where ``query`` occurs (case ignored) in a whole line as it is shown, redacted:
    (message number, occurrences) of each message, in order, up to ``limit``; and the
    occurrences in all."""
    page = transcript_page(conn, ident, session_id, 1, 1, home=home)
    b = queries.builder_info(conn, page.builder.id)
    r = redactor(home)
    needle = query.casefold()
    found: list[tuple[int, int]] = []
    total = 0
    for m in _line(conn, b, page.session_id, r):
        n = sum(t.casefold().count(needle) for t in searchable(m))
        if n:
            total += n
            if len(found) < limit:
                found.append((m.number, n))
    return found, total
