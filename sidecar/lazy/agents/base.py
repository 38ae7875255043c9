"""What every agent is made of: an :class:`Agent` (everything lazy knows about one agent), a
:class:`SourceRef` (one source, as discovery found it and the store keys it), and the small
helpers their readers share. The registry of agents is ``lazy.agents``; agent modules import
this one, never the registry, so that the registry can import them."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from lazy.agents.jsonl import Line
from lazy.records import ReadBatch, SessionFacts

if TYPE_CHECKING:
    from lazy.agents.discovery import Discovery
    from lazy.agents.tools import CallShape, ResultShape

COMPRESSED = (".zst", ".gz")
_UUID_TAIL = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)

Load = Callable[[str], SessionFacts | None]


class ToolKnowledge(Protocol):
    """An agent's ``tools`` module: what each of its tool calls is, what a result says
    beside its output, and which text in a user line is its harness's, not the person's."""

    def describe(self, name: str, value: Any) -> CallShape: ...

    def describe_result(self, name: str, output: str) -> ResultShape: ...

    def harness_label(self, text: str) -> str | None: ...

    def harness_split(self, text: str) -> list[tuple[str | None, str]]: ...


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
    # how its sessions join into conversations (lazy.builders.rules): Claude Code's are
    # joined over its uuid DAG (a resume copies the lines it continues; 1.0.x replays them);
    # an agent that resumes in the same file joins only by what a session says it continues
    joins_by_uuid_dag: bool = False
    # the title it gives a forked session, the origin's title in the first group (OpenCode's
    # "<title> (fork #n)")
    fork_title: re.Pattern[str] | None = None
    # what its tools and harness text are, for the transcript (its ``tools`` module, imported
    # when a transcript is shown: capture needs none of it)
    tool_knowledge: Callable[[], ToolKnowledge] | None = None

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
