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
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from agent_support import node_major  # noqa: E402
from codex_driver import SCENARIOS, find_codex  # noqa: E402
from codex_harness import CodexRun, Imported, LazyCli, do_import  # noqa: E402
from scenario_runner import ScenarioPool, missing_sandbox_tools  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "codex_scenario(name): the Codex scenario (codex/codex_driver.py) a test uses"
    )


def missing_prerequisites(name: str) -> list[str]:
    release = SCENARIOS[name].release
    missing: list[str] = []
    install = "run `make deps` / `cd tests/agents && npm install --no-audit --no-fund`"
    major = node_major()
    if major is None or major < 20:
        missing.append(f"codex {release.version} runs through node >= 20; found {major}")
    elif find_codex(release) is None:
        missing.append(f"codex {release.version} ({release.alias}) not installed: {install}")
    return missing + missing_sandbox_tools()


class CodexScenarios(ScenarioPool[CodexRun]):
    record = CodexRun
    runner = HERE / "run_codex_scenario.py"
    timeout = 180.0
    title = "Codex scenarios"
    marker = "codex_scenario"

    def known(self, name: str) -> bool:
        return name in SCENARIOS

    def find_missing(self, name: str) -> list[str]:
        return missing_prerequisites(name)

    def workers(self, pending: int) -> int:
        # each scenario mostly waits on short codex runs: a few more workers than cores
        return min(pending, max(3, (os.cpu_count() or 2) + 1))


codex_scenarios, codex_run = CodexScenarios.fixtures(
    "codex_scenarios", "codex_run", workdir_env="LAZY_CODEX_WORKDIR", reuse_env="LAZY_CODEX_REUSE"
)


# --------------------------------------------------------------------------------------------
# The lazy CLI
# --------------------------------------------------------------------------------------------


@pytest.fixture
def imported(codex_run: CodexRun, tmp_path_factory: pytest.TempPathFactory) -> Imported:
    """The scenario imported (default content mode) once per session; tests only read."""
    return do_import(codex_run, tmp_path_factory)


@pytest.fixture
def imported_full(codex_run: CodexRun, tmp_path_factory: pytest.TempPathFactory) -> Imported:
    """The scenario imported with ``--full-transcript`` into its own store."""
    return do_import(codex_run, tmp_path_factory, full=True)


@pytest.fixture
def lazy_cli(codex_run: CodexRun, tmp_path: Path) -> LazyCli:
    """The lazy CLI bound to the test's scenario, with a fresh store of its own."""
    return LazyCli.fresh(codex_run, tmp_path)
