"""Opening an agent's session file as the bytes it holds: a compressed rollout (Codex's
.jsonl.zst / .jsonl.gz) is read decompressed, anything else as it lies on disk."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path
from typing import IO

import zstandard

from lazy.agents.base import COMPRESSED


def decompress_frames(data: bytes) -> bytes:
    """A whole .zst file, whose frames may not record their size (``zstd`` streams)."""
    return bytes(zstandard.ZstdDecompressor().decompressobj().decompress(data))


def open_source(path: Path) -> tuple[IO[bytes], int, int]:
    """(the file, its size, its mtime); a compressed rollout is read decompressed."""
    if path.name.endswith(COMPRESSED):
        st = os.stat(path)
        with open(path, "rb") as raw:
            packed = raw.read()
        data = gzip.decompress(packed) if path.name.endswith(".gz") else decompress_frames(packed)
        return io.BytesIO(data), len(data), st.st_mtime_ns
    f = open(path, "rb")  # noqa: SIM115 - the caller closes it
    st = os.fstat(f.fileno())
    return f, st.st_size, st.st_mtime_ns
