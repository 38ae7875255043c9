"""The lazy CLI bound to one scenario run, with a private store (LAZY_HOME), as the three agent
suites drive it; and a scenario imported once per session with every memory read back."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

import pytest
from scenario_env import lazy_argv, lazy_import_args
from scenario_runner import ScenarioRecord

LAZY_TIMEOUT = 120.0

JsonDict = dict[str, Any]


@functools.cache
def lazy_help(*command: str) -> tuple[bool, str]:
    """Whether ``lazy <command> --help`` works here, and the tail of what it printed."""
    proc = subprocess.run(
        [*lazy_argv(), *command, "--help"],
        capture_output=True,
        text=True,
        timeout=LAZY_TIMEOUT,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()[-500:]


@dataclass
class BoundLazy:
    """The lazy CLI with a private store (LAZY_HOME), run from the scenario's project dir, with
    the scenario's HOME. A suite adds where its agent's files are (:meth:`tool_env`) and the
    variables of the machine to drop (``strip_env``)."""

    strip_env: ClassVar[tuple[str, ...]] = ("LAZY_",)
    agent: ClassVar[str] = ""  # for `lazy import <agent>`

    lazy_home: Path
    run_: ScenarioRecord

    @classmethod
    def fresh(cls, run: ScenarioRecord, tmp_path: Path) -> Self:
        """Bound to ``run``, with a new empty store under ``tmp_path``."""
        home = tmp_path / "lazy-home"
        home.mkdir()
        return cls(home, run)

    def tool_env(self) -> dict[str, str]:
        return {}

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(self.strip_env)}
        env.update(
            {
                "HOME": str(self.run_.script["home"]),
                **self.tool_env(),
                "LAZY_HOME": str(self.lazy_home),
                "NO_COLOR": "1",
                "COLUMNS": "200",
            }
        )
        return env

    def stored(self, shown: dict[str, Any]) -> dict[str, Any]:
        """``lazy show --json`` with each line's messages as the store holds them, one per
        stored message: these tests check what was captured against the agent's script, and
        the view folds tool results into their calls."""
        from lazy.blocks import answered, note_calls, render
        from lazy.store import Store
        from lazy.store.queries import message_rows

        def line(store: Any, side: str | None) -> list[dict[str, Any]]:
            names: dict[str, str] = {}
            out = []
            for r in message_rows(store.conn, shown["builder"]["id"], side, 1, 2**62):
                note_calls(r.blocks, names)
                out.append({
                    "number": r.number, "role": r.role, "text": r.text or render(r.blocks),
                    "session_id": r.session_id, "timestamp": r.timestamp, "kinds": r.kinds,
                    "model": r.model, "tool_name": r.tool_name or answered(r.blocks, names),
                })  # fmt: skip
            return out

        with Store.open(self.lazy_home) as store:
            shown["messages"] = line(store, None)
            for side in shown.get("sidechains", []):
                side["messages"] = line(store, side["session_id"])
        return shown

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
                f"`lazy {' '.join(args)}` failed (rc={proc.returncode}) for {self.run_.label} "
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
                f"`lazy {' '.join(args)}` printed no JSON for {self.run_.label} "
                f"{self.run_.name}:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-2000:]}",
                pytrace=False,
            )

    def ls(self, path: str) -> list[JsonDict]:
        return list(self.json("ls", path, "--json")["children"])

    def get(self, path: str) -> JsonDict:
        data: JsonDict = self.json("get", path, "--json")
        return data

    def source(self) -> Path:
        """The agent's data dir, what ``lazy import <agent> --source`` reads."""
        raise NotImplementedError

    def import_(self, *extra: str, source: Path | None = None) -> JsonDict:
        args = lazy_import_args(self.agent, source or self.source())
        report: JsonDict = self.json(*args, *extra)
        return report


CliT = TypeVar("CliT", bound=BoundLazy)


@dataclass
class ImportedStore(Generic[CliT]):
    """A scenario imported into a fresh store, with every memory under its sessions read."""

    cli: CliT
    report: JsonDict
    memories: dict[str, list[JsonDict]]  # session id -> `lazy get --json` of each memory
    full: bool = False  # imported with --full-transcript


def read_memories(cli: BoundLazy, report: JsonDict) -> dict[str, list[JsonDict]]:
    """``lazy get --json`` of every memory under each session node the import reported."""
    memories: dict[str, list[JsonDict]] = {}
    # one `lazy get` per memory, ~0.5 s of start-up each: read them side by side
    with ThreadPoolExecutor(max_workers=4) as pool:
        for entry in report.get("sessions", []):
            children = cli.ls(str(entry["node"]))
            paths = [str(c["path"]) for c in children if c.get("kind") == "memory"]
            memories[str(entry["session_id"])] = list(pool.map(cli.get, paths))
    return memories


_IMPORTS: dict[tuple[type[BoundLazy], str, bool], ImportedStore[Any]] = {}


def import_once(
    cli_class: type[CliT],
    run: ScenarioRecord,
    tmp_path_factory: pytest.TempPathFactory,
    *,
    full: bool = False,
) -> ImportedStore[CliT]:
    """``run`` imported (default, or with --full-transcript) into a fresh store once per session,
    with every memory read back. The tests using it only read."""
    key = (cli_class, run.name, full)
    if key not in _IMPORTS:
        mode = "-full" if full else ""
        cli = cli_class(tmp_path_factory.mktemp(f"lazy-{run.tool}{mode}-{run.name}"), run)
        report = cli.import_("--full-transcript") if full else cli.import_()
        _IMPORTS[key] = ImportedStore(cli, report, read_memories(cli, report), full)
    imported: ImportedStore[CliT] = _IMPORTS[key]
    return imported
