"""A cross-process lock file with stale-lock takeover (reliability.md §3.2).

The lock is a file created with ``O_CREAT|O_EXCL``: whoever creates it holds the lock, and
removing it releases the lock. The holder writes one JSON record into it in a single write::

    {"pid": 4242, "create_time": 1796069356.1, "host": "box", "nonce": "9f…", "at": "…Z"}

A holder that died leaves its file behind, so a waiter judges the record:

- the holder is gone when its pid no longer runs on this host, runs as a zombie, or now
  belongs to a process created at another time (the pid was reused: a live pid alone proves
  nothing);
- a record that does not parse (empty: the holder died between create and write) is stale
  once it is ``malformed_grace`` seconds old, so a holder still writing it is left alone;
- a record from another host cannot be judged and is never broken; a holder that is alive is
  never broken either: the waiter gives up after ``timeout`` with :class:`LockTimeout`.

Breaking a stale lock is "unlink, then compete through ``O_EXCL`` again". Two waiters that
saw the same stale record must not both unlink: the second would remove the lock the first
has just taken. So the judging and the unlink happen under an OS lock (``flock``,
``LockFileEx``) on a permanent sibling ``<lock>.guard``, which the kernel releases when its
holder dies; a breaker re-reads the record under it and breaks only what it judged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import orjson
import psutil

from lazy.os.procs import HOST, holder_gone

log = logging.getLogger(__name__)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LockTimeout(TimeoutError):
    """The lock stayed held by a live holder (or one that cannot be judged) too long."""

    def __init__(self, path: Path, waited: float, holder: str):
        super().__init__(f"timed out after {waited:g}s waiting for the lock {path}: {holder}")
        self.path = path
        self.waited = waited
        self.holder = holder


class LockLost(RuntimeError):
    """The lock file no longer carries this holder's record."""


@dataclass(frozen=True)
class Holder:
    pid: int
    create_time: float
    host: str
    nonce: str
    at: str


def _parse(raw: bytes) -> Holder | None:
    try:
        rec = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(rec, dict):
        return None
    pid, created, host, nonce, at = (
        rec.get(k) for k in ("pid", "create_time", "host", "nonce", "at")
    )
    if not (isinstance(pid, int) and not isinstance(pid, bool) and pid > 0):
        return None
    if not isinstance(created, int | float) or isinstance(created, bool):
        return None
    if not (isinstance(host, str) and isinstance(nonce, str) and nonce):
        return None
    return Holder(pid, float(created), host, nonce, at if isinstance(at, str) else "?")


_ME: dict[int, float] = {}


def _me() -> tuple[int, float]:
    """This process's pid and create time (looked up once per process: a fork is another)."""
    pid = os.getpid()
    if pid not in _ME:
        _ME[pid] = float(psutil.Process(pid).create_time())
    return pid, _ME[pid]


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _try_os_lock(fd: int) -> bool:
    """A non-blocking exclusive OS lock on ``fd``; False when another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _os_unlock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


class LockFile:
    """An exclusive lock between processes (not between threads: callers add their own)."""

    def __init__(self, path: Path, *, timeout: float = 10.0, malformed_grace: float = 2.0):
        self.path = path
        self.guard_path = path.with_name(path.name + ".guard")
        self.timeout = timeout
        self.malformed_grace = malformed_grace
        self.took_over: list[str] = []  # why each stale lock this instance broke was stale
        self._nonce: str | None = None

    # ---- holding ----------------------------------------------------------------------------

    def acquire(self) -> None:
        if self._nonce is not None:
            raise RuntimeError(f"{self.path} is already held by this LockFile")
        deadline = time.monotonic() + self.timeout
        pause = 0.001
        while True:
            if self._try_create():
                return
            reason = self._break_if_stale()
            if reason is not None:
                self.took_over.append(reason)
                continue
            if time.monotonic() >= deadline:
                raise LockTimeout(self.path, self.timeout, self.describe_holder())
            time.sleep(pause)  # a holder keeps the lock for a write: milliseconds
            pause = min(pause * 2, 0.02)

    def _try_create(self) -> bool:
        nonce = uuid.uuid4().hex
        pid, created = _me()
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record = orjson.dumps(
            {"pid": pid, "create_time": created, "host": HOST, "nonce": nonce, "at": at}
        )
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | _NOFOLLOW, 0o600)
        except FileExistsError:
            return False
        try:
            # one write: a reader sees no record (judged by its age) or the whole of it
            if os.write(fd, record) != len(record):
                raise OSError(f"short write of the lock record to {self.path}")
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise
        os.close(fd)
        self._nonce = nonce
        return True

    def held(self) -> bool:
        """The lock file still carries this holder's record."""
        if self._nonce is None:
            return False
        try:
            rec = _parse(_read(self.path))
        except OSError:
            return False
        return rec is not None and rec.nonce == self._nonce

    def release(self) -> None:
        if self._nonce is None:
            return
        try:
            if self.held():
                # Only a breaker could swap the file between the check and the unlink, and
                # it never breaks a live holder's lock.
                os.unlink(self.path)
            else:
                log.warning("the lock %s was no longer ours when we released it", self.path)
        finally:
            self._nonce = None

    def __enter__(self) -> LockFile:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    # ---- judging another holder -------------------------------------------------------------

    @contextlib.contextmanager
    def _guard(self) -> Iterator[bool]:
        fd = os.open(self.guard_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
        try:
            if not _try_os_lock(fd):
                yield False
                return
            try:
                yield True
            finally:
                _os_unlock(fd)
        finally:
            os.close(fd)

    def stale_reason(self, raw: bytes, mtime: float) -> str | None:
        """Why the lock record ``raw`` (its file last written at ``mtime``) is stale, or None
        while its holder may be alive."""
        rec = _parse(raw)
        if rec is None:
            age = time.time() - mtime
            if age < self.malformed_grace:
                return None
            what = "an empty" if not raw.strip() else "a malformed"
            return f"{what} lock record {age:.1f}s old"
        return holder_gone(rec.pid, rec.create_time, rec.host)

    def _break_if_stale(self) -> str | None:
        with self._guard() as guarded:
            if not guarded:
                return None  # another waiter is judging; look again next round
            try:
                st = os.lstat(self.path)
                # a symlink or other oddity in place of the lock: no record, judged by age
                raw = _read(self.path) if stat.S_ISREG(st.st_mode) else b""
            except FileNotFoundError:
                return None
            reason = self.stale_reason(raw, st.st_mtime)
            if reason is None:
                return None
            os.unlink(self.path)
        log.warning("took over the stale lock %s: %s", self.path, reason)
        return reason

    def describe_holder(self) -> str:
        """Who holds the lock, for an error message."""
        try:
            raw = _read(self.path)
        except FileNotFoundError:
            return "it was just released"
        except OSError as e:
            return f"its record is unreadable ({e})"
        rec = _parse(raw)
        if rec is None:
            return f"its record is not valid yet ({len(raw)} bytes); it is stale after {self.malformed_grace:g}s"
        where = "" if rec.host == HOST else f" on host {rec.host} (not judged from here)"
        try:
            name = psutil.Process(rec.pid).name() if rec.host == HOST else ""
        except psutil.Error:
            name = ""
        return f"held since {rec.at} by pid {rec.pid}{f' ({name})' if name else ''}{where}"
