"""What a stored message, or memory, becomes in the index.

A message's text is split in two: the conversation (what the user and the agent said, and
the reasoning) and the machinery (tool calls, tool output, harness text); ``schema.document``
turns both and the filters' values into the JSON tantivy takes. A memory (``lazy import``)
is its content, with the filters' values of the message and session it was made from. A
task (``lazy conversations promote``) is its goal and prompt, under the Builder it was
promoted from. A document's id is the message's id, minus the memory's rowid, or
``-TASK_BASE`` minus the task's id (the store's triggers queue them so).

Every text is redacted here (``lazy.view.redaction``) before the index sees it, so a search
for a secret finds nothing; a document that had something redacted carries the tags
``redacted=any`` and ``redacted=<rule>``, which `lazy doctor` counts.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from lazy.blocks import render_block
from lazy.index.schema import MACHINE_ROLES, document
from lazy.os.clock import parse_iso
from lazy.store.archive import unpack_blocks
from lazy.store.index_feed import memory_rows, message_rows, task_rows
from lazy.view.redaction import redact_counted

# a text as the index takes it, and what was redacted from it
Redact = Callable[[str], tuple[str, Counter[str]]]
REDACTED = "redacted"  # the tag name: redacted=any, redacted=<rule>


def unredacted(text: str) -> tuple[str, Counter[str]]:
    return text, Counter()


def redacted_tags(counts: Counter[str]) -> list[str]:
    return [f"{REDACTED}=any", *(f"{REDACTED}={name}" for name in sorted(counts))] if counts else []


def split_text(text: str, packed: bytes | None, meta: bool) -> tuple[str, str]:
    """(the conversation: words and reasoning; the machinery: tool calls, tool output and
    harness text) of a stored message, as the index holds them."""
    if packed is None:  # one text block: the text column
        return ("", text) if meta else (text, "")
    said: list[str] = []
    tools: list[str] = []
    for b in unpack_blocks(packed, text):
        rendered = _call_words(b) if b["type"] == "tool_use" else render_block(b)
        if rendered:
            (said if not meta and b["type"] in ("text", "thinking") else tools).append(rendered)
    return "\n\n".join(said), "\n\n".join(tools)


def texts_of(role: str, text: str, packed: bytes | None, meta: bool) -> tuple[str, str]:
    """``split_text``, and all of it machinery for a tool call or result, whatever blocks
    it has: those roles are out of the default scope."""
    conversation, machinery = split_text(text, packed, meta)
    if role in MACHINE_ROLES and conversation:
        return "", f"{conversation}\n\n{machinery}" if machinery else conversation
    return conversation, machinery


def _call_words(block: dict[str, Any]) -> str:
    """A tool call as its name and the values of its arguments, one per line, unescaped:
    its JSON would index every key of every call and join an escaped newline to the next
    word (``\\nexport``)."""
    return "\n".join([str(block.get("name") or ""), *_leaves(block.get("input"))])


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif value is not None:
        yield str(value)


def _document(
    mid: int,
    bid: str | None,
    builder_row: int | None,
    session: str,
    role: str,
    ts: str | None,
    seconds: int | None,
    model: str | None,
    text: str,
    packed: bytes | None,
    meta: int,
    agent: str,
    project: str | None,
    *,
    redact: Redact = unredacted,
) -> str | None:
    if bid is None:
        return None  # not placed in a Builder yet: the regroup that places it requeues it
    conversation, machinery = texts_of(role, text, packed, bool(meta))
    conversation, said = redact(conversation)
    machinery, ran = redact(machinery)
    return document(
        doc_id=mid,
        ts=_seconds(ts, seconds),
        builder=bid,
        # a Builder without its row (never seen: both are written in one transaction) gets
        # a number of its own, so the message is grouped alone rather than lost
        builder_row=builder_row if builder_row is not None else -mid,
        session=session,
        tool=agent,
        role=role,
        project=project,
        model=model,
        text=conversation,
        tools=machinery,
        extra_tags=redacted_tags(said + ran),
    )


TASK_BASE = 1 << 40  # below every memory's -rowid: the two kinds never share a run of ids


def prepare(conn: sqlite3.Connection, lo: int, hi: int, redacting: bool = True) -> list[str]:
    """The documents with ids ``lo``..``hi`` (all of one kind): messages placed in a
    Builder, memories of sessions that are, or tasks; their texts redacted unless not
    ``redacting`` (the store's settings turned it off)."""
    r = redact_counted if redacting else unredacted
    if hi <= -TASK_BASE:
        rows = task_rows(conn, -TASK_BASE - hi, -TASK_BASE - lo)
        return [_task_document(*row, redact=r) for row in rows]
    if lo < 0:
        rows = memory_rows(conn, -hi, -lo)
        return [doc for row in rows if (doc := _memory_document(*row, redact=r)) is not None]
    rows = message_rows(conn, lo, hi)
    return [doc for row in rows if (doc := _document(*row, redact=r)) is not None]


# memories of no session (Claude Code's harness memory records): searchable on their own
STANDALONE = "claude-harness-memory"


def _memory_document(
    rowid: int,
    bid: str | None,
    builder_row: int | None,
    session: str | None,
    role: str | None,
    temporal: str | None,
    seconds: int | None,
    model: str | None,
    content: str,
    agent: str | None,
    project: str | None,
    source: str | None,
    *,
    redact: Redact = unredacted,
) -> str | None:
    if agent is None or (bid is None and source != STANDALONE):
        return None  # its session is gone or not in a Builder: nothing to show it under
    content, found = redact(content)
    return document(
        doc_id=-rowid,
        ts=_seconds(temporal, seconds),
        builder=bid or "",
        builder_row=builder_row if builder_row is not None else -(1 << 40) - rowid,
        session=session,
        tool=agent,
        role=role or "assistant",
        kind="memory",
        project=project,
        model=model,
        text=content,
        extra_tags=redacted_tags(found),
    )


def _seconds(ts: str | None, seconds: int | None) -> int | None:
    """Whole seconds of ``ts``: as SQLite read it, else (a form it does not read) Python."""
    if seconds is None and ts:
        when = parse_iso(ts)
        seconds = math.floor(when.timestamp()) if when is not None else None
    return seconds


def _task_document(
    tid: int,
    bid: str,
    builder_row: int | None,
    created: str,
    seconds: int | None,
    goal: str,
    prompt: str,
    agent: str | None,
    project: str | None,
    *,
    redact: Redact = unredacted,
) -> str:
    """A task, found by its goal and prompt, under the Builder it was promoted from."""
    text, found = redact(f"{goal}\n\n{prompt}")
    return document(
        doc_id=-TASK_BASE - tid,
        ts=_seconds(created, seconds),
        builder=bid,
        # a Builder regrouped away since (its id gone) still groups its tasks together
        builder_row=builder_row if builder_row is not None else -(2 << 40) - tid,
        tool=agent or "claude",
        role="user",
        kind="task",
        project=project,
        text=text,
        extra_tags=redacted_tags(found),
    )
