"""Line splitting and decoding: bytes before text, one bad line never stops a file."""

from __future__ import annotations

import io

from lazy.sources.jsonl import MAX_LINE, decode, read_complete, split_lines


def test_splits_on_newline_bytes_only_not_unicode_separators() -> None:
    data = '{"a":"one\u2028two\u2029three"}\n{"b":1}\n'.encode()
    lines = list(split_lines(data, 0, 1))
    assert [ln.line_no for ln in lines] == [1, 2]
    assert decode(lines[0].raw)[0] == {"a": "one\u2028two\u2029three"}


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
    assert decode(b'{"a":1}') == ({"a": 1}, None)
    obj, why = decode(b'{"a": "caf\xe9"}')
    assert obj == {"a": "caf\ufffd"} and why is not None and "invalid UTF-8" in why
    obj, why = decode(b'{"a": "x\\ud83dy"}')
    assert obj == {"a": "x\ufffdy"} and why is not None and "surrogate" in why
    obj, why = decode(b'{"a": ')
    assert obj is None and why is not None and why.startswith("invalid JSON")
    obj, why = decode(b"[1,2]")
    assert obj is None and why == "not a JSON object (list)"
    obj, why = decode(b"x" * (MAX_LINE + 1))
    assert obj is None and why is not None and "exceeds" in why
