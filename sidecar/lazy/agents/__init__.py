"""Readers: one per agent, pure (bytes in, normalized records out), and what a path says."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from lazy.agents.jsonl import Line
from lazy.records import ReadBatch, SessionFacts

TOOLS = ("claude", "codex", "opencode")
TOOL_NAMES = {"claude": "Claude Code", "codex": "Codex CLI", "opencode": "OpenCode"}
COMPRESSED = (".zst", ".gz")
_UUID_TAIL = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)


class LineReader(Protocol):
    facts: dict[str, SessionFacts]

    def read(self, lines: Iterable[Line]) -> ReadBatch: ...


def facts_for(
    batch: ReadBatch,
    known: dict[str, SessionFacts],
    key: str,
    load: Callable[[str], SessionFacts | None] | None,
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


def tool_of(path: Path) -> str:
    """The agent that wrote a JSONL session file: Codex names its rollouts ``rollout-*``."""
    return "codex" if path.name.startswith("rollout-") else "claude"


def file_identity(path: Path) -> tuple[str, str | None]:
    """(session id the path gives, agent id for a Claude subagent file)."""
    stem = jsonl_stem(path)
    if stem.startswith("rollout-"):
        m = _UUID_TAIL.search(stem)
        return (m.group(0) if m else stem[len("rollout-") :]), None
    if stem.startswith("agent-"):
        agent = stem[len("agent-") :]
        parts = path.parts
        if "subagents" in parts:
            i = len(parts) - 1 - parts[::-1].index("subagents")
            return parts[i - 1], agent
        return stem, agent  # older layout: the lines name the parent session
    return stem, None


def make_reader(
    tool: str,
    path: str,
    session_id: str,
    agent: str | None = None,
    load: Callable[[str], SessionFacts | None] | None = None,
) -> LineReader:
    if tool == "codex":
        from lazy.agents.codex.reader import CodexReader

        return CodexReader(path, session_id, agent, load)
    from lazy.agents.claude.reader import ClaudeReader

    return ClaudeReader(path, session_id, agent, load)
