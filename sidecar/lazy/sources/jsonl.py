"""Byte-level JSONL streaming shared by the line-oriented readers.

Lines are split on the byte b"\\n" only (U+2028 inside a value is not a line break), an
unterminated last line is never consumed, and each line is decoded on its own so one bad
line never stops the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

CHUNK = 4 * 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
# Past this a line is quarantined rather than parsed: real images make 1-5 MB lines, a
# 50 MB line is a pasted dump that would only bloat every derived row.
MAX_LINE = 32 * 1024 * 1024


@dataclass(slots=True)
class Line:
    offset: int  # byte offset of the line's first byte
    line_no: int  # 1-based
    raw: bytes  # without the trailing newline


def read_complete(f: IO[bytes], start: int, limit: int = CHUNK * 16) -> bytes:
    """The bytes from ``start`` up to the last newline within about ``limit`` bytes.

    A line longer than ``limit`` is read whole (up to its newline); an unterminated tail is
    left for a later read, so a half-written record is never consumed.
    """
    f.seek(start)
    data = f.read(limit)
    cut = data.rfind(b"\n")
    if cut >= 0 or len(data) < limit:
        return data[: cut + 1]
    parts = [data]
    while True:  # one line longer than the batch: keep reading to its end
        more = f.read(CHUNK)
        if not more:
            return b""  # the long line is not complete yet
        nl = more.find(b"\n")
        if nl >= 0:
            parts.append(more[: nl + 1])
            return b"".join(parts)
        parts.append(more)


def split_lines(data: bytes, start: int, first_line_no: int) -> Iterator[Line]:
    """The newline-terminated lines of ``data`` (which starts at file offset ``start``)."""
    pos = 0
    n = first_line_no
    find = data.find
    while True:
        nl = find(b"\n", pos)
        if nl < 0:
            return
        yield Line(start + pos, n, data[pos:nl])
        pos = nl + 1
        n += 1


def _scrub(value: Any) -> Any:
    """Replace lone surrogates (which SQLite and Tantivy reject) with U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    return value


def decode(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """Parse one line. Returns (object or None, reason it was bad or repaired)."""
    if len(raw) > MAX_LINE:
        return None, f"line of {len(raw):,} bytes exceeds the {MAX_LINE:,}-byte limit"
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        obj = None
    if obj is not None:
        if isinstance(obj, dict):
            return obj, None
        return None, f"not a JSON object ({type(obj).__name__})"
    if not raw.strip():
        return None, "blank line"
    reason: str | None = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        text = raw.decode("utf-8", "replace")
        reason = f"invalid UTF-8 at byte {e.start} (imported with U+FFFD)"
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"invalid JSON: {e.msg} at column {e.colno}"
    if not isinstance(parsed, dict):
        return None, f"not a JSON object ({type(parsed).__name__})"
    scrubbed = _scrub(parsed)
    if reason is None and scrubbed != parsed:
        reason = "lone surrogate in a string (imported with U+FFFD)"
    return scrubbed, reason
