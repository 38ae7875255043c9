"""The agents lazy reads (Claude Code, Codex CLI, OpenCode), one folder each, and the one
registry of them, ``AGENTS``: every list of agents elsewhere is derived from it.

An :class:`Agent` says everything lazy knows about one agent: its names, where its sessions
live by default (and the environment variables that move them), how they are discovered,
how they are read (lines, for Claude Code and Codex; records, for OpenCode), and whether a
session resumes in a terminal. A :class:`SourceRef` names one source (agent, session id,
subagent id, location, the store's key for it): discovery makes it, capture hands it whole
to the store, so no layer derives identity from a path again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import overload

from lazy.agents.base import (
    COMPRESSED as COMPRESSED,
)
from lazy.agents.base import (
    Agent as Agent,
)
from lazy.agents.base import (
    Discover as Discover,
)
from lazy.agents.base import (
    LineReader as LineReader,
)
from lazy.agents.base import (
    Load as Load,
)
from lazy.agents.base import (
    MakeReader as MakeReader,
)
from lazy.agents.base import (
    SourceRef as SourceRef,
)
from lazy.agents.base import (
    facts_for as facts_for,
)
from lazy.agents.base import (
    jsonl_stem as jsonl_stem,
)
from lazy.agents.base import (
    unique as unique,
)
from lazy.agents.base import (
    uuid_tail as uuid_tail,
)


class Registry(Sequence[Agent]):
    """The agents, in registry order (claude, codex, opencode, then any a test registers).
    Read live: a test's agent registered later is seen by everything listing agents."""

    def __init__(self) -> None:
        self._agents: list[Agent] | None = None

    def _all(self) -> list[Agent]:
        if self._agents is None:
            # imported here: each agent's module imports this one for Agent and SourceRef
            from lazy.agents.claude.agent import CLAUDE
            from lazy.agents.codex.agent import CODEX
            from lazy.agents.opencode.agent import OPENCODE

            self._agents = [CLAUDE, CODEX, OPENCODE]
        return self._agents

    @overload
    def __getitem__(self, i: int) -> Agent: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Agent]: ...
    def __getitem__(self, i: int | slice) -> Agent | Sequence[Agent]:
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[Agent]:
        return iter(list(self._all()))

    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self._all())

    def get(self, name: str) -> Agent | None:
        return next((a for a in self._all() if a.name == name), None)

    def add(self, a: Agent) -> None:
        if self.get(a.name) is not None:
            raise ValueError(f"an agent named {a.name!r} is registered already")
        self._all().append(a)

    def remove(self, a: Agent) -> None:
        self._all().remove(a)


AGENTS = Registry()


def agent(name: str) -> Agent:
    """The registered agent of that name."""
    found = AGENTS.get(name)
    if found is None:
        raise ValueError(f"unknown agent {name!r}: expected one of {', '.join(AGENTS.names())}")
    return found


@contextmanager
def registered(a: Agent) -> Iterator[Agent]:
    """``a`` in the registry for the duration (a test's agent)."""
    AGENTS.add(a)
    try:
        yield a
    finally:
        AGENTS.remove(a)


class _Names(Sequence[str]):
    """The registered agents' names, read live."""

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        return AGENTS.names()[i]

    def __len__(self) -> int:
        return len(AGENTS)

    def __repr__(self) -> str:
        return repr(AGENTS.names())


class _DisplayNames(Mapping[str, str]):
    """Agent name -> display name, read live."""

    def __getitem__(self, name: str) -> str:
        found = AGENTS.get(name)
        if found is None:
            raise KeyError(name)
        return found.display_name

    def __iter__(self) -> Iterator[str]:
        return iter(AGENTS.names())

    def __len__(self) -> int:
        return len(AGENTS)


TOOLS: Sequence[str] = _Names()
TOOL_NAMES: Mapping[str, str] = _DisplayNames()


def source_of(path: Path, name: str | None = None) -> SourceRef:
    """The source a session file is, by ``name``'s agent; with no name, by the agent whose
    files are named like it, else the first line agent (Claude Code)."""
    if name is not None:
        return agent(name).source(path)
    named = [a for a in AGENTS if a.recognises is not None and a.recognises(path)]
    chosen = named[0] if named else next(a for a in AGENTS if a.reads == "lines")
    return chosen.source(path)


def make_reader(
    name: str,
    path: str,
    session_id: str,
    subagent_id: str | None = None,
    load: Load | None = None,
) -> LineReader:
    """Agent ``name``'s reader of one session file."""
    return agent(name).make_reader(path, session_id, subagent_id, load)
