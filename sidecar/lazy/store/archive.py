"""Compression for what the store keeps verbatim (raw lines) or structured (message blocks)."""

from __future__ import annotations

import threading
from typing import Any

import orjson
import zstandard

# Level 1: imports are CPU-bound, and level 3 buys under 10% on JSONL for a third more time.
LEVEL = 1
# zstd contexts are not safe to share between threads; import parses ahead in a second one.
_local = threading.local()


def _c() -> zstandard.ZstdCompressor:
    c: zstandard.ZstdCompressor | None = getattr(_local, "c", None)
    if c is None:
        c = _local.c = zstandard.ZstdCompressor(level=LEVEL)
    return c


def _dctx() -> zstandard.ZstdDecompressor:
    d: zstandard.ZstdDecompressor | None = getattr(_local, "d", None)
    if d is None:
        d = _local.d = zstandard.ZstdDecompressor()
    return d


def compress_raw(data: bytes) -> bytes:
    return bytes(_c().compress(data))


def decompress(data: bytes) -> bytes:
    return bytes(_dctx().decompress(data))


def pack_blocks(blocks: list[dict[str, Any]]) -> bytes | None:
    """Blocks for storage; None when the message is one text block (its text column)."""
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        return None
    return compress_raw(orjson.dumps(blocks))


def unpack_blocks(data: bytes | None, text: str) -> list[dict[str, Any]]:
    if data is None:
        return [{"type": "text", "text": text}]
    loaded: list[dict[str, Any]] = orjson.loads(decompress(data))
    return loaded
