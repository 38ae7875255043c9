"""Line splitting and decoding: bytes before text, one bad line never stops a file."""

from __future__ import annotations

import io

from lazy.sources.jsonl import MAX_LINE, decode, read_complete, split_lines


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
