"""What every real-agent suite (Claude Code, Codex, OpenCode) shares: CI strictness, the
loopback-only namespace, node's version, killing a scenario's process group."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess

import pytest

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require(ok: bool, reason: str) -> None:
    """Skip when a prerequisite is missing; in CI (CI=true) that is a failure instead."""
    if ok:
        return
    if IN_CI:
        pytest.fail(f"prerequisite missing (CI=true): {reason}", pytrace=False)
    pytest.skip(reason)


def unshare_prefix() -> list[str]:
    unshare = shutil.which("unshare") or "unshare"
    if os.geteuid() == 0:
        return [unshare, "--net", "--"]
    return [unshare, "--user", "--map-root-user", "--net", "--"]


def node_major() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    digits = out.stdout.strip().lstrip("v").split(".")[0]
    return int(digits) if digits.isdigit() else None


def kill_group(proc: subprocess.Popen[str]) -> None:
    """Kill the process group we created for ``proc`` (start_new_session) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=30)
