"""Whether the index's segment files are as Tantivy wrote them.

Tantivy opens a segment whose bytes were damaged in the middle without complaint, and then
answers queries from the damaged postings: different results, silently. Every file it
writes ends in a footer ``<json {"version": …, "crc": CRC-32 of the body}><u32 len><u32
1337>``, and tantivy-py exposes no way to check it, so it is checked here (zlib's CRC-32 is
Tantivy's crc32fast). Only the files of the segments ``meta.json`` names are checked (a
killed writer leaves empty orphans that are no part of the index), and a file is checked
again only when it changed since it last passed: ``lazy-checked.json`` keeps each one's
size, mtime and inode.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from pathlib import Path

import orjson

from lazy.os.private import open_private

CHECKED = "lazy-checked.json"
MAGIC = 1337
COMPONENTS = (".term", ".idx", ".pos", ".store", ".fast", ".fieldnorm")
CHUNK = 1 << 20


def segment_files(path: Path) -> list[Path]:
    """The files of the segments the last commit (``meta.json``) names."""
    try:
        meta = orjson.loads((path / "meta.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return []
    out = []
    for seg in meta.get("segments") or []:
        sid = str(seg.get("segment_id", "")).replace("-", "")
        for ext in COMPONENTS:
            f = path / f"{sid}{ext}"
            if f.exists():  # a schema without positions has no .pos
                out.append(f)
        deletes = seg.get("deletes")
        if isinstance(deletes, dict) and "opstamp" in deletes:
            out.append(path / f"{sid}.{deletes['opstamp']}.del")
    return out


def footer_problem(f: Path) -> str | None:
    """Why ``f`` is not as written (its footer, or its body's CRC), or None."""
    try:
        with open(f, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 8:
                return f"{f.name} is {size} bytes: no footer"
            fh.seek(size - 8)
            length, magic = struct.unpack("<II", fh.read(8))
            if magic != MAGIC or length + 8 > size:
                return f"{f.name} has no Tantivy footer"
            fh.seek(size - 8 - length)
            try:
                want = orjson.loads(fh.read(length))["crc"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                return f"{f.name} has an unreadable footer"
            fh.seek(0)
            left, crc = size - 8 - length, 0
            while left:
                chunk = fh.read(min(CHUNK, left))
                if not chunk:
                    return f"{f.name} ended early"
                crc = zlib.crc32(chunk, crc)
                left -= len(chunk)
    except FileNotFoundError:
        return f"{f.name} is missing"
    except OSError as e:
        return f"{f.name} could not be read ({e.strerror or e})"
    if crc != want:
        return f"{f.name} fails its checksum (CRC-32 {crc:08x}, written {want:08x})"
    return None


def _identity(f: Path) -> list[int] | None:
    try:
        st = f.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def damaged(path: Path) -> str | None:
    """The first damaged segment file of the index at ``path``, said, or None."""
    try:
        seen = orjson.loads((path / CHECKED).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        seen = {}
    if not isinstance(seen, dict):
        seen = {}
    now: dict[str, list[int] | None] = {}
    for f in segment_files(path):
        ident = _identity(f)
        if ident is not None and seen.get(f.name) == ident:
            now[f.name] = ident
            continue
        problem = footer_problem(f)
        if problem is not None:
            return problem
        now[f.name] = ident
    if now != seen:
        _remember(path, now)
    return None


def _remember(path: Path, checked: dict[str, list[int] | None]) -> None:
    tmp = path / f".{CHECKED}.{os.getpid()}.tmp"
    try:
        fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, orjson.dumps(checked))
        finally:
            os.close(fd)
        os.replace(tmp, path / CHECKED)
    except OSError:  # a read-only index: checked again next time
        with contextlib.suppress(OSError):
            tmp.unlink()
