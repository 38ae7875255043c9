"""The toy agent's session files: JSON lines, one ``start`` (its cwd) then ``said`` lines."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lazy.agents.jsonl import Line, read_records
from lazy.agents.lines import SessionLines
from lazy.records import ONESHOT_MARKER, MessagePart, ReadBatch


class ToyReader(SessionLines):
    def read(self, lines: Iterable[Line]) -> ReadBatch:
        batch = ReadBatch()
        read_records(batch, lines, lambda line, obj: self._record(batch, obj, line.line_no))
        return batch

    def _record(self, batch: ReadBatch, obj: dict[str, Any], line_no: int) -> None:
        f = self._facts_of(batch, self.file_session)
        at = obj.get("at") if isinstance(obj.get("at"), str) else None
        f.saw(at)
        if obj.get("kind") == "start":
            f.cwd = f.cwd or obj.get("cwd")
            return
        if obj.get("kind") != "said":
            batch.unknown_types[str(obj.get("kind"))] = 1
            return
        role = "user" if obj.get("who") == "user" else "assistant"
        text = str(obj.get("text", ""))
        if role == "user" and not f.first_user_seen:
            f.first_user_seen = True
            f.oneshot = text.startswith(ONESHOT_MARKER)
        mid = str(obj["id"])
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        part = MessagePart(mid, mid, role, blocks, at, line_no)
        batch.parts.setdefault(self.file_session, []).append(part)
