"""Codex CLI, as lazy knows it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lazy.agents.base import Agent, LineReader, Load, ToolKnowledge
from lazy.agents.codex.sources import NAME, codex_home, recognises, source_of

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery


def _reader(path: str, session_id: str, subagent_id: str | None, load: Load | None) -> LineReader:
    from lazy.agents.codex.reader import CodexReader

    return CodexReader(path, session_id, subagent_id, load)


def _roots() -> list[Path]:
    return [codex_home()]


def _tools() -> ToolKnowledge:
    from lazy.agents.codex import tools

    return tools


def _discover(roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    # imported when discovering: capturing one file (a hook, every turn) needs none of it
    from lazy.agents.codex.discovery import discover

    return discover(CODEX, roots, explicit, project)


CODEX = Agent(
    name=NAME,
    display_name="Codex CLI",
    env=("CODEX_HOME",),
    default_roots=_roots,
    discover=_discover,
    reads="lines",
    resumes_in_terminal=False,  # it resumes in the same file, not in a new terminal session
    source_hint="a Codex home or a folder of rollouts",
    roots_said="$CODEX_HOME (default ~/.codex): sessions/ and archived_sessions/",
    line_reader=_reader,
    source_of=source_of,
    recognises=recognises,
    tool_knowledge=_tools,
)
