"""A pid file that says which process holds a role (one daemon per store), with stale
detection: the record carries the holder's pid and process create time, so a dead holder,
or a live process that merely reuses its pid, is told apart from the real holder.

Created with ``O_EXCL`` and written whole in one go; a stale record is taken over by
renaming it aside first (only one contender can win the rename), checking that what was
renamed is still the record judged stale, and only then competing for a fresh ``O_EXCL``
create (never "unlink, then create": two contenders could each remove the other's fresh
file). See research/reliability.md §3.2.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson
import psutil

from lazy.os.clock import now_iso
from lazy.os.private import private_dir
from lazy.os.procs import HOST, holder_gone

GRACE = 2.0  # seconds a half-written record is given before it counts as debris


@dataclass(frozen=True)
class Holder:
    pid: int
    create_time: float  # psutil.Process(pid).create_time()
    host: str
    nonce: str
    started_at: str  # ISO time the role was taken

    def alive(self) -> bool:
        """This very process still runs (not a zombie, not another process with its pid);
        another machine's (a shared home) is never judged from here."""
        return holder_gone(self.pid, self.create_time, self.host) is None


class Held(Exception):
    """Another live process holds the role."""

    def __init__(self, holder: Holder) -> None:
        super().__init__(f"held by pid {holder.pid} since {holder.started_at}")
        self.holder = holder


def me() -> Holder:
    pid = os.getpid()
    return Holder(
        pid=pid,
        create_time=psutil.Process(pid).create_time(),
        host=HOST,
        nonce=uuid.uuid4().hex,
        started_at=now_iso(),
    )


class PidFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.mine: Holder | None = None

    def read(self) -> Holder | None:
        """The record; None when there is none, or it is not (yet) a whole record."""
        return _read(self.path)

    def holder(self) -> Holder | None:
        """The live holder, if any."""
        h = self.read()
        return h if h is not None and h.alive() else None

    def acquire(self, timeout: float = 5.0) -> Holder:
        """Take the role for this process; :class:`Held` when a live process has it."""
        record = me()
        data = orjson.dumps(asdict(record))
        deadline = time.monotonic() + timeout
        private_dir(self.path.parent)
        while True:
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                pass
            else:
                try:
                    os.write(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                self.mine = record
                return record
            current = self.read()
            if current is not None and current.alive():
                raise Held(current)
            if current is not None or self._debris():
                self._take_over(current)
            elif time.monotonic() > deadline:
                raise TimeoutError(f"{self.path}: a half-written record did not complete")
            else:
                time.sleep(0.02)  # another process is writing its record right now

    def _debris(self) -> bool:
        """A record that is not whole and old enough not to be one being written now."""
        try:
            return time.time() - os.lstat(self.path).st_mtime > GRACE
        except FileNotFoundError:
            return False

    def _take_over(self, stale: Holder | None) -> None:
        aside = self.path.with_name(f"{self.path.name}.stale.{uuid.uuid4().hex}")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return  # another contender moved it first: compete for the create
        if _read(aside) != stale:
            # what was moved is not what was judged stale: a fresh holder's record; put it
            # back unless yet another one has appeared meanwhile
            with contextlib.suppress(OSError):
                os.link(aside, self.path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(aside)

    def owned(self) -> bool:
        """The file still holds this process's record."""
        return self.mine is not None and self.read() == self.mine

    def release(self) -> None:
        """Remove the file if it is still ours."""
        if self.owned():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        self.mine = None

    def remove_stale(self) -> Holder | None:
        """Remove a record whose holder is gone; returns it (None: none, or alive)."""
        h = self.read()
        if h is None or h.alive():
            return None
        self._take_over(h)
        return h


def _read(path: Path) -> Holder | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        d = orjson.loads(raw)
        return Holder(
            pid=int(d["pid"]),
            create_time=float(d["create_time"]),
            host=str(d["host"]),
            nonce=str(d["nonce"]),
            started_at=str(d["started_at"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
