"""Child programs for the session registry tests (reliability.md §7 D.23-24).

    python registry_children.py ops REGISTRY INDEX COUNT SEED LOG GO SCOPE...
    python registry_children.py check REGISTRY DONE READY
    python registry_children.py hold LOCK READY RELEASE
    python registry_children.py race LOCK INDEX ROUNDS COUNTER INSIDE DIR

Each prints one JSON object as its last stdout line. Processes wait on each other through
marker files polled with a deadline, never by sleeping for a guessed time.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lazy.agents import TOOLS
from lazy.aliases.registry import RegistryWarning, SessionRegistry
from lazy.os.lockfile import LockFile

MODELS = (None, "model-a", "model-b")
EFFORTS = (None, "low", "high")


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def wait_for(probe: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.002)


def names_of(index: int) -> list[str]:
    """The names process ``index`` uses: no other process touches them."""
    return [f"p{index}n{j}" for j in range(4)]


def _ops(argv: list[str]) -> int:
    """COUNT random bind/rename/forget calls on this process's own names, each logged
    with its outcome, so a serial replay of the log must give the same outcomes and the
    same final bindings."""
    registry_path, index, count, seed = Path(argv[0]), int(argv[1]), int(argv[2]), int(argv[3])
    log_path, go, scopes = Path(argv[4]), Path(argv[5]), argv[6:]
    warnings.simplefilter("error", RegistryWarning)  # a lost write must fail the test
    registry = SessionRegistry(registry_path, lock_timeout=60)
    rng = random.Random(seed)
    names = names_of(index)
    wait_for(go.exists, str(go))
    with log_path.open("w") as log:
        for n in range(count):
            kind, scope = rng.choice(TOOLS), rng.choice(scopes)
            op: dict[str, Any] = {"kind": kind, "scope": scope}
            roll = rng.random()
            if roll < 0.5:
                op.update(
                    op="bind",
                    name=rng.choice(names),
                    native_id=f"nid-{index}-{n}-{rng.randrange(10**6)}",
                    model=rng.choice(MODELS),
                    effort=rng.choice(EFFORTS),
                )
                registry.bind(
                    kind, scope, op["name"], op["native_id"], model=op["model"], effort=op["effort"]
                )
                op["result"] = None
            elif roll < 0.75:
                op.update(op="rename", old=rng.choice(names), new=rng.choice(names))
                try:
                    registry.rename(kind, scope, op["old"], op["new"])
                    op["result"] = "ok"
                except KeyError:
                    op["result"] = "KeyError"
                except ValueError:
                    op["result"] = "ValueError"
            else:
                op.update(op="forget", name=rng.choice(names))
                op["result"] = registry.forget(kind, scope, op["name"])
            log.write(json.dumps(op) + "\n")
    _emit({"ops": count})
    return 0


def _check(argv: list[str]) -> int:
    """Read the registry file over and over until DONE exists: every read must parse."""
    path, done, ready = Path(argv[0]), Path(argv[1]), Path(argv[2])
    reads = parsed = 0
    bad: list[str] = []
    versions: set[bytes] = set()
    ready.touch()
    while True:
        finished = done.exists()
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raw = None
        if raw is not None:
            reads += 1
            try:
                data = json.loads(raw)
                assert data["version"] == 1 and isinstance(data["sessions"], list)
                parsed += 1
                if len(versions) < 100_000:
                    versions.add(raw)
            except (ValueError, AssertionError, KeyError, TypeError) as e:
                bad.append(f"{type(e).__name__}: {e}: {raw[:200]!r}")
        if finished:
            break
    _emit({"reads": reads, "parsed": parsed, "bad": bad[:5], "distinct": len(versions)})
    return 0


def _hold(argv: list[str]) -> int:
    """Take the lock and keep it until RELEASE exists (or until killed)."""
    lock_path, ready, release = Path(argv[0]), Path(argv[1]), Path(argv[2])
    lock = LockFile(lock_path, timeout=30)
    lock.acquire()
    ready.touch()
    wait_for(release.exists, str(release), timeout=600)
    lock.release()
    _emit({"held": True})
    return 0


def _race(argv: list[str]) -> int:
    """For each round: wait for DIR/go-<round>, take the lock (a stale one is waiting),
    check nobody else is inside, bump a counter non-atomically, leave. Report which
    rounds this process broke a stale lock in."""
    lock_path, index, rounds = Path(argv[0]), int(argv[1]), int(argv[2])
    counter, inside, where = Path(argv[3]), Path(argv[4]), Path(argv[5])
    broke: list[int] = []
    overlaps = 0
    (where / f"ready-{index}").touch()
    for r in range(rounds):
        wait_for((where / f"go-{r}").exists, f"go-{r}")
        lock = LockFile(lock_path, timeout=60)
        lock.acquire()
        try:
            fd = os.open(inside, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            overlaps += 1  # someone else holds the lock too
        else:
            os.close(fd)
        value = int(counter.read_text() or 0)
        with counter.open("w") as f:  # read-modify-write: lost updates show an overlap
            f.write(str(value + 1))
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):  # an overlapping holder removed it
            os.unlink(inside)
        lock.release()
        if lock.took_over:
            broke.append(r)
        (where / f"done-{r}-{index}").touch()
    _emit({"broke": broke, "overlaps": overlaps})
    return 0


def main() -> int:
    cmd, argv = sys.argv[1], sys.argv[2:]
    programs = {"ops": _ops, "check": _check, "hold": _hold, "race": _race}
    return programs[cmd](argv)


if __name__ == "__main__":
    sys.exit(main())
