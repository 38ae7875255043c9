"""Byte-level JSONL streaming shared by the line-oriented readers.

Lines are split on the byte b"\\n" only (U+2028 inside a value is not a line break), an
unterminated last line is never consumed, and each line is decoded on its own so one bad
line never stops the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from lazy.records import Quarantined, ReadBatch
from lazy.sources.nesting import bounded, could_be_deep

CHUNK = 4 * 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
# Past this a line is quarantined rather than parsed: real images make 1-5 MB lines, a
# 50 MB line is a pasted dump that would only bloat every derived row.
MAX_LINE = 32 * 1024 * 1024
ORJSON_DEPTH = 1024  # levels orjson reads; past them it says "depth limit exceeded"
_TOO_DEEP = f"nested deeper than {ORJSON_DEPTH:,} levels, more than the JSON parser reads"


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
        return None, f"line of {len(raw):,} bytes exceeds the {MAX_LINE:,}-byte limit"
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
        objs, problem = decode(line.raw)
        for obj in objs:
            try:
                handle(line, obj)
            except Exception as e:
                problem = f"{problem}; {unreadable(e)}" if problem else unreadable(e)
        if problem is not None:
            batch.quarantine.append(Quarantined(line.line_no, line.offset, problem, line.raw))
