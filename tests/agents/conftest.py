"""Fixtures for the real-agent tests: run Claude Code scenarios once, import them with lazy.

Scenarios run in a loopback-only network namespace (``unshare --net``), all of them in parallel,
once per pytest session; only the scenarios used by the selected tests are run (tests name them
with ``@pytest.mark.scenario("name")``).

Environment knobs (for debugging and for iterating on the importer):

* ``LAZY_AGENTS_WORKDIR=<dir>``: put scenario work dirs there instead of a pytest temp dir.
* ``LAZY_AGENTS_REUSE=1``: with ``LAZY_AGENTS_WORKDIR``, reuse scenario runs that already
  succeeded there instead of running the CLI again.
* ``LAZY_CLAUDE_BIN``: the claude executable to drive (default: tests/agents/node_modules).

A missing prerequisite (claude CLI, unshare permission, tmux) skips the tests, or fails them
when ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

AGENTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(AGENTS_DIR))

from agent_support import node_major  # noqa: E402
from driver import SCENARIOS, find_claude, find_release  # noqa: E402
from lazy_cli import BoundLazy  # noqa: E402
from old_releases import OLD_SCENARIOS, release_version  # noqa: E402
from scenario_runner import (  # noqa: E402
    ScenarioPool,
    ScenarioRecord,
    missing_sandbox_tools,
    summarize,
)

INTERACTIVE_SCENARIOS = {"interactive"} | {n for n, o in OLD_SCENARIOS.items() if o.interactive}

JsonDict = dict[str, Any]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "scenario(name): the Claude Code scenario (tests/agents/driver.py) a test uses"
    )


# --------------------------------------------------------------------------------------------
# Prerequisites
# --------------------------------------------------------------------------------------------


def missing_release(alias: str | None) -> list[str]:
    """What keeps the CLI a scenario drives (the pinned one, or an older release by its npm
    alias) from running here."""
    install = (
        "run `make deps` / `cd tests/agents && npm install --no-audit --no-fund --ignore-scripts`"
    )
    if alias is None:
        return [] if find_claude() is not None else [f"Claude Code CLI not installed: {install}"]
    wanted = f"Claude Code {release_version(alias)} (npm alias {alias})"
    if shutil.which("node") is None:
        return [f"{wanted} is a JS cli.js and needs `node` (>= 18) on PATH"]
    major = node_major()
    if major is None or major < 18:
        return [f"{wanted} needs node >= 18 (engines.node); found {major}"]
    if find_release(alias) is None:
        return [f"{wanted} not installed: {install}"]
    return []


def missing_prerequisites(need_tmux: bool, alias: str | None = None) -> list[str]:
    missing = missing_release(alias) + missing_sandbox_tools()
    if need_tmux and shutil.which("tmux") is None:
        missing.append("`tmux` not found (apt-get install tmux): needed for interactive runs")
    return missing


# --------------------------------------------------------------------------------------------
# Running scenarios
# --------------------------------------------------------------------------------------------


class ScenarioRun(ScenarioRecord):
    tool = "claude"


class ScenarioCache(ScenarioPool[ScenarioRun]):
    record = ScenarioRun
    runner = AGENTS_DIR / "run_scenario.py"
    timeout = 240.0
    title = "Claude Code scenarios"
    marker = "scenario"
    long_first = (
        "fork",
        "interactive",
        "v2_0_fork",
        "v2_0_compact",
        "continue",
        "v2_0_resume",
        "compact_print",
        "resume",
        "v1_0_resume_tui",
        "v1_0_compact_continue",
        "v1_0_resume",
    )
    retry_failed = True

    def known(self, name: str) -> bool:
        return name in SCENARIOS or name in OLD_SCENARIOS

    @staticmethod
    def _needs(name: str) -> tuple[bool, str | None]:
        old = OLD_SCENARIOS.get(name)
        return name in INTERACTIVE_SCENARIOS, old.alias if old else None

    def prerequisite_key(self, name: str) -> str:
        return repr(self._needs(name))

    def find_missing(self, name: str) -> list[str]:
        return missing_prerequisites(*self._needs(name))

    def workers(self, pending: int) -> int:
        return max(2, min(4, (os.cpu_count() or 2) + 1))

    def after_run(self, run: ScenarioRun) -> None:
        socket = run.workdir / "tmux.sock"
        if socket.exists():  # the scenario's private tmux server, if it outlived a crash
            subprocess.run(
                ["tmux", "-S", str(socket), "kill-server"],
                capture_output=True,
                check=False,
                timeout=30,
            )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    summarize(terminalreporter)  # the Codex and OpenCode suites' scenarios too


scenarios, scenario = ScenarioCache.fixtures(
    "scenarios", "scenario", workdir_env="LAZY_AGENTS_WORKDIR", reuse_env="LAZY_AGENTS_REUSE"
)


# --------------------------------------------------------------------------------------------
# The lazy CLI
# --------------------------------------------------------------------------------------------


class Lazy(BoundLazy):
    """Runs the lazy CLI against one scenario's Claude Code files with a private LAZY_HOME."""

    strip_env = ("CLAUDE_", "LAZY_")

    def tool_env(self) -> dict[str, str]:
        return {"CLAUDE_CONFIG_DIR": str(self.run_.script["config_dir"])}

    def import_all(self) -> JsonDict:
        report: JsonDict = self.json("import-conversation", "--all", "--json")
        return report

    def builders(self) -> list[JsonDict]:
        data = self.json("conversations", "--json")
        return list(data["builders"])

    def show(self, builder_id: str) -> JsonDict:
        data: JsonDict = self.stored(self.json("conversations", "show", builder_id, "--json"))
        return data


@pytest.fixture
def lazy(scenario: ScenarioRun, tmp_path: Path) -> Lazy:
    """A lazy CLI bound to the test's scenario, with a fresh store (LAZY_HOME) per test."""
    return Lazy.fresh(scenario, tmp_path)


@dataclass
class Imported:
    report: JsonDict
    builders: list[JsonDict]
    shown: dict[str, JsonDict]  # builder id -> `conversations show` output


@pytest.fixture(scope="session")
def import_cache() -> dict[str, Imported]:
    return {}


@pytest.fixture
def imported(
    scenario: ScenarioRun,
    import_cache: dict[str, Imported],
    tmp_path_factory: pytest.TempPathFactory,
) -> Imported:
    """The scenario imported into a fresh store (its own LAZY_HOME), with every Builder listed
    and shown. Done once per scenario: the tests using it only read."""
    if scenario.name not in import_cache:
        cli = Lazy(tmp_path_factory.mktemp(f"lazy-home-{scenario.name}"), scenario)
        report = cli.import_all()
        builders = cli.builders()
        shown = {b["id"]: cli.show(b["short_id"] or b["id"]) for b in builders}
        import_cache[scenario.name] = Imported(report, builders, shown)
    return import_cache[scenario.name]
