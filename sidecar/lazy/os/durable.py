"""Durable small-file writes: atomic replace with fsync, and moving a file aside without
ever replacing what already lies there (reliability.md §3.3).

A reader of a file written here sees the old bytes or the new ones, never a torn mix; once
the call returns, the new bytes and the rename itself survive a power cut.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

# os.replace fails on Windows while any process holds the target open without
# FILE_SHARE_DELETE (antivirus, the search indexer, OneDrive do, briefly): retry for a
# bounded time, and never fall back to copy+unlink, the torn write this exists to prevent.
WINDOWS_REPLACE_SECONDS = 2.5


def full_fsync(fd: int) -> None:
    """Flush a file to stable storage (on macOS os.fsync stops at the drive's cache)."""
    if sys.platform == "darwin":
        import fcntl

        fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
    else:
        os.fsync(fd)


def fsync_dir(directory: Path) -> None:
    """Make a rename, create or unlink in ``directory`` durable. Windows has no directory
    handle to sync; NTFS journals the rename itself."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace(src: str, dst: Path) -> None:
    if sys.platform != "win32":
        os.replace(src, dst)
        return
    deadline = time.monotonic() + WINDOWS_REPLACE_SECONDS
    pause = 0.05
    while True:
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: a temp file in the same directory (a rename across
    filesystems is not atomic), fsynced, renamed over the target, the directory fsynced.
    On any failure the target is untouched and the temp file is gone."""
    directory = path.parent
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            full_fsync(f.fileno())
        _replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


def utc_stamp() -> str:
    """A UTC time for file names: sortable, no colons (Windows refuses them)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _names(path: Path, label: str) -> Iterator[Path]:
    yield path.with_name(path.name + label)
    stamped = path.with_name(f"{path.name}{label}.{utc_stamp()}")
    yield stamped
    n = 1
    while True:
        yield stamped.with_name(f"{stamped.name}-{n}")
        n += 1


def _rename_no_replace(src: Path, dst: Path) -> None:
    """Rename, failing with FileExistsError rather than replacing ``dst``. A hard link
    cannot replace anything; where the filesystem has none, the exists check runs under
    the caller's lock."""
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(dst):
            raise FileExistsError(dst) from None
        os.rename(src, dst)  # Windows: refuses an existing target by itself
        return
    os.unlink(src)


def move_aside(path: Path, label: str) -> Path:
    """Rename ``path`` to ``<path><label>``, or ``<path><label>.<UTC time>`` when that name
    is taken: an earlier file set aside is never replaced. Returns the new name."""
    for target in _names(path, label):
        try:
            _rename_no_replace(path, target)
        except FileExistsError:
            continue
        fsync_dir(path.parent)
        return target
    raise AssertionError("unreachable: _names never ends")
