"""The session registry shared by real processes (reliability.md §7 D.23-24): concurrent
writers replayed serially, a reader that never sees a torn file, and lock holders that die,
hang, or leave records naming reused pids."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import warnings
from pathlib import Path
from typing import Any

import psutil
import pytest
from harness import PYTHON

from lazy.aliases.registry import (
    RegistryWarning,
    RegistryWriteWarning,
    SessionRegistry,
    normalize_scope,
)
from support import poll

CHILDREN = str(Path(__file__).resolve().parent / "registry_children.py")
PROCESSES, OPS = 8, 250

Key = tuple[str, str, str]


def child(*args: object) -> list[str]:
    return [PYTHON, CHILDREN, *(str(a) for a in args)]


def start(procs: list[subprocess.Popen[str]], argv: list[str]) -> subprocess.Popen[str]:
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    return p


def finish(p: subprocess.Popen[str], what: str, timeout: float = 300) -> dict[str, Any]:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, f"{what} exited {p.returncode}\n{err}"
    lines = out.strip().splitlines()
    assert lines, f"{what} printed nothing\n{err}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def replay(ops: list[dict[str, Any]]) -> dict[Key, tuple[str, str | None, str | None]]:
    """The logged operations applied one after another; each logged outcome must be the
    one the serial replay gives at that point."""
    state: dict[Key, tuple[str, str | None, str | None]] = {}
    for n, op in enumerate(ops):
        kind, scope = op["kind"], normalize_scope(op["scope"])
        if op["op"] == "bind":
            key = (kind, scope, op["name"])
            old = state.get(key)
            model = op["model"] if op["model"] is not None else (old[1] if old else None)
            effort = op["effort"] if op["effort"] is not None else (old[2] if old else None)
            state[key] = (op["native_id"], model, effort)
        elif op["op"] == "rename":
            src, dst = (kind, scope, op["old"]), (kind, scope, op["new"])
            want = "KeyError" if src not in state else "ValueError" if dst in state else "ok"
            assert op["result"] == want, f"op {n} {op}: the replay says {want}"
            if want == "ok":
                state[dst] = state.pop(src)
        else:
            key = (kind, scope, op["name"])
            assert op["result"] == (key in state), f"op {n} {op}: the replay disagrees"
            state.pop(key, None)
    return state


def test_eight_processes_writing_at_once_equal_a_serial_replay(
    tmp: Path, procs: list[subprocess.Popen[str]]
) -> None:
    path = tmp / "reg" / "sessions.json"
    scopes = [tmp / "repo-a", tmp / "repo-b"]
    for s in scopes:
        s.mkdir()
    go, done, ready = tmp / "go", tmp / "done", tmp / "checker-ready"
    checker = start(procs, child("check", path, done, ready))
    poll(ready.exists, timeout=60, what="the checker to start")
    logs = [tmp / f"ops-{i}.jsonl" for i in range(PROCESSES)]
    workers = [
        start(procs, child("ops", path, i, OPS, 1000 + i, logs[i], go, *scopes))
        for i in range(PROCESSES)
    ]
    go.touch()
    for i, w in enumerate(workers):
        assert finish(w, f"writer {i}") == {"ops": OPS}
    done.touch()
    seen = finish(checker, "checker")
    # the reader polled the whole time, and every read parsed
    assert seen["bad"] == []
    assert seen["reads"] == seen["parsed"] and seen["reads"] > 10
    assert seen["distinct"] > 10  # it saw the file change under it, many times

    want: dict[Key, tuple[str, str | None, str | None]] = {}
    for log in logs:
        ops = [json.loads(line) for line in log.read_text().splitlines()]
        assert len(ops) == OPS
        want.update(replay(ops))
    final = json.loads(path.read_bytes())
    assert final["version"] == 1
    got = {
        (e["kind"], e["scope"], e["name"]): (e["native_id"], e["model"], e["effort"])
        for e in final["sessions"]
    }
    assert len(got) == len(final["sessions"])
    assert got == want and len(want) > PROCESSES
    assert all(e["created_at"] <= e["updated_at"] for e in final["sessions"])
    # no temp file, no lock, nothing quarantined
    assert sorted(p.name for p in path.parent.iterdir()) in (
        ["sessions.json"],
        ["sessions.json", "sessions.json.lock.guard"],
    )


@pytest.fixture
def strict() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegistryWarning)
        yield


def hold(
    procs: list[subprocess.Popen[str]], lock: Path, tmp: Path, tag: str
) -> tuple[subprocess.Popen[str], Path]:
    ready, release = tmp / f"{tag}-ready", tmp / f"{tag}-release"
    p = start(procs, child("hold", lock, ready, release))
    poll(ready.exists, timeout=60, what=f"{tag} to take the lock")
    return p, release


@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "zombie"])
def test_a_holder_killed_mid_hold_is_taken_over(
    tmp: Path,
    procs: list[subprocess.Popen[str]],
    caplog: pytest.LogCaptureFixture,
    strict: None,
    reaped: bool,
) -> None:
    reg = SessionRegistry(tmp / "sessions.json", lock_timeout=30)
    reg.bind("claude", tmp, "before", "nid-before")
    holder, _ = hold(procs, reg.lock_path, tmp, "holder")
    os.kill(holder.pid, signal.SIGKILL)
    if reaped:
        holder.wait()
    else:  # killed but not yet waited for: a zombie with its pid still taken
        poll(
            lambda: psutil.Process(holder.pid).status() == psutil.STATUS_ZOMBIE,
            timeout=30,
            what="the holder to become a zombie",
        )
    assert reg.lock_path.exists()  # it died holding the lock
    with caplog.at_level(logging.WARNING, logger="lazy.os.lockfile"):
        reg.bind("claude", tmp, "after", "nid-after")
    assert reg.resolve("claude", tmp, "after") == "nid-after"
    assert reg.resolve("claude", tmp, "before") == "nid-before"
    assert "took over the stale lock" in caplog.text and f"pid {holder.pid}" in caplog.text
    assert not reg.lock_path.exists()


def test_a_live_holder_that_never_releases_fails_the_write_clearly(
    tmp: Path, procs: list[subprocess.Popen[str]]
) -> None:
    reg = SessionRegistry(tmp / "sessions.json", lock_timeout=1.0)
    holder, release = hold(procs, reg.lock_path, tmp, "holder")
    record = reg.lock_path.read_bytes()
    with pytest.warns(RegistryWriteWarning) as caught:
        reg.bind("codex", tmp, "waits", "nid")  # a bounded wait, then a warning, no raise
    message = str(caught[0].message)
    assert "timed out after 1s waiting for the lock" in message
    assert f"pid {holder.pid}" in message and "[LockTimeout]" in message
    assert reg.lock_path.read_bytes() == record  # never broken
    assert holder.poll() is None
    assert not reg.path.exists()
    release.touch()
    assert finish(holder, "holder") == {"held": True}
    assert not reg.lock_path.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegistryWarning)
        reg.bind("codex", tmp, "waits", "nid")
    assert reg.resolve("codex", tmp, "waits") == "nid"


@pytest.mark.parametrize(("offset", "broken"), [(-1000.0, True), (0.0, False)])
def test_a_record_naming_a_live_pid_is_broken_only_if_the_pid_was_reused(
    tmp: Path, procs: list[subprocess.Popen[str]], offset: float, broken: bool
) -> None:
    """A live process whose create time differs from the record's is not the holder."""
    other, _ = hold(procs, tmp / "unrelated.lock", tmp, "unrelated")
    created = psutil.Process(other.pid).create_time()
    reg = SessionRegistry(tmp / "sessions.json", lock_timeout=1.0)
    fake = json.dumps(
        {
            "pid": other.pid,
            "create_time": created + offset,
            "host": socket.gethostname(),
            "nonce": "f" * 32,
            "at": "2026-01-01T00:00:00.000Z",
        }
    ).encode()
    reg.lock_path.write_bytes(fake)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RegistryWarning)
        reg.bind("opencode", tmp, "x", "ses_abc")
    if broken:
        assert caught == []
        assert reg.resolve("opencode", tmp, "x") == "ses_abc"
        assert not reg.lock_path.exists()
    else:
        assert [type(w.message) for w in caught] == [RegistryWriteWarning]
        assert reg.lock_path.read_bytes() == fake
        assert reg.resolve("opencode", tmp, "x") is None
    assert other.poll() is None  # the unrelated process is untouched either way


@pytest.mark.parametrize("raw", [b"", b'{"pid": 4'], ids=["empty", "malformed"])
def test_an_empty_or_malformed_lock_file_is_taken_over(
    tmp: Path, strict: None, caplog: pytest.LogCaptureFixture, raw: bytes
) -> None:
    reg = SessionRegistry(tmp / "sessions.json", lock_timeout=30, malformed_lock_grace=0.5)
    reg.lock_path.write_bytes(raw)  # a holder killed between create and write
    with caplog.at_level(logging.WARNING, logger="lazy.os.lockfile"):
        reg.bind("claude", tmp, "x", "nid")
    assert reg.resolve("claude", tmp, "x") == "nid"
    assert "lock record" in caplog.text


def test_waiters_racing_to_break_one_stale_lock_end_with_one_holder(
    tmp: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """Each round a stale lock (its holder dead) waits for six processes released at once:
    exactly one breaks it, and no two are ever inside together."""
    waiters, rounds = 6, 15
    lock, counter, inside, where = tmp / "the.lock", tmp / "counter", tmp / "inside", tmp / "sync"
    where.mkdir()
    counter.write_text("0")
    gone = subprocess.run(
        [PYTHON, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead = int(gone.stdout)
    assert not psutil.pid_exists(dead)
    stale = json.dumps(
        {
            "pid": dead,
            "create_time": 1.0,
            "host": socket.gethostname(),
            "nonce": "s" * 32,
            "at": "2026-01-01T00:00:00.000Z",
        }
    ).encode()
    racers = [
        start(procs, child("race", lock, i, rounds, counter, inside, where)) for i in range(waiters)
    ]
    poll(
        lambda: all((where / f"ready-{i}").exists() for i in range(waiters)),
        timeout=60,
        what="the racers to start",
    )
    for r in range(rounds):
        assert not lock.exists()
        lock.write_bytes(stale)
        (where / f"go-{r}").touch()
        poll(
            lambda r=r: all((where / f"done-{r}-{i}").exists() for i in range(waiters)),
            timeout=120,
            what=f"round {r}",
        )
    results = [finish(p, f"racer {i}") for i, p in enumerate(racers)]
    assert [x["overlaps"] for x in results] == [0] * waiters
    breaks = [sum(r in x["broke"] for x in results) for r in range(rounds)]
    assert breaks == [1] * rounds  # each stale lock broken exactly once
    assert int(counter.read_text()) == waiters * rounds  # no update lost to an overlap
    assert not lock.exists()
