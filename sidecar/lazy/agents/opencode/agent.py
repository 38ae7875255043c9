"""OpenCode, as lazy knows it: its sessions are records, not lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from lazy.agents.base import Agent, ToolKnowledge
from lazy.agents.opencode.sources import NAME, key_location, opencode_home

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery


def _roots() -> list[Path]:
    return [opencode_home()]


def _tools() -> ToolKnowledge:
    from lazy.agents.opencode import tools

    return tools


def _discover(roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    # imported when discovering: capturing one file (a hook, every turn) needs none of it
    from lazy.agents.opencode.discovery import discover

    return discover(OPENCODE, roots, explicit, project)


OPENCODE = Agent(
    name=NAME,
    display_name="OpenCode",
    env=("XDG_DATA_HOME",),
    default_roots=_roots,
    discover=_discover,
    reads="records",
    resumes_in_terminal=False,
    source_hint="an OpenCode data dir",
    roots_said="$XDG_DATA_HOME/opencode (default ~/.local/share/opencode)",
    record_files=(".json", ".db", ".db-wal"),
    key_location=key_location,
    fork_title=re.compile(r"^(.*) \(fork #\d+\)$"),
    tool_knowledge=_tools,
)
