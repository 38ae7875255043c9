"""What an export holds, whatever its format: the message view of a Builder's messages
``first``..``last`` (and of the subagents the calls among them ran), its usage, and what
redaction took out. Its JSON form is the documented schema ``lazy.export/1``
(``protocol/export.schema.json``), so other tools can read an export back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lazy import __version__
from lazy.model import BuilderInfo, MessageView, SidechainView
from lazy.usage.report import annotate
from lazy.view.reading import info, message, transcript
from lazy.view.redaction import Counting, keep
from lazy.view.redaction import redact as plain_redact
from lazy.view.terminal import inert_json

SCHEMA = "lazy.export/1"


class ExportRange(BaseModel):
    first: int  # the first message of the Builder's own line exported
    last: int  # the last one
    of: int  # how many the line holds


class ExportDocument(BaseModel):
    """One Builder as exported. ``messages`` and each subagent's are message views (the same
    shape ``transcripts/page`` sends), in order."""

    schema_: Literal["lazy.export/1"] = Field(default="lazy.export/1", alias="schema")
    generator: str = f"lazy {__version__}"
    exported_at: str  # ISO 8601, UTC
    redacted: bool  # False only when asked for with --no-redact
    redactions: dict[str, int] = Field(default_factory=dict)  # replacements by rule
    range: ExportRange
    builder: BuilderInfo
    messages: list[MessageView]
    subagents: list[SidechainView] = Field(default_factory=list)

    model_config = {"populate_by_name": True}

    @property
    def redaction_total(self) -> int:
        return sum(self.redactions.values())


class RangeError(ValueError):
    """A range the Builder does not have: the message says its size."""


def _spawned(messages: list[MessageView]) -> set[str]:
    return {
        p.tool.subagent.session_id
        for m in messages
        for p in m.parts
        if p.tool is not None and p.tool.subagent is not None
    }


def document(
    conn: sqlite3.Connection,
    bid: str,
    first: int | None = None,
    last: int | None = None,
    *,
    redact: bool = True,
    home: Path | None = None,
) -> ExportDocument:
    """The export of a Builder, whole or messages ``first``..``last`` of its own line. With
    ``redact`` every text goes through the store's redaction, counted by rule; without it,
    nothing is taken out."""
    # read as stored, then redacted message by message: what is counted is what is exported
    whole = transcript(conn, bid, home=home, redact=keep)
    size = max((m.number for m in whole.messages), default=0)
    lo, hi = first or 1, last or size
    if size and not (1 <= lo <= hi <= size):
        raise RangeError(f"messages {lo}–{hi} are not in this Builder: it has messages 1–{size}")
    messages = [m for m in whole.messages if lo <= m.number <= hi]
    whole_line = lo == 1 and hi == size
    ran = _spawned(messages)
    subagents = [s for s in whole.sidechains if whole_line or s.session_id in ran]
    counting = Counting()
    r = counting if redact else keep
    builder = info(whole.builder, r)
    messages = [redacted_message(m, r, redact) for m in messages]
    subagents = [
        s.model_copy(update={"messages": [redacted_message(m, r, redact) for m in s.messages]})
        for s in subagents
    ]
    annotate(conn, builder, [*messages, *(m for s in subagents for m in s.messages)], home)
    return ExportDocument(
        exported_at=datetime.now(UTC).isoformat(timespec="seconds"),
        redacted=redact,
        redactions=dict(sorted(counting.counts.items())),
        range=ExportRange(first=lo if size else 0, last=hi if size else 0, of=size),
        builder=builder,
        messages=messages,
        subagents=subagents,
    )


def redacted_message(m: MessageView, r: Callable[[str], str], redact: bool) -> MessageView:
    """A message redacted, its parts counted: its ``text`` (the words of its parts again) is
    redacted uncounted, so a secret is counted once for each place a reader meets it."""
    v = message(m.model_copy(update={"text": ""}), r)
    v.text = plain_redact(m.text) if redact else m.text
    return v


def as_json(doc: ExportDocument) -> str:
    """The document in its schema, every character a terminal would act on escaped as \\u (the
    same JSON to a parser)."""
    return inert_json(doc.model_dump_json(by_alias=True, indent=2)) + "\n"
