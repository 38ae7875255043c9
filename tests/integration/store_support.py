"""A LAZY_HOME driven through the real `lazy` command line, for the tests of the store's
privacy and of its failures: each call a child process with its own umask, HOME and
LAZY_HOME, stdin closed (no terminal)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabricate.claude import Session
from lazy.os.pidfile import PidFile
from support.search import run_lazy

REPO = "/w/privateproj"


class Home:
    """A user HOME with Claude Code sessions, and the LAZY_HOME lazy keeps their store in."""

    def __init__(self, base: Path, umask: int = 0o022) -> None:
        self.base = base
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        self.projects = self.user_home / ".claude" / "projects"
        self.umask = umask
        self.sessions: list[Session] = []

    @property
    def db(self) -> Path:
        return self.lazy_home / "store.db"

    def session(self, *turns: tuple[str, str]) -> Session:
        s = Session(self.projects, REPO)
        for ask, say in turns:
            s.turn(ask, say)
        self.sessions.append(s)
        return s

    def lazy(
        self,
        *args: str,
        ok: bool = True,
        stdin: bytes | None = None,
        preexec: Callable[[], None] | None = None,
        timeout: float = 120,
        **env: str,
    ) -> subprocess.CompletedProcess[str]:
        umask = self.umask

        def child() -> None:
            os.umask(umask)
            if preexec is not None:
                preexec()

        # no Docker engine where the doctor looks for one; plain text, wide lines
        env = {"DOCKER_HOST": f"unix://{self.base / 'no-docker.sock'}", "NO_COLOR": "1",
               "COLUMNS": "250", **env}  # fmt: skip
        return run_lazy(self.lazy_home, self.user_home, *args, ok=ok, stdin=stdin,
                        timeout=timeout, preexec=child, **env)  # fmt: skip

    def imported(self) -> None:
        self.lazy("import-conversation", "--all-projects", "--yes")

    def hook(self, s: Session, event: str = "Stop") -> subprocess.CompletedProcess[str]:
        return self.lazy("capture", "--hook", stdin=json.dumps(s.hook_input(event)).encode())

    def doctor(self, *args: str, **env: str) -> tuple[int, dict[str, dict[str, Any]]]:
        p = self.lazy("doctor", "--json", *args, ok=False, **env)
        try:
            data = json.loads(p.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"doctor --json printed {p.stdout!r}\n{p.stderr}") from e
        return p.returncode, {c["title"]: c for c in data["checks"]}

    def stop_daemon(self) -> None:
        """Stop a daemon this test started, by the pid its pid file names."""
        holder = PidFile(self.lazy_home / "daemon.pid").read()
        self.lazy("daemon", "stop", ok=False)
        if holder is not None and holder.alive():
            os.kill(holder.pid, signal.SIGKILL)


def modes(root: Path) -> dict[str, str]:
    """Every path under ``root`` (itself included) with its permission bits, in octal."""
    out = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = oct(stat.S_IMODE(p.lstat().st_mode))
    return out


def not_private(root: Path) -> dict[str, str]:
    """The paths under ``root`` that are not 0600 (files) or 0700 (directories)."""
    wrong = {}
    for rel, mode in modes(root).items():
        p = root / rel
        want = "0o700" if p.is_dir() else "0o600"
        if mode != want:
            wrong[rel] = mode
    return wrong


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def count(db: Path, sql: str) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()
