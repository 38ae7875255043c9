"""OpenCode, as lazy knows it: its sessions are records, not lines."""

from __future__ import annotations

from pathlib import Path

from lazy.agents import Agent
from lazy.agents.opencode.discovery import NAME, discover, key_location, opencode_home


def _roots() -> list[Path]:
    return [opencode_home()]


OPENCODE = Agent(
    name=NAME,
    display_name="OpenCode",
    env=("XDG_DATA_HOME",),
    default_roots=_roots,
    discover=discover,
    reads="records",
    resumes_in_terminal=False,
    source_hint="an OpenCode data dir",
    roots_said="$XDG_DATA_HOME/opencode (default ~/.local/share/opencode)",
    record_files=(".json", ".db", ".db-wal"),
    key_location=key_location,
)
