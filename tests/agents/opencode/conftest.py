"""Fixtures for the real-OpenCode tests: run the scenarios once, import them with lazy.

Scenarios (``opencode_driver.SCENARIOS``) run in a loopback-only network namespace
(``unshare --net``), in parallel, once per pytest session; only those the selected tests name
with ``@pytest.mark.opencode_scenario("name")`` run. (A marker of its own: the Claude Code
conftest one level up collects ``scenario`` markers for its own runs.)

Knobs: ``LAZY_AGENTS_WORKDIR=<dir>`` keeps the scenario dirs under ``<dir>/opencode``;
add ``LAZY_AGENTS_REUSE=1`` to reuse successful runs there. ``LAZY_OPENCODE_BIN`` drives another
``opencode`` binary as the current release.

A missing prerequisite (the binaries, unshare permission, git) skips, or fails with ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
AGENTS_DIR = HERE.parent
for _path in (HERE, AGENTS_DIR):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from agent_support import kill_group, require, unshare_prefix  # noqa: E402
from oc_support import (  # noqa: E402
    OcImported,
    OcLazy,
    OcRun,
    imported,
    lazy_has_opencode_import,
    load_script,
)
from opencode_driver import SCENARIOS, find_opencode, release_version  # noqa: E402

RUNNER = HERE / "run_opencode_scenario.py"
SCENARIO_TIMEOUT = 240.0
LONG_FIRST = ["multiturn", "fork", "migrated", "v1_1_tools", "tool", "child"]

JsonDict = dict[str, Any]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "opencode_scenario(name): the OpenCode scenario (opencode_driver.py) a test uses"
    )


# --------------------------------------------------------------------------------------------
# Prerequisites
# --------------------------------------------------------------------------------------------


def missing_prerequisites(release: str) -> list[str]:
    missing: list[str] = []
    if find_opencode(release) is None:
        missing.append(
            f"OpenCode {release_version(release)} not installed (tests/agents/node_modules): "
            "run `cd tests/agents && npm install --no-audit --no-fund --ignore-scripts`"
        )
    if shutil.which("unshare") is None:
        missing.append("`unshare` (util-linux) not found: needed for a loopback-only netns")
    else:
        probe = subprocess.run(
            [*unshare_prefix(), "true"], capture_output=True, text=True, timeout=30
        )
        if probe.returncode != 0:
            missing.append(f"cannot create a network namespace: {probe.stderr.strip()}")
    if shutil.which("git") is None:
        missing.append("`git` not found")
    return missing


# --------------------------------------------------------------------------------------------
# Running scenarios
# --------------------------------------------------------------------------------------------


_LIVE: dict[int, subprocess.Popen[str]] = {}


def run_scenario(name: str, workdir: Path) -> OcRun:
    run = OcRun(name, workdir)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    argv = [*unshare_prefix(), sys.executable, str(RUNNER), name, str(workdir)]
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=HERE,
    )
    _LIVE[proc.pid] = proc
    try:
        _, run.stderr = proc.communicate(timeout=SCENARIO_TIMEOUT)
        run.returncode = proc.returncode
    except subprocess.TimeoutExpired:
        run.returncode = -9
        run.stderr = f"timed out after {SCENARIO_TIMEOUT:.0f}s"
    finally:
        kill_group(proc)  # also whatever opencode left behind in the group
        _LIVE.pop(proc.pid, None)
    run.duration = time.monotonic() - started
    load_script(run)
    return run


class OcScenarios:
    """Runs the scenarios the session needs, in parallel, once."""

    def __init__(self, root: Path, wanted: list[str], reuse: bool) -> None:
        self.root = root
        self.wanted = wanted
        self.reuse = reuse
        self.runs: dict[str, OcRun] = {}
        self.checked: dict[str, list[str]] = {}

    def prerequisites(self, name: str) -> list[str]:
        release = SCENARIOS[name].release
        if release not in self.checked:
            self.checked[release] = missing_prerequisites(release)
        return self.checked[release]

    def _reusable(self, name: str) -> OcRun | None:
        if not self.reuse:
            return None
        run = OcRun(name, self.root / name, returncode=0)
        load_script(run)
        return run if run.ok else None

    def run_all(self) -> None:
        pending: list[str] = []
        for name in self.wanted:
            if name in self.runs or self.prerequisites(name):
                continue
            cached = self._reusable(name)
            if cached is not None:
                self.runs[name] = cached
            else:
                pending.append(name)
        if not pending:
            return
        pending.sort(key=lambda n: LONG_FIRST.index(n) if n in LONG_FIRST else 99)
        # each `opencode run` burns ~5 s of CPU (bun start-up, migrations): more workers than
        # cores only thrash
        workers = max(2, min(len(pending), (os.cpu_count() or 2) + 1))
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            for run in pool.map(lambda n: run_scenario(n, self.root / n), pending):
                self.runs[run.name] = run
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in list(_LIVE.values()):
                kill_group(proc)
            raise
        finally:
            pool.shutdown(wait=True)

    def get(self, name: str) -> OcRun:
        if name not in SCENARIOS:
            raise KeyError(name)
        missing = self.prerequisites(name)
        require(not missing, "; ".join(missing))
        if name not in self.runs:
            if name not in self.wanted:
                self.wanted.append(name)
            self.run_all()
        return self.runs[name]


_CACHES: list[OcScenarios] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    runs = [run for cache in _CACHES for run in cache.runs.values()]
    if not runs:
        return
    terminalreporter.section("OpenCode scenarios")
    for run in sorted(runs, key=lambda r: r.name):
        state = "ok" if run.ok else f"FAILED (rc={run.returncode})"
        version = run.script.get("opencode_version", "?")
        terminalreporter.write_line(
            f"{run.name:14} {state:16} {run.duration:6.1f}s  opencode {version}  {run.workdir}"
        )


def _wanted(session: pytest.Session) -> list[str]:
    names: list[str] = []
    for item in session.items:
        for mark in item.iter_markers("opencode_scenario"):
            for name in mark.args:
                if str(name) not in names:
                    names.append(str(name))
    return names


@pytest.fixture(scope="session")
def oc_scenarios(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OcScenarios]:
    configured = os.environ.get("LAZY_AGENTS_WORKDIR")
    root = (
        Path(configured).resolve() / "opencode"
        if configured
        else tmp_path_factory.mktemp("opencode-runs")
    )
    root.mkdir(parents=True, exist_ok=True)
    reuse = bool(configured) and os.environ.get("LAZY_AGENTS_REUSE", "") not in ("", "0")
    cache = OcScenarios(root, _wanted(request.session), reuse)
    _CACHES.append(cache)
    try:
        yield cache
    finally:
        for proc in list(_LIVE.values()):
            kill_group(proc)


@pytest.fixture
def oc_run(request: pytest.FixtureRequest, oc_scenarios: OcScenarios) -> OcRun:
    """The (successful) run of the scenario named by the test's ``opencode_scenario`` marker."""
    mark = request.node.get_closest_marker("opencode_scenario")
    if mark is None:
        raise pytest.UsageError("`oc_run` needs @pytest.mark.opencode_scenario(name)")
    run = oc_scenarios.get(str(mark.args[0]))
    if not run.ok:
        pytest.fail(run.describe_failure(), pytrace=False)
    return run


# --------------------------------------------------------------------------------------------
# The lazy CLI (helpers in oc_support.py)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def lazy_opencode() -> None:
    """Fails (skips locally) with a clear reason while `lazy import opencode` does not exist."""
    ok, output = lazy_has_opencode_import()
    require(ok, f"`lazy import opencode` is not available yet: {output}")


@pytest.fixture
def oc_lazy(oc_run: OcRun, tmp_path: Path, lazy_opencode: None) -> OcLazy:
    home = tmp_path / "lazy-home"
    home.mkdir()
    return OcLazy(home, oc_run)


@pytest.fixture
def oc_imported(
    oc_run: OcRun, tmp_path_factory: pytest.TempPathFactory, lazy_opencode: None
) -> OcImported:
    return imported(oc_run, tmp_path_factory)


@pytest.fixture
def oc_imported_full(
    oc_run: OcRun, tmp_path_factory: pytest.TempPathFactory, lazy_opencode: None
) -> OcImported:
    return imported(oc_run, tmp_path_factory, full=True)
