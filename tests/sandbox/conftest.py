"""The sandbox tests: a real Docker engine (tests/support/docker_fixtures.py, session-scoped, shared with
tests/vscode) and the fake model API of tests/agents on loopback."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "agents"))
