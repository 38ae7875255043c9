"""A real PostgreSQL server for tests: Debian's binaries, a cluster made by ``initdb`` in a temp
dir, listening on a Unix socket there and nowhere else (``listen_addresses=''``), trust for
local connections (roles are who the tests say they are; what each may see is the server's
row-level security). As root the server runs as the ``postgres`` user, which initdb requires.
Stopped by its pid (the postmaster's), also when a test fails."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import poll, require


def bindir() -> Path | None:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    return Path(found[-1]).parent if found else None


@dataclass
class Postgres:
    bin: Path
    data: Path
    sockets: Path
    port: int
    user: str | None  # the OS user the server runs as (None: this one)
    pid: int = 0
    proc: subprocess.Popen[bytes] | None = None

    def conninfo(self, role: str = "postgres", dbname: str = "team") -> str:
        return f"host={self.sockets} port={self.port} dbname={dbname} user={role}"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / argv[0]), *argv[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        """The postmaster as this process's child (through runuser as root), so that killed it
        is reaped here and never left a zombie a restart would take for a running server."""
        log = open(self.data.parent / "server.log", "ab")  # noqa: SIM115 (the child's, closed below)
        cmd = [str(self.bin / "postgres"), "-D", str(self.data)]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        pidfile = self.data / "postmaster.pid"

        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                tail = (
                    (self.data.parent / "server.log").read_text(errors="replace").splitlines()[-15:]
                )
                raise AssertionError("postgres did not start:\n" + "\n".join(tail))
            lines = pidfile.read_text().splitlines() if pidfile.exists() else []
            # the 8th line of postmaster.pid says "ready" once it accepts connections; a file
            # left by a killed server says so too, of a pid that is not this child's
            return len(lines) >= 8 and lines[7].strip() == "ready" and self._ours(int(lines[0]))

        poll(ready, timeout=60, what="postgres to accept connections", every=0.02)
        self.pid = int(pidfile.read_text().splitlines()[0])

    def _ours(self, pid: int) -> bool:
        if self.proc is None:
            return False
        if not self.user:
            return pid == self.proc.pid
        try:
            return (
                int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                == self.proc.pid
            )
        except (OSError, IndexError, ValueError):
            return False

    def _reap(self) -> None:
        if self.proc is not None:
            self.proc.wait(timeout=60)
            self.proc = None
        self.pid = 0

    def stop(self) -> None:
        """Fast shutdown (SIGINT to the postmaster), SIGKILL if it lingers; reaped either way."""
        if not self.pid:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGINT)
        try:
            poll(
                lambda: self.proc is None or self.proc.poll() is not None,
                timeout=30,
                what="postgres to stop",
            )
        except AssertionError:
            self.kill()
            return
        self._reap()

    def kill(self) -> None:
        """The postmaster killed outright (a crashed server); its backends exit after it."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def sql(self, query: str, role: str = "postgres", dbname: str = "team") -> str:
        r = subprocess.run(
            [
                str(self.bin / "psql"),
                "-XAtq",
                "-v",
                "ON_ERROR_STOP=1",
                self.conninfo(role, dbname),
                "-c",
                query,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if r.returncode != 0:
            raise AssertionError(f"psql failed: {r.stderr.strip()}")
        return r.stdout.strip()


def _free_port(seed: int) -> int:
    # the socket file's name carries the port: any number not in use in this dir does
    return 40000 + seed % 20000


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    b = bindir()
    require(b is not None, "PostgreSQL server binaries (Debian's postgresql; make sysdeps)")
    assert b is not None
    user: str | None = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            require(False, "a postgres OS user to run the server as (Debian's postgresql)")
        user = "postgres"
    root = Path(tempfile.mkdtemp(prefix="lazy-pg-"))
    if user:
        shutil.chown(root, user=user)
    data, sockets = root / "data", root / "run"
    pg = Postgres(b, data, sockets, _free_port(os.getpid()), user)
    try:
        pg._run(
            "initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"
        )
        sockets.mkdir()
        if user:
            shutil.chown(sockets, user=user)
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(
                f"listen_addresses = ''\nunix_socket_directories = '{sockets}'\nport = {pg.port}\n"
                "fsync = off\nfull_page_writes = off\n"
            )
        pg.start()
        pg.sql("CREATE DATABASE team", dbname="postgres")
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)
