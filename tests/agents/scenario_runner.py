"""Running an agent's scenarios for a pytest session, shared by the three suites (Claude Code,
Codex, OpenCode): each scenario's entry script runs in a loopback-only network namespace
(``unshare --net``), the scenarios the session needs in parallel and once, with a timeout that
kills the scenario's whole process group; ``script.json`` is what a run recorded.

A suite subclasses :class:`ScenarioRecord` (what its tests read of ``script.json``) and
:class:`ScenarioPool` (its entry script, its prerequisites, how many runs at once).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

import pytest
from agent_support import kill_group, require, unshare_prefix

JsonDict = dict[str, Any]


@dataclass
class ScenarioRecord:
    """One run of a scenario: its exit status, stderr and ``script.json``."""

    label: ClassVar[str] = "scenario"  # how failures name it
    tool: ClassVar[str] = ""  # the CLI; its version is script.json's "<tool>_version"

    name: str
    workdir: Path
    returncode: int | None = None
    stderr: str = ""
    duration: float = 0.0
    script: JsonDict = field(default_factory=dict)
    first_failure: str = ""  # set when this is the one retry of a failed run

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.script) and not self.script.get("error")

    @property
    def project(self) -> Path:
        return Path(self.script.get("project") or self.workdir / "project")

    @property
    def expect(self) -> JsonDict:
        return dict(self.script.get("expect") or {})

    @property
    def version(self) -> str:
        return str(self.script.get(f"{self.tool}_version", "?"))

    def load_script(self) -> None:
        path = self.workdir / "script.json"
        if path.is_file():
            try:
                self.script = json.loads(path.read_text())
            except json.JSONDecodeError as exc:
                self.script = {"error": f"bad script.json: {exc}"}

    def describe_failure(self) -> str:
        return (
            f"{self.label} {self.name!r} failed (rc={self.returncode}) in {self.workdir}\n"
            f"{self.script.get('error') or ''}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


RunT = TypeVar("RunT", bound=ScenarioRecord)


@functools.cache
def _netns_problems() -> tuple[str, ...]:
    if shutil.which("unshare") is None:
        return ("`unshare` (util-linux) not found: needed for a loopback-only netns",)
    probe = subprocess.run([*unshare_prefix(), "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return (
            f"cannot create a network namespace with {' '.join(unshare_prefix())}: "
            f"{probe.stderr.strip()}",
        )
    return ()


def missing_sandbox_tools() -> list[str]:
    """What every scenario needs besides its CLI: a network namespace of its own, and git."""
    missing = list(_netns_problems())
    if shutil.which("git") is None:
        missing.append("`git` not found")
    return missing


def wanted_scenarios(session: pytest.Session, marker: str) -> list[str]:
    """The scenarios the collected tests name with ``@pytest.mark.<marker>(name)``."""
    names: list[str] = []
    for item in session.items:
        for mark in item.iter_markers(marker):
            for name in mark.args:
                if str(name) not in names:
                    names.append(str(name))
    return names


_OPENED: list[ScenarioPool[Any]] = []


class ScenarioPool(Generic[RunT]):
    """Runs the scenarios the session needs, in parallel, once."""

    record: ClassVar[type[ScenarioRecord]]
    runner: ClassVar[Path]  # the entry script: ``runner <name> <workdir>``
    timeout: ClassVar[float]
    title: ClassVar[str]  # of the terminal summary's section
    marker: ClassVar[str]  # that names a test's scenario
    long_first: ClassVar[Sequence[str]] = ()  # these start first, the short ones fill in
    retry_failed: ClassVar[bool] = False

    def __init__(self, root: Path, wanted: list[str], reuse: bool) -> None:
        self.root = root
        self.wanted = wanted
        self.reuse = reuse
        self.runs: dict[str, RunT] = {}
        self.checked: dict[str, list[str]] = {}
        self.live: dict[int, subprocess.Popen[str]] = {}  # scenario processes running now

    # -- what a suite says ---------------------------------------------------------------

    def known(self, name: str) -> bool:
        raise NotImplementedError

    def prerequisite_key(self, name: str) -> str:
        """Scenarios with the same key share their prerequisites (checked once)."""
        return name

    def find_missing(self, name: str) -> list[str]:
        raise NotImplementedError

    def workers(self, pending: int) -> int:
        return max(2, min(pending, (os.cpu_count() or 2) + 1))

    def after_run(self, run: RunT) -> None:
        """Clean up what a scenario may leave outside its process group."""

    # -- running -------------------------------------------------------------------------

    def prerequisites(self, name: str) -> list[str]:
        key = self.prerequisite_key(name)
        if key not in self.checked:
            self.checked[key] = self.find_missing(name)
        return self.checked[key]

    def new_record(self, name: str, workdir: Path, returncode: int | None = None) -> RunT:
        run: RunT = self.record(name, workdir, returncode)  # type: ignore[assignment]
        return run

    def run_one(self, name: str, workdir: Path) -> RunT:
        """Run one scenario in its own loopback-only network namespace."""
        run = self.new_record(name, workdir)
        if workdir.exists():
            shutil.rmtree(workdir)
        workdir.mkdir(parents=True)
        argv = [*unshare_prefix(), sys.executable, str(self.runner), name, str(workdir)]
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            cwd=self.runner.parent,
        )
        self.live[proc.pid] = proc
        try:
            _, run.stderr = proc.communicate(timeout=self.timeout)
            run.returncode = proc.returncode
        except subprocess.TimeoutExpired:
            run.returncode = -9
            run.stderr = f"timed out after {self.timeout:.0f}s"
        finally:
            kill_group(proc)  # also whatever the CLI left behind in the group
            self.live.pop(proc.pid, None)
            self.after_run(run)
        run.duration = time.monotonic() - started
        run.load_script()
        return run

    def kill_live(self) -> None:
        for proc in list(self.live.values()):
            kill_group(proc)

    def _reusable(self, name: str) -> RunT | None:
        if not self.reuse:
            return None
        run = self.new_record(name, self.root / name, returncode=0)
        run.load_script()
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
        order = list(self.long_first)
        pending.sort(key=lambda n: order.index(n) if n in order else len(order))
        pool = ThreadPoolExecutor(max_workers=self.workers(len(pending)))
        try:
            for run in pool.map(lambda n: self.run_one(n, self.root / n), pending):
                self.runs[run.name] = run
            if self.retry_failed:
                self._retry(pending)
        except BaseException:  # e.g. Ctrl-C: stop the scenarios still running
            pool.shutdown(wait=False, cancel_futures=True)
            self.kill_live()
            raise
        finally:
            pool.shutdown(wait=True)

    def _retry(self, names: list[str]) -> None:
        # A real CLI driven through a terminal can lose a keystroke to timing on a loaded
        # machine: a failed scenario gets one more run, alone, in a fresh dir. The first
        # failure stays in the summary; a second failure fails its tests.
        for name in names:
            first = self.runs[name]
            if not first.ok:
                again = self.run_one(name, self.root / f"{name}-retry")
                again.first_failure = first.describe_failure()
                self.runs[name] = again

    def get(self, name: str) -> RunT:
        if not self.known(name):
            raise KeyError(name)
        missing = self.prerequisites(name)
        require(not missing, "; ".join(missing))
        if name not in self.runs:
            if name not in self.wanted:
                self.wanted.append(name)
            self.run_all()
        return self.runs[name]

    def for_test(self, request: pytest.FixtureRequest) -> RunT:
        """The successful run of the scenario a test names: by indirect parametrization or by
        the pool's marker."""
        name: str | None = getattr(request, "param", None)
        if name is None:
            mark = request.node.get_closest_marker(self.marker)
            if mark is None:
                raise pytest.UsageError(f"the test needs @pytest.mark.{self.marker}(name)")
            name = str(mark.args[0])
        run = self.get(name)
        if not run.ok:
            pytest.fail(run.describe_failure(), pytrace=False)
        return run

    # -- the pytest session --------------------------------------------------------------

    @classmethod
    def for_session(
        cls,
        request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory,
        *,
        workdir_env: str,
        reuse_env: str,
        subdir: str = "",
    ) -> Iterator[Self]:
        """The body of a session fixture: scenario dirs under ``$<workdir_env>[/subdir]`` when
        set (reused with ``<reuse_env>=1``), else a pytest temp dir."""
        configured = os.environ.get(workdir_env)
        if configured:
            root = Path(configured).resolve() / subdir if subdir else Path(configured).resolve()
        else:
            root = tmp_path_factory.mktemp(f"{cls.record.tool or 'agent'}-runs")
        root.mkdir(parents=True, exist_ok=True)
        reuse = bool(configured) and os.environ.get(reuse_env, "") not in ("", "0")
        pool = cls(root, wanted_scenarios(request.session, cls.marker), reuse)
        _OPENED.append(pool)
        try:
            yield pool
        finally:
            pool.kill_live()

    @classmethod
    def fixtures(
        cls, pool_name: str, run_name: str, *, workdir_env: str, reuse_env: str, subdir: str = ""
    ) -> tuple[Any, Any]:
        """A conftest's two fixtures: ``pool_name``, the session's pool (see
        :meth:`for_session`), and ``run_name``, the successful run of the scenario a test names
        (see :meth:`for_test`). Assign both to module names in the conftest."""

        @pytest.fixture(scope="session", name=pool_name)
        def pool_fixture(
            request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[ScenarioPool[RunT]]:
            yield from cls.for_session(
                request,
                tmp_path_factory,
                workdir_env=workdir_env,
                reuse_env=reuse_env,
                subdir=subdir,
            )

        @pytest.fixture(name=run_name)
        def run_fixture(request: pytest.FixtureRequest) -> ScenarioRecord:
            pool: ScenarioPool[Any] = request.getfixturevalue(pool_name)
            run: ScenarioRecord = pool.for_test(request)
            return run

        return pool_fixture, run_fixture


def summarize(terminalreporter: Any) -> None:
    """The terminal summary's section per suite that ran scenarios: one line per run."""
    for cls in dict.fromkeys(type(pool) for pool in _OPENED):
        runs = [run for pool in _OPENED if type(pool) is cls for run in pool.runs.values()]
        if not runs:
            continue
        terminalreporter.section(cls.title)
        width = max(len(run.name) for run in runs) + 2
        for run in sorted(runs, key=lambda r: r.name):
            state = "ok" if run.ok else f"FAILED (rc={run.returncode})"
            if run.first_failure:
                state += " on retry"
            terminalreporter.write_line(
                f"{run.name:{width}} {state:18} {run.duration:6.1f}s  "
                f"{run.tool} {run.version}  {run.workdir}"
            )
            if run.first_failure:
                first = " | ".join(run.first_failure.strip().splitlines()[:2])
                terminalreporter.write_line(f"{'':{width}} retried after: {first}")
