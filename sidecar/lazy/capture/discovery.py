"""Finding any agent's sessions on disk: its default roots and the ones the user named, each
searched by the agent's own discovery (``lazy.agents.<agent>.discovery``)."""

from __future__ import annotations

from pathlib import Path

from lazy.agents import agent
from lazy.agents.discovery import Discovery, explicit


def roots_of(
    name: str, sources: list[Path] | None = None, *, default_roots: bool = True
) -> list[Path]:
    """Where ``name``'s sessions are looked for: its default roots, then ``sources``."""
    defaults = agent(name).default_roots() if default_roots else []
    return defaults + explicit(sources)


def discover_tool(
    name: str,
    sources: list[Path] | None = None,
    project: str | None = None,
    *,
    default_roots: bool = True,
) -> Discovery:
    """``name``'s sessions under its roots and ``sources``, for ``project`` (None: all)."""
    return agent(name).discover(
        roots_of(name, sources, default_roots=default_roots), explicit(sources), project
    )
