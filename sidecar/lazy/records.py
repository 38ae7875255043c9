"""What readers emit: light dataclasses (made once per source line, so they stay cheap),
and the constants capture shares. No pydantic here: capture's own path (a Claude Code hook
runs it after every turn) imports this, not lazy.model, and starts that much faster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# lazy's own machine one-shots start their prompt with this marker, so the session file
# carries it durably. Detection is anchored at the very start of the session's first user
# message (see protocol/oneshot.md); a conversation that merely quotes it is still captured.
ONESHOT_MARKER = "[lazy:one-shot v1]"

Role = Literal["user", "assistant", "reasoning", "tool_call", "tool_result", "system"]


@dataclass(slots=True)
class Entry:
    """One node of an agent's uuid DAG (a source line that carries a uuid)."""

    uuid: str
    logical_parent_uuid: str | None  # a compaction boundary's: the entry it continues from
    meta: bool  # harness-injected (caveats, expanded prompts): never used to link sessions


@dataclass(slots=True)
class MessagePart:
    """What one source line contributes to a message; lines sharing a key are one message."""

    key: str  # message.id for assistant API messages, else the line's uuid
    uuid: str
    role: Role
    blocks: list[dict[str, Any]]
    timestamp: str | None
    line_no: int
    model: str | None = None
    request_id: str | None = None
    usage: dict[str, Any] | None = None
    meta: bool = False  # harness text (expanded command prompt, compact summary)
    provider: str | None = None  # model provider (openai, anthropic, ...) when the source says
    agent_mode: str | None = None  # OpenCode's agent (build, plan, ...)


@dataclass(slots=True)
class Usage:
    """The tokens one model response cost, as its agent recorded them, counted once.

    ``input`` is the input billed at the full rate (cache reads and writes apart), ``output``
    includes reasoning, ``reasoning`` says how much of it was (None: the agent does not say).
    ``ukey`` is the response's identity wherever it is copied (a fork or resume copies it):
    the store counts each ukey once."""

    key: str  # the message (MessagePart.key) the tokens were spent on
    ukey: str
    timestamp: str | None
    model: str | None
    provider: str | None
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int | None = None


@dataclass(slots=True)
class SessionFacts:
    """Per-session facts a reader learns while streaming; merged across capture batches."""

    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    title: str | None = None
    clear_start: bool = False  # the session was opened by /clear
    continued_in: str | None = None  # `continued-in` record: the conversation moved on there
    # the session this one's opening lines were copied from (a fork, or a 1.0.x resume)
    copied_from: str | None = None
    forked: bool = False  # the copy says outright it is a fork (forkedFrom, 2.1.x)
    head_msg: str | None = None  # first assistant message.id: 1.0.x resumes replay it
    oneshot: bool = False
    first_user_seen: bool = False
    head_uuid: str | None = None  # first user/assistant entry that is not harness text
    head_parent: str | None = None
    tail_uuid: str | None = None  # the last entry read
    git_commit: str | None = None
    git_repo: str | None = None  # remote URL
    provider: str | None = None
    cursor: str | None = None  # reader state carried from one capture to the next (Codex: its turn)

    def saw(self, ts: str | None) -> None:
        """Widen the session's time span to take in ``ts`` (ISO 8601, UTC)."""
        if ts is None:
            return
        if self.first_timestamp is None or ts < self.first_timestamp:
            self.first_timestamp = ts
        if self.last_timestamp is None or ts > self.last_timestamp:
            self.last_timestamp = ts


@dataclass(slots=True)
class Quarantined:
    line_no: int
    offset: int
    reason: str
    raw: bytes  # the line; of a line past MAX_LINE only its head (the raw archive holds it all)
    origin: str | None = None  # the file, when not the one being captured (OpenCode's records)
    size: int | None = None  # the line's length, when ``raw`` is only its head

    @property
    def raw_size(self) -> int:
        return len(self.raw) if self.size is None else self.size


@dataclass(slots=True)
class ReadBatch:
    """The reader's output for a run of complete lines, keyed by session key."""

    entries: dict[str, list[Entry]] = field(default_factory=dict)
    parts: dict[str, list[MessagePart]] = field(default_factory=dict)
    facts: dict[str, SessionFacts] = field(default_factory=dict)
    sidechain_of: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    quarantine: list[Quarantined] = field(default_factory=list)
    # uuids of harness messages (an untagged caveat) earlier batches kept, now known to be
    # boilerplate because the built-in command they introduced arrived
    retract: dict[str, list[str]] = field(default_factory=dict)
    spawns: set[tuple[str, str]] = field(default_factory=set)  # (session, agent id) it ran
    usage: dict[str, list[Usage]] = field(default_factory=dict)  # tokens per model response
    unknown_types: dict[str, int] = field(default_factory=dict)
    lines: int = 0
