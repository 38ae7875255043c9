"""Finding any agent's sessions on disk: its default roots and the ones the user named, each
searched by the agent's own discovery (``lazy.agents.<agent>.discovery``)."""

from __future__ import annotations

from pathlib import Path

from lazy.agents import agent
from lazy.agents.discovery import Discovery, explicit


def roots_of(
    tool: str, sources: list[Path] | None = None, *, default_roots: bool = True
) -> list[Path]:
    """Where ``tool``'s sessions are looked for: its default roots, then ``sources``."""
    defaults = agent(tool).default_roots() if default_roots else []
    return defaults + explicit(sources)


def discover_tool(
    tool: str,
    sources: list[Path] | None = None,
    project: str | None = None,
    *,
    default_roots: bool = True,
) -> Discovery:
    """``tool``'s sessions under its roots and ``sources``, for ``project`` (None: all)."""
    return agent(tool).discover(
        roots_of(tool, sources, default_roots=default_roots), explicit(sources), project
    )
