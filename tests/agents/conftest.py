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

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

AGENTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(AGENTS_DIR))

from agent_support import kill_group, node_major, require, unshare_prefix  # noqa: E402
from driver import SCENARIOS, find_claude, find_release  # noqa: E402
from old_releases import OLD_SCENARIOS, release_version  # noqa: E402

RUN_SCENARIO = AGENTS_DIR / "run_scenario.py"
SCENARIO_TIMEOUT = 240.0
LAZY_TIMEOUT = 120.0
LONG_SCENARIOS = [
    "fork",
    "interactive",
    "v2_0_fork",
    "v2_0_compact",
    "continue",
    "v2_0_resume",
    "compact_print",
    "resume",
    "v1_0_resume_tui",
    "v1_0_resume",
]
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
    missing = missing_release(alias)
    if shutil.which("unshare") is None:
        missing.append("`unshare` (util-linux) not found: needed for a loopback-only netns")
    else:
        probe = subprocess.run(
            [*unshare_prefix(), "true"], capture_output=True, text=True, timeout=30
        )
        if probe.returncode != 0:
            missing.append(
                f"cannot create a network namespace with {' '.join(unshare_prefix())}: "
                f"{probe.stderr.strip()}"
            )
    if shutil.which("git") is None:
        missing.append("`git` not found")
    if need_tmux and shutil.which("tmux") is None:
        missing.append("`tmux` not found (apt-get install tmux): needed for interactive runs")
    return missing


# --------------------------------------------------------------------------------------------
# Running scenarios
# --------------------------------------------------------------------------------------------


@dataclass
class ScenarioRun:
    name: str
    workdir: Path
    returncode: int | None = None
    stderr: str = ""
    duration: float = 0.0
    script: JsonDict = field(default_factory=dict)
    first_failure: str = ""  # set when this is the one retry of a failed run

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.script.get("error")

    @property
    def project(self) -> Path:
        return Path(self.script.get("project") or self.workdir / "project")

    @property
    def expect(self) -> JsonDict:
        return dict(self.script.get("expect") or {})

    def describe_failure(self) -> str:
        error = self.script.get("error") or ""
        return (
            f"scenario {self.name!r} failed (rc={self.returncode}) in {self.workdir}\n"
            f"{error}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def _load_script(run: ScenarioRun) -> None:
    path = run.workdir / "script.json"
    if path.is_file():
        try:
            run.script = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            run.script = {"error": f"bad script.json: {exc}"}


_LIVE: dict[int, subprocess.Popen[str]] = {}  # scenario processes running now, by pid


def kill_live_scenarios() -> None:
    for proc in list(_LIVE.values()):
        kill_group(proc)


def run_scenario(name: str, workdir: Path, timeout: float = SCENARIO_TIMEOUT) -> ScenarioRun:
    """Run one scenario in its own loopback-only network namespace."""
    run = ScenarioRun(name, workdir)
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
        cwd=AGENTS_DIR,
    )
    _LIVE[proc.pid] = proc
    try:
        _, run.stderr = proc.communicate(timeout=timeout)
        run.returncode = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        run.returncode = -9
        run.stderr = f"timed out after {timeout:.0f}s"
    finally:
        kill_group(proc)
        _LIVE.pop(proc.pid, None)
        socket = workdir / "tmux.sock"
        if socket.exists():  # the scenario's private tmux server, if it outlived a crash
            subprocess.run(
                ["tmux", "-S", str(socket), "kill-server"],
                capture_output=True,
                check=False,
                timeout=30,
            )
    run.duration = time.monotonic() - started
    _load_script(run)
    return run


class ScenarioCache:
    """Runs the scenarios the session needs, in parallel, once."""

    def __init__(self, root: Path, wanted: list[str], reuse: bool) -> None:
        self.root = root
        self.wanted = wanted
        self.reuse = reuse
        self.runs: dict[str, ScenarioRun] = {}
        self.checked: dict[str, list[str]] = {}

    def prerequisites(self, name: str) -> list[str]:
        need_tmux = name in INTERACTIVE_SCENARIOS
        old = OLD_SCENARIOS.get(name)
        alias = old.alias if old else None
        key = f"{alias or 'pinned'}:{'tmux' if need_tmux else 'basic'}"
        if key not in self.checked:
            self.checked[key] = missing_prerequisites(need_tmux, alias)
        return self.checked[key]

    def _reusable(self, name: str) -> ScenarioRun | None:
        if not self.reuse:
            return None
        run = ScenarioRun(name, self.root / name, returncode=0)
        _load_script(run)
        return run if run.script and run.ok else None

    def run_all(self) -> None:
        todo = [n for n in self.wanted if n not in self.runs and not self.prerequisites(n)]
        pending = []
        for name in todo:
            cached = self._reusable(name)
            if cached is not None:
                self.runs[name] = cached
            else:
                pending.append(name)
        if not pending:
            return
        # longest first, the short -p scenarios fill the other workers
        pending.sort(key=lambda n: LONG_SCENARIOS.index(n) if n in LONG_SCENARIOS else 99)
        workers = max(2, min(4, (os.cpu_count() or 2) + 1))
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            for run in pool.map(lambda n: run_scenario(n, self.root / n), pending):
                self.runs[run.name] = run
            # A real CLI driven through a terminal can lose a keystroke to timing on a loaded
            # machine: a failed scenario gets one more run, alone, in a fresh dir. The first
            # failure stays in the summary; a second failure fails its tests.
            for name in pending:
                first = self.runs[name]
                if not first.ok:
                    again = run_scenario(name, self.root / f"{name}-retry")
                    again.first_failure = first.describe_failure()
                    self.runs[name] = again
        except BaseException:  # e.g. Ctrl-C: stop the scenarios still running
            pool.shutdown(wait=False, cancel_futures=True)
            kill_live_scenarios()
            raise
        finally:
            pool.shutdown(wait=True)

    def get(self, name: str) -> ScenarioRun:
        if name not in SCENARIOS and name not in OLD_SCENARIOS:
            raise KeyError(name)
        missing = self.prerequisites(name)
        require(not missing, "; ".join(missing))
        if name not in self.runs:
            if name not in self.wanted:
                self.wanted.append(name)
            self.run_all()
        return self.runs[name]


_CACHES: list[ScenarioCache] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    runs = [run for cache in _CACHES for run in cache.runs.values()]
    if not runs:
        return
    terminalreporter.section("Claude Code scenarios")
    for run in sorted(runs, key=lambda r: r.name):
        state = "ok" if run.ok else f"FAILED (rc={run.returncode})"
        if run.first_failure:
            state += " on retry"
        version = run.script.get("claude_version", "?")
        terminalreporter.write_line(
            f"{run.name:16} {state:18} {run.duration:6.1f}s  claude {version}  {run.workdir}"
        )
        if run.first_failure:
            first = " | ".join(run.first_failure.strip().splitlines()[:2])
            terminalreporter.write_line(f"{'':16} retried after: {first}")


def _wanted_scenarios(session: pytest.Session) -> list[str]:
    names: list[str] = []
    for item in session.items:
        for mark in item.iter_markers("scenario"):
            for name in mark.args:
                if name not in names:
                    names.append(str(name))
    return names


@pytest.fixture(scope="session")
def scenarios(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ScenarioCache]:
    configured = os.environ.get("LAZY_AGENTS_WORKDIR")
    root = Path(configured).resolve() if configured else tmp_path_factory.mktemp("claude-runs")
    root.mkdir(parents=True, exist_ok=True)
    reuse = bool(configured) and os.environ.get("LAZY_AGENTS_REUSE", "") not in ("", "0")
    cache = ScenarioCache(root, _wanted_scenarios(request.session), reuse)
    _CACHES.append(cache)
    try:
        yield cache
    finally:
        kill_live_scenarios()


@pytest.fixture
def scenario(request: pytest.FixtureRequest, scenarios: ScenarioCache) -> ScenarioRun:
    """The (successful) run of the scenario named by the test's ``scenario`` marker/param."""
    name: str | None = getattr(request, "param", None)
    if name is None:
        mark = request.node.get_closest_marker("scenario")
        if mark is None:
            raise pytest.UsageError("the `scenario` fixture needs @pytest.mark.scenario(name)")
        name = str(mark.args[0])
    run = scenarios.get(name)
    if not run.ok:
        pytest.fail(run.describe_failure(), pytrace=False)
    return run


# --------------------------------------------------------------------------------------------
# The lazy CLI
# --------------------------------------------------------------------------------------------


@dataclass
class Lazy:
    """Runs the lazy CLI against one scenario's Claude Code files with a private LAZY_HOME."""

    lazy_home: Path
    run_: ScenarioRun

    def argv(self) -> list[str]:
        venv_lazy = Path(sys.executable).with_name("lazy")
        if venv_lazy.is_file():
            return [str(venv_lazy)]
        return [
            sys.executable,
            "-c",
            "import sys; from lazy.cli.main import main; sys.exit(main())",
        ]

    def env(self) -> dict[str, str]:
        script = self.run_.script
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "LAZY_"))}
        env.update(
            {
                "HOME": str(script["home"]),
                "CLAUDE_CONFIG_DIR": str(script["config_dir"]),
                "LAZY_HOME": str(self.lazy_home),
                "NO_COLOR": "1",
                "COLUMNS": "200",
            }
        )
        return env

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*self.argv(), *args],
            cwd=self.run_.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=LAZY_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"`lazy {' '.join(args)}` failed (rc={proc.returncode}) for scenario "
                f"{self.run_.name} (work dir {self.run_.workdir})\n"
                f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}",
                pytrace=False,
            )
        return proc

    def json(self, *args: str) -> Any:
        proc = self.run(*args)
        try:
            return json.loads(proc.stdout)
        except json.JSONDecodeError:
            pytest.fail(
                f"`lazy {' '.join(args)}` printed no JSON for scenario {self.run_.name}:\n"
                f"{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-2000:]}",
                pytrace=False,
            )

    def import_all(self) -> JsonDict:
        report: JsonDict = self.json("import-conversation", "--all", "--json")
        return report

    def builders(self) -> list[JsonDict]:
        data = self.json("conversations", "--json")
        return list(data["builders"])

    def show(self, builder_id: str) -> JsonDict:
        data: JsonDict = self.json("conversations", "show", builder_id, "--json")
        return data


@pytest.fixture
def lazy(scenario: ScenarioRun, tmp_path: Path) -> Lazy:
    """A lazy CLI bound to the test's scenario, with a fresh store (LAZY_HOME) per test."""
    home = tmp_path / "lazy-home"
    home.mkdir()
    return Lazy(home, scenario)


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
