"""Fixtures for the reliability tests: a private LAZY_HOME, HOME and projects dir per test,
removed afterwards, and child processes that are always reaped."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lazy.store import Store


@pytest.fixture
def tmp() -> Iterator[Path]:
    """A fresh temp dir, removed after the test whatever happened (some tests write 100+ MB)."""
    d = Path(tempfile.mkdtemp(prefix="lazy-it-"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def lazy_home(tmp: Path) -> Path:
    return tmp / "lazy-home"


@pytest.fixture
def user_home(tmp: Path) -> Path:
    p = tmp / "user-home"
    p.mkdir()
    return p


@pytest.fixture
def projects(tmp: Path) -> Path:
    p = tmp / "claude" / "projects"
    p.mkdir(parents=True)
    return p


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp: Path) -> None:
    """In-process code must never read the real ~/.claude or write the real ~/.lazy."""
    monkeypatch.setenv("HOME", str(tmp / "user-home"))
    monkeypatch.setenv("LAZY_HOME", str(tmp / "lazy-home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


@pytest.fixture
def store(lazy_home: Path) -> Iterator[Store]:
    s = Store.open(lazy_home)
    try:
        yield s
    finally:
        s.close()
