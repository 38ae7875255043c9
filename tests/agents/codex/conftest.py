"""Fixtures for the real-Codex tests: run the Codex scenarios once, import them with lazy.

Scenarios (tests/agents/codex/codex_driver.py) run in a loopback-only network namespace
(``unshare --net``), all in parallel, once per pytest session; only the scenarios the selected
tests name (``@pytest.mark.codex_scenario("name")``) run.

Knobs: ``LAZY_CODEX_WORKDIR=<dir>`` keeps scenario work dirs there; with ``LAZY_CODEX_REUSE=1``
runs that already succeeded there are reused (for iterating on the importer);
``LAZY_CODEX_BIN`` overrides the pinned codex executable.

A missing prerequisite (codex, node, unshare, git) skips the tests, or fails them when CI=true.
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
sys.path[:0] = [str(HERE), str(AGENTS_DIR)]

from agent_support import kill_group, node_major, require, unshare_prefix  # noqa: E402
from codex_driver import SCENARIOS, find_codex  # noqa: E402
from codex_harness import CodexRun, Imported, LazyCli, do_import, load_script  # noqa: E402

RUN_SCENARIO = HERE / "run_codex_scenario.py"
SCENARIO_TIMEOUT = 180.0

JsonDict = dict[str, Any]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "codex_scenario(name): the Codex scenario (codex/codex_driver.py) a test uses"
    )


# --------------------------------------------------------------------------------------------
# Prerequisites
# --------------------------------------------------------------------------------------------


def missing_prerequisites(name: str) -> list[str]:
    release = SCENARIOS[name].release
    missing: list[str] = []
    install = "run `make deps` / `cd tests/agents && npm install --no-audit --no-fund`"
    major = node_major()
    if major is None or major < 20:
        missing.append(f"codex {release.version} runs through node >= 20; found {major}")
    elif find_codex(release) is None:
        missing.append(f"codex {release.version} ({release.alias}) not installed: {install}")
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


_LIVE: dict[int, subprocess.Popen[str]] = {}  # scenario processes running now, by pid


def run_scenario(name: str, workdir: Path) -> CodexRun:
    run = CodexRun(name, workdir)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    argv = [*unshare_prefix(), sys.executable, str(RUN_SCENARIO), name, str(workdir)]
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
        kill_group(proc)
        _LIVE.pop(proc.pid, None)
    run.duration = time.monotonic() - started
    load_script(run)
    return run


class CodexScenarios:
    """Runs the scenarios the session needs, in parallel, once."""

    def __init__(self, root: Path, wanted: list[str], reuse: bool) -> None:
        self.root = root
        self.wanted = wanted
        self.reuse = reuse
        self.runs: dict[str, CodexRun] = {}
        self.missing: dict[str, list[str]] = {}

    def prerequisites(self, name: str) -> list[str]:
        if name not in self.missing:
            self.missing[name] = missing_prerequisites(name)
        return self.missing[name]

    def _reusable(self, name: str) -> CodexRun | None:
        if not self.reuse:
            return None
        run = CodexRun(name, self.root / name, returncode=0)
        load_script(run)
        return run if run.ok else None

    def run_all(self) -> None:
        pending = []
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
        # each scenario mostly waits on short codex runs: a few more workers than cores
        workers = min(len(pending), max(3, (os.cpu_count() or 2) + 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            try:
                for run in pool.map(lambda n: run_scenario(n, self.root / n), pending):
                    self.runs[run.name] = run
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                for proc in list(_LIVE.values()):
                    kill_group(proc)
                raise

    def get(self, name: str) -> CodexRun:
        if name not in SCENARIOS:
            raise KeyError(name)
        missing = self.prerequisites(name)
        require(not missing, "; ".join(missing))
        if name not in self.runs:
            if name not in self.wanted:
                self.wanted.append(name)
            self.run_all()
        return self.runs[name]


_CACHES: list[CodexScenarios] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    runs = [run for cache in _CACHES for run in cache.runs.values()]
    if not runs:
        return
    terminalreporter.section("Codex scenarios")
    for run in sorted(runs, key=lambda r: r.name):
        state = "ok" if run.ok else f"FAILED (rc={run.returncode})"
        version = run.script.get("codex_version", "?")
        terminalreporter.write_line(
            f"{run.name:12} {state:16} {run.duration:6.1f}s  codex {version}  {run.workdir}"
        )


def _wanted(session: pytest.Session) -> list[str]:
    names: list[str] = []
    for item in session.items:
        for mark in item.iter_markers("codex_scenario"):
            for name in mark.args:
                if str(name) not in names:
                    names.append(str(name))
    return names


@pytest.fixture(scope="session")
def codex_scenarios(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CodexScenarios]:
    configured = os.environ.get("LAZY_CODEX_WORKDIR")
    root = Path(configured).resolve() if configured else tmp_path_factory.mktemp("codex-runs")
    root.mkdir(parents=True, exist_ok=True)
    reuse = bool(configured) and os.environ.get("LAZY_CODEX_REUSE", "") not in ("", "0")
    cache = CodexScenarios(root, _wanted(request.session), reuse)
    _CACHES.append(cache)
    try:
        yield cache
    finally:
        for proc in list(_LIVE.values()):
            kill_group(proc)


@pytest.fixture
def codex_run(request: pytest.FixtureRequest, codex_scenarios: CodexScenarios) -> CodexRun:
    """The (successful) run of the scenario named by the test's ``codex_scenario`` marker."""
    mark = request.node.get_closest_marker("codex_scenario")
    if mark is None:
        raise pytest.UsageError("`codex_run` needs @pytest.mark.codex_scenario(name)")
    run = codex_scenarios.get(str(mark.args[0]))
    if not run.ok:
        pytest.fail(run.describe_failure(), pytrace=False)
    return run


# --------------------------------------------------------------------------------------------
# The lazy CLI
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _import_cache() -> dict[tuple[str, str], Imported]:
    return {}


@pytest.fixture
def imported(
    codex_run: CodexRun,
    _import_cache: dict[tuple[str, str], Imported],
    tmp_path_factory: pytest.TempPathFactory,
) -> Imported:
    """The scenario imported (default content mode) once per session; tests only read."""
    key = (codex_run.name, "default")
    if key not in _import_cache:
        home = tmp_path_factory.mktemp(f"lazy-codex-{codex_run.name}")
        _import_cache[key] = do_import(codex_run, home)
    return _import_cache[key]


@pytest.fixture
def imported_full(
    codex_run: CodexRun,
    _import_cache: dict[tuple[str, str], Imported],
    tmp_path_factory: pytest.TempPathFactory,
) -> Imported:
    """The scenario imported with ``--full-transcript`` into its own store."""
    key = (codex_run.name, "full")
    if key not in _import_cache:
        home = tmp_path_factory.mktemp(f"lazy-codex-full-{codex_run.name}")
        _import_cache[key] = do_import(codex_run, home, "--full-transcript")
    return _import_cache[key]


@pytest.fixture
def lazy_cli(codex_run: CodexRun, tmp_path: Path) -> LazyCli:
    """The lazy CLI bound to the test's scenario, with a fresh store of its own."""
    home = tmp_path / "lazy-home"
    home.mkdir()
    return LazyCli(home, codex_run)
