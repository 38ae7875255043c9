"""Claude Code, as lazy knows it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lazy.agents.base import Agent, LineReader, Load, ToolKnowledge
from lazy.agents.claude.sources import NAME, claude_roots, source_of

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery


def _reader(path: str, session_id: str, subagent_id: str | None, load: Load | None) -> LineReader:
    from lazy.agents.claude.reader import ClaudeReader

    return ClaudeReader(path, session_id, subagent_id, load)


def _roots() -> list[Path]:
    return claude_roots()


def _tools() -> ToolKnowledge:
    from lazy.agents.claude import tools

    return tools


def _discover(roots: list[Path], explicit: list[Path], project: str | None) -> Discovery:
    # imported when discovering: capturing one file (a hook, every turn) needs none of it
    from lazy.agents.claude.discovery import discover

    return discover(CLAUDE, roots, explicit, project)


CLAUDE = Agent(
    name=NAME,
    display_name="Claude Code",
    env=("CLAUDE_CONFIG_DIR",),
    default_roots=_roots,
    discover=_discover,
    reads="lines",
    resumes_in_terminal=True,
    joins_by_uuid_dag=True,
    source_hint="a Claude projects dir or a folder of .jsonl files",
    roots_said="$CLAUDE_CONFIG_DIR/projects and ~/.claude/projects",
    subagent_sessions=False,
    provider="anthropic",
    line_reader=_reader,
    source_of=source_of,
    tool_knowledge=_tools,
)
