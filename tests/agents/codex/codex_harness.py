"""What the Codex tests share between conftest.py and the test module: a scenario run (its
``script.json``) and the lazy CLI bound to it. A plain module, since a test module importing
``conftest`` gets whichever conftest pytest imported last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

LAZY_TIMEOUT = 120.0

JsonDict = dict[str, Any]


@dataclass
class CodexRun:
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
    def codex_home(self) -> Path:
        return Path(self.script["codex_home"])

    @property
    def project(self) -> Path:
        return Path(self.script["project"])

    @property
    def threads(self) -> list[JsonDict]:
        return list(self.script["threads"])

    def describe_failure(self) -> str:
        return (
            f"codex scenario {self.name!r} failed (rc={self.returncode}) in {self.workdir}\n"
            f"{self.script.get('error') or ''}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def load_script(run: CodexRun) -> None:
    path = run.workdir / "script.json"
    if path.is_file():
        try:
            run.script = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            run.script = {"error": f"bad script.json: {exc}"}


def lazy_argv() -> list[str]:
    venv_lazy = Path(sys.executable).with_name("lazy")
    if venv_lazy.is_file():
        return [str(venv_lazy)]
    return [sys.executable, "-c", "import sys; from lazy.cli.main import main; sys.exit(main())"]


@dataclass
class LazyCli:
    """The lazy CLI with a private store (LAZY_HOME), run from the scenario's project dir."""

    lazy_home: Path
    run_: CodexRun

    def argv(self) -> list[str]:
        return lazy_argv()

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CLAUDE_", "LAZY_", "CODEX_", "XDG_"))
        }
        env.update(
            {
                "HOME": str(self.run_.script["home"]),
                "CODEX_HOME": str(self.run_.codex_home),
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
                f"`lazy {' '.join(args)}` failed (rc={proc.returncode}) for codex scenario "
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
                f"`lazy {' '.join(args)}` printed no JSON for codex scenario {self.run_.name}:\n"
                f"{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-2000:]}",
                pytrace=False,
            )

    def import_codex(self, *extra: str) -> JsonDict:
        report: JsonDict = self.json(
            "import",
            "codex",
            "--source",
            str(self.run_.codex_home),
            "--include-temp-cwd",
            "--include-trivial",
            "--json",
            *extra,
        )
        return report


def lazy_supports_codex() -> bool:
    proc = subprocess.run(
        [*lazy_argv(), "import", "codex", "--help"], capture_output=True, text=True, timeout=60
    )
    return proc.returncode == 0


@dataclass
class Imported:
    """A scenario imported into a fresh store, with every memory under its sessions read."""

    cli: LazyCli
    report: JsonDict
    memories: dict[str, list[JsonDict]]  # session id -> `lazy get --json` of each memory


_LAZY_OK: list[bool] = []


def do_import(run: CodexRun, home: Path, *extra: str) -> Imported:
    if not _LAZY_OK:
        _LAZY_OK.append(lazy_supports_codex())
    # the lazy side is a prerequisite built alongside these tests: fail, never skip, without it
    if not _LAZY_OK[0]:
        pytest.fail("`lazy import codex --help` fails: the Codex importer is not there yet")
    cli = LazyCli(home, run)
    report = cli.import_codex(*extra)
    memories: dict[str, list[JsonDict]] = {}
    for session in report.get("sessions", []):
        listing = cli.json("ls", session["node"], "--json")
        memories[session["session_id"]] = [
            cli.json("get", child["path"], "--json")
            for child in listing["children"]
            if child["kind"] == "memory"
        ]
    return Imported(cli, report, memories)
