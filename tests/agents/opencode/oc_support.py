"""Shared by the OpenCode conftest and tests (kept out of conftest.py: its module name is not
unique): a scenario run's record, and the lazy CLI bound to one run."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from oc_storage import Storage, read_storage
from opencode_driver import lazy_argv, lazy_import_args

LAZY_TIMEOUT = 120.0

JsonDict = dict[str, Any]


@dataclass
class OcRun:
    name: str
    workdir: Path
    returncode: int | None = None
    stderr: str = ""
    duration: float = 0.0
    script: JsonDict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.script) and not self.script.get("error")

    @property
    def data_dir(self) -> Path:
        return Path(self.script["data_dir"])

    @property
    def project(self) -> Path:
        return Path(self.script["project"])

    @property
    def expect(self) -> JsonDict:
        return dict(self.script.get("expect") or {})

    def storage(self) -> Storage:
        return read_storage(self.data_dir)

    def describe_failure(self) -> str:
        return (
            f"OpenCode scenario {self.name!r} failed (rc={self.returncode}) in {self.workdir}\n"
            f"{self.script.get('error') or ''}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def load_script(run: OcRun) -> None:
    path = run.workdir / "script.json"
    if path.is_file():
        try:
            run.script = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            run.script = {"error": f"bad script.json: {exc}"}


def lazy_has_opencode_import() -> tuple[bool, str]:
    proc = subprocess.run(
        [*lazy_argv(), "import", "opencode", "--help"],
        capture_output=True,
        text=True,
        timeout=LAZY_TIMEOUT,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()[-500:]


@dataclass
class OcLazy:
    """The lazy CLI with a private store (LAZY_HOME), bound to one OpenCode scenario run."""

    lazy_home: Path
    run_: OcRun

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LAZY_")}
        env.update(
            {
                "HOME": str(self.run_.script["home"]),
                "LAZY_HOME": str(self.lazy_home),
                "NO_COLOR": "1",
                "COLUMNS": "200",
            }
        )
        return env

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*lazy_argv(), *args],
            cwd=self.run_.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=LAZY_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"`lazy {' '.join(args)}` failed (rc={proc.returncode}) for OpenCode scenario "
                f"{self.run_.name} (work dir {self.run_.workdir}, LAZY_HOME {self.lazy_home})\n"
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
                f"`lazy {' '.join(args)}` printed no JSON for OpenCode scenario "
                f"{self.run_.name}:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-2000:]}",
                pytrace=False,
            )

    def import_(self, *extra: str, source: Path | None = None) -> JsonDict:
        args = lazy_import_args(source or self.run_.data_dir)
        report: JsonDict = self.json(*args, *extra)
        return report

    def ls(self, path: str) -> list[JsonDict]:
        return list(self.json("ls", path, "--json")["children"])

    def get(self, path: str) -> JsonDict:
        data: JsonDict = self.json("get", path, "--json")
        return data

    def conversations(self) -> list[JsonDict]:
        data = self.json("conversations", "--all-projects", "--tool", "opencode", "--json")
        if isinstance(data, dict):  # tolerate {"builders": [...]}
            data = data.get("builders", [])
        return list(data)

    def show(self, builder_id: str) -> JsonDict:
        data: JsonDict = self.json("show", builder_id, "--json")
        return data


@dataclass
class OcImported:
    cli: OcLazy
    report: JsonDict
    full: bool
    memories: dict[str, list[JsonDict]]  # session id -> `lazy get --json` of each memory


_IMPORTS: dict[tuple[str, bool], OcImported] = {}


def imported(
    run: OcRun, tmp_path_factory: pytest.TempPathFactory, *, full: bool = False
) -> OcImported:
    """``run`` imported into a fresh store (default or --full-transcript), once per session,
    with every memory under every session node read back. The tests using it only read."""
    key = (run.name, full)
    if key not in _IMPORTS:
        cli = OcLazy(tmp_path_factory.mktemp(f"lazy-oc-{run.name}"), run)
        report = cli.import_("--full-transcript") if full else cli.import_()
        memories: dict[str, list[JsonDict]] = {}
        # one `lazy get` per memory, ~0.5 s of start-up each: read them side by side
        with ThreadPoolExecutor(max_workers=4) as pool:
            for entry in report.get("sessions", []):
                children = cli.ls(str(entry["node"]))
                paths = [str(c["path"]) for c in children if c.get("kind") == "memory"]
                memories[str(entry["session_id"])] = list(pool.map(cli.get, paths))
        _IMPORTS[key] = OcImported(cli, report, full, memories)
    return _IMPORTS[key]
