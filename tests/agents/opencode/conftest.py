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

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for _path in (HERE, HERE.parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from agent_support import require  # noqa: E402
from lazy_cli import lazy_help  # noqa: E402
from oc_support import OcImported, OcLazy, OcRun, imported  # noqa: E402
from opencode_driver import SCENARIOS, find_opencode, release_version  # noqa: E402
from scenario_runner import ScenarioPool, missing_sandbox_tools  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "opencode_scenario(name): the OpenCode scenario (opencode_driver.py) a test uses"
    )


def missing_prerequisites(release: str) -> list[str]:
    missing: list[str] = []
    if find_opencode(release) is None:
        missing.append(
            f"OpenCode {release_version(release)} not installed (tests/agents/node_modules): "
            "run `cd tests/agents && npm install --no-audit --no-fund --ignore-scripts`"
        )
    return missing + missing_sandbox_tools()


class OcScenarios(ScenarioPool[OcRun]):
    record = OcRun
    runner = HERE / "run_opencode_scenario.py"
    timeout = 240.0
    title = "OpenCode scenarios"
    marker = "opencode_scenario"
    long_first = ("multiturn", "fork", "migrated", "v1_1_tools", "tool", "child")
    # each `opencode run` burns ~5 s of CPU (bun start-up, migrations): more workers than cores
    # only thrash (the default)

    def known(self, name: str) -> bool:
        return name in SCENARIOS

    def prerequisite_key(self, name: str) -> str:
        return SCENARIOS[name].release

    def find_missing(self, name: str) -> list[str]:
        return missing_prerequisites(SCENARIOS[name].release)


oc_scenarios, oc_run = OcScenarios.fixtures(
    "oc_scenarios",
    "oc_run",
    workdir_env="LAZY_AGENTS_WORKDIR",
    reuse_env="LAZY_AGENTS_REUSE",
    subdir="opencode",
)


# --------------------------------------------------------------------------------------------
# The lazy CLI (helpers in oc_support.py)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def lazy_opencode() -> None:
    """Fails (skips locally) with a clear reason while `lazy import opencode` does not exist."""
    ok, output = lazy_help("import", "opencode")
    require(ok, f"`lazy import opencode` is not available yet: {output}")


@pytest.fixture
def oc_lazy(oc_run: OcRun, tmp_path: Path, lazy_opencode: None) -> OcLazy:
    return OcLazy.fresh(oc_run, tmp_path)


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
