"""Shared fixtures: an isolated home and store, the shared corpus, a Docker engine."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lazy.store import Store
from support import CLAUDE_CORPUS, require

# session-scoped servers: the Docker engine and agent image (tests/sandbox, tests/vscode), and
# PostgreSQL (tests/team)
pytest_plugins = ["support.docker_fixtures", "support.postgres"]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the machine's own ~/.claude or ~/.lazy."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LAZY_HOME", str(tmp_path / "lazy"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    # the session registry defaults to ~/.lazybridge/sessions.json: under the fake HOME
    monkeypatch.delenv("LAZYBRIDGE_SESSIONS_FILE", raising=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "lazy")
    yield s
    s.close()


@pytest.fixture
def corpus() -> Path:
    require(CLAUDE_CORPUS.is_dir(), f"the shared corpus at {CLAUDE_CORPUS}")
    return CLAUDE_CORPUS


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    """Children a test starts; any still running at the end are killed by pid and reaped,
    their pipes closed."""
    started: list[subprocess.Popen[str]] = []
    try:
        yield started
    finally:
        for p in started:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGKILL)
            p.wait()
            for stream in (p.stdin, p.stdout, p.stderr):
                if stream is not None:
                    stream.close()
