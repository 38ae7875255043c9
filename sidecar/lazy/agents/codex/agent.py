"""Codex CLI, as lazy knows it."""

from __future__ import annotations

from pathlib import Path

from lazy.agents import Agent, LineReader, Load
from lazy.agents.codex.discovery import NAME, codex_home, discover, recognises, source_of


def _reader(path: str, session_id: str, subagent_id: str | None, load: Load | None) -> LineReader:
    from lazy.agents.codex.reader import CodexReader

    return CodexReader(path, session_id, subagent_id, load)


def _roots() -> list[Path]:
    return [codex_home()]


CODEX = Agent(
    name=NAME,
    display_name="Codex CLI",
    env=("CODEX_HOME",),
    default_roots=_roots,
    discover=discover,
    reads="lines",
    resumes_in_terminal=False,  # it resumes in the same file, not in a new terminal session
    source_hint="a Codex home or a folder of rollouts",
    roots_said="$CODEX_HOME (default ~/.codex): sessions/ and archived_sessions/",
    line_reader=_reader,
    source_of=source_of,
    recognises=recognises,
)
