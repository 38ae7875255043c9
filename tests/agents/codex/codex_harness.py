"""What the Codex tests share between conftest.py and the test module: a scenario run (its
``script.json``) and the lazy CLI bound to it. A plain module, since a test module importing
``conftest`` gets whichever conftest pytest imported last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lazy_cli import BoundLazy, ImportedStore, import_once, lazy_help
from scenario_runner import ScenarioRecord

JsonDict = dict[str, Any]


class CodexRun(ScenarioRecord):
    label = "codex scenario"
    tool = "codex"

    @property
    def codex_home(self) -> Path:
        return Path(self.script["codex_home"])

    @property
    def threads(self) -> list[JsonDict]:
        return list(self.script["threads"])


class LazyCli(BoundLazy):
    """The lazy CLI with a private store (LAZY_HOME), run from the scenario's project dir."""

    strip_env = ("CLAUDE_", "LAZY_", "CODEX_", "XDG_")
    agent = "codex"
    run_: CodexRun

    def tool_env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.run_.codex_home)}

    def source(self) -> Path:
        return self.run_.codex_home

    def import_codex(self, *extra: str) -> JsonDict:
        return self.import_(*extra)


Imported = ImportedStore[LazyCli]


def do_import(
    run: CodexRun, tmp_path_factory: pytest.TempPathFactory, *, full: bool = False
) -> Imported:
    # the lazy side is a prerequisite built alongside these tests: fail, never skip, without it
    if not lazy_help("import", "codex")[0]:
        pytest.fail("`lazy import codex --help` fails: the Codex importer is not there yet")
    return import_once(LazyCli, run, tmp_path_factory, full=full)
