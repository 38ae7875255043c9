"""`lazy daemon` (issue 6): live capture with nothing else running, one daemon per store, a
pid file whose stale records (a dead pid, a reused pid) are taken over, and a status that says
what the last sweep did. Every daemon a test starts is killed by pid at the end, whatever
happened."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import psutil
import pytest
from harness import LAZY, ro_connect

from fabricate.claude import Session
from lazy.capture import daemon
from lazy.doctor.daemon import daemon_check
from lazy.os.pidfile import Holder, PidFile, me
from support import dead_holder, poll
from support.search import env_for

TIMEOUT = 60.0  # seconds anything a daemon does is waited for


class Daemons:
    """The lazy CLI on one store, and every daemon process seen on it (killed at the end)."""

    def __init__(self, lazy_home: Path, user_home: Path) -> None:
        self.lazy_home = lazy_home
        self.user_home = user_home
        self.projects = user_home / ".claude" / "projects"
        self.projects.mkdir(parents=True)
        self.seen: set[tuple[int, float]] = set()

    def env(self) -> dict[str, str]:
        return env_for(self.lazy_home, self.user_home, NO_COLOR="1", COLUMNS="200")

    def lazy(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(
            [LAZY, *args],
            env=self.env(),
            cwd=self.user_home,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        self.remember()
        if ok:
            assert p.returncode == 0, p
        return p

    def status(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.lazy("daemon", "status", "--json").stdout)
        return data

    def holder(self) -> Holder | None:
        return PidFile(self.lazy_home / daemon.PID_FILE).read()

    def remember(self) -> None:
        h = self.holder()
        if h is not None and h.pid != os.getpid():
            self.seen.add((h.pid, h.create_time))

    def running(self) -> list[psutil.Process]:
        """The daemon processes on this store, found by their command line and environment."""
        out = []
        for p in psutil.process_iter(["cmdline"]):
            cmd = p.info["cmdline"] or []
            if "daemon" in cmd and "run" in cmd:
                try:
                    if p.environ().get("LAZY_HOME") == str(self.lazy_home) and alive(p):
                        out.append(p)
                except psutil.Error:
                    continue
        return out

    def kill_all(self) -> None:
        for p in self.running():
            self.seen.add((p.pid, p.create_time()))
        for pid, created in self.seen:
            try:
                p = psutil.Process(pid)
                if abs(p.create_time() - created) < 1 and alive(p):
                    p.kill()
            except psutil.Error:
                continue
        for pid, _ in self.seen:
            poll(lambda pid=pid: gone(pid), timeout=TIMEOUT, what=f"pid {pid} to die")


def alive(p: psutil.Process) -> bool:
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def gone(pid: int) -> bool:
    try:
        return not alive(psutil.Process(pid))
    except psutil.NoSuchProcess:
        return True


@pytest.fixture
def d(lazy_home: Path, user_home: Path) -> Iterator[Daemons]:
    ds = Daemons(lazy_home, user_home)
    try:
        yield ds
    finally:
        ds.kill_all()


def stored_messages(lazy_home: Path, session_id: str) -> int:
    conn = ro_connect(lazy_home)
    if conn is None:
        return 0
    with conn:
        row = conn.execute(
            "SELECT message_count FROM sessions WHERE id=?", (session_id,)
        ).fetchone()
    return int(row[0]) if row else 0


def test_start_captures_reports_and_stops(d: Daemons) -> None:
    p = d.lazy("daemon", "start")
    h = d.holder()
    assert h is not None and f"Capture daemon started (pid {h.pid})" in p.stdout
    assert "Last sweep: 0 session(s) captured" in p.stdout

    s = Session(d.projects, "/w/daemon")  # written after the start, with nothing else running
    s.turn("written while only the daemon runs", "captured by it")
    poll(lambda: stored_messages(d.lazy_home, s.id) == 2, timeout=TIMEOUT,
               what="the daemon to capture the new session")  # fmt: skip
    s.turn("and a second turn", "captured as it grows")
    poll(lambda: stored_messages(d.lazy_home, s.id) == 4, timeout=TIMEOUT,
               what="the daemon to capture the grown session")  # fmt: skip

    st = poll(lambda: (x := d.status())["captured"] >= 1 and x, timeout=TIMEOUT,
                    what="the status to count the capture")  # fmt: skip
    assert st["running"] is True and st["pid"] == h.pid and st["since"] == h.started_at
    assert st["sweeps"] >= 1 and st["last_sweep"]["at"] and st["last_sweep"]["failures"] == []
    text = d.lazy("daemon", "status").stdout
    assert "Capture daemon: running" in text and str(h.pid) in text and "last sweep" in text
    assert daemon_check(d.lazy_home).status == "ok"

    again = d.lazy("daemon", "start")
    assert f"already running (pid {h.pid}" in again.stdout
    assert d.holder() == h and [p.pid for p in d.running()] == [h.pid]

    p = d.lazy("daemon", "stop")
    assert f"stopped (pid {h.pid})" in p.stdout
    assert gone(h.pid) and not (d.lazy_home / daemon.PID_FILE).exists()
    st = d.status()
    assert st["running"] is False and st["pid"] is None and st["stale_pid"] is None
    assert st["stopped_at"] and st["captured"] >= 1  # what the last run left
    assert "not running" in d.lazy("daemon", "status").stdout
    check = daemon_check(d.lazy_home)
    assert check.status == "warn" and check.fix == "lazy daemon start"
    assert f"started: pid {h.pid}" in (d.lazy_home / daemon.LOG_FILE).read_text()
    assert "not running" in d.lazy("daemon", "stop").stdout


@pytest.mark.parametrize("before", ["no pid file", "a stale pid file"])
def test_starts_at_once_make_one_daemon(d: Daemons, before: str) -> None:
    if before == "a stale pid file":
        d.lazy_home.mkdir(parents=True)
        (d.lazy_home / daemon.PID_FILE).write_text(json.dumps(asdict(dead_holder())))
    starts = [
        subprocess.Popen([LAZY, "daemon", "start"], env=d.env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        for _ in range(3)
    ]  # fmt: skip
    outs = []
    for p in starts:
        out, errs = p.communicate(timeout=120)
        assert p.returncode == 0, (out, errs)
        outs.append(out)
    d.remember()
    h = d.holder()
    assert h is not None
    assert sum("started" in o for o in outs) == 1
    assert sum("already running" in o for o in outs) == 2
    poll(lambda: [p.pid for p in d.running()] == [h.pid], timeout=TIMEOUT,
               what="the losing daemons to exit")  # fmt: skip


@pytest.mark.parametrize("stale", ["dead pid", "reused pid"])
def test_a_stale_pid_file_is_taken_over(d: Daemons, stale: str) -> None:
    if stale == "dead pid":
        record = dead_holder()
    else:  # this very test's pid, alive, but not the process that wrote the record
        mine = me()
        record = Holder(os.getpid(), mine.create_time - 1000, mine.host, "e" * 32, mine.started_at)
    d.lazy_home.mkdir(parents=True, exist_ok=True)
    (d.lazy_home / daemon.PID_FILE).write_text(json.dumps(asdict(record)))
    st = d.status()
    assert st["running"] is False and st["stale_pid"] == record.pid
    assert "is gone" in " ".join(daemon_check(d.lazy_home).detail)

    p = d.lazy("daemon", "start")
    h = d.holder()
    assert h is not None and h.pid not in (record.pid, os.getpid()) and h.nonce != record.nonce
    assert f"started (pid {h.pid})" in p.stdout
    assert d.status()["running"] is True
    assert not list(d.lazy_home.glob(f"{daemon.PID_FILE}.stale.*"))
    d.lazy("daemon", "stop")
    assert gone(h.pid) and psutil.pid_exists(os.getpid())


def test_kill_9_leaves_status_saying_not_running_and_start_recovers(d: Daemons) -> None:
    started = json.loads(d.lazy("daemon", "start", "--json").stdout)
    h = d.holder()
    assert h is not None and started["state"] == "ready"
    assert started["status"]["pid"] == h.pid and started["status"]["sweeps"] == 1
    os.kill(h.pid, signal.SIGKILL)
    poll(lambda: gone(h.pid), timeout=TIMEOUT, what="the killed daemon to die")
    st = d.status()
    assert st["running"] is False and st["stale_pid"] == h.pid
    assert "not running" in d.lazy("daemon", "status").stdout
    d.lazy("daemon", "start")
    again = d.holder()
    assert again is not None and again.pid != h.pid and d.status()["running"] is True
    assert json.loads(d.lazy("daemon", "stop", "--json").stdout) == {
        "state": "stopped",
        "pid": again.pid,
    }
    assert json.loads(d.lazy("daemon", "stop", "--json").stdout)["state"] == "not-running"


def test_a_sweep_failure_is_shown_with_its_machine_detail(d: Daemons) -> None:
    s = Session(d.projects, "/w/bad")
    s.turn("a good turn", "fine")
    with s.path.open("a") as f:
        f.write('{"type": "user", "this is not json\n')
    p = d.lazy("daemon", "start")
    assert f"{s.path}:3:" in p.stdout and "bad-line" in p.stdout
    # the last failure stays in the status; a later sweep (the watcher's first, or the
    # 30 s one) has nothing new to fail on, as the bad line is quarantined once
    status = d.status()
    failure = status["last_failure"]
    assert status["failures"] >= 1
    assert failure["file"] == str(s.path) and failure["line"] == 3
    assert failure["code"] == "bad-line" and failure["reason"]
    assert stored_messages(d.lazy_home, s.id) == 2  # the good lines are kept


def test_start_on_a_damaged_store_says_why_and_leaves_nothing_running(d: Daemons) -> None:
    d.lazy_home.mkdir(parents=True)
    (d.lazy_home / "store.db").write_bytes(b"garbage, not a database" * 100)
    p = d.lazy("daemon", "start", ok=False)
    assert p.returncode == 1
    assert (
        "did not start" in p.stderr and "not a database" in p.stderr and "SQLITE_NOTADB" in p.stderr
    )
    assert d.running() == [] and not (d.lazy_home / daemon.PID_FILE).exists()


def test_run_in_the_foreground_stops_on_sigterm(d: Daemons) -> None:
    fg = subprocess.Popen([LAZY, "daemon", "run"], env=d.env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        poll(lambda: d.status()["sweeps"] >= 1, timeout=TIMEOUT, what="the first sweep")
        h = d.holder()
        assert h is not None and h.pid == fg.pid
        second = d.lazy("daemon", "run", ok=False)
        assert (
            second.returncode == 1 and "already running" in (d.lazy_home / "daemon.log").read_text()
        )
        fg.send_signal(signal.SIGTERM)
        out, errs = fg.communicate(timeout=TIMEOUT)
    finally:
        if fg.poll() is None:
            fg.kill()
            fg.communicate()
    assert fg.returncode == 0, errs
    assert "started: pid" in errs and "stopped" in errs and out == ""
    assert not (d.lazy_home / daemon.PID_FILE).exists()


def test_the_log_is_bounded(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daemon, "LOG_MAX", 10_000)
    handler = daemon._Log(tmp / daemon.LOG_FILE, detached=False)
    logger = logging.getLogger("lazy.test-daemon-log")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for i in range(2000):
            logger.warning("line %d of a daemon that logs a lot", i)
    finally:
        logger.removeHandler(handler)
        handler.close()
    files = sorted(p.name for p in tmp.glob("daemon.log*"))
    assert files == ["daemon.log", "daemon.log.1", "daemon.log.2"]
    assert sum(p.stat().st_size for p in tmp.glob("daemon.log*")) < 3 * 10_000 + 200
    assert "line 1999 " in (tmp / daemon.LOG_FILE).read_text()


def test_a_removed_pid_file_is_written_again_at_the_next_sweep(d: Daemons) -> None:
    d.lazy("daemon", "start")
    h = d.holder()
    assert h is not None
    (d.lazy_home / daemon.PID_FILE).unlink()
    assert d.status()["running"] is False  # no record: nothing says it runs
    s = Session(d.projects, "/w/again")  # a new session: the watcher asks for a sweep
    s.turn("a new session", "sweeps again")
    again = poll(d.holder, timeout=TIMEOUT, what="the pid file to be written again")
    assert again.pid == h.pid
    st = poll(lambda: (x := d.status())["running"] and x["last_sweep"] and x,
                    timeout=TIMEOUT, what="the status of the same run")  # fmt: skip
    assert st["pid"] == h.pid and stored_messages(d.lazy_home, s.id) == 2
    second = d.lazy("daemon", "start")
    assert "already running" in second.stdout and [p.pid for p in d.running()] == [h.pid]
    d.lazy("daemon", "stop")
    assert gone(h.pid)
