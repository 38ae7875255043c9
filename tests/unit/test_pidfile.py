"""lazy.os.pidfile: one holder at a time; a dead holder, a reused pid, a zombie and debris are
stale and taken over; a live holder never is, however many contenders break at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import psutil
import pytest

from lazy.os.pidfile import GRACE, Held, Holder, PidFile, me
from support import dead_holder

HOLD = """
import sys, time
from pathlib import Path
from lazy.os.pidfile import Held, PidFile
path, go = Path(sys.argv[1]), Path(sys.argv[2])
deadline = time.monotonic() + 60
while not go.exists():  # all contenders start together
    if time.monotonic() > deadline:
        sys.exit(3)
    time.sleep(0.001)
pf = PidFile(path)
try:
    pf.acquire()
except Held as e:
    print(f"held {e.holder.pid}", flush=True)
    sys.exit(0)
print("got", flush=True)
sys.stdin.read()  # hold until the test closes stdin
pf.release()
"""


@pytest.fixture
def pids(tmp_path: Path) -> Path:
    d = tmp_path / "pids"
    d.mkdir()
    return d


def contender(path: Path, go: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), str(go)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def write(path: Path, holder: Holder) -> None:
    path.write_text(json.dumps(asdict(holder)))


def test_acquire_release(pids: Path) -> None:
    pf = PidFile(pids / "x.pid")
    mine = pf.acquire()
    assert mine.pid == os.getpid() and pf.read() == mine and pf.owned() and mine.alive()
    assert pf.holder() == mine
    with pytest.raises(Held) as e:
        PidFile(pids / "x.pid").acquire()  # this very process holds it: not stale
    assert e.value.holder == mine
    pf.release()
    assert not (pids / "x.pid").exists()


def test_a_live_holder_is_never_broken(pids: Path, procs: list[subprocess.Popen[str]]) -> None:
    go = pids / "go"
    go.touch()
    holder = contender(pids / "x.pid", go)
    procs.append(holder)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "got"
    with pytest.raises(Held) as e:
        PidFile(pids / "x.pid").acquire()
    assert e.value.holder.pid == holder.pid
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0
    assert not (pids / "x.pid").exists()  # released by its holder
    assert PidFile(pids / "x.pid").acquire().pid == os.getpid()


@pytest.mark.parametrize("kind", ["dead", "reused", "zombie"])
def test_stale_records_are_taken_over(pids: Path, kind: str) -> None:
    path = pids / "x.pid"
    zombie = None
    if kind == "dead":
        stale = dead_holder()
    elif kind == "reused":
        m = me()
        stale = Holder(m.pid, m.create_time - 500, m.host, "r" * 32, m.started_at)
    else:  # killed, not reaped: its pid still exists, as a zombie
        zombie = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        stale = Holder(zombie.pid, psutil.Process(zombie.pid).create_time(), me().host,
                       "z" * 32, "2026-01-01T00:00:00.000Z")  # fmt: skip
        os.kill(zombie.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the child never became a zombie"
            time.sleep(0.005)
        assert psutil.pid_exists(zombie.pid)
    try:
        write(path, stale)
        pf = PidFile(path)
        assert not stale.alive() and pf.holder() is None
        mine = pf.acquire()
        assert mine.pid == os.getpid() and pf.read() == mine
        assert [p.name for p in pids.iterdir()] == ["x.pid"]  # nothing left aside
    finally:
        if zombie is not None:
            zombie.wait()


def test_debris_is_waited_for_then_taken_over(pids: Path) -> None:
    path = pids / "x.pid"
    path.write_text('{"pid": 12')  # a record being written right now, or left half-written
    with pytest.raises(TimeoutError):
        PidFile(path).acquire(timeout=0.1)
    assert path.read_text() == '{"pid": 12'  # young: left alone
    old = time.time() - GRACE - 1
    os.utime(path, (old, old))
    assert PidFile(path).acquire().pid == os.getpid()


def test_contenders_breaking_one_stale_record_leave_one_holder(
    pids: Path, procs: list[subprocess.Popen[str]]
) -> None:
    path, go = pids / "x.pid", pids / "go"
    write(path, dead_holder())
    for _ in range(6):
        procs.append(contender(path, go))
    go.touch()
    said = []
    for c in procs:
        assert c.stdout is not None
        said.append(c.stdout.readline().strip())
    winners = [c for c, s in zip(procs, said, strict=True) if s == "got"]
    assert len(winners) == 1, said
    assert all(s == f"held {winners[0].pid}" for s in said if s != "got"), said
    assert PidFile(path).read() is not None and PidFile(path).holder().pid == winners[0].pid  # type: ignore[union-attr]
    assert sorted(p.name for p in pids.iterdir()) == ["go", "x.pid"]
