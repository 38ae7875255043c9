"""Helpers every test suite may import (kept out of conftest.py so names never collide)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from lazy.os.pidfile import Holder, me

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LAZY_CORPUS", REPO.parent / "shared" / "corpus"))
CLAUDE_CORPUS = CORPUS / "claude-code"

T = TypeVar("T")


def require(condition: bool, reason: str) -> None:
    """Skip locally, fail in CI: a missing prerequisite must never pass silently there."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"prerequisite missing in CI: {reason}")
    pytest.skip(reason)


def poll(probe: Callable[[], T | None], *, timeout: float, what: str, every: float = 0.005) -> T:
    """``probe()`` until it is truthy; fail after ``timeout`` seconds (never a guessed sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def stage(tmp_path: Path, files: dict[str, Path]) -> Path:
    """Copy files into a fresh projects dir: {relative path: source file}."""
    root = tmp_path / "projects"
    for rel, src in files.items():
        dst = root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return root


def split_sessions(src: Path, dest_dir: Path) -> list[Path]:
    """A fixture that mixes several sessions' lines, laid out as Claude Code writes them:
    one ``<sessionId>.jsonl`` per session, lines in their original order."""
    import json

    by_session: dict[str, list[str]] = {}
    for line in src.read_text().splitlines(keepends=True):
        sid = json.loads(line).get("sessionId", src.stem)
        by_session.setdefault(sid, []).append(line)
    dest_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for sid, lines in by_session.items():
        path = dest_dir / f"{sid}.jsonl"
        path.write_text("".join(lines))
        out.append(path)
    return out


def dead_holder() -> Holder:
    """A pid file record whose process has exited: a real pid and create time, now gone."""
    import subprocess

    import psutil

    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                         stdin=subprocess.PIPE)  # fmt: skip
    created = psutil.Process(p.pid).create_time()
    assert p.stdin is not None
    p.stdin.close()
    p.wait(timeout=30)
    return Holder(p.pid, created, me().host, "d" * 32, "2026-01-01T00:00:00.000Z")


def stored_line(conn: Any, bid: str) -> list[Any]:
    """A Builder's own line as the store holds it: every message, numbered, its text as the
    words said or else its blocks as text (not the view, which folds results into calls)."""
    from dataclasses import replace

    from lazy.blocks import render
    from lazy.store.queries import message_rows

    return [
        replace(r, text=r.text or render(r.blocks)) for r in message_rows(conn, bid, None, 1, 2**62)
    ]
