"""`lazy ask` leaves nothing behind, however it ends: answered, killed (SIGKILL), interrupted
(SIGINT) or timed out. Nothing means no one-shot container on the engine, no run folder (it
holds the whole transcript prompt) and no session file of the one-shot under
``$LAZY_HOME/oneshot/<slug>/.claude/projects``. The real CLI as a subprocess, the real Claude
Code in the hardened container, the fake model API on the host scripted to stall."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Rule, text

from fabricate.claude import Session
from lazy.ask import engine as docker_engine
from lazy.ask.leftovers import Run, make_run_dir, run_dir_for
from lazy.ask.paths import project_slug
from lazy.ask.watchdog import Watchdog
from support.docker import Engine
from support.oneshot_api import REAL_KEY, fake_api

LAZY = str(Path(sys.executable).with_name("lazy"))
PROJECT = "/srv/projects/leftovers"
GONE_WITHIN = 30.0  # seconds for the container and run folder of a killed lazy to go


def until(what: str, ok: Callable[[], Any], deadline: float, proc: Any = None) -> Any:
    """Poll ``ok`` until it holds; fail naming ``what`` at the deadline."""
    end = time.monotonic() + deadline
    while True:
        got = ok()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            _, err = proc.communicate()
            raise AssertionError(f"lazy ask exited {proc.returncode} before {what}:\n{err}")
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:g} s: {what}")
        time.sleep(0.1)


class World:
    """A stored conversation, lazy's home, and a TMPDIR of the test's own where the run
    folders go (short: the proxy socket's path must fit sockaddr_un)."""

    def __init__(self, tmp_path: Path, tmp: Path) -> None:
        self.lazy_home = tmp_path / "lazy"
        self.tmp = tmp
        projects = Path(os.environ["HOME"]) / ".claude" / "projects"
        self.session = Session(projects, PROJECT)
        self.session.turn("which compression for the raw archive?", "we chose zstd, level 3")
        subprocess.run(
            [LAZY, "import-conversation", "--all-projects", "--yes"], env=self.env(), check=True,
            capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def env(self) -> dict[str, str]:
        """lazy's environment, read when used: DOCKER_HOST is the engine fixture's."""
        env = {**os.environ, "LAZY_HOME": str(self.lazy_home), "TMPDIR": str(self.tmp)}
        env.pop("LAZY_ONESHOT_TIMEOUT", None)
        return {**env, "NO_COLOR": "1"}

    def ask(self, base_url: str, question: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [LAZY, "ask", self.session.id[:8], "-m", question],
            env={**self.env(), "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": REAL_KEY, **env},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def run_folders(self) -> list[Path]:
        return sorted(self.tmp.glob("lazy-oneshot-*"))

    def state(self) -> Path:
        return self.lazy_home / "oneshot" / project_slug(PROJECT) / ".claude"

    def session_files(self) -> list[Path]:
        projects = self.state() / "projects"
        return sorted(p for p in projects.rglob("*") if p.is_file()) if projects.exists() else []

    def leftovers(self, engine: Engine) -> dict[str, list[Any]]:
        found = {
            "containers": [c.name for c in engine.labelled()],
            "run folders": self.run_folders(),
            "session files": self.session_files(),
        }
        return {k: v for k, v in found.items() if v}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    tmp = Path(tempfile.mkdtemp(prefix="ask-", dir="/tmp"))
    try:
        yield World(tmp_path, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def asks() -> Iterator[list[subprocess.Popen[str]]]:
    """The `lazy ask` processes a test starts: killed by pid and reaped at the end."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
        p.communicate()


def stalled(world: World, engine: Engine, hang: Rule, p: subprocess.Popen[str]) -> None:
    """Wait until the one-shot is mid-run: its container up, the model asked and stalling,
    its run folder and session on disk."""
    until("the model is asked", lambda: hang.used, 300, p)
    assert len(engine.labelled()) == 1
    assert len(world.run_folders()) == 1


def answered(world: World, asks: list[Any], answer: str) -> str:
    """Ask with the model answering ``answer``; what lazy ask printed."""
    rule = Rule("answer", [text(answer)], user_contains="what did we choose")
    with fake_api([rule]) as fake:
        p = world.ask(fake.base_url, "what did we choose for compression?")
        asks.append(p)
        out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert rule.used == 1
    return out


def test_an_answered_ask_leaves_nothing(world: World, engine: Engine, asks: list[Any]) -> None:
    assert answered(world, asks, "zstd at level 3 (#2)") == "zstd at level 3 (#2)\n"
    assert world.leftovers(engine) == {}


def test_a_killed_ask_leaves_nothing(world: World, engine: Engine, asks: list[Any]) -> None:
    hang = Rule("hang", [text("too late")], delay=600)  # the model never answers in time
    with fake_api([hang]) as fake:
        p = world.ask(fake.base_url, "which compression?")
        asks.append(p)
        stalled(world, engine, hang, p)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
        killed = time.monotonic()
        until("the killed ask's container and run folder are gone",
              lambda: not world.leftovers(engine), GONE_WITHIN)  # fmt: skip
        took = time.monotonic() - killed
    assert world.leftovers(engine) == {}
    print(f"killed ask: container and run folder gone {took:.1f} s after SIGKILL")


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_ask_leaves_nothing(
    world: World, engine: Engine, asks: list[Any], how: signal.Signals
) -> None:
    hang = Rule("hang", [text("too late")], delay=600)
    with fake_api([hang]) as fake:
        p = world.ask(fake.base_url, "which compression?")
        asks.append(p)
        stalled(world, engine, hang, p)
        p.send_signal(how)
        out, err = p.communicate(timeout=120)
        # gone when the process has exited, not later
        left = world.leftovers(engine)
    assert p.returncode == 130
    assert out == ""
    assert "Traceback" not in err
    assert err == "lazy ask: cancelled; its one-shot was stopped and removed\n", err
    assert left == {}


def test_a_timed_out_ask_leaves_nothing(world: World, engine: Engine, asks: list[Any]) -> None:
    hang = Rule("hang", [text("too late")], delay=600)
    with fake_api([hang]) as fake:
        p = world.ask(fake.base_url, "which compression?", LAZY_ONESHOT_TIMEOUT="15")
        asks.append(p)
        out, err = p.communicate(timeout=300)
        left = world.leftovers(engine)
    assert hang.used == 1
    assert p.returncode == 1
    assert out == ""
    assert "killed after 15 seconds" in err, err
    assert "Traceback" not in err
    assert left == {}


def _owner(path: Path, pid: int, create_time: float) -> None:
    record = {"pid": pid, "create_time": create_time, "host": os.uname().nodename,
              "nonce": "n", "started_at": "2026-12-01T00:00:00Z"}  # fmt: skip
    (path / "owner.json").write_text(json.dumps(record))


def test_the_start_up_sweep_removes_stale_run_folders_sessions_and_containers(
    world: World, engine: Engine, asks: list[Any]
) -> None:
    import psutil

    gone = subprocess.Popen(["true"])
    gone.wait()
    dead, live, bare = (world.tmp / f"lazy-oneshot-{n}" for n in ("dead00", "live00", "bare00"))
    for d in (dead, live, bare):
        d.mkdir(mode=0o700)
        (d / "prompt").write_text("a whole transcript")
    _owner(dead, gone.pid, time.time() - 3600)
    _owner(live, os.getpid(), psutil.Process().create_time())
    old = time.time() - 7200
    os.utime(bare, (old, old))  # no owner record, and long past any run's bound
    # sessions an older lazy kept (whole transcripts): the old one goes, a recent one stays
    kept = world.state() / "projects" / "-tmp"
    kept.mkdir(parents=True)
    stale, recent = (kept / f"{uuid.uuid4()}.jsonl" for _ in range(2))
    for f in (stale, recent):
        f.write_text('{"type":"user"}\n')
    os.utime(stale, (old, old))
    labels = {docker_engine.LABEL: "1", docker_engine.RUN_LABEL: "dead00"}
    left = engine.client.containers.create(
        engine.image, ["--version"], labels={**labels, docker_engine.OWNER_LABEL: str(gone.pid)}
    )
    assert answered(world, asks, "zstd") == "zstd\n"
    assert world.run_folders() == [live]  # a running lazy's folder is its own business
    assert world.session_files() == [recent]
    assert left.name not in [c.name for c in engine.labelled()]
    shutil.rmtree(live)


def test_a_container_created_after_lazy_died_is_removed_by_the_watchdog(
    world: World, engine: Engine, tmp_path: Path
) -> None:
    """lazy killed while the engine was still creating its container: the watchdog waits
    for the container to appear and removes it, though its owner label names a live pid."""
    run = Run("inflight0001", run_dir_for("inflight0001"), tmp_path / "state", "x")
    dog = Watchdog.start(run, str(tmp_path / "watchdog.log"))
    make_run_dir(run.dir)
    dog.creating()
    dog.abandon()  # the pipe closes, as when lazy dies: nothing more will be said
    labels = {docker_engine.LABEL: "1", docker_engine.RUN_LABEL: run.id,
              docker_engine.OWNER_LABEL: str(os.getpid())}  # fmt: skip
    late = engine.client.containers.create(engine.image, ["--version"], labels=labels)
    until("the late container is removed",
          lambda: late.name not in [c.name for c in engine.labelled()], GONE_WITHIN)  # fmt: skip
    assert not run.dir.exists()
    log = (tmp_path / "watchdog.log").read_text()
    assert f"run {run.id}: lazy ended without cleaning up" in log, log
