"""Claude Code, as lazy knows it."""

from __future__ import annotations

from pathlib import Path

from lazy.agents import Agent, LineReader, Load
from lazy.agents.claude.discovery import NAME, claude_roots, discover, source_of


def _reader(path: str, session_id: str, subagent_id: str | None, load: Load | None) -> LineReader:
    from lazy.agents.claude.reader import ClaudeReader

    return ClaudeReader(path, session_id, subagent_id, load)


def _roots() -> list[Path]:
    return claude_roots()


CLAUDE = Agent(
    name=NAME,
    display_name="Claude Code",
    env=("CLAUDE_CONFIG_DIR",),
    default_roots=_roots,
    discover=discover,
    reads="lines",
    resumes_in_terminal=True,
    source_hint="a Claude projects dir or a folder of .jsonl files",
    roots_said="$CLAUDE_CONFIG_DIR/projects and ~/.claude/projects",
    subagent_sessions=False,
    provider="anthropic",
    line_reader=_reader,
    source_of=source_of,
)
