"""Shared fixtures: an isolated store, the shared corpus, and prerequisites that must not
be skipped silently in CI."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lazy.store import Store

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("LAZY_CORPUS", REPO.parent / "shared" / "corpus"))
CLAUDE_CORPUS = CORPUS / "claude-code"


def require(condition: bool, reason: str) -> None:
    """Skip locally, fail in CI: a missing prerequisite must never pass silently there."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"prerequisite missing in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the machine's own ~/.claude or ~/.lazy."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LAZY_HOME", str(tmp_path / "lazy"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "lazy")
    yield s
    s.close()


@pytest.fixture
def corpus() -> Path:
    require(CLAUDE_CORPUS.is_dir(), f"the shared corpus at {CLAUDE_CORPUS}")
    return CLAUDE_CORPUS


def stage(tmp_path: Path, files: dict[str, Path]) -> Path:
    """Copy files into a fresh projects dir: {relative path: source file}."""
    root = tmp_path / "projects"
    for rel, src in files.items():
        dst = root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return root
