"""doctor/run end to end: `lazy sidecar` started as VS Code starts it, asked by pytest-lsp's
client for the health sweep; with live capture off a stranded session fails the capture
check, with it on the sidecar's own sweep captures it and the check turns green (and the
hooks and the daemon, not needed meanwhile, are an info rather than a warning)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from fabricate.claude import Session
from lazy.doctor.checks import CHECKS
from lazy.model import DoctorReport
from support.doctor import age
from support.lsp import call as lsp_call
from support.lsp import start_sidecar
from support.search import env_for, run_lazy

TIMEOUT = 60  # seconds for anything the sidecar is waited on for


class World:
    def __init__(self, base: Path) -> None:
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        self.repo = base / "repo"
        self.repo.mkdir(parents=True)
        projects = self.user_home / ".claude" / "projects"
        kept = Session(projects, str(self.repo))
        kept.turn("captured before", "yes")
        age(kept.path, 3 * 86400)
        run_lazy(self.lazy_home, self.user_home, "import-conversation", "--all-projects", "--yes")
        self.stranded = Session(projects, str(self.repo))
        self.stranded.turn("written while nothing captured", "no one listened")
        age(self.stranded.path, 2 * 3600)
        self.env = env_for(
            self.lazy_home, self.user_home, DOCKER_HOST=f"unix://{base / 'no-docker.sock'}"
        )


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def start(world: World, live_capture: bool) -> LanguageClient:
    return await start_sidecar(world.env, world.repo, live_capture=live_capture)


@pytest_asyncio.fixture
async def quiet(world: World) -> AsyncIterator[LanguageClient]:
    c = await start(world, live_capture=False)
    yield c
    await c.shutdown_session()


@pytest_asyncio.fixture
async def live(world: World) -> AsyncIterator[LanguageClient]:
    c = await start(world, live_capture=True)
    yield c
    await c.shutdown_session()


async def call(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await lsp_call(client, method, params, TIMEOUT)


@pytest.mark.asyncio
async def test_doctor_run_reports_the_stranded_session(quiet: LanguageClient) -> None:
    result = await call(quiet, "doctor/run", {})
    report = DoctorReport.model_validate(result)  # the contract's model, field for field
    assert report.status == "fail"
    checks = {c.title: c for c in report.checks}
    assert list(checks) == [title for title, _ in CHECKS]
    live = checks["Conversation capture is live"]
    assert live.status == "fail"
    assert live.detail[:2] == [
        "1 conversation(s) written in the last 24h (most recent 2h ago) are on disk",
        "but never reached the store — live capture is not running.",
    ]
    assert live.fix == "lazy doctor --reimport-conversations"
    assert checks["Store is intact"].status == "ok"
    assert checks["Docker is reachable (for lazy ask)"].status == "warn"
    # nothing captures live: the hooks and the daemon missing are warnings
    for title in ("Claude Code hooks installed", "Capture daemon running"):
        assert checks[title].status == "warn", checks[title]
        assert not any("captures live" in d for d in checks[title].detail)


@pytest.mark.asyncio
async def test_with_live_capture_the_check_turns_green(world: World, live: LanguageClient) -> None:
    deadline = time.monotonic() + TIMEOUT
    while True:  # the sidecar's first sweep captures what is on disk
        status = await call(live, "capture/status", {})
        if status["last_sweep_at"] is not None:
            break
        assert time.monotonic() < deadline, "no sweep within the deadline"
        await asyncio.sleep(0.1)
    report = DoctorReport.model_validate(await call(live, "doctor/run", {}))
    checks = {c.title: c for c in report.checks}
    assert checks["Conversation capture is live"].status == "ok", checks
    assert report.status == "warn"  # Docker alone
    # this sidecar captures live: the hooks and the daemon are not needed meanwhile
    for title in ("Claude Code hooks installed", "Capture daemon running"):
        check = checks[title]
        assert check.status == "info", check
        assert check.detail[-1].startswith("not needed now: VS Code captures live"), check
