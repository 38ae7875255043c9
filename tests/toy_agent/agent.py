"""The toy agent: sessions under ``$TOY_HOME/sessions/<session id>.jsonl``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from lazy.agents import Agent
from lazy.agents.discovery import Candidate, Discovery, collect, file_candidate
from lazy.records import Quarantined
from toy_agent.reader import ToyReader


def _roots() -> list[Path]:
    return [Path(os.environ.get("TOY_HOME") or Path.home() / ".toy").expanduser()]


def _listed(root: Path, problems: list[Quarantined]) -> Iterator[Candidate]:
    for path in sorted(root.rglob("*.jsonl")):
        found = file_candidate(path, TOY, problems)
        if found is not None:
            yield found[0]


def discover(roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    return collect(roots, project, _listed)


TOY = Agent(
    name="toy",
    display_name="Toy Agent",
    env=("TOY_HOME",),
    default_roots=_roots,
    discover=discover,
    reads="lines",
    resumes_in_terminal=False,
    source_hint="a toy home",
    roots_said="$TOY_HOME (default ~/.toy)",
    line_reader=ToyReader,
)
