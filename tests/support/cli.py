"""The `lazy` command line run as a user runs it: a child process, no terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LAZY = [sys.executable, "-m", "lazy.cli.main"]


def lazy(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [*LAZY, *args], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if check and p.returncode != 0:
        raise AssertionError(f"lazy {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}")
    return p
