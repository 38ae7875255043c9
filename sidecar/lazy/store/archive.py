"""Compression for what the store keeps verbatim (raw lines) or structured (message blocks)."""

from __future__ import annotations

from typing import Any

import orjson
import zstandard

# Level 1: imports are CPU-bound, and level 3 buys under 10% on JSONL for a third more time.
_raw = zstandard.ZstdCompressor(level=1)
_fast = zstandard.ZstdCompressor(level=1)
_d = zstandard.ZstdDecompressor()


def compress_raw(data: bytes) -> bytes:
    return _raw.compress(data)


def decompress(data: bytes) -> bytes:
    return _d.decompress(data)


def pack_blocks(blocks: list[dict[str, Any]]) -> bytes | None:
    """Blocks for storage; None when the message is one text block (its text column)."""
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        return None
    return _fast.compress(orjson.dumps(blocks))


def unpack_blocks(data: bytes | None, text: str) -> list[dict[str, Any]]:
    if data is None:
        return [{"type": "text", "text": text}]
    loaded: list[dict[str, Any]] = orjson.loads(_d.decompress(data))
    return loaded
