"""Shared by the OpenCode conftest and tests (kept out of conftest.py: its module name is not
unique): a scenario run's record, and the lazy CLI bound to one run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lazy_cli import BoundLazy, ImportedStore, import_once
from oc_storage import Storage, read_storage
from scenario_runner import ScenarioRecord

JsonDict = dict[str, Any]


class OcRun(ScenarioRecord):
    label = "OpenCode scenario"
    tool = "opencode"

    @property
    def data_dir(self) -> Path:
        return Path(self.script["data_dir"])

    def storage(self) -> Storage:
        return read_storage(self.data_dir)


class OcLazy(BoundLazy):
    """The lazy CLI with a private store (LAZY_HOME), bound to one OpenCode scenario run."""

    agent = "opencode"
    run_: OcRun

    def source(self) -> Path:
        return self.run_.data_dir

    def conversations(self) -> list[JsonDict]:
        data = self.json("conversations", "--all-projects", "--tool", "opencode", "--json")
        if isinstance(data, dict):  # tolerate {"builders": [...]}
            data = data.get("builders", [])
        return list(data)

    def show(self, builder_id: str) -> JsonDict:
        data: JsonDict = self.stored(self.json("show", builder_id, "--json"))
        return data


OcImported = ImportedStore[OcLazy]


def imported(
    run: OcRun, tmp_path_factory: pytest.TempPathFactory, *, full: bool = False
) -> OcImported:
    """``run`` imported into a fresh store (default or --full-transcript), once per session,
    with every memory under every session node read back. The tests using it only read."""
    return import_once(OcLazy, run, tmp_path_factory, full=full)
