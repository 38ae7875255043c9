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

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, overload

from lazy.agents.jsonl import Line
from lazy.records import ReadBatch, SessionFacts

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery

COMPRESSED = (".zst", ".gz")
_UUID_TAIL = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)

Load = Callable[[str], SessionFacts | None]


class LineReader(Protocol):
    facts: dict[str, SessionFacts]

    def read(self, lines: Iterable[Line]) -> ReadBatch: ...


@dataclass(frozen=True, slots=True)
class SourceRef:
    """One source as the store knows it: which agent wrote it, the session id and subagent
    id it carries, where it is read from, and its key in the store (``source_files.path``:
    the file, or for OpenCode's database ``<db>#<session>``)."""

    agent: str
    session_id: str
    subagent_id: str | None
    location: Path
    key: str


# what an agent's discovery is handed: the roots to look in, those of them the user named
# (taken whole, unfiltered), and the project to keep (None: every project)
Discover = Callable[[list[Path], list[Path], str | None], "Discovery"]
MakeReader = Callable[[str, str, str | None, Load | None], LineReader]


@dataclass(frozen=True)
class Agent:
    """Everything lazy knows about one agent."""

    name: str  # as stored, in `--tool`, in `tool:` search filters
    display_name: str
    env: tuple[str, ...]  # environment variables that move its default roots
    default_roots: Callable[[], list[Path]]
    discover: Discover
    reads: Literal["lines", "records"]
    resumes_in_terminal: bool  # `lazy builder` can resume its sessions in a terminal
    source_hint: str = ""  # where --source should point, for "nothing found" messages
    roots_said: str = ""  # its default roots as help text says them
    # a subagent's thread is a session of its own (Codex, OpenCode); else it is part of its
    # parent's session (Claude Code: `lazy import claude --include-sidechains` brings them)
    subagent_sessions: bool = True
    provider: str | None = None  # the model provider, when its sessions do not say
    # a line agent's: its reader, and what a file's name says of the source in it
    line_reader: MakeReader | None = None
    source_of: Callable[[Path], SourceRef] | None = None
    # its session files are told apart by their names alone (Codex's ``rollout-*``)
    recognises: Callable[[Path], bool] | None = None
    # a record agent's: the files under its roots its records are kept in, by suffix
    record_files: tuple[str, ...] = ()
    # the file a source's store key names, when the key is not the file's path (OpenCode's
    # database holds every session: ``<db>#<session>``)
    key_location: Callable[[str], str] | None = None

    def make_reader(
        self, path: str, session_id: str, subagent_id: str | None = None, load: Load | None = None
    ) -> LineReader:
        if self.line_reader is None:
            raise ValueError(f"{self.display_name} sessions are records, not lines")
        return self.line_reader(path, session_id, subagent_id, load)

    def location(self, key: str) -> str:
        """The file one of its sources is read from, by the source's key in the store."""
        return key if self.key_location is None else self.key_location(key)

    def source(self, path: Path) -> SourceRef:
        """The source a file of this agent is, by what its name says."""
        if self.source_of is None:
            return SourceRef(self.name, jsonl_stem(path), None, path, str(path))
        return self.source_of(path)


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


def facts_for(
    batch: ReadBatch,
    known: dict[str, SessionFacts],
    key: str,
    load: Load | None,
) -> SessionFacts:
    """A session's facts for this batch: the ones this reader's earlier batches learnt, else
    the ones earlier captures stored (``load``), else new ones; shared by batch and reader."""
    f = batch.facts.get(key)
    if f is None:
        f = known.get(key)
        if f is None:
            f = (load(key) if load else None) or SessionFacts()
            known[key] = f
        batch.facts[key] = f
    return f


def jsonl_stem(path: Path) -> str:
    name = path.name
    for ext in COMPRESSED:
        name = name.removesuffix(ext)
    return name.removesuffix(".jsonl")


def unique(roots: Iterable[Path]) -> list[Path]:
    """The roots, each directory once (by where it really is)."""
    seen: set[str] = set()
    out = []
    for r in roots:
        key = os.path.realpath(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def uuid_tail(text: str) -> str | None:
    m = _UUID_TAIL.search(text)
    return m.group(0) if m else None


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
