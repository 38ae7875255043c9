"""Line splitting and decoding: bytes before text, one bad line never stops a file."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from lazy.agents.jsonl import (
    HEAD_KEPT,
    MAX_LINE,
    ORJSON_DEPTH,
    PIECE,
    Line,
    LongLine,
    decode,
    pieces,
    read_complete,
    read_records,
    split_lines,
)
from lazy.agents.nesting import CUT, MAX_DEPTH, bounded, too_deep
from lazy.records import ReadBatch


def test_splits_on_newline_bytes_only_not_unicode_separators() -> None:
    data = '{"a":"one\u2028two\u2029three"}\n{"b":1}\n'.encode()
    lines = list(split_lines(data, 0, 1))
    assert [ln.line_no for ln in lines] == [1, 2]
    assert decode(lines[0].raw)[0] == [{"a": "one\u2028two\u2029three"}]


def test_incomplete_last_line_is_not_consumed() -> None:
    f = io.BytesIO(b'{"a":1}\n{"b":2}\n{"c":')
    data = read_complete(f, 0)
    assert data == b'{"a":1}\n{"b":2}\n'
    assert read_complete(f, len(data)) == b""  # the torn tail waits for its newline


def test_line_longer_than_a_batch_is_read_whole() -> None:
    big = b'{"x":"' + b"a" * 5000 + b'"}\n'
    f = io.BytesIO(big + b'{"y":1}\n')
    assert read_complete(f, 0, limit=1000) == big


def test_decode_reports_each_kind_of_bad_line() -> None:
    assert decode(b'{"a":1}') == ([{"a": 1}], None)
    objs, why = decode(b'{"a": "caf\xe9"}')
    assert objs == [{"a": "caf\ufffd"}] and why is not None and "invalid UTF-8" in why
    objs, why = decode(b'{"a": "x\\ud83dy"}')
    assert objs == [{"a": "x\ufffdy"}] and why is not None and "surrogate" in why
    objs, why = decode(b'{"a": ')
    assert objs == [] and why is not None and why.startswith("invalid JSON")
    objs, why = decode(b"[1,2]")
    assert objs == [] and why == "not a JSON object (list)"
    objs, why = decode(b"x" * (MAX_LINE + 1))
    assert objs == [] and why is not None and "exceeds" in why


def test_whole_records_are_salvaged_from_a_damaged_line() -> None:
    a = b'{"type":"user","uuid":"u1","message":{"role":"user","content":"one"}}'
    b = b'{"type":"user","uuid":"u2","message":{"role":"user","content":"two"}}'
    cut = b'{"type":"user","uuid":"u0","message":{"role":"us'
    objs, why = decode(cut + a)  # a record cut off, the next written on the same line
    assert [o["uuid"] for o in objs] == ["u1"] and why is not None and "recovered 1" in why
    objs, _ = decode(a + b)  # a missing newline
    assert [o["uuid"] for o in objs] == ["u1", "u2"]
    objs, _ = decode(b"\x00" * 64 + a)  # a NUL run before a record
    assert [o["uuid"] for o in objs] == ["u1"]


def _nested(kind: str, depth: int) -> bytes:
    opens = ["[" if kind == "arrays" or (kind == "mixed" and i % 2 == 0) else '{"a":'
             for i in range(depth)]  # fmt: skip
    closes = ["]" if o == "[" else "}" for o in reversed(opens)]
    return ("".join(opens) + "1" + "".join(closes)).encode()


def _depth(v: object) -> int:
    """Levels of arrays and objects along the first value of each."""
    d = 0
    while isinstance(v, dict | list) and v:
        v = next(iter(v.values())) if isinstance(v, dict) else v[0]
        d += 1
    return d


@pytest.mark.parametrize("kind", ["arrays", "objects", "mixed"])
@pytest.mark.parametrize("depth", [300, 1000, 1100, 100_000])
def test_deep_nesting_is_a_reason_never_an_exception(kind: str, depth: int) -> None:
    line = b'{"type":"user","x":' + _nested(kind, depth) + b"}"
    objs, why = decode(line)
    assert why is not None and "nested deeper than" in why, why
    if depth + 1 > ORJSON_DEPTH:  # past what orjson reads: nothing is read of it
        assert objs == []
    else:  # read cut at the bound, so every later step (orjson writing it) can take it
        assert objs[0]["type"] == "user"
        assert _depth(objs[0]["x"]) == MAX_DEPTH - 1 and CUT in repr(objs[0])
        orjson.dumps(objs)
    # the stdlib fallback (forced by invalid UTF-8) is bounded the same way
    objs, why = decode(line[:-1] + b',"b":"\xff"}')
    assert why is not None and "nested deeper than" in why, why
    assert objs == [] or _depth(objs[0]["x"]) == MAX_DEPTH - 1


def test_unterminated_deep_and_damaged_lines_are_reasons() -> None:
    for raw in (b"[" * 200_000, b'{"a":' * 200_000, b'{"type":"user","uuid":"u",' + b"[" * 5000):
        objs, why = decode(raw)
        assert objs == [] and why is not None, why


def test_numbers_the_stdlib_parser_reads_are_read_as_orjson_reads_them() -> None:
    for digits in ("123456789012345678901234567890", "9" * 5000):
        objs, why = decode(b'{"n":' + digits.encode() + b',"nan":NaN}')  # NaN: not orjson's
        assert why is None and isinstance(objs[0]["n"], float), (objs, why)
        orjson.dumps(objs)
    objs, _ = decode(b'{"n":18446744073709551615,"nan":NaN}')
    assert objs[0]["n"] == 2**64 - 1


def test_a_record_its_reader_fails_on_quarantines_its_line_and_the_next_is_read() -> None:
    data = b'{"n":1}\n{"n":2}\n{"n":3}\n'
    seen: list[int] = []

    def handle(line: Line, obj: dict[str, Any]) -> None:
        if obj["n"] == 2:
            raise AttributeError("'str' object has no attribute 'get'")
        seen.append(obj["n"])

    batch = ReadBatch()
    read_records(batch, split_lines(data, 0, 1), handle)
    assert seen == [1, 3] and batch.lines == 3
    (q,) = batch.quarantine
    assert (q.line_no, q.offset, q.raw) == (2, 8, b'{"n":2}')
    assert q.reason == "could not be read: AttributeError: 'str' object has no attribute 'get'"


def test_too_deep_walks_without_recursing() -> None:
    v: Any = 1
    for _ in range(200_000):
        v = [v]
    assert too_deep(v) and not too_deep([[1]]) and not too_deep("x")
    cut_v, why = bounded({"v": v})
    assert why is not None and _depth(cut_v["v"]) == MAX_DEPTH - 1


def test_a_line_past_the_limit_is_found_not_held_and_archived_in_pieces() -> None:
    long = b'{"x":"' + b"a" * MAX_LINE + b'"}'
    f = io.BytesIO(long + b'\n{"y":1}\n')
    got = read_complete(f, 0, limit=2 * HEAD_KEPT)
    assert isinstance(got, LongLine) and (got.offset, got.size) == (0, len(long))
    assert long.startswith(got.head) and len(got.head) == HEAD_KEPT
    assert read_complete(f, got.end) == b'{"y":1}\n'  # the cursor goes on past it
    parts = list(pieces(f, got))
    assert all(len(p) <= PIECE for _, p in parts) and b"".join(p for _, p in parts) == long + b"\n"
    assert [o for o, _ in parts] == [i * PIECE for i in range(len(parts))]
    batch = ReadBatch()
    read_records(batch, [got.line(7)], lambda line, obj: None)
    (q,) = batch.quarantine
    assert (q.line_no, q.raw_size, q.raw) == (7, len(long), got.head)
    assert q.reason == f"line of {len(long):,} bytes exceeds the {MAX_LINE:,}-byte limit"
    # unterminated, it waits for its newline
    assert read_complete(io.BytesIO(b'{"y":1}\n' + long), 8, limit=1000) == b""
