"""The lock file's judgement of a holder, on real files and real pids."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from lazy.os.lockfile import LockFile, LockTimeout


def record(pid: int, create_time: float, host: str | None = None) -> bytes:
    return json.dumps(
        {
            "pid": pid,
            "create_time": create_time,
            "host": host or socket.gethostname(),
            "nonce": "n" * 32,
            "at": "2026-01-01T00:00:00.000Z",
        }
    ).encode()


def dead_pid() -> int:
    p = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(p.stdout)
    assert not psutil.pid_exists(pid)
    return pid


def age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t), follow_symlinks=False)


@pytest.fixture
def lock_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.json.lock"


def test_acquire_writes_a_record_and_release_removes_it(lock_path: Path) -> None:
    lock = LockFile(lock_path)
    with lock:
        rec = json.loads(lock_path.read_bytes())
        assert rec["pid"] == os.getpid()
        assert rec["create_time"] == pytest.approx(psutil.Process().create_time())
        assert rec["host"] == socket.gethostname() and len(rec["nonce"]) == 32
        assert lock.held()
        assert lock_path.stat().st_mode & 0o777 == 0o600
    assert not lock_path.exists() and not lock.held()
    assert lock.took_over == []


def test_a_live_holder_is_never_broken(lock_path: Path) -> None:
    holder = LockFile(lock_path)
    holder.acquire()
    raw = lock_path.read_bytes()
    waiter = LockFile(lock_path, timeout=0.3, malformed_grace=0)
    with pytest.raises(LockTimeout) as e:
        waiter.acquire()
    assert f"pid {os.getpid()}" in str(e.value) and str(lock_path) in str(e.value)
    assert isinstance(e.value, TimeoutError)
    assert lock_path.read_bytes() == raw and holder.held()
    holder.release()
    with waiter:
        assert waiter.took_over == []


@pytest.mark.parametrize("offset", [-1000.0, 1000.0, -2.0])
def test_a_reused_pid_is_taken_over(lock_path: Path, offset: float) -> None:
    me = psutil.Process()
    # the pid runs, but as a process created at another time than the holder's
    lock_path.write_bytes(record(me.pid, me.create_time() + offset))
    lock = LockFile(lock_path, timeout=5)
    with lock:
        assert lock.held()
    assert len(lock.took_over) == 1 and "now belongs to another process" in lock.took_over[0]


def test_a_dead_pid_is_taken_over(lock_path: Path) -> None:
    pid = dead_pid()
    lock_path.write_bytes(record(pid, 12345.0))
    lock = LockFile(lock_path, timeout=5)
    with lock:
        pass
    assert lock.took_over == [f"its holder, pid {pid}, is gone"]


def test_a_holder_on_another_host_is_not_judged(lock_path: Path) -> None:
    lock_path.write_bytes(record(dead_pid(), 1.0, host="some-other-host"))
    age(lock_path, 3600)
    with pytest.raises(LockTimeout, match="on host some-other-host"):
        LockFile(lock_path, timeout=0.2).acquire()
    assert lock_path.exists()


@pytest.mark.parametrize(
    "raw",
    [b"", b"   ", b'{"pid": 12', b"garbage", b'{"pid": "x"}', b"[1, 2]", b'{"pid": 0}', b"null"],
)
def test_an_old_empty_or_malformed_record_is_taken_over(lock_path: Path, raw: bytes) -> None:
    lock_path.write_bytes(raw)
    age(lock_path, 10)
    lock = LockFile(lock_path, timeout=5, malformed_grace=2)
    with lock:
        assert lock.held()
    assert len(lock.took_over) == 1
    assert ("an empty" if not raw.strip() else "a malformed") in lock.took_over[0]


@pytest.mark.parametrize("raw", [b"", b'{"pid": 12'])
def test_a_young_malformed_record_is_left_alone(lock_path: Path, raw: bytes) -> None:
    """Its holder may still be writing it: it is stale only after the grace period."""
    lock_path.write_bytes(raw)
    with pytest.raises(LockTimeout, match="not valid yet"):
        LockFile(lock_path, timeout=0.2, malformed_grace=60).acquire()
    assert lock_path.read_bytes() == raw
    lock = LockFile(lock_path, timeout=30, malformed_grace=0.3)
    with lock:  # once old enough, it goes
        pass
    assert len(lock.took_over) == 1


def test_a_symlink_in_place_of_the_lock_is_removed_not_followed(
    lock_path: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    lock_path.symlink_to(victim)
    age(lock_path, 10)
    lock = LockFile(lock_path, timeout=5)
    with lock:
        assert not lock_path.is_symlink()
    assert victim.read_text() == "keep me"
    assert len(lock.took_over) == 1


def test_release_leaves_a_lock_that_is_not_ours(lock_path: Path) -> None:
    lock = LockFile(lock_path)
    lock.acquire()
    other = record(os.getpid(), psutil.Process().create_time())
    lock_path.write_bytes(other)  # as if someone had broken ours and taken it
    assert not lock.held()
    lock.release()
    assert lock_path.read_bytes() == other
