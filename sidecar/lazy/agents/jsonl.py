"""Byte-level JSONL streaming shared by the line-oriented readers.

Lines are split on the byte b"\\n" only (U+2028 inside a value is not a line break), an
unterminated last line is never consumed, and each line is decoded on its own so one bad
line never stops the file.
"""

from __future__ import annotations

import errno
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from lazy.agents.nesting import bounded, could_be_deep
from lazy.records import Quarantined, ReadBatch

CHUNK = 4 * 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
# Past this a line is quarantined rather than parsed: real images make 1-5 MB lines, a
# 50 MB line is a pasted dump that would only bloat every derived row.
MAX_LINE = 32 * 1024 * 1024
# Of a line past MAX_LINE, what is held at once: its first bytes (kept with its quarantine
# report) and one piece at a time as it is archived. However long the line, memory is not.
HEAD_KEPT = 64 * 1024
PIECE = CHUNK
ORJSON_DEPTH = 1024  # levels orjson reads; past them it says "depth limit exceeded"
_TOO_DEEP = f"nested deeper than {ORJSON_DEPTH:,} levels, more than the JSON parser reads"


@dataclass(slots=True)
class Line:
    offset: int  # byte offset of the line's first byte
    line_no: int  # 1-based
    raw: bytes  # without the trailing newline; of a line past MAX_LINE only its head
    size: int | None = None  # the line's length, when ``raw`` is only its head


@dataclass(frozen=True, slots=True)
class LongLine:
    """A complete line past :data:`MAX_LINE` at ``offset``: found, never held whole."""

    offset: int
    size: int  # bytes before its newline
    head: bytes  # its first HEAD_KEPT bytes

    def line(self, line_no: int) -> Line:
        return Line(self.offset, line_no, self.head, self.size)

    @property
    def end(self) -> int:
        """The offset just past its newline."""
        return self.offset + self.size + 1


def too_long(size: int) -> str:
    return f"line of {size:,} bytes exceeds the {MAX_LINE:,}-byte limit"


def read_complete(f: IO[bytes], start: int, limit: int = CHUNK * 16) -> bytes | LongLine:
    """The bytes from ``start`` up to the last newline within about ``limit`` bytes.

    A line longer than ``limit`` is read whole (up to its newline) if it is within
    :data:`MAX_LINE`, else it is a :class:`LongLine`, its newline found in bounded reads.
    An unterminated tail is left for a later read, so a half-written record is never
    consumed; looking for its end holds no more of it than ``limit`` either.
    """
    f.seek(start)
    data = f.read(limit)
    cut = data.rfind(b"\n")
    if cut >= 0 or len(data) < limit:
        return data[: cut + 1]
    head = data[:HEAD_KEPT]
    del data  # one line longer than the batch: find its end before reading it whole
    nl = _newline(f, start + limit)
    if nl is None:
        return b""  # the long line is not complete yet
    if nl - start > MAX_LINE:
        return LongLine(start, nl - start, head)
    f.seek(start)
    return f.read(nl + 1 - start)


def _newline(f: IO[bytes], pos: int) -> int | None:
    """The offset of the first newline at or after ``pos``; one buffer reused, so looking
    through a line of any length holds CHUNK bytes."""
    f.seek(pos)
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    while True:
        n = f.readinto(view)  # type: ignore[attr-defined]
        if not n:
            return None
        nl = buf.find(b"\n", 0, n)
        if nl >= 0:
            return pos + nl
        pos += n


def pieces(f: IO[bytes], long: LongLine) -> Iterator[tuple[int, bytes]]:
    """A long line and its newline as (offset, bytes) pieces of at most PIECE bytes, one
    read at a time: how it is archived verbatim without being held."""
    pos = long.offset
    f.seek(pos)
    while pos < long.end:
        piece = f.read(min(PIECE, long.end - pos))
        if not piece:  # the file shrank under us: the caller sees it when it checks
            raise OSError(errno.EIO, f"the file ended inside a line at byte {pos}")
        yield pos, piece
        pos += len(piece)


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


def _as_orjson(digits: str) -> int | float:
    """An integer as orjson reads it: past 64 bits a float (which orjson writes back), never
    Python's ValueError past 4,300 digits."""
    if len(digits) < 19:
        return int(digits)
    if len(digits) <= 21:
        n = int(digits)
        if -(2**63) <= n < 2**64:
            return n
    return float(digits)


# The stdlib parser, for what orjson refuses (invalid UTF-8, lone surrogates, NaN): numbers
# as orjson reads them, so whatever it parses orjson can write back.
_decoder = json.JSONDecoder(parse_int=_as_orjson)


def _parse(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """One line as one JSON object, repairing what can be repaired."""
    if len(raw) > MAX_LINE:
        return None, too_long(len(raw))
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        if str(e).startswith("depth limit exceeded"):
            return None, _TOO_DEEP  # the stdlib parser would only recurse until it fails
        obj = None
    if obj is not None:
        if not isinstance(obj, dict):
            return None, f"not a JSON object ({type(obj).__name__})"
        if not could_be_deep(raw):  # nearly every line: no walk over what it holds
            return obj, None
        return bounded(obj)
    if not raw.strip():
        return None, "blank line"
    reasons: list[str] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        text = raw.decode("utf-8", "replace")
        reasons.append(f"invalid UTF-8 at byte {e.start} (imported with U+FFFD)")
    try:
        parsed = _decoder.decode(text)
    except json.JSONDecodeError as e:
        return None, f"invalid JSON: {e.msg} at column {e.colno}"
    except RecursionError:
        return None, _TOO_DEEP
    if not isinstance(parsed, dict):
        return None, f"not a JSON object ({type(parsed).__name__})"
    parsed, why = bounded(parsed)  # first: scrubbing recurses
    if why is not None:
        reasons.append(why)
    scrubbed = _scrub(parsed)
    if scrubbed != parsed and not any("UTF-8" in r for r in reasons):
        reasons.append("lone surrogate in a string (imported with U+FFFD)")
    return scrubbed, "; ".join(reasons) or None


_RECORD_KEYS = ("uuid", "sessionId", "leafUuid", "messageId")


def _salvage(raw: bytes) -> list[dict[str, Any]]:
    """Whole records inside a damaged line: a record cut off with the next one written on
    the same line, two records with no newline between them, a NUL run before a record."""
    text = raw.decode("utf-8", "replace").replace("\x00", " ")
    found: list[dict[str, Any]] = []
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return found
        try:
            obj, end = _decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            pos = start + 1
            continue
        except RecursionError:
            return found  # every later start is as deep: trying each would take hours
        # an inner object of the cut-off record is not a record: records carry these keys
        if isinstance(obj, dict) and "type" in obj and any(k in obj for k in _RECORD_KEYS):
            found.append(_scrub(bounded(obj)[0]))
            pos = end
        else:
            pos = start + 1


def unreadable(e: BaseException) -> str:
    """Why a line or record could not be read, with the machine detail: the exception."""
    said = str(e)
    return f"could not be read: {type(e).__name__}" + (f": {said}" if said else "")


def decode(raw: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """Parse one line: (the records in it, why it was bad or repaired, else None). Never
    raises: whatever parsing a line throws (out of memory, a parser's recursion) is its
    reason, and the line is quarantined like any other bad one."""
    try:
        obj, reason = _parse(raw)
        if obj is not None:
            return [obj], reason
        if reason is not None and reason.startswith("invalid JSON"):
            salvaged = _salvage(raw)
            if salvaged:
                return (
                    salvaged,
                    f"{reason}; recovered {len(salvaged)} whole record(s) from the line",
                )
        return [], reason
    except Exception as e:
        return [], unreadable(e)


def read_records(
    batch: ReadBatch, lines: Iterable[Line], handle: Callable[[Line, dict[str, Any]], None]
) -> None:
    """Each line decoded and its records handed to ``handle``. A line that cannot be decoded,
    or whose record ``handle`` fails on (a shape no rule foresaw), is quarantined with why,
    and the next line is read: one line never stops its file."""
    for line in lines:
        batch.lines += 1
        if line.size is not None:  # a line past MAX_LINE: only its head is at hand
            why = too_long(line.size)
            batch.quarantine.append(
                Quarantined(line.line_no, line.offset, why, line.raw, None, line.size)
            )
            continue
        objs, problem = decode(line.raw)
        for obj in objs:
            try:
                handle(line, obj)
            except Exception as e:
                problem = f"{problem}; {unreadable(e)}" if problem else unreadable(e)
        if problem is not None:
            batch.quarantine.append(Quarantined(line.line_no, line.offset, problem, line.raw))
