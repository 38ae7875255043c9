"""Fixtures of the CLI tests: a git repo to run `lazy` in, and the Claude projects dir of the
isolated HOME (tests/conftest.py isolates it for every test)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "work" / "myrepo"
    r.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(r)], check=True)
    return r


@pytest.fixture
def projects() -> Path:
    return Path(os.environ["HOME"]) / ".claude" / "projects"
