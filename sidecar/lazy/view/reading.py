"""The store's read API as every surface shows it: transcript text redacted.

Same names and arguments as ``lazy.store.queries`` (which stays verbatim: the store is the
system of record); the CLI, the sidecar, the ask prompt and task promotion read through
these. What is redacted: each message's text and tool-call lines, a Builder's summary and
title, a task's goal and prompt, a memory's content. Ids, times, paths and counts are kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lazy.model import BuilderInfo, MemoryView, MessageView, Task, Transcript
from lazy.store import queries
from lazy.view.redaction import redactor

Redact = Callable[[str], str]


def message(m: MessageView, redact: Redact) -> MessageView:
    text = redact(m.text)
    calls = [redact(c) for c in m.calls]
    if text is m.text and all(a is b for a, b in zip(calls, m.calls, strict=True)):
        return m
    return m.model_copy(update={"text": text, "calls": calls})


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


def transcript(
    conn: sqlite3.Connection,
    bid: str,
    start: int = 1,
    end: int | None = None,
    *,
    home: Path | None = None,
) -> Transcript:
    t = queries.transcript(conn, bid, start, end)
    r = redactor(home)
    return Transcript(
        builder=info(t.builder, r),
        messages=[message(m, r) for m in t.messages],
        sidechains=[
            s.model_copy(update={"messages": [message(m, r) for m in s.messages]})
            for s in t.sidechains
        ],
    )


def message_page(
    conn: sqlite3.Connection,
    bid: str,
    side: str | None,
    start: int,
    count: int,
    *,
    home: Path | None = None,
) -> list[MessageView]:
    r = redactor(home)
    return [message(m, r) for m in queries.message_page(conn, bid, side, start, count)]


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
    info = builder_info(conn, queries.resolve_builder(conn, ident), home=home)
    if session_id is not None and session_id not in {s.session_id for s in info.sidechains} | set(
        info.session_ids
    ):
        raise queries.NotFound(f"{session_id} in {info.id}")
    side = session_id if session_id not in (None, *info.session_ids) else None
    total = (
        info.message_count
        if side is None
        else next(s.message_count for s in info.sidechains if s.session_id == side)
    )
    messages = message_page(conn, info.id, side, start, count, home=home)
    end = start + count
    return TranscriptPage(info, side, messages, total, end if end <= total else None)
